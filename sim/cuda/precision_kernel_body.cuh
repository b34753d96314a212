#pragma once
// The precision variants of the tiled all-pairs kernel, included only by the translation units that
// compile their instances (precision_kernels_*.cu). See precision_kernels.hpp for the modes and
// parameters, precision_kernels.cu for the cost per interaction, docs/PRECISION.md for the error
// analysis.

#include "balanced_split.cuh"
#include "precision_arith.cuh"
#include "precision_kernel_instances.hpp"

namespace nbody::cuda::detail {

constexpr int kMaxBlockWarps = kMaxBlock / kWarpSize;

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

// DsRef's reference point: the mean (in double) of up to 2p bodies spread evenly over the array,
// the same for every block of a pass (it depends on the positions and p only), so results are
// deterministic. Any R gives a correct force (translation invariance); its quality is how close
// it is to the bodies whose forces are most sensitive, the dense centre (docs/PRECISION.md).
__device__ inline void reference_point(const PrecisionForceArgs& a, double* ref) {
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

template <int K, int U, int Q, int B>
PrecisionKernelFn precision_kernel_instance() {
    return &precision_force_kernel<K, U, Q, B>;
}

}  // namespace nbody::cuda::detail

// The explicit instantiation of one variant's accessor (and so its kernel), for precision_kernels_*.cu.
#define NBODY_PREC_INSTANTIATE(K, U, Q, B) \
    template nbody::cuda::detail::PrecisionKernelFn nbody::cuda::detail::precision_kernel_instance<K, U, Q, B>();
