// The tiled all-pairs gravity kernel and the leapfrog kernels. See force_kernel.hpp for the
// parameters. Cost model (SASS with --use_fast_math, one interaction):
//   3 FADD (r = x_j - x_i), 3 FFMA (r.r + eps^2), 1 MUFU.RSQ, 3 FMUL (m_j / r^3), 3 FFMA (a += s r)
// = 12 FP32 instructions + 1 MUFU, plus 1/B shared loads (LDS.128) and loop overhead / U.
// No masking in the inner loop: a tail tile is padded with zero-mass bodies, whose terms are
// exactly 0 because eps^2 > 0 keeps r^2 + eps^2 finite and positive.

#include "force_kernel.hpp"

#include <stdexcept>
#include <string>

#include "cuda_check.hpp"

namespace nbody::cuda {
namespace detail {

// 20 flops in the GPU Gems 3 count; 12 FP32 instructions + 1 MUFU here.
__device__ __forceinline__ void accumulate(const float3& xi, const float4& pj, float eps2, float3& a) {
    const float dx = pj.x - xi.x;
    const float dy = pj.y - xi.y;
    const float dz = pj.z - xi.z;
    const float r2 = fmaf(dx, dx, fmaf(dy, dy, fmaf(dz, dz, eps2)));
    const float inv_r = rsqrtf(r2);  // MUFU.RSQ under --use_fast_math (ftz)
    // m / r^3 as (m / r) * (1 / r^2): two independent FMULs, then one, a shorter chain than m*r*r*r.
    const float s = (pj.w * inv_r) * (inv_r * inv_r);
    a.x = fmaf(dx, s, a.x);
    a.y = fmaf(dy, s, a.y);
    a.z = fmaf(dz, s, a.z);
}

// One block of p = blockDim.x threads. Thread t is lane s = t % Q of body group g = t / Q; the
// group owns bodies first + b * (p/Q), b < B (consecutive groups own consecutive bodies, so loads
// and stores stay coalesced). Every thread loads one body of each tile, so the tile is p bodies
// whatever Q and B are. Lane s reads tile[k*Q + s]: the Q lanes of a group read Q consecutive
// float4s, which every group of the warp reads too (broadcast), so there are no bank conflicts.
// Threads whose bodies lie beyond n compute on a dummy body and write nothing: they must still
// reach every __syncthreads() and shuffle.
template <int U, int Q, int B>
__global__ void force_kernel(const float4* __restrict__ pos, int n, float eps2, float4* __restrict__ acc,
                             float4* __restrict__ vel, float half_dt) {
    static_assert(U >= 1 && Q >= 1 && Q <= 32 && (Q & (Q - 1)) == 0 && B >= 1, "bad force kernel variant");
    extern __shared__ float4 tile[];

    const int p = blockDim.x;
    const int t = threadIdx.x;
    const int s = t % Q;
    const int groups = p / Q;  // bodies per block for each b; also j-values per lane per tile
    const int first = blockIdx.x * groups * B + t / Q;

    float3 xi[B];
    float3 ai[B];
#pragma unroll
    for (int b = 0; b < B; ++b) {
        const int i = first + b * groups;
        const float4 pi = i < n ? pos[i] : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
        xi[b] = make_float3(pi.x, pi.y, pi.z);
        ai[b] = make_float3(0.0f, 0.0f, 0.0f);
    }

    const float4* lane_tile = tile + s;
    // Software pipelining: the next tile's body is loaded from global memory before this tile's
    // interactions run, so its latency (~600 cycles) hides behind them instead of stalling the
    // block at the barrier. Costs 4 registers.
    float4 next = t < n ? pos[t] : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    for (int base = 0; base < n; base += p) {
        tile[t] = next;
        __syncthreads();
        const int j = base + p + t;
        next = j < n ? pos[j] : make_float4(0.0f, 0.0f, 0.0f, 0.0f);

        int k = 0;
        for (; k + U <= groups; k += U) {
#pragma unroll
            for (int u = 0; u < U; ++u) {
                const float4 pj = lane_tile[(k + u) * Q];
#pragma unroll
                for (int b = 0; b < B; ++b) accumulate(xi[b], pj, eps2, ai[b]);
            }
        }
        // Only when U does not divide p/Q (small blocks with large U or Q).
#pragma unroll 1
        for (; k < groups; ++k) {
            const float4 pj = lane_tile[k * Q];
#pragma unroll
            for (int b = 0; b < B; ++b) accumulate(xi[b], pj, eps2, ai[b]);
        }
        __syncthreads();
    }

    // Butterfly over the Q lanes of the group (Q divides 32 and groups are aligned, so they never
    // straddle a warp). a + b == b + a in IEEE arithmetic, so every lane ends with the same sums.
#pragma unroll
    for (int offset = Q / 2; offset > 0; offset /= 2) {
#pragma unroll
        for (int b = 0; b < B; ++b) {
            ai[b].x += __shfl_xor_sync(0xffffffffu, ai[b].x, offset);
            ai[b].y += __shfl_xor_sync(0xffffffffu, ai[b].y, offset);
            ai[b].z += __shfl_xor_sync(0xffffffffu, ai[b].z, offset);
        }
    }

#pragma unroll
    for (int b = 0; b < B; ++b) {
        const int i = first + b * groups;
        if (s == b % Q && i < n) {  // spread the B stores over the group's lanes
            acc[i] = make_float4(ai[b].x, ai[b].y, ai[b].z, 0.0f);
            if (vel != nullptr) {
                float4 v = vel[i];
                v.x = fmaf(ai[b].x, half_dt, v.x);
                v.y = fmaf(ai[b].y, half_dt, v.y);
                v.z = fmaf(ai[b].z, half_dt, v.z);
                vel[i] = v;
            }
        }
    }
}

__global__ void kick_drift_kernel(const float4* __restrict__ pos_in, float4* __restrict__ pos_out,
                                  float4* __restrict__ vel, const float4* __restrict__ acc, int n,
                                  float half_dt, float dt) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const float4 a = acc[i];
    float4 v = vel[i];
    v.x = fmaf(a.x, half_dt, v.x);
    v.y = fmaf(a.y, half_dt, v.y);
    v.z = fmaf(a.z, half_dt, v.z);
    const float4 x = pos_in[i];
    pos_out[i] = make_float4(fmaf(v.x, dt, x.x), fmaf(v.y, dt, x.y), fmaf(v.z, dt, x.z), x.w);
    vel[i] = v;
}

using ForceKernelFn = void (*)(const float4*, int, float, float4*, float4*, float);

// The supported variants, as one list that both the explicit instantiations and the dispatch
// switch expand, so they cannot disagree. Keep in step with kUnrollValues & co. in the header.
#define NBODY_FORCE_B(X, U, Q) X(U, Q, 1) X(U, Q, 2) X(U, Q, 4)
#define NBODY_FORCE_Q(X, U)                                                                          \
    NBODY_FORCE_B(X, U, 1) NBODY_FORCE_B(X, U, 2) NBODY_FORCE_B(X, U, 4) NBODY_FORCE_B(X, U, 8)      \
    NBODY_FORCE_B(X, U, 16) NBODY_FORCE_B(X, U, 32)
#define NBODY_FORCE_VARIANTS(X)                                                                      \
    NBODY_FORCE_Q(X, 1) NBODY_FORCE_Q(X, 2) NBODY_FORCE_Q(X, 4) NBODY_FORCE_Q(X, 8)                  \
    NBODY_FORCE_Q(X, 16) NBODY_FORCE_Q(X, 32)

#define NBODY_FORCE_INSTANTIATE(U, Q, B) \
    template __global__ void force_kernel<U, Q, B>(const float4*, int, float, float4*, float4*, float);
NBODY_FORCE_VARIANTS(NBODY_FORCE_INSTANTIATE)
#undef NBODY_FORCE_INSTANTIATE

constexpr int variant_key(int u, int q, int b) { return u * 10000 + q * 100 + b; }

template <std::size_t K>
bool contains(const std::array<int, K>& values, int v) {
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

[[noreturn]] void throw_unsupported(const ForceVariant& v) {
    std::string msg = "no force kernel instance for unroll=" + std::to_string(v.unroll) +
                      ", threads_per_body=" + std::to_string(v.threads_per_body) +
                      ", bodies_per_thread=" + std::to_string(v.bodies_per_thread) + ":";
    if (!contains(kUnrollValues, v.unroll))
        msg += " unroll " + std::to_string(v.unroll) + " is not supported (supported: " + list(kUnrollValues) + ");";
    if (!contains(kThreadsPerBodyValues, v.threads_per_body))
        msg += " threads_per_body " + std::to_string(v.threads_per_body) + " is not supported (supported: " +
               list(kThreadsPerBodyValues) + ");";
    if (!contains(kBodiesPerThreadValues, v.bodies_per_thread))
        msg += " bodies_per_thread " + std::to_string(v.bodies_per_thread) + " is not supported (supported: " +
               list(kBodiesPerThreadValues) + ");";
    msg.back() = '.';
    throw std::invalid_argument(msg);
}

// THE dispatch: run-time (U, q, B) to a compiled instance. Default: error listing the values.
ForceKernelFn select_force_kernel(const ForceVariant& v) {
#define NBODY_FORCE_CASE(U, Q, B) \
    case variant_key(U, Q, B):    \
        return &force_kernel<U, Q, B>;
    // Out-of-range values cannot alias a valid key: u, q and b are checked against the lists
    // before the key is formed.
    const bool in_range = contains(kUnrollValues, v.unroll) && contains(kThreadsPerBodyValues, v.threads_per_body) &&
                          contains(kBodiesPerThreadValues, v.bodies_per_thread);
    switch (in_range ? variant_key(v.unroll, v.threads_per_body, v.bodies_per_thread) : -1) {
        NBODY_FORCE_VARIANTS(NBODY_FORCE_CASE)
        default:
            throw_unsupported(v);
    }
#undef NBODY_FORCE_CASE
}

}  // namespace detail

void require_force_instance(const ForceVariant& v) { (void)detail::select_force_kernel(v); }

ForceKernelResources force_kernel_resources(const ForceVariant& v) {
    const detail::ForceKernelFn fn = detail::select_force_kernel(v);
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

void launch_force(const ForceVariant& v, int block, const ForceArgs& a, cudaStream_t stream) {
    const detail::ForceKernelFn fn = detail::select_force_kernel(v);
    if (a.n <= 0) return;
    const int grid = force_grid_size(a.n, block, v);
    fn<<<grid, block, force_shared_bytes(block), stream>>>(a.pos, a.n, a.eps2, a.acc, a.vel, a.half_dt);
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
