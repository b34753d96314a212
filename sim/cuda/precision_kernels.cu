// The precision variants of the tiled all-pairs kernel and their integration kernels. See
// precision_kernels.hpp for the modes and parameters, docs/PRECISION.md for the error analysis.
//
// Cost per interaction against the fp32 kernel's 12 FP32 instructions + 1 MUFU (force_kernel.cu):
//   Fp32Jbag  the same 12 + 3 FADD per kSubBag interactions (sub-bag into J-BAG) + 12 FADD per
//             J-BAG of p/q interactions (compensated add into the total): +0.23 at p/q = 256.
//   Ds        +6 FADD (eq. 3: three subtractions become three each) + one more LDS.128 per j
//             (the lo parts), shared by the B bodies, + the Fp32Jbag summation.
//   Fp64      3 DADD + 3 DFMA + rsqrt in double (MUFU.RSQ64H + Newton steps in DFMA) + 3 DMUL +
//             3 DFMA, on an FP64 pipe of half the FP32 width.
// As in force_kernel.cu, a tail tile is padded with zero-mass bodies (exact zero terms since
// eps^2 > 0) and every thread reaches every barrier and shuffle.
//
// --use_fast_math applies to this file (sim/CMakeLists.txt): FMA contraction and flush-to-zero.
// The error-free transformations below (two-sum, Kahan) use __fadd_rn/__fsub_rn, which the compiler
// never contracts or reorders, so they stay exact whatever the flags. Doubles are unaffected.

#include <stdexcept>
#include <string>

#include "cuda_check.hpp"
#include "precision_kernels.hpp"

namespace nbody::cuda {
namespace detail {

constexpr int kIntegrateBlock = 256;

// ---- arithmetic helpers ---------------------------------------------------------------------

// (hi, lo) += b, double-single plus single (DSFUN's dsadd with a float operand): Knuth's two-sum
// of hi + b, the lo parts added, renormalised with Dekker's fast two-sum. 10 FADD.
__device__ __forceinline__ void ds_add(float& hi, float& lo, float b) {
    const float s = __fadd_rn(hi, b);
    const float bb = __fsub_rn(s, hi);
    const float err = __fadd_rn(__fsub_rn(hi, __fsub_rn(s, bb)), __fsub_rn(b, bb));
    const float t = __fadd_rn(lo, err);
    hi = __fadd_rn(s, t);
    lo = __fsub_rn(t, __fsub_rn(hi, s));
}

// Kahan: (s, c) += x, with s - c the compensated total.
__device__ __forceinline__ void kahan_add(float& s, float& c, float x) {
    const float y = __fsub_rn(x, c);
    const float t = __fadd_rn(s, y);
    c = __fsub_rn(__fsub_rn(t, s), y);
    s = t;
}

__device__ __forceinline__ Double4 load_double4(const Double4* p, int i) {
    const double2* q = reinterpret_cast<const double2*>(p + i);
    const double2 a = q[0], b = q[1];
    return Double4{a.x, a.y, b.x, b.y};
}

__device__ __forceinline__ void store_double4(Double4* p, int i, const Double4& v) {
    double2* q = reinterpret_cast<double2*>(p + i);
    q[0] = make_double2(v.x, v.y);
    q[1] = make_double2(v.z, v.w);
}

// ---- the per-mode parts of the kernel -------------------------------------------------------

struct DsBody {  // one j-body in the Ds tile
    float4 hi;   // x_hi, y_hi, z_hi, m
    float4 lo;   // x_lo, y_lo, z_lo, 0
};
struct DsPos {
    float3 hi, lo;
};

template <PrecisionMode M>
struct Mode;

template <>
struct Mode<PrecisionMode::Fp32Jbag> {
    using JBody = float4;
    using IPos = float3;
    using Real = float;
    static constexpr bool kBags = true;

    __device__ static JBody load_j(const PrecisionForceArgs& a, int j) {
        return j < a.n ? a.pos[j] : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    }
    __device__ static IPos load_i(const PrecisionForceArgs& a, int i) {
        const float4 p = load_j(a, i);
        return make_float3(p.x, p.y, p.z);
    }
    // The fp32 kernel's interaction, instruction for instruction.
    __device__ static void accumulate(const IPos& xi, const JBody& pj, float eps2, float3& acc) {
        const float dx = pj.x - xi.x;
        const float dy = pj.y - xi.y;
        const float dz = pj.z - xi.z;
        const float r2 = fmaf(dx, dx, fmaf(dy, dy, fmaf(dz, dz, eps2)));
        const float inv_r = rsqrtf(r2);
        const float s = (pj.w * inv_r) * (inv_r * inv_r);
        acc.x = fmaf(dx, s, acc.x);
        acc.y = fmaf(dy, s, acc.y);
        acc.z = fmaf(dz, s, acc.z);
    }
};

template <>
struct Mode<PrecisionMode::Ds> {
    using JBody = DsBody;
    using IPos = DsPos;
    using Real = float;
    static constexpr bool kBags = true;

    __device__ static JBody load_j(const PrecisionForceArgs& a, int j) {
        if (j >= a.n) return DsBody{make_float4(0.0f, 0.0f, 0.0f, 0.0f), make_float4(0.0f, 0.0f, 0.0f, 0.0f)};
        return DsBody{a.pos[j], a.pos_lo[j]};
    }
    __device__ static IPos load_i(const PrecisionForceArgs& a, int i) {
        const DsBody b = load_j(a, i);
        return DsPos{make_float3(b.hi.x, b.hi.y, b.hi.z), make_float3(b.lo.x, b.lo.y, b.lo.z)};
    }
    // Sapporo eq. 3. When x_i and x_j lie within a factor of 2 of each other (a displaced cluster)
    // the hi difference is exact (Sterbenz), the lo difference is tiny and nearly exact, and the
    // separation is rounded once, as fp32 rounds the difference of two exact floats. No product
    // touches these sums, so FMA contraction cannot change them.
    __device__ static void accumulate(const IPos& xi, const JBody& pj, float eps2, float3& acc) {
        const float dx = (pj.hi.x - xi.hi.x) + (pj.lo.x - xi.lo.x);
        const float dy = (pj.hi.y - xi.hi.y) + (pj.lo.y - xi.lo.y);
        const float dz = (pj.hi.z - xi.hi.z) + (pj.lo.z - xi.lo.z);
        const float r2 = fmaf(dx, dx, fmaf(dy, dy, fmaf(dz, dz, eps2)));
        const float inv_r = rsqrtf(r2);
        const float s = (pj.hi.w * inv_r) * (inv_r * inv_r);
        acc.x = fmaf(dx, s, acc.x);
        acc.y = fmaf(dy, s, acc.y);
        acc.z = fmaf(dz, s, acc.z);
    }
};

template <>
struct Mode<PrecisionMode::Fp64> {
    using JBody = Double4;
    using IPos = double3;
    using Real = double;
    static constexpr bool kBags = false;  // 53 bits: the plain running sum is far below the target

    __device__ static JBody load_j(const PrecisionForceArgs& a, int j) {
        return j < a.n ? load_double4(a.pos64, j) : Double4{0.0, 0.0, 0.0, 0.0};
    }
    __device__ static IPos load_i(const PrecisionForceArgs& a, int i) {
        const Double4 p = load_j(a, i);
        return make_double3(p.x, p.y, p.z);
    }
    __device__ static void accumulate(const IPos& xi, const JBody& pj, double eps2, double3& acc) {
        const double dx = pj.x - xi.x;
        const double dy = pj.y - xi.y;
        const double dz = pj.z - xi.z;
        const double r2 = fma(dx, dx, fma(dy, dy, fma(dz, dz, eps2)));
        const double inv_r = rsqrt(r2);  // 1 ulp (CUDA math API); --use_fast_math leaves doubles alone
        const double s = (pj.w * inv_r) * (inv_r * inv_r);
        acc.x = fma(dx, s, acc.x);
        acc.y = fma(dy, s, acc.y);
        acc.z = fma(dz, s, acc.z);
    }
};

template <class T>
struct Vec3Of;
template <>
struct Vec3Of<float> {
    using type = float3;
};
template <>
struct Vec3Of<double> {
    using type = double3;
};

template <class V>
__device__ __forceinline__ V zero3() {
    return V{0, 0, 0};
}

template <class V>
__device__ __forceinline__ void add3(V& a, const V& b) {
    a.x += b.x;
    a.y += b.y;
    a.z += b.z;
}

// The kernel. Thread layout exactly as force_kernel.cu's: thread t is lane s = t % Q of body group
// t / Q; the group owns bodies first + b * (p/Q), b < B; lane s reads tile[k*Q + s].
//
// Summation (fp32 modes): per tile, the lane's p/Q bodies are its J-BAG, summed in fresh registers
// `bag`; inside it, runs of kSubBag bodies are summed in fresh registers `sub` first. The J-BAG is
// then added to the running total (total, comp) with Kahan's compensation. Fp64 sums straight into
// its total.
template <PrecisionMode M, int U, int Q, int B>
__global__ void precision_force_kernel(const PrecisionForceArgs a) {
    static_assert(U >= 1 && Q >= 1 && Q <= 32 && (Q & (Q - 1)) == 0 && B >= 1,
                  "bad precision kernel variant");
    static_assert(kSubBag % U == 0, "a sub-bag must hold whole unrolled groups");
    using Md = Mode<M>;
    using JBody = typename Md::JBody;
    using Real = typename Md::Real;
    using V3 = typename Vec3Of<Real>::type;
    extern __shared__ float4 shared_raw[];  // float4 aligns the tile for both JBody sizes
    JBody* tile = reinterpret_cast<JBody*>(shared_raw);

    const int p = blockDim.x;
    const int t = threadIdx.x;
    const int s = t % Q;
    const int groups = p / Q;
    const int first = blockIdx.x * groups * B + t / Q;
    const Real eps2 = static_cast<Real>(a.eps2);

    typename Md::IPos xi[B];
    V3 total[B];
    V3 comp[B];  // Kahan compensation (fp32 modes)
#pragma unroll
    for (int b = 0; b < B; ++b) {
        xi[b] = Md::load_i(a, first + b * groups);  // a zero body beyond n: computes, writes nothing
        total[b] = zero3<V3>();
        comp[b] = zero3<V3>();
    }

    const JBody* lane_tile = tile + s;
    // Software pipelining as in force_kernel.cu: the next tile's body is in flight while this
    // tile's interactions run.
    JBody next = Md::load_j(a, t);
    for (int base = 0; base < a.n; base += p) {
        tile[t] = next;
        __syncthreads();
        next = Md::load_j(a, base + p + t);

        if constexpr (Md::kBags) {
            V3 bag[B];
#pragma unroll
            for (int b = 0; b < B; ++b) bag[b] = zero3<V3>();
            int k = 0;
            // One sub-bag per iteration. Its kk loop is not unrolled itself, so that U decides the
            // code size as in the fp32 kernel.
            for (; k + kSubBag <= groups; k += kSubBag) {
                V3 sub[B];
#pragma unroll
                for (int b = 0; b < B; ++b) sub[b] = zero3<V3>();
#pragma unroll 1
                for (int kk = 0; kk < kSubBag; kk += U) {
#pragma unroll
                    for (int u = 0; u < U; ++u) {
                        const JBody pj = lane_tile[(k + kk + u) * Q];
#pragma unroll
                        for (int b = 0; b < B; ++b) Md::accumulate(xi[b], pj, eps2, sub[b]);
                    }
                }
#pragma unroll
                for (int b = 0; b < B; ++b) add3(bag[b], sub[b]);
            }
            if (k < groups) {  // fewer than kSubBag left: small blocks or large q
                V3 sub[B];
#pragma unroll
                for (int b = 0; b < B; ++b) sub[b] = zero3<V3>();
#pragma unroll 1
                for (; k < groups; ++k) {
                    const JBody pj = lane_tile[k * Q];
#pragma unroll
                    for (int b = 0; b < B; ++b) Md::accumulate(xi[b], pj, eps2, sub[b]);
                }
#pragma unroll
                for (int b = 0; b < B; ++b) add3(bag[b], sub[b]);
            }
#pragma unroll
            for (int b = 0; b < B; ++b) {
                kahan_add(total[b].x, comp[b].x, bag[b].x);
                kahan_add(total[b].y, comp[b].y, bag[b].y);
                kahan_add(total[b].z, comp[b].z, bag[b].z);
            }
        } else {
            int k = 0;
            for (; k + U <= groups; k += U) {
#pragma unroll
                for (int u = 0; u < U; ++u) {
                    const JBody pj = lane_tile[(k + u) * Q];
#pragma unroll
                    for (int b = 0; b < B; ++b) Md::accumulate(xi[b], pj, eps2, total[b]);
                }
            }
#pragma unroll 1
            for (; k < groups; ++k) {
                const JBody pj = lane_tile[k * Q];
#pragma unroll
                for (int b = 0; b < B; ++b) Md::accumulate(xi[b], pj, eps2, total[b]);
            }
        }
        __syncthreads();
    }

    if constexpr (Md::kBags) {
#pragma unroll
        for (int b = 0; b < B; ++b) {
            total[b].x = __fsub_rn(total[b].x, comp[b].x);
            total[b].y = __fsub_rn(total[b].y, comp[b].y);
            total[b].z = __fsub_rn(total[b].z, comp[b].z);
        }
    }

    // Butterfly over the Q lanes of the group: a pairwise tree of log2(Q) levels.
#pragma unroll
    for (int offset = Q / 2; offset > 0; offset /= 2) {
#pragma unroll
        for (int b = 0; b < B; ++b) {
            total[b].x += __shfl_xor_sync(0xffffffffu, total[b].x, offset);
            total[b].y += __shfl_xor_sync(0xffffffffu, total[b].y, offset);
            total[b].z += __shfl_xor_sync(0xffffffffu, total[b].z, offset);
        }
    }

#pragma unroll
    for (int b = 0; b < B; ++b) {
        const int i = first + b * groups;
        if (s != b % Q || i >= a.n) continue;
        if constexpr (M == PrecisionMode::Fp64) {
            store_double4(a.acc64, i, Double4{total[b].x, total[b].y, total[b].z, 0.0});
            if (a.vel64 != nullptr) {
                Double4 v = load_double4(a.vel64, i);
                v.x = fma(total[b].x, a.half_dt, v.x);
                v.y = fma(total[b].y, a.half_dt, v.y);
                v.z = fma(total[b].z, a.half_dt, v.z);
                store_double4(a.vel64, i, v);
                if (a.vel != nullptr) a.vel[i] = make_float4(float(v.x), float(v.y), float(v.z), 0.0f);
            }
        } else {
            a.acc[i] = make_float4(total[b].x, total[b].y, total[b].z, 0.0f);
            if (a.vel != nullptr) {
                const float half = static_cast<float>(a.half_dt);
                float4 v = a.vel[i];
                if constexpr (M == PrecisionMode::Ds) {
                    float4 vl = a.vel_lo[i];
                    ds_add(v.x, vl.x, total[b].x * half);
                    ds_add(v.y, vl.y, total[b].y * half);
                    ds_add(v.z, vl.z, total[b].z * half);
                    a.vel_lo[i] = vl;
                } else {
                    v.x = fmaf(total[b].x, half, v.x);
                    v.y = fmaf(total[b].y, half, v.y);
                    v.z = fmaf(total[b].z, half, v.z);
                }
                a.vel[i] = v;
            }
        }
    }
}

// ---- integration and conversion kernels ------------------------------------------------------

__global__ void kick_drift_ds_kernel(const float4* __restrict__ pos_in, float4* __restrict__ pos_out,
                                     float4* __restrict__ pos_lo, float4* __restrict__ vel,
                                     float4* __restrict__ vel_lo, const float4* __restrict__ acc, int n,
                                     float half_dt, float dt) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const float4 a = acc[i];
    float4 v = vel[i], vl = vel_lo[i];
    ds_add(v.x, vl.x, a.x * half_dt);
    ds_add(v.y, vl.y, a.y * half_dt);
    ds_add(v.z, vl.z, a.z * half_dt);
    float4 x = pos_in[i], xl = pos_lo[i];
    // v dt with the lo part of v folded in: one rounding of a step-sized number.
    ds_add(x.x, xl.x, fmaf(v.x, dt, vl.x * dt));
    ds_add(x.y, xl.y, fmaf(v.y, dt, vl.y * dt));
    ds_add(x.z, xl.z, fmaf(v.z, dt, vl.z * dt));
    pos_out[i] = x;  // w (the mass) carried along
    pos_lo[i] = xl;
    vel[i] = v;
    vel_lo[i] = vl;
}

__global__ void kick_drift_fp64_kernel(Double4* __restrict__ pos64, float4* __restrict__ pos_out,
                                       Double4* __restrict__ vel64, float4* __restrict__ vel,
                                       const Double4* __restrict__ acc64, int n, double half_dt, double dt) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const Double4 a = load_double4(acc64, i);
    Double4 v = load_double4(vel64, i);
    v.x = fma(a.x, half_dt, v.x);
    v.y = fma(a.y, half_dt, v.y);
    v.z = fma(a.z, half_dt, v.z);
    Double4 x = load_double4(pos64, i);
    x.x = fma(v.x, dt, x.x);
    x.y = fma(v.y, dt, x.y);
    x.z = fma(v.z, dt, x.z);
    store_double4(pos64, i, x);
    store_double4(vel64, i, v);
    pos_out[i] = make_float4(float(x.x), float(x.y), float(x.z), float(x.w));
    vel[i] = make_float4(float(v.x), float(v.y), float(v.z), 0.0f);
}

__global__ void widen_kernel(const float4* __restrict__ hi, const float4* __restrict__ lo,
                             Double4* __restrict__ out, int n) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const float4 h = hi[i];
    const float4 l = lo != nullptr ? lo[i] : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    store_double4(out, i,
                  Double4{double(h.x) + double(l.x), double(h.y) + double(l.y), double(h.z) + double(l.z),
                          double(h.w)});
}

__global__ void lo_of_double_kernel(const Double4* __restrict__ x, const float4* __restrict__ hi,
                                    float4* __restrict__ lo, int n) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const Double4 d = load_double4(x, i);
    const float4 h = hi[i];
    lo[i] = make_float4(float(d.x - double(h.x)), float(d.y - double(h.y)), float(d.z - double(h.z)), 0.0f);
}

__global__ void set_positions_kernel(const Double4* __restrict__ src, float4* __restrict__ pos,
                                     float4* __restrict__ lo, Double4* __restrict__ pos64, int n) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const Double4 d = load_double4(src, i);
    float4 p = pos[i];
    p.x = float(d.x);
    p.y = float(d.y);
    p.z = float(d.z);
    pos[i] = p;
    if (lo != nullptr)
        lo[i] =
            make_float4(float(d.x - double(p.x)), float(d.y - double(p.y)), float(d.z - double(p.z)), 0.0f);
    if (pos64 != nullptr) store_double4(pos64, i, Double4{d.x, d.y, d.z, double(p.w)});
}

// ---- instances and THE dispatch ---------------------------------------------------------------

using PrecisionKernelFn = void (*)(PrecisionForceArgs);

// The supported variants, one list that both the explicit instantiations and the dispatch switch
// expand. Keep in step with the arrays in the header and precision_bodies_per_thread_values().
#define NBODY_PREC_Q(X, M, U, B) X(M, U, 1, B) X(M, U, 2, B) X(M, U, 4, B) X(M, U, 8, B)
#define NBODY_PREC_U(X, M, B) NBODY_PREC_Q(X, M, 4, B) NBODY_PREC_Q(X, M, 8, B)
#define NBODY_PREC_B(X, M) NBODY_PREC_U(X, M, 1) NBODY_PREC_U(X, M, 2) NBODY_PREC_U(X, M, 4)
#define NBODY_PREC_VARIANTS(X) NBODY_PREC_B(X, Fp32Jbag) NBODY_PREC_B(X, Ds) NBODY_PREC_U(X, Fp64, 1)

#define NBODY_PREC_INSTANTIATE(M, U, Q, B) \
    template __global__ void precision_force_kernel<PrecisionMode::M, U, Q, B>(PrecisionForceArgs);
NBODY_PREC_VARIANTS(NBODY_PREC_INSTANTIATE)
#undef NBODY_PREC_INSTANTIATE

constexpr int variant_key(PrecisionMode m, int u, int q, int b) {
    return static_cast<int>(m) * 1000000 + u * 10000 + q * 100 + b;
}

template <class C>
bool contains(const C& values, int v) {
    for (int x : values)
        if (x == v) return true;
    return false;
}

template <class C>
std::string list(const C& values) {
    std::string out;
    for (int x : values) out += (out.empty() ? "" : ", ") + std::to_string(x);
    return out;
}

bool known_mode(PrecisionMode m) {
    return m == PrecisionMode::Fp32Jbag || m == PrecisionMode::Ds || m == PrecisionMode::Fp64;
}

[[noreturn]] void throw_unsupported(const PrecisionVariant& v) {
    if (!known_mode(v.mode))
        throw std::invalid_argument("unknown precision mode " + std::to_string(static_cast<int>(v.mode)) +
                                    " (supported: fp32-jbag, ds, fp64)");
    const std::string mode = precision_mode_name(v.mode);
    const std::vector<int> bvals = precision_bodies_per_thread_values(v.mode);
    std::string msg = "no " + mode + " kernel instance for unroll=" + std::to_string(v.unroll) +
                      ", threads_per_body=" + std::to_string(v.threads_per_body) +
                      ", bodies_per_thread=" + std::to_string(v.bodies_per_thread) + ":";
    if (!contains(kPrecisionUnrollValues, v.unroll))
        msg += " unroll " + std::to_string(v.unroll) + " is not supported in " + mode +
               " (supported: " + list(kPrecisionUnrollValues) + ");";
    if (!contains(kPrecisionThreadsPerBodyValues, v.threads_per_body))
        msg += " threads_per_body " + std::to_string(v.threads_per_body) + " is not supported in " + mode +
               " (supported: " + list(kPrecisionThreadsPerBodyValues) + ");";
    if (!contains(bvals, v.bodies_per_thread))
        msg += " bodies_per_thread " + std::to_string(v.bodies_per_thread) + " is not supported in " + mode +
               " (supported: " + list(bvals) + ");";
    msg.back() = '.';
    throw std::invalid_argument(msg);
}

// THE dispatch: run-time (mode, U, q, B) to a compiled instance. Default: an error listing the
// supported values.
PrecisionKernelFn select_precision_kernel(const PrecisionVariant& v) {
#define NBODY_PREC_CASE(M, U, Q, B)              \
    case variant_key(PrecisionMode::M, U, Q, B): \
        return &precision_force_kernel<PrecisionMode::M, U, Q, B>;
    // Out-of-range values cannot alias a valid key: they are checked before the key is formed.
    const bool in_range = known_mode(v.mode) && contains(kPrecisionUnrollValues, v.unroll) &&
                          contains(kPrecisionThreadsPerBodyValues, v.threads_per_body) &&
                          v.bodies_per_thread >= 1 && v.bodies_per_thread <= 99;
    switch (in_range ? variant_key(v.mode, v.unroll, v.threads_per_body, v.bodies_per_thread) : -1) {
        NBODY_PREC_VARIANTS(NBODY_PREC_CASE)
        default:
            throw_unsupported(v);
    }
#undef NBODY_PREC_CASE
}

int blocks_for(int n) { return (n + kIntegrateBlock - 1) / kIntegrateBlock; }

}  // namespace detail

const char* precision_mode_name(PrecisionMode mode) {
    switch (mode) {
        case PrecisionMode::Fp32Jbag:
            return "fp32-jbag";
        case PrecisionMode::Ds:
            return "ds";
        case PrecisionMode::Fp64:
            return "fp64";
    }
    return "unknown";
}

std::vector<int> precision_bodies_per_thread_values(PrecisionMode mode) {
    if (mode == PrecisionMode::Fp64) return {1};
    return {1, 2, 4};
}

void require_precision_instance(const PrecisionVariant& v) { (void)detail::select_precision_kernel(v); }

PrecisionKernelResources precision_kernel_resources(const PrecisionVariant& v) {
    const detail::PrecisionKernelFn fn = detail::select_precision_kernel(v);
    cudaFuncAttributes attr{};
    CUDA_CHECK(cudaFuncGetAttributes(&attr, reinterpret_cast<const void*>(fn)));
    PrecisionKernelResources r;
    r.max_threads_per_block = attr.maxThreadsPerBlock;
    r.registers_per_thread = attr.numRegs;
    r.local_bytes_per_thread = attr.localSizeBytes;
    r.static_shared_bytes = attr.sharedSizeBytes;
    return r;
}

std::size_t precision_shared_bytes(PrecisionMode mode, int block) {
    const std::size_t per_body = mode == PrecisionMode::Fp32Jbag ? sizeof(float4) : 2 * sizeof(float4);
    return static_cast<std::size_t>(block) * per_body;
}

void launch_precision_force(const PrecisionVariant& v, int block, const PrecisionForceArgs& args,
                            cudaStream_t stream) {
    const detail::PrecisionKernelFn fn = detail::select_precision_kernel(v);
    if (args.n <= 0) return;
    const int per_block = block / v.threads_per_body * v.bodies_per_thread;
    const int grid = (args.n + per_block - 1) / per_block;
    fn<<<grid, block, precision_shared_bytes(v.mode, block), stream>>>(args);
    CUDA_CHECK_LAUNCH();
}

void launch_kick_drift_ds(const float4* pos_in, float4* pos_out, float4* pos_lo, float4* vel, float4* vel_lo,
                          const float4* acc, int n, float half_dt, float dt, cudaStream_t stream) {
    if (n <= 0) return;
    detail::kick_drift_ds_kernel<<<detail::blocks_for(n), detail::kIntegrateBlock, 0, stream>>>(
        pos_in, pos_out, pos_lo, vel, vel_lo, acc, n, half_dt, dt);
    CUDA_CHECK_LAUNCH();
}

void launch_kick_drift_fp64(Double4* pos64, float4* pos_out, Double4* vel64, float4* vel,
                            const Double4* acc64, int n, double half_dt, double dt, cudaStream_t stream) {
    if (n <= 0) return;
    detail::kick_drift_fp64_kernel<<<detail::blocks_for(n), detail::kIntegrateBlock, 0, stream>>>(
        pos64, pos_out, vel64, vel, acc64, n, half_dt, dt);
    CUDA_CHECK_LAUNCH();
}

void launch_widen(const float4* hi, const float4* lo, Double4* out, int n, cudaStream_t stream) {
    if (n <= 0) return;
    detail::widen_kernel<<<detail::blocks_for(n), detail::kIntegrateBlock, 0, stream>>>(hi, lo, out, n);
    CUDA_CHECK_LAUNCH();
}

void launch_lo_of_double(const Double4* x, const float4* hi, float4* lo, int n, cudaStream_t stream) {
    if (n <= 0) return;
    detail::lo_of_double_kernel<<<detail::blocks_for(n), detail::kIntegrateBlock, 0, stream>>>(x, hi, lo, n);
    CUDA_CHECK_LAUNCH();
}

void launch_set_positions(const Double4* src, float4* pos, float4* lo, Double4* pos64, int n,
                          cudaStream_t stream) {
    if (n <= 0) return;
    detail::set_positions_kernel<<<detail::blocks_for(n), detail::kIntegrateBlock, 0, stream>>>(src, pos, lo,
                                                                                                pos64, n);
    CUDA_CHECK_LAUNCH();
}

}  // namespace nbody::cuda
