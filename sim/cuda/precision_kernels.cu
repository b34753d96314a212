// The precision variants of the tiled all-pairs kernel and their integration kernels. See
// precision_kernels.hpp for the modes and parameters, docs/PRECISION.md for the error analysis.
//
// Cost per interaction against the fp32 kernel's 12 FP32 instructions + 1 MUFU (force_kernel.cu):
//   Jbag      the same 12 + 3 FADD per kSubBag interactions (sub-bag into J-BAG) + 12 FADD per
//             J-BAG of p/q interactions (compensated add into the total): +0.2 at p/q = 256.
//   DsRef     as Jbag in the inner loop; + per staged j-body (once per tile and thread) and per
//             i-body (once per i-block) 6 DADD and 7 conversions to take x - R: ~0.1% at p/q = 256.
//   DsEq3     +6 FADD per interaction (Sapporo eq. 3) + one more LDS.128 per j: 18 against 12.
//   Fp64      3 DADD + 3 DFMA + rsqrt in double (MUFU.RSQ64H + Newton steps in DFMA) + 3 DMUL +
//             3 DFMA, on an FP64 pipe of half the FP32 width.
// As in force_kernel.cu, a tail tile is padded with zero-mass bodies (exact zero terms since
// eps^2 > 0) and every thread reaches every barrier and shuffle.
//
// --use_fast_math applies to this file (sim/CMakeLists.txt): FMA contraction and flush-to-zero.
// The error-free transformations below (two-sum, Kahan) use __fadd_rn/__fsub_rn, which the compiler
// never contracts or reorders, so they stay exact whatever the flags. Doubles are unaffected.

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <mutex>
#include <stdexcept>
#include <string>
#include <vector>

#include "balanced_split.cuh"
#include "cuda_check.hpp"
#include "precision_kernels.hpp"

namespace nbody::cuda {
namespace detail {

constexpr int kIntegrateBlock = 256;
constexpr int kMaxBlockWarps = kMaxBlock / kWarpSize;

// The kernel kinds: a mode and its formulation (the kernel section below).
constexpr int kKindJbag = 0, kKindDsRef = 1, kKindFp64 = 2, kKindJbagPlain = 3, kKindDsEq3 = 4;

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

// ---- the per-kind parts of the kernel ----------------------------------------------------------
//
// A kernel kind is a precision mode with its formulation (precision_kernels.hpp, PrecisionKind):
//   Jbag       tile (m, x, y, z) (the fp32 kernel's rotated layout), fp32 separation, J-BAG sums
//   JbagPlain  the same interaction, Chamomile's FORCE-LOOP literally (no sub-bags, no Kahan)
//   DsRef      positions taken relative to a per-block reference point R in double when they
//              are staged (j: once per tile, i: once per i-block), rounded to float; the inner
//              loop is Jbag's, instruction for instruction
//   DsEq3      Sapporo's eq. 3 per interaction: hi and lo tiles, 9 FADD for the separation
//   Fp64       doubles throughout

struct DsBody {  // one j-body in the DsEq3 tile, both parts rotated as (m, x, y, z)
    float4 hi;   // m, x_hi, y_hi, z_hi
    float4 lo;   // 0, x_lo, y_lo, z_lo
};
struct DsPos {
    float3 hi, lo;
};
struct DsRaw {  // a ds body as loaded, before staging
    float4 hi, lo;
};

__device__ __forceinline__ float4 rotate(const float4& b) { return make_float4(b.w, b.x, b.y, b.z); }

// The fp32 interaction on a rotated tile entry (m, x, y, z): 12 FP32 + 1 MUFU, as force_kernel.cu's,
// but m / r^3 is m * rsqrt(r^6) rather than m * rsqrt(r^2)^3: MUFU.RSQ's error (up to 2.1 x 2^-24
// measured on the H200) enters once instead of three times, for the same instruction count
// (docs/PRECISION.md, "The per-term floor"). r^6 spans three times the exponent range of r^2, so
// the positions arrive scaled by a power of two S that puts the softening length at ~2^-16
// (Frame below): r^6 stays a normal float from r = eps up to ~2^37 eps.
__device__ __forceinline__ void accumulate_f32(const float3& xi, const float4& pj, float eps2, float3& acc) {
    const float dx = pj.y - xi.x;
    const float dy = pj.z - xi.y;
    const float dz = pj.w - xi.z;
    const float r2 = fmaf(dx, dx, fmaf(dy, dy, fmaf(dz, dz, eps2)));
    const float s = pj.x * rsqrtf((r2 * r2) * r2);  // MUFU.RSQ under --use_fast_math
    acc.x = fmaf(dx, s, acc.x);
    acc.y = fmaf(dy, s, acc.y);
    acc.z = fmaf(dz, s, acc.z);
}

// How staged bodies are framed. scale (S, a power of two: exact) multiplies positions and eps,
// mass_scale (S^2) the masses, so that d' = S d, r'^6 = S^6 r^6, m' rsqrt(r'^6) d' = m rsqrt(r^6) d
// bit for bit (MUFU.RSQ is exact under even powers of two): the accelerations come out unscaled.
// ref: DsRef's reference point. The kinds without accumulate_f32 get S = 1 and ignore it.
struct Frame {
    const double* ref;
    float scale, mass_scale;
};

__device__ __forceinline__ float4 scaled(const float4& rotated, const Frame& f) {
    return make_float4(rotated.x * f.mass_scale, rotated.y * f.scale, rotated.z * f.scale, rotated.w * f.scale);
}

// x - R rounded once to float, x = hi + lo: both parts and R in double (exact: hi, lo and
// R's ~ 24 + 24 + 53 bits add without loss at these magnitudes), then one rounding.
__device__ __forceinline__ float relative(float hi, float lo, double r) {
    return static_cast<float>((static_cast<double>(hi) - r) + static_cast<double>(lo));
}

template <int K>
struct Kind;

template <>
struct Kind<kKindJbag> {
    using Raw = float4;
    using JBody = float4;
    using IPos = float3;
    using Real = float;
    static constexpr bool kSubBags = true, kKahan = true, kRef = false;
    __device__ static Raw load_raw(const PrecisionForceArgs& a, int j) {
        return j < a.n ? __ldg(a.pos + j) : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    }
    __device__ static JBody stage(const Raw& r, const Frame& f) { return scaled(rotate(r), f); }
    __device__ static IPos load_i(const PrecisionForceArgs& a, int i, const Frame& f) {
        const float4 p = load_raw(a, i);
        return make_float3(p.x * f.scale, p.y * f.scale, p.z * f.scale);
    }
    __device__ static void accumulate(const IPos& xi, const JBody& pj, float eps2, float3& acc) {
        accumulate_f32(xi, pj, eps2, acc);
    }
};

template <>
struct Kind<kKindJbagPlain> : Kind<kKindJbag> {
    static constexpr bool kSubBags = false, kKahan = false;
};

template <>
struct Kind<kKindDsRef> {
    using Raw = DsRaw;
    using JBody = float4;
    using IPos = float3;
    using Real = float;
    static constexpr bool kSubBags = true, kKahan = true, kRef = true;
    __device__ static Raw load_raw(const PrecisionForceArgs& a, int j) {
        if (j >= a.n) return DsRaw{make_float4(0.0f, 0.0f, 0.0f, 0.0f), make_float4(0.0f, 0.0f, 0.0f, 0.0f)};
        return DsRaw{__ldg(a.pos + j), __ldg(a.pos_lo + j)};
    }
    // A padded body (m = 0) lands at -R: finite, and its term is exactly 0.
    __device__ static JBody stage(const Raw& r, const Frame& f) {
        return scaled(make_float4(r.hi.w, relative(r.hi.x, r.lo.x, f.ref[0]), relative(r.hi.y, r.lo.y, f.ref[1]),
                                  relative(r.hi.z, r.lo.z, f.ref[2])),
                      f);
    }
    __device__ static IPos load_i(const PrecisionForceArgs& a, int i, const Frame& f) {
        const float4 j = stage(load_raw(a, i), f);
        return make_float3(j.y, j.z, j.w);
    }
    __device__ static void accumulate(const IPos& xi, const JBody& pj, float eps2, float3& acc) {
        accumulate_f32(xi, pj, eps2, acc);
    }
};

template <>
struct Kind<kKindDsEq3> {
    using Raw = DsRaw;
    using JBody = DsBody;
    using IPos = DsPos;
    using Real = float;
    static constexpr bool kSubBags = true, kKahan = true, kRef = false;
    __device__ static Raw load_raw(const PrecisionForceArgs& a, int j) { return Kind<kKindDsRef>::load_raw(a, j); }
    __device__ static JBody stage(const Raw& r, const Frame&) { return DsBody{rotate(r.hi), rotate(r.lo)}; }
    __device__ static IPos load_i(const PrecisionForceArgs& a, int i, const Frame&) {
        const DsRaw b = load_raw(a, i);
        return DsPos{make_float3(b.hi.x, b.hi.y, b.hi.z), make_float3(b.lo.x, b.lo.y, b.lo.z)};
    }
    // Sapporo eq. 3. When x_i and x_j lie within a factor of 2 of each other the hi difference is
    // exact (Sterbenz), the lo difference tiny, and the separation is rounded once. No product
    // touches these sums, so FMA contraction cannot change them.
    __device__ static void accumulate(const IPos& xi, const JBody& pj, float eps2, float3& acc) {
        const float dx = (pj.hi.y - xi.hi.x) + (pj.lo.y - xi.lo.x);
        const float dy = (pj.hi.z - xi.hi.y) + (pj.lo.z - xi.lo.y);
        const float dz = (pj.hi.w - xi.hi.z) + (pj.lo.w - xi.lo.z);
        const float r2 = fmaf(dx, dx, fmaf(dy, dy, fmaf(dz, dz, eps2)));
        const float inv_r = rsqrtf(r2);
        const float s = (pj.hi.x * inv_r) * (inv_r * inv_r);
        acc.x = fmaf(dx, s, acc.x);
        acc.y = fmaf(dy, s, acc.y);
        acc.z = fmaf(dz, s, acc.z);
    }
};

template <>
struct Kind<kKindFp64> {
    using Raw = Double4;
    using JBody = Double4;
    using IPos = double3;
    using Real = double;
    static constexpr bool kSubBags = false, kKahan = false, kRef = false;
    __device__ static Raw load_raw(const PrecisionForceArgs& a, int j) {
        return j < a.n ? load_double4(a.pos64, j) : Double4{0.0, 0.0, 0.0, 0.0};
    }
    __device__ static JBody stage(const Raw& r, const Frame&) { return r; }
    __device__ static IPos load_i(const PrecisionForceArgs& a, int i, const Frame&) {
        const Double4 p = load_raw(a, i);
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

// Launch parameters (constant bank). The balanced split as in force_kernel.cu: the I x T grid of
// (i-block, tile) steps in row-major order, block g takes steps [first_step(g), first_step(g + 1));
// classic (counters == nullptr): block g is i-block g, all T tiles.
struct PrecisionKernelParams {
    PrecisionForceArgs a;
    int tiles;
    int share;
    int extra;
    void* partials;      // [contributor k][n] float4 (fp32 kinds) or Double4 (Fp64)
    unsigned* counters;  // [I]
    float scale;         // Frame::scale (1 for the kinds without accumulate_f32)
};

// DsRef's reference point: the mean (in double) of up to 2p bodies spread evenly over the array,
// the same for every block of a pass (it depends on the positions and p only), so results are
// deterministic. Any R gives a correct force (translation invariance); its quality is how close
// it is to the bodies whose forces are most sensitive, the dense centre (docs/PRECISION.md).
__device__ void reference_point(const PrecisionForceArgs& a, double* ref) {
    __shared__ double warp_sums[kMaxBlockWarps][3];
    const int p = blockDim.x, t = threadIdx.x;
    const int samples = min(a.n, 2 * p);
    double sx = 0, sy = 0, sz = 0;
    for (int k = t; k < samples; k += p) {
        const int j = static_cast<int>(static_cast<long long>(k) * a.n / samples);
        const float4 hi = __ldg(a.pos + j), lo = __ldg(a.pos_lo + j);
        sx += static_cast<double>(hi.x) + static_cast<double>(lo.x);
        sy += static_cast<double>(hi.y) + static_cast<double>(lo.y);
        sz += static_cast<double>(hi.z) + static_cast<double>(lo.z);
    }
#pragma unroll
    for (int off = 16; off > 0; off /= 2) {
        sx += __shfl_xor_sync(0xffffffffu, sx, off);
        sy += __shfl_xor_sync(0xffffffffu, sy, off);
        sz += __shfl_xor_sync(0xffffffffu, sz, off);
    }
    if (t % 32 == 0) {
        warp_sums[t / 32][0] = sx;
        warp_sums[t / 32][1] = sy;
        warp_sums[t / 32][2] = sz;
    }
    __syncthreads();
    if (t < 3) {
        double s = 0;
        for (int w = 0; w < p / 32; ++w) s += warp_sums[w][t];
        ref[t] = s / samples;
    }
    __syncthreads();
}

// The finished sum of body i: the acceleration and, for a step, the closing kick.
template <int K, class V3>
__device__ __forceinline__ void store_result(const PrecisionForceArgs& a, int i, const V3& acc) {
    if constexpr (K == kKindFp64) {
        store_double4(a.acc64, i, Double4{acc.x, acc.y, acc.z, 0.0});
        if (a.vel64 != nullptr) {
            Double4 v = load_double4(a.vel64, i);
            v.x = fma(acc.x, a.half_dt, v.x);
            v.y = fma(acc.y, a.half_dt, v.y);
            v.z = fma(acc.z, a.half_dt, v.z);
            store_double4(a.vel64, i, v);
            if (a.vel != nullptr) a.vel[i] = make_float4(float(v.x), float(v.y), float(v.z), 0.0f);
        }
    } else {
        a.acc[i] = make_float4(acc.x, acc.y, acc.z, 0.0f);
        if (a.vel != nullptr) {
            const float half = static_cast<float>(a.half_dt);
            float4 v = a.vel[i];
            if constexpr (K == kKindDsRef || K == kKindDsEq3) {
                float4 vl = a.vel_lo[i];
                ds_add(v.x, vl.x, acc.x * half);
                ds_add(v.y, vl.y, acc.y * half);
                ds_add(v.z, vl.z, acc.z * half);
                a.vel_lo[i] = vl;
            } else {
                v.x = fmaf(acc.x, half, v.x);
                v.y = fmaf(acc.y, half, v.y);
                v.z = fmaf(acc.z, half, v.z);
            }
            a.vel[i] = v;
        }
    }
}

// A split i-block (force_kernel.cu's finish_split_iblock): publish this block's partial sums;
// the last contributor to arrive adds them up in contributor order (deterministic) and stores.
template <int K, int Q, int B, class V3>
__device__ __forceinline__ void finish_split_iblock(const PrecisionKernelParams& k, int ib, int per_block, int c,
                                                    int contributors, int first, int groups, int s,
                                                    const V3 (&acc)[B], int& finisher) {
    const PrecisionForceArgs& a = k.a;
    constexpr bool kDouble = K == kKindFp64;
#pragma unroll
    for (int b = 0; b < B; ++b) {
        const int i = first + b * groups;
        if (s == b % Q && i < a.n) {
            if constexpr (kDouble)
                store_double4(static_cast<Double4*>(k.partials), c * a.n + i, Double4{acc[b].x, acc[b].y, acc[b].z, 0.0});
            else
                static_cast<float4*>(k.partials)[c * a.n + i] = make_float4(acc[b].x, acc[b].y, acc[b].z, 0.0f);
        }
    }
    __threadfence();
    __syncthreads();
    if (threadIdx.x == 0) {
        const unsigned arrived = atomicAdd(k.counters + ib, 1u);
        finisher = arrived == static_cast<unsigned>(contributors - 1);
        if (finisher) k.counters[ib] = 0;
    }
    __syncthreads();
    if (!finisher) return;
    __threadfence();
    const int base = ib * per_block;
#pragma unroll 1
    for (int r = threadIdx.x; r < per_block && base + r < a.n; r += blockDim.x) {
        V3 sum = zero3<V3>();
#pragma unroll 1
        for (int cc = 0; cc < contributors; ++cc) {
            if constexpr (kDouble) {
                const double2* q = reinterpret_cast<const double2*>(static_cast<Double4*>(k.partials) + cc * a.n + base + r);
                const double2 v0 = __ldcg(q), v1 = __ldcg(q + 1);
                sum.x += v0.x;
                sum.y += v0.y;
                sum.z += v1.x;
            } else {
                const float4 v = __ldcg(static_cast<float4*>(k.partials) + cc * a.n + base + r);
                sum.x += v.x;
                sum.y += v.y;
                sum.z += v.z;
            }
        }
        store_result<K>(a, base + r, sum);
    }
}

// One tile (a J-BAG per lane) into `total`: lane s reads lane_tile[k*Q], k < groups.
template <int K, int U, int Q, int B, class V3, class IPos, class JBody, class Real>
__device__ __forceinline__ void interact_tile(const JBody* lane_tile, int groups, const IPos (&xi)[B], V3 (&total)[B],
                                              V3 (&comp)[B], Real eps2) {
    using Md = Kind<K>;
    if constexpr (K == kKindFp64) {
        (void)comp;
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
    } else {
        // The J-BAG in fresh registers; inside it (kSubBags) runs of kSubBag bodies in fresh
        // registers first. The sub-bag's kk loop is not unrolled itself: U decides the code size.
        constexpr int kRun = Md::kSubBags ? kSubBag : U;
        V3 bag[B];
#pragma unroll
        for (int b = 0; b < B; ++b) bag[b] = zero3<V3>();
        int k = 0;
        for (; k + kRun <= groups; k += kRun) {
            if constexpr (Md::kSubBags) {
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
            } else {
#pragma unroll
                for (int u = 0; u < U; ++u) {
                    const JBody pj = lane_tile[(k + u) * Q];
#pragma unroll
                    for (int b = 0; b < B; ++b) Md::accumulate(xi[b], pj, eps2, bag[b]);
                }
            }
        }
        if (k < groups) {  // fewer than kRun left: small blocks or large q
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
            if constexpr (Md::kKahan) {
                kahan_add(total[b].x, comp[b].x, bag[b].x);
                kahan_add(total[b].y, comp[b].y, bag[b].y);
                kahan_add(total[b].z, comp[b].z, bag[b].z);
            } else {
                add3(total[b], bag[b]);
            }
        }
    }
}

// The kernel: force_kernel.cu's version 2 structure (balanced split, two tiles and one barrier
// per tile, software-pipelined j loads, rotated float4 tile entries) with the kind's staging,
// interaction and summation. Thread t is lane s = t % Q of body group t / Q; in i-block ib the
// group owns bodies ib * p/Q * B + t/Q + b * p/Q, b < B; lane s reads tile[k*Q + s]. Every thread
// reaches every barrier and shuffle; every branch around a barrier is block-uniform.
template <int K, int U, int Q, int B>
__global__ void precision_force_kernel(const PrecisionKernelParams kp) {
    static_assert(U >= 1 && Q >= 1 && Q <= 32 && (Q & (Q - 1)) == 0 && B >= 1, "bad precision kernel variant");
    static_assert(kSubBag % U == 0, "a sub-bag must hold whole unrolled groups");
    using Md = Kind<K>;
    using JBody = typename Md::JBody;
    using Raw = typename Md::Raw;
    using Real = typename Md::Real;
    using V3 = typename Vec3Of<Real>::type;
    extern __shared__ float4 shared_raw[];  // two tiles; float4 aligns every JBody
    JBody* tiles = reinterpret_cast<JBody*>(shared_raw);
    __shared__ int finisher;
    __shared__ double ref[3];  // DsRef's reference point

    const PrecisionForceArgs& a = kp.a;
    const int p = blockDim.x;
    const int t = threadIdx.x;
    const int s = t % Q;
    const int groups = p / Q;
    const int g = blockIdx.x;
    const Frame frame{ref, kp.scale, kp.scale * kp.scale};
    const Real eps2 = static_cast<Real>(a.eps2) * static_cast<Real>(frame.mass_scale);

    int ib, tile, remaining;
    if (kp.counters == nullptr) {
        ib = g;
        tile = 0;
        remaining = kp.tiles;
    } else {
        const int w0 = first_step(g, kp);
        remaining = kp.share + (g < kp.extra ? 1 : 0);
        ib = w0 / kp.tiles;
        tile = w0 - ib * kp.tiles;
    }
    if constexpr (Md::kRef) reference_point(a, ref);

    Raw next = Md::load_raw(a, tile * p + t);
    int buf = 0;
    tiles[t] = Md::stage(next, frame);
    __syncthreads();

    for (; remaining > 0; ++ib, tile = 0) {
        const int count = min(kp.tiles - tile, remaining);
        remaining -= count;
        const int first = ib * groups * B + t / Q;

        typename Md::IPos xi[B];
        V3 total[B];
        V3 comp[B];  // Kahan compensation (unused by kinds without it: optimised away)
#pragma unroll
        for (int b = 0; b < B; ++b) {
            xi[b] = Md::load_i(a, first + b * groups, frame);  // a zero body beyond n: computes, writes nothing
            total[b] = zero3<V3>();
            comp[b] = zero3<V3>();
        }

        const int tile_end = tile + count;
        for (; tile < tile_end; ++tile) {
            const bool more = tile + 1 < tile_end || remaining > 0;
            const int j_next = (tile + 1 == kp.tiles ? 0 : tile + 1) * p + t;
            // One barrier per tile: the other buffer was last read before the previous barrier.
            if (more) next = Md::load_raw(a, j_next);
            interact_tile<K, U, Q, B>(tiles + buf * p + s, groups, xi, total, comp, eps2);
            if (more) tiles[(buf ^ 1) * p + t] = Md::stage(next, frame);
            __syncthreads();
            buf ^= 1;
        }

        if constexpr (Md::kKahan) {
#pragma unroll
            for (int b = 0; b < B; ++b) {
                total[b].x = __fsub_rn(total[b].x, comp[b].x);
                total[b].y = __fsub_rn(total[b].y, comp[b].y);
                total[b].z = __fsub_rn(total[b].z, comp[b].z);
            }
        }

        sum_over_lanes<Q>(total);

        if (kp.counters != nullptr) {
            const int g_first = block_of_step(ib * kp.tiles, kp);
            const int g_last = block_of_step(ib * kp.tiles + kp.tiles - 1, kp);
            if (g_first != g_last) {
                finish_split_iblock<K, Q, B>(kp, ib, groups * B, g - g_first, g_last - g_first + 1, first, groups, s,
                                             total, finisher);
                continue;
            }
        }
#pragma unroll
        for (int b = 0; b < B; ++b) {
            const int i = first + b * groups;
            if (s == b % Q && i < a.n) store_result<K>(a, i, total[b]);
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

using PrecisionKernelFn = void (*)(PrecisionKernelParams);

// The supported variants, one list that both the explicit instantiations and the dispatch switch
// expand. Keep in step with the arrays in the header and precision_bodies_per_thread_values().
#define NBODY_PREC_Q(X, K, U, B) X(K, U, 1, B) X(K, U, 2, B) X(K, U, 4, B) X(K, U, 8, B)
#define NBODY_PREC_U(X, K, B) NBODY_PREC_Q(X, K, 4, B) NBODY_PREC_Q(X, K, 8, B)
#define NBODY_PREC_B(X, K) NBODY_PREC_U(X, K, 1) NBODY_PREC_U(X, K, 2) NBODY_PREC_U(X, K, 4)
// The A/B formulations (NBODY_JBAG_SUM=plain, NBODY_DS_SEPARATION=eq3) for kPrecisionExperimentVariants.
#define NBODY_PREC_EXPERIMENT(X, K) X(K, 8, 2, 4) X(K, 8, 1, 4) X(K, 4, 1, 4) X(K, 8, 2, 2)
#define NBODY_PREC_VARIANTS(X)                                                                 \
    NBODY_PREC_B(X, kKindJbag) NBODY_PREC_B(X, kKindDsRef) NBODY_PREC_U(X, kKindFp64, 1)       \
    NBODY_PREC_EXPERIMENT(X, kKindJbagPlain) NBODY_PREC_EXPERIMENT(X, kKindDsEq3)

#define NBODY_PREC_INSTANTIATE(K, U, Q, B) \
    template __global__ void precision_force_kernel<K, U, Q, B>(PrecisionKernelParams);
NBODY_PREC_VARIANTS(NBODY_PREC_INSTANTIATE)
#undef NBODY_PREC_INSTANTIATE

constexpr int variant_key(int kind, int u, int q, int b) { return kind * 1000000 + u * 10000 + q * 100 + b; }

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

bool is_experiment_variant(const PrecisionVariant& v) {
    for (const PrecisionExperimentVariant& e : kPrecisionExperimentVariants)
        if (e.unroll == v.unroll && e.threads_per_body == v.threads_per_body && e.bodies_per_thread == v.bodies_per_thread)
            return true;
    return false;
}

// The formulation a launch uses: the product's unless the developer override names the other one.
std::string env(const char* name) {
    const char* e = std::getenv(name);
    return e == nullptr ? std::string() : std::string(e);
}

int resolve_kind(PrecisionMode m) {
    switch (m) {
        case PrecisionMode::Fp32Jbag: {
            const std::string s = env("NBODY_JBAG_SUM");
            if (s.empty() || s == "kahan") return kKindJbag;
            if (s == "plain") return kKindJbagPlain;
            throw std::invalid_argument("NBODY_JBAG_SUM='" + s + "' is not one of kahan, plain");
        }
        case PrecisionMode::Ds: {
            const std::string s = env("NBODY_DS_SEPARATION");
            if (s.empty() || s == "ref") return kKindDsRef;
            if (s == "eq3") return kKindDsEq3;
            throw std::invalid_argument("NBODY_DS_SEPARATION='" + s + "' is not one of ref, eq3");
        }
        case PrecisionMode::Fp64:
            return kKindFp64;
    }
    throw std::invalid_argument("unknown precision mode " + std::to_string(static_cast<int>(m)) +
                                " (supported: fp32-jbag, ds, fp64)");
}

ForceGrid resolve_grid() {
    const std::string text = env("NBODY_FORCE_GRID");
    if (text.empty() || text == "auto") return ForceGrid::Auto;
    if (text == "classic") return ForceGrid::Classic;
    if (text == "balanced") return ForceGrid::Balanced;
    throw std::invalid_argument("NBODY_FORCE_GRID='" + text + "' is not one of auto, classic, balanced");
}

[[noreturn]] void throw_unsupported(const PrecisionVariant& v, int kind) {
    if (!known_mode(v.mode))
        throw std::invalid_argument("unknown precision mode " + std::to_string(static_cast<int>(v.mode)) +
                                    " (supported: fp32-jbag, ds, fp64)");
    const std::string mode = precision_mode_name(v.mode);
    const std::vector<int> bvals = precision_bodies_per_thread_values(v.mode);
    std::string msg = "no " + mode + " kernel instance for unroll=" + std::to_string(v.unroll) +
                      ", threads_per_body=" + std::to_string(v.threads_per_body) +
                      ", bodies_per_thread=" + std::to_string(v.bodies_per_thread) + ":";
    const bool values_ok = contains(kPrecisionUnrollValues, v.unroll) &&
                           contains(kPrecisionThreadsPerBodyValues, v.threads_per_body) &&
                           contains(bvals, v.bodies_per_thread);
    if (!contains(kPrecisionUnrollValues, v.unroll))
        msg += " unroll " + std::to_string(v.unroll) + " is not supported in " + mode +
               " (supported: " + list(kPrecisionUnrollValues) + ");";
    if (!contains(kPrecisionThreadsPerBodyValues, v.threads_per_body))
        msg += " threads_per_body " + std::to_string(v.threads_per_body) + " is not supported in " + mode +
               " (supported: " + list(kPrecisionThreadsPerBodyValues) + ");";
    if (!contains(bvals, v.bodies_per_thread))
        msg += " bodies_per_thread " + std::to_string(v.bodies_per_thread) + " is not supported in " + mode +
               " (supported: " + list(bvals) + ");";
    if (values_ok && (kind == kKindJbagPlain || kind == kKindDsEq3)) {
        std::string combos;
        for (const PrecisionExperimentVariant& e : kPrecisionExperimentVariants)
            combos += (combos.empty() ? "" : ", ") + std::string("U") + std::to_string(e.unroll) + " q" +
                      std::to_string(e.threads_per_body) + " B" + std::to_string(e.bodies_per_thread);
        msg += std::string(kind == kKindJbagPlain ? " NBODY_JBAG_SUM=plain" : " NBODY_DS_SEPARATION=eq3") +
               " is compiled only for " + combos + ";";
    }
    msg.back() = '.';
    throw std::invalid_argument(msg);
}

// THE dispatch: run-time (kind, U, q, B) to a compiled instance. Default: an error listing the
// supported values.
PrecisionKernelFn select_precision_kernel(const PrecisionVariant& v, int kind) {
#define NBODY_PREC_CASE(K, U, Q, B) \
    case variant_key(K, U, Q, B):   \
        return &precision_force_kernel<K, U, Q, B>;
    // Out-of-range values cannot alias a valid key: they are checked before the key is formed.
    const bool in_range = known_mode(v.mode) && contains(kPrecisionUnrollValues, v.unroll) &&
                          contains(kPrecisionThreadsPerBodyValues, v.threads_per_body) &&
                          v.bodies_per_thread >= 1 && v.bodies_per_thread <= 99;
    switch (in_range ? variant_key(kind, v.unroll, v.threads_per_body, v.bodies_per_thread) : -1) {
        NBODY_PREC_VARIANTS(NBODY_PREC_CASE)
        default:
            throw_unsupported(v, kind);
    }
#undef NBODY_PREC_CASE
}

PrecisionKernelFn select_precision_kernel(const PrecisionVariant& v) {
    return select_precision_kernel(v, known_mode(v.mode) ? resolve_kind(v.mode) : -1);
}

KernelOccupancy occupancy(PrecisionKernelFn fn, int block, std::size_t shared) {
    return cached_occupancy(reinterpret_cast<const void*>(fn), block, shared);
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

void require_precision_instance(const PrecisionVariant& v) {
    (void)detail::resolve_grid();  // a malformed override is an error here too, not at the launch
    (void)detail::select_precision_kernel(v);
}

const char* precision_formulation(PrecisionMode mode) {
    switch (detail::resolve_kind(mode)) {
        case detail::kKindJbag:
            return "kahan";
        case detail::kKindJbagPlain:
            return "plain";
        case detail::kKindDsRef:
            return "ref";
        case detail::kKindDsEq3:
            return "eq3";
        default:
            return "fp64";
    }
}

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
    // Two tiles (one barrier per tile). Ds's ref formulation stages one float4 per body, eq3 two;
    // the bound covers both so that the config check does not depend on the override.
    const std::size_t per_body = mode == PrecisionMode::Fp32Jbag ? sizeof(float4) : 2 * sizeof(float4);
    return 2 * static_cast<std::size_t>(block) * per_body;
}

namespace {
// Frame::scale for softening eps: the power of two S with eps S in [2^-16, 2^-15). Then r'^6 >=
// 2^-96 (far from float's 2^-126 flush-to-zero) and overflows only beyond r' = 2^21.3, i.e.
// r > 2^37 eps (1.4e10 length units at eps = 0.1), where a term becomes 0. Clamped so positions
// and masses keep their range.
float frame_scale(double eps2) {
    if (!(eps2 > 0.0) || !std::isfinite(eps2)) return 1.0f;  // refused upstream; never a bad shift
    const int e = std::ilogb(std::sqrt(eps2));              // floor(log2(eps))
    return std::ldexp(1.0f, std::clamp(-16 - e, -60, 60));
}

// The kinds whose tile holds one float4 per body and whose interaction is accumulate_f32.
bool single_float_tile(int kind) {
    return kind == detail::kKindJbag || kind == detail::kKindJbagPlain || kind == detail::kKindDsRef;
}

std::size_t launch_shared_bytes(int kind, int block) {
    const std::size_t per_body = single_float_tile(kind) ? sizeof(float4) : 2 * sizeof(float4);
    return 2 * static_cast<std::size_t>(block) * per_body;
}
}  // namespace

PrecisionPlan plan_precision_force(const PrecisionVariant& v, int block, int n, bool have_workspace) {
    PrecisionPlan plan;
    const int kind = detail::resolve_kind(v.mode);
    const ForceGrid wanted = detail::resolve_grid();
    const detail::PrecisionKernelFn fn = detail::select_precision_kernel(v, kind);
    if (n <= 0) return plan;
    if (block <= 0 || block % kWarpSize != 0 || block > kMaxBlock)
        throw std::invalid_argument("precision kernel block " + std::to_string(block) +
                                    " is not a multiple of 32 in 32..1024");
    const int per_block = block / v.threads_per_body * v.bodies_per_thread;
    plan.iblocks = (n + per_block - 1) / per_block;
    plan.tiles = (n + block - 1) / block;
    const std::size_t shared = launch_shared_bytes(kind, block);
    if (shared > 48 * 1024)  // beyond the default: opt in (the config check holds it to the device's limit)
        CUDA_CHECK(cudaFuncSetAttribute(reinterpret_cast<const void*>(fn), cudaFuncAttributeMaxDynamicSharedMemorySize,
                                        static_cast<int>(shared)));
    const KernelOccupancy occ = detail::occupancy(fn, block, shared);
    plan.blocks_per_sm = occ.blocks_per_sm;
    // Room for fp64 partials: a Double4 is two float4s per body and contributing block.
    const SplitDecision split = decide_split(wanted, plan.iblocks, plan.tiles, occ.sm_count, occ.blocks_per_sm, n,
                                             have_workspace, 2);
    plan.grid = split.grid;
    plan.blocks = split.blocks;
    plan.max_contributors = split.max_contributors;
    plan.classic_efficiency = split.classic_efficiency;
    return plan;
}

void launch_precision_force(const PrecisionVariant& v, int block, const PrecisionForceArgs& args,
                            cudaStream_t stream) {
    const int kind = detail::resolve_kind(v.mode);
    const PrecisionPlan plan = plan_precision_force(v, block, args.n, args.workspace != nullptr);
    const detail::PrecisionKernelFn fn = detail::select_precision_kernel(v, kind);
    if (args.n <= 0) return;
    detail::PrecisionKernelParams k{};
    k.a = args;
    k.tiles = plan.tiles;
    k.scale = single_float_tile(kind) ? frame_scale(args.eps2) : 1.0f;
    if (plan.grid == ForceGrid::Balanced) {
        const long long work = static_cast<long long>(plan.iblocks) * plan.tiles;  // < 2^31 (plan)
        k.share = static_cast<int>(work / plan.blocks);
        k.extra = static_cast<int>(work % plan.blocks);
        // Fp64 partials are Double4s: two float4s each.
        const std::size_t per_body = v.mode == PrecisionMode::Fp64 ? 2 : 1;
        args.workspace->reserve(static_cast<std::size_t>(plan.iblocks),
                                per_body * static_cast<std::size_t>(plan.max_contributors) *
                                    static_cast<std::size_t>(args.n),
                                stream);
        k.partials = args.workspace->partials();
        k.counters = args.workspace->counters();
    }
    fn<<<plan.blocks, block, launch_shared_bytes(kind, block), stream>>>(k);
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
