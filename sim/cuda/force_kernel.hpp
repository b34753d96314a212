#pragma once
// Driver functions of the all-pairs force kernel and the leapfrog kernels (force_kernel.cu).
// Plain functions on raw device pointers, sizes and a variant: the only way host code reaches a
// kernel. This header pulls in the CUDA runtime API (float4, cudaStream_t) and nothing heavier.
//
// The force kernel (GPU Gems 3 ch. 31, with the j-split of fig. 31-8 done inside a warp and the
// i-loop unrolling of Fujiwara & Nakasato 2009) has three compile-time parameters:
//   U  unroll         j-loop unroll factor over a tile                      1, 2, 4, 8, 16, 32
//   q  threads_per_body  q consecutive lanes share one body; lane s takes j = k*q + s of each
//                     tile and the q partial sums are combined with warp shuffles 1 ... 32
//   B  bodies_per_thread  i-bodies a thread keeps in registers, each j read from shared memory
//                     serving B interactions                                1, 2, 4
// and one run-time parameter, the block size p (a multiple of 32): tiles of p bodies are staged
// in dynamic shared memory, and a block computes p*B/q bodies.

#include <cuda_runtime_api.h>

#include <array>
#include <cstddef>
#include <string>

namespace nbody::cuda {

inline constexpr std::array<int, 6> kUnrollValues{1, 2, 4, 8, 16, 32};
inline constexpr std::array<int, 6> kThreadsPerBodyValues{1, 2, 4, 8, 16, 32};
inline constexpr std::array<int, 3> kBodiesPerThreadValues{1, 2, 4};
inline constexpr int kWarpSize = 32;
inline constexpr int kMaxBlock = 1024;  // CUDA's limit on threads per block, before registers

struct ForceVariant {
    int unroll = 4;
    int threads_per_body = 1;
    int bodies_per_thread = 1;
};

// Throws std::invalid_argument naming the unsupported value(s) and listing the supported ones
// when `v` has no compiled instance. Needs no device: this is the dispatch switch itself.
void require_force_instance(const ForceVariant& v);

// What the compiled instance of `v` needs on the current device.
struct ForceKernelResources {
    int max_threads_per_block = 0;  // lowered below 1024 when the registers per thread demand it
    int registers_per_thread = 0;
    std::size_t local_bytes_per_thread = 0;  // > 0 means spills (never expected)
    std::size_t static_shared_bytes = 0;
    int max_dynamic_shared_bytes = 0;
    int ptx_version = 0, binary_version = 0;
};
// Throws std::invalid_argument for a variant without instance, std::runtime_error when the CUDA
// runtime refuses (e.g. no kernel image for this device's architecture).
ForceKernelResources force_kernel_resources(const ForceVariant& v);

// Dynamic shared memory a block of `block` threads uses: one tile of float4 bodies.
constexpr std::size_t force_shared_bytes(int block) { return static_cast<std::size_t>(block) * sizeof(float4); }

// Bodies one block computes, and the blocks needed for n bodies.
constexpr int bodies_per_block(int block, const ForceVariant& v) {
    return block / v.threads_per_body * v.bodies_per_thread;
}
constexpr int force_grid_size(int n, int block, const ForceVariant& v) {
    const int per_block = bodies_per_block(block, v);
    return (n + per_block - 1) / per_block;
}

struct ForceArgs {
    const float4* pos = nullptr;  // n bodies (x, y, z, m)
    int n = 0;
    float eps2 = 0;               // softening squared, > 0 (self-interaction is 0 * 1/eps^3)
    float4* acc = nullptr;        // out: accelerations (w = 0)
    float4* vel = nullptr;        // nullptr: force only; else v += a * half_dt (the closing kick)
    float half_dt = 0;
};

// Launches the force pass on `stream`. The caller has validated (variant, block) against the
// device; bad launches still surface as std::runtime_error from CUDA_CHECK_LAUNCH.
void launch_force(const ForceVariant& v, int block, const ForceArgs& args, cudaStream_t stream);

// Opening kick and drift of a leapfrog step: v += a dt/2; x_out = x_in + v dt (mass copied).
void launch_kick_drift(const float4* pos_in, float4* pos_out, float4* vel, const float4* acc, int n,
                       float half_dt, float dt, cudaStream_t stream);

// Empty when the current device can run this build's kernels, else the reason (typically a
// device architecture that the build did not compile for).
std::string kernel_image_problem();

}  // namespace nbody::cuda
