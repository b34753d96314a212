// The force kernel's host side: the dispatch from a run-time (U, q, B, flags) to its compiled
// instance (force_kernel_u*.cu), the launch plans, and the leapfrog kernels. See force_kernel.hpp
// for the parameters, force_kernel_body.cuh for the kernel and its cost model.

#include "force_kernel.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <mutex>
#include <stdexcept>
#include <string>
#include <vector>

#include "force_kernel_instances.hpp"
#include "cuda_check.hpp"
#include "leapfrog_step.cuh"

namespace nbody::cuda {
namespace detail {

__global__ void kick_kernel(float4* __restrict__ vel, const float4* __restrict__ acc, int n, float half_dt) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) vel[i] = kicked(vel[i], acc[i], half_dt);
}

__global__ void kick_drift_kernel(const float4* __restrict__ pos_in, float4* __restrict__ pos_out,
                                  float4* __restrict__ vel, const float4* __restrict__ acc, int n,
                                  float half_dt, float dt) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const float4 v = kicked(vel[i], acc[i], half_dt);
    pos_out[i] = drifted(pos_in[i], v, dt);
    vel[i] = v;
}

constexpr int variant_key(int u, int q, int b, int f) { return ((u * 100 + q) * 100 + b) * 100 + f; }

template <class T, std::size_t K>
bool contains(const std::array<T, K>& values, int v) {
    for (int x : values)
        if (x == v) return true;
    return false;
}

template <std::size_t K>
std::string list(const std::array<int, K>& values) {
    std::string out;
    for (int x : values) out += (out.empty() ? "" : ", ") + std::to_string(x);
    return out;
}

bool is_experiment_variant(int u, int q, int b) {
    for (const ForceExperimentVariant& e : kForceExperimentVariants)
        if (e.unroll == u && e.threads_per_body == q && e.bodies_per_thread == b) return true;
    return false;
}

// The flags a launch uses: the variant's, else $NBODY_FORCE_FLAGS, else the product's.
int resolve_flags(const ForceVariant& v) {
    if (v.flags != kForceDefaultFlags) return v.flags;
    const char* env = std::getenv("NBODY_FORCE_FLAGS");
    if (env == nullptr || *env == '\0') return kForceProductFlags;
    const std::string text(env);
    int value = -1;
    if (!text.empty() && text.size() <= 2 && std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; }))
        value = std::stoi(text);
    if (value >= 0 && value <= kForceAllExperimentBits) return value;
    throw std::invalid_argument("NBODY_FORCE_FLAGS='" + text +
                                "' is not one of 0 .. 31 (bit 1: rotated tile, bit 2: single barrier, "
                                "bit 4: uniform-mass tiles, bit 8: 64-register budget, bit 16: 128-register "
                                "budget)");
}

// The flags an instance runs with at `block`: the product's become its 128-register companion's
// where one exists and the block is small enough for it.
int flags_for_block(const ForceVariant& v, int flags, int block) {
    if (flags == kForceProductFlags && block > kForceCompanionMinBlock && block <= kForceCompanionMaxBlock &&
        has_register_companion(v))
        return flags | kForceRegisters128;
    return flags;
}

ForceGrid resolve_grid(const ForceVariant& v) {
    if (v.grid != ForceGrid::Auto) return v.grid;
    const char* env = std::getenv("NBODY_FORCE_GRID");
    if (env == nullptr || *env == '\0') return ForceGrid::Auto;
    const std::string text(env);
    if (text == "auto") return ForceGrid::Auto;
    if (text == "classic") return ForceGrid::Classic;
    if (text == "balanced") return ForceGrid::Balanced;
    throw std::invalid_argument("NBODY_FORCE_GRID='" + text + "' is not one of auto, classic, balanced");
}

[[noreturn]] void throw_unsupported(const ForceVariant& v, int flags) {
    std::string msg = "no force kernel instance for unroll=" + std::to_string(v.unroll) +
                      ", threads_per_body=" + std::to_string(v.threads_per_body) +
                      ", bodies_per_thread=" + std::to_string(v.bodies_per_thread) + ":";
    const bool values_ok = contains(kUnrollValues, v.unroll) && contains(kThreadsPerBodyValues, v.threads_per_body) &&
                           contains(kBodiesPerThreadValues, v.bodies_per_thread);
    if (!contains(kUnrollValues, v.unroll))
        msg += " unroll " + std::to_string(v.unroll) + " is not supported (supported: " + list(kUnrollValues) + ");";
    if (!contains(kThreadsPerBodyValues, v.threads_per_body))
        msg += " threads_per_body " + std::to_string(v.threads_per_body) + " is not supported (supported: " +
               list(kThreadsPerBodyValues) + ");";
    if (!contains(kBodiesPerThreadValues, v.bodies_per_thread))
        msg += " bodies_per_thread " + std::to_string(v.bodies_per_thread) + " is not supported (supported: " +
               list(kBodiesPerThreadValues) + ");";
    if (values_ok && v.bodies_per_thread == 8 &&
        !(contains(kUnrollValuesB8, v.unroll) && contains(kThreadsPerBodyValuesB8, v.threads_per_body)))
        msg += " bodies_per_thread 8 is compiled only with unroll " + list(kUnrollValuesB8) + " and threads_per_body " +
               list(kThreadsPerBodyValuesB8) + ";";
    if (flags < 0 || flags > kForceAllExperimentBits) {
        msg += " flags " + std::to_string(flags) + " are not 0..31;";
    } else if (values_ok && flags != kForceProductFlags) {
        std::string combos;
        for (const ForceExperimentVariant& e : kForceExperimentVariants)
            combos += (combos.empty() ? "" : ", ") + std::string("U") + std::to_string(e.unroll) + " q" +
                      std::to_string(e.threads_per_body) + " B" + std::to_string(e.bodies_per_thread);
        std::string sets;
        for (int f : kForceExperimentFlags) sets += (sets.empty() ? "" : ", ") + std::to_string(f);
        msg += " kernel flags " + std::to_string(flags) + " (NBODY_FORCE_FLAGS; the product's are " +
               std::to_string(kForceProductFlags) + ") are compiled only for " + combos + ", and only as " + sets +
               ";";
    }
    msg.back() = '.';
    throw std::invalid_argument(msg);
}

// THE dispatch: run-time (U, q, B, flags) to a compiled instance. Default: error listing the values.
ForceKernelFn select_force_kernel(const ForceVariant& v, int flags) {
#define NBODY_FORCE_CASE(U, Q, B, F) \
    case variant_key(U, Q, B, F):    \
        return force_kernel_instance<U, Q, B, F>();
    // Out-of-range values cannot alias a valid key: u, q, b and flags are checked against the
    // lists before the key is formed.
    const bool in_range = contains(kUnrollValues, v.unroll) && contains(kThreadsPerBodyValues, v.threads_per_body) &&
                          contains(kBodiesPerThreadValues, v.bodies_per_thread) && flags >= 0 &&
                          flags <= kForceAllExperimentBits;
    switch (in_range ? variant_key(v.unroll, v.threads_per_body, v.bodies_per_thread, flags) : -1) {
        NBODY_FORCE_VARIANTS(NBODY_FORCE_CASE)
        default:
            throw_unsupported(v, flags);
    }
#undef NBODY_FORCE_CASE
}

std::size_t shared_bytes(int block, int flags) {
    return (flags & kForceSingleBarrier ? 2 : 1) * static_cast<std::size_t>(block) * sizeof(float4);
}

KernelOccupancy occupancy(ForceKernelFn fn, int block, int flags) {
    return cached_occupancy(reinterpret_cast<const void*>(fn), block, shared_bytes(block, flags));
}

}  // namespace detail

void require_force_instance(const ForceVariant& v) {
    const int flags = detail::resolve_flags(v);
    (void)detail::resolve_grid(v);  // a malformed override is an error here too, not at the launch
    (void)detail::select_force_kernel(v, flags);
}

bool has_register_companion(const ForceVariant& v) {
    return detail::contains(kForceCompanionUnroll, v.unroll) &&
           detail::contains(kForceCompanionThreadsPerBody, v.threads_per_body) &&
           detail::contains(kForceCompanionBodiesPerThread, v.bodies_per_thread);
}

int force_flags_at_block(const ForceVariant& v, int block) {
    return detail::flags_for_block(v, detail::resolve_flags(v), block);
}

ForceKernelResources force_kernel_resources(const ForceVariant& v, int block) {
    const detail::ForceKernelFn fn = detail::select_force_kernel(v, force_flags_at_block(v, block));
    cudaFuncAttributes attr{};
    CUDA_CHECK(cudaFuncGetAttributes(&attr, reinterpret_cast<const void*>(fn)));
    ForceKernelResources r;
    r.max_threads_per_block = attr.maxThreadsPerBlock;
    r.registers_per_thread = attr.numRegs;
    r.local_bytes_per_thread = attr.localSizeBytes;
    r.static_shared_bytes = attr.sharedSizeBytes;
    r.max_dynamic_shared_bytes = attr.maxDynamicSharedSizeBytes;
    r.ptx_version = attr.ptxVersion;
    r.binary_version = attr.binaryVersion;
    return r;
}

void ForceWorkspace::reserve(std::size_t counters, std::size_t partials, cudaStream_t stream) {
    if (counters_.size() < counters) {
        // Work queued on `stream` may still use the old buffer: cudaFree waits for the device.
        counters_ = DeviceBuffer<unsigned>();
        counters_ = DeviceBuffer<unsigned>(counters);
        CUDA_CHECK(cudaMemsetAsync(counters_.get(), 0, counters_.bytes(), stream));
    }
    if (partials_.size() < partials) {
        partials_ = DeviceBuffer<float4>();
        partials_ = DeviceBuffer<float4>(partials);
    }
}

bool usable_tile_mass(float m) { return std::isfinite(m) && m >= 0x1p-32f && m <= 0x1p32f; }

std::vector<float2> uniform_tile_masses(const float* masses, std::size_t n, std::size_t stride_floats, int block) {
    if (block <= 0) throw std::invalid_argument("uniform_tile_masses: block must be > 0");
    const std::size_t p = static_cast<std::size_t>(block);
    std::vector<float2> out((n + p - 1) / p, make_float2(0.0f, 0.0f));
    for (std::size_t t = 0; t < out.size(); ++t) {
        const std::size_t first = t * p;
        if (first + p > n) continue;  // a tail tile is padded with massless bodies: mixed
        const float m = masses[first * stride_floats];
        if (!usable_tile_mass(m)) continue;
        bool uniform = true;
        for (std::size_t j = first + 1; j < first + p && uniform; ++j) uniform = masses[j * stride_floats] == m;
        if (uniform) out[t] = make_float2(m, 1.0f / m);
    }
    return out;
}

void TileMasses::update(const float* masses, std::size_t n, std::size_t stride_floats, int block,
                        cudaStream_t stream) {
    if (block == block_ && n == n_) return;
    // The previous upload may still be reading host_: wait for it before refilling.
    CUDA_CHECK(cudaStreamSynchronize(stream));
    host_ = uniform_tile_masses(masses, n, stride_floats, block);
    if (device_.size() < host_.size()) {
        device_ = DeviceBuffer<float2>();
        device_ = DeviceBuffer<float2>(host_.size());
    }
    if (!host_.empty())
        CUDA_CHECK(cudaMemcpyAsync(device_.get(), host_.data(), host_.size() * sizeof(float2), cudaMemcpyHostToDevice,
                                   stream));
    uniform_ = 0;
    for (const float2& tm : host_) uniform_ += tm.x > 0.0f ? 1 : 0;
    block_ = block;
    n_ = n;
}

ForcePlan plan_force(const ForceVariant& v, int block, int n, bool have_workspace, int i_count) {
    if (i_count < 0) i_count = n;
    ForcePlan plan;
    plan.flags = force_flags_at_block(v, block);
    const ForceGrid wanted = detail::resolve_grid(v);
    const detail::ForceKernelFn fn = detail::select_force_kernel(v, plan.flags);
    if (n <= 0 || i_count <= 0) return plan;
    if (block <= 0 || block % kWarpSize != 0 || block > kMaxBlock)
        throw std::invalid_argument("force kernel block " + std::to_string(block) + " is not a multiple of 32 in 32..1024");
    plan.iblocks = force_grid_size(i_count, block, v);
    plan.tiles = (n + block - 1) / block;
    const KernelOccupancy occ = detail::occupancy(fn, block, plan.flags);
    plan.blocks_per_sm = occ.blocks_per_sm;
    const SplitDecision split = decide_split(wanted, plan.iblocks, plan.tiles, occ.sm_count, occ.blocks_per_sm,
                                             i_count, have_workspace, 1);
    plan.grid = split.grid;
    plan.blocks = split.blocks;
    plan.max_contributors = split.max_contributors;
    plan.classic_efficiency = split.classic_efficiency;
    return plan;
}

KernelOccupancy cached_occupancy(const void* kernel, int block, std::size_t shared_bytes) {
    struct Entry {
        int device;
        const void* kernel;
        int block;
        std::size_t shared;
        KernelOccupancy occ;
    };
    static std::mutex mutex;
    static std::vector<Entry> cache;
    int device = 0;
    CUDA_CHECK(cudaGetDevice(&device));
    const std::lock_guard<std::mutex> lock(mutex);
    for (const Entry& e : cache)
        if (e.device == device && e.kernel == kernel && e.block == block && e.shared == shared_bytes) return e.occ;
    KernelOccupancy occ;
    CUDA_CHECK(cudaDeviceGetAttribute(&occ.sm_count, cudaDevAttrMultiProcessorCount, device));
    CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&occ.blocks_per_sm, kernel, block, shared_bytes));
    cache.push_back({device, kernel, block, shared_bytes, occ});
    return occ;
}

SplitDecision decide_split(ForceGrid wanted, int iblocks, int tiles, int sm_count, int blocks_per_sm, int n,
                           bool have_workspace, int partials_per_contributor) {
    SplitDecision d;
    const long long slots = static_cast<long long>(sm_count) * blocks_per_sm;
    const double per_sm = double(iblocks) / sm_count;
    d.classic_efficiency = per_sm / std::ceil(per_sm);
    ForceGrid grid = wanted;
    if (grid == ForceGrid::Auto)
        grid = (d.classic_efficiency < 0.99 || iblocks < slots) ? ForceGrid::Balanced : ForceGrid::Classic;
    const long long work = static_cast<long long>(iblocks) * tiles;
    const long long blocks = std::min(work, slots);
    if (grid == ForceGrid::Balanced) {
        const long long share = blocks > 0 ? work / blocks : 0;
        // T consecutive steps meet at most ceil((T - 1) / share) + 1 blocks of >= share steps each.
        const long long contributors = share > 0 ? (tiles - 1 + share - 1) / share + 1 : 0;
        constexpr long long kIntLimit = 2147483647LL;
        if (!have_workspace || blocks <= 0 || blocks == iblocks || work > kIntLimit ||
            partials_per_contributor * contributors * n > kIntLimit)
            grid = ForceGrid::Classic;
        else
            d.max_contributors = static_cast<int>(contributors);
    }
    d.grid = grid;
    d.blocks = grid == ForceGrid::Balanced ? static_cast<int>(blocks) : iblocks;
    return d;
}

void launch_force(const ForceVariant& v, int block, const ForceArgs& a, cudaStream_t stream) {
    const int i_count = a.i_count < 0 ? a.n : a.i_count;
    if (a.i_begin < 0 || i_count > a.n || a.i_begin > a.n - i_count)
        throw std::invalid_argument("force pass: i-bodies [" + std::to_string(a.i_begin) + ", " +
                                    std::to_string(a.i_begin + i_count) + ") outside the " + std::to_string(a.n) +
                                    " bodies");
    const ForcePlan plan = plan_force(v, block, a.n, a.workspace != nullptr, i_count);
    const detail::ForceKernelFn fn = detail::select_force_kernel(v, plan.flags);
    if (a.n <= 0 || i_count == 0) return;
    detail::ForceKernelParams k{};
    k.pos = a.pos;
    k.n = a.n;
    k.i_begin = a.i_begin;
    k.i_count = i_count;
    k.eps2 = a.eps2;
    k.acc = a.acc;
    k.vel = a.vel;
    k.half_dt = a.half_dt;
    k.tiles = plan.tiles;
    k.tile_mass = a.tile_mass;
    if (plan.grid == ForceGrid::Balanced) {
        const long long work = static_cast<long long>(plan.iblocks) * plan.tiles;  // < 2^31 (plan_force)
        k.share = static_cast<int>(work / plan.blocks);
        k.extra = static_cast<int>(work % plan.blocks);
        a.workspace->reserve(static_cast<std::size_t>(plan.iblocks),
                             static_cast<std::size_t>(plan.max_contributors) * static_cast<std::size_t>(i_count), stream);
        k.partials = a.workspace->partials();
        k.counters = a.workspace->counters();
    }
    fn<<<plan.blocks, block, detail::shared_bytes(block, plan.flags), stream>>>(k);
    CUDA_CHECK_LAUNCH();
}

void launch_kick_drift(const float4* pos_in, float4* pos_out, float4* vel, const float4* acc, int n,
                       float half_dt, float dt, cudaStream_t stream) {
    if (n <= 0) return;
    constexpr int kBlock = 256;
    detail::kick_drift_kernel<<<(n + kBlock - 1) / kBlock, kBlock, 0, stream>>>(pos_in, pos_out, vel, acc, n,
                                                                                 half_dt, dt);
    CUDA_CHECK_LAUNCH();
}

void launch_kick(float4* vel, const float4* acc, int n, float half_dt, cudaStream_t stream) {
    if (n <= 0) return;
    constexpr int kBlock = 256;
    detail::kick_kernel<<<(n + kBlock - 1) / kBlock, kBlock, 0, stream>>>(vel, acc, n, half_dt);
    CUDA_CHECK_LAUNCH();
}

std::string kernel_image_problem() {
    cudaFuncAttributes attr{};
    const cudaError_t err =
        cudaFuncGetAttributes(&attr, reinterpret_cast<const void*>(&detail::kick_drift_kernel));
    if (err == cudaSuccess) return {};
    (void)cudaGetLastError();  // not sticky; clear it so later calls do not report it again
    int device = 0, major = 0, minor = 0;
    if (cudaGetDevice(&device) == cudaSuccess &&
        cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device) == cudaSuccess &&
        cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device) == cudaSuccess &&
        (err == cudaErrorNoKernelImageForDevice || err == cudaErrorInvalidDeviceFunction)) {
        return "this build has no kernel image for the device's architecture sm_" + std::to_string(major) +
               std::to_string(minor) + "; rebuild with -DCMAKE_CUDA_ARCHITECTURES=" + std::to_string(major) +
               std::to_string(minor) + " (" + cudaGetErrorString(err) + ")";
    }
    return std::string("the CUDA runtime cannot load the kernels: ") + cudaGetErrorName(err) + " (" +
           cudaGetErrorString(err) + ")";
}

}  // namespace nbody::cuda
