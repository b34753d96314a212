#include "nbody/render/cuda_splat_deposit.hpp"

#include <cuda_runtime.h>

#include <stdexcept>
#include <string>

#include "../../sim/cuda/cuda_check.hpp"  // CUDA_CHECK: header-only
#include "cuda_splat.hpp"
#include "nbody/render/particle_buffers.hpp"
#include "nbody/render/particle_splatter.hpp"

namespace nbody::render {

namespace {

// Registers `buffer` into `registration` unless it is registered already.
void keep_registered(CudaGlRegistration& registration, unsigned& registered_id, unsigned buffer) {
    if (registration && registered_id == buffer) return;
    registration.reset();
    registration = CudaGlRegistration(buffer);
    registered_id = buffer;
}

}  // namespace

CudaSplatDeposit::CudaSplatDeposit() {
    // The highest priority: where the deposit's blocks and the simulation's wait for an SM
    // together, the deposit's go first (the frame waits for them, the step does not). It
    // preempts no running block: beside the persistent tree walk it needs room (WalkRoom).
    int least = 0, greatest = 0;
    CUDA_CHECK(cudaDeviceGetStreamPriorityRange(&least, &greatest));
    cudaStream_t stream = nullptr;
    CUDA_CHECK(cudaStreamCreateWithPriority(&stream, cudaStreamNonBlocking, greatest));
    stream_ = stream;
}

CudaSplatDeposit::~CudaSplatDeposit() {
    if (stream_) CUDA_CHECK_LOG(cudaStreamSynchronize(static_cast<cudaStream_t>(stream_)));
    light_.reset();
    saturated_.reset();
    large_.reset();
    if (colour_table_) CUDA_CHECK_LOG(cudaFree(colour_table_));
    if (stream_) CUDA_CHECK_LOG(cudaStreamDestroy(static_cast<cudaStream_t>(stream_)));
}

void CudaSplatDeposit::register_splatter(const ParticleSplatter& splatter) {
    keep_registered(light_, light_id_, splatter.light_buffer());
    keep_registered(saturated_, saturated_id_, splatter.saturated_buffer());
    keep_registered(large_, large_id_, splatter.large_list_buffer());
}

void CudaSplatDeposit::set_colour_table(const std::vector<sprite::F3>& table) {
    if (table.size() != std::size_t(sprite::kColourTable))
        throw std::invalid_argument("the colour table has " + std::to_string(table.size()) + " texels, not " +
                                    std::to_string(sprite::kColourTable));
    if (!colour_table_) CUDA_CHECK(cudaMalloc(&colour_table_, table.size() * sizeof(sprite::F3)));
    CUDA_CHECK(cudaMemcpyAsync(colour_table_, table.data(), table.size() * sizeof(sprite::F3),
                                        cudaMemcpyHostToDevice, static_cast<cudaStream_t>(stream_)));
}

void CudaSplatDeposit::deposit(const ParticleBuffers& particles, const ParticleSplatter& splatter,
                               const sprite::SpriteUniforms& uniforms) {
    if (!particles.current_registration() || !particles.labels_registration())
        throw std::logic_error("the CUDA deposit needs the particles' buffers registered with CUDA");
    register_splatter(splatter);
    if (const CudaEvent* written = particles.cuda_written()) written->wait_in(stream_);
    timer_.poll();
    timer_.start(stream_, frames_++);
    // Read-write hints throughout: the position buffers are mapped write-discard by the copy of
    // the newest published state each frame, and hints that changed every frame would cost a
    // cudaGraphicsResourceSetMapFlags per buffer and frame.
    ScopedCudaMap map({{&particles.current_registration(), MapHint::ReadWrite},
                       {&particles.previous_registration(), MapHint::ReadWrite},
                       {&particles.labels_registration(), MapHint::ReadWrite},
                       {&light_, MapHint::ReadWrite},
                       {&saturated_, MapHint::ReadWrite},
                       {&large_, MapHint::ReadWrite}},
                      stream_);
    SplatDepositArgs args;
    args.positions = static_cast<const sprite::F4*>(map.pointer(0));
    args.previous = static_cast<const sprite::F4*>(map.pointer(1));
    args.labels = static_cast<const std::uint32_t*>(map.pointer(2));
    args.bodies = std::uint32_t(particles.size());
    args.light = static_cast<std::uint32_t*>(map.pointer(3));
    args.light_bytes = splatter.light_bytes();
    args.saturated = static_cast<std::uint32_t*>(map.pointer(4));
    args.saturated_bytes = splatter.saturated_bytes();
    args.large = static_cast<std::uint32_t*>(map.pointer(5));
    args.sprite = uniforms;
    args.sprite.colour_table = colour_table_;
    args.splat = splatter.splat_uniforms();
    if (map.bytes(3) < args.light_bytes || map.bytes(4) < args.saturated_bytes ||
        map.bytes(0) < particles.position_bytes())
        throw std::logic_error("the CUDA deposit's buffers are smaller than the frame needs");
    splat_deposit(args, stream_);
    timer_.stop(stream_);
    map.unmap();
}

}  // namespace nbody::render
