// Kernel lab (issue 17): the product's every-pair force kernel body (force_kernel_body.cuh) with
// knobs that change only the order and form of the same arithmetic, for ptxas to allocate and
// schedule differently, and a harness that times one compiled variant the way launch_force() runs
// it (balanced split, uniform-mass tiles, double buffer). Each variant is its own executable,
// built with -DLAB_U=.. -DLAB_Q=.. -DLAB_B=.. -DLAB_F=.. -DLAB_S=.. -DLAB_LB=.. (run.sh).
// LAB_S = 0 and LAB_LB = 0 is the product's code.
//   LAB_S bits: 1 r^2 summed x first   2 s = (1/r^2)(1/r)   4 phase order over B (all r^2, then
//   all rsqrt, then all sums)   8 d = x_i - x_j, a -= s d   16 the B loop reversed
//   32 the next k-step's first j-body loaded ahead   64 software pipelined (j's rsqrts among j - 1's
//   sums); probes with wrong forces: 128 one FADD per j-body instead of its LDS, 256 an FMUL instead
//   of the MUFU.RSQ; 512 the sums in z, y, x order, 1024 the factor as the sums' first operand,
//   2048 the differences in z, y, x order
// LAB_LB: __launch_bounds__(LAB_LB, LAB_MINB) (0: none; LAB_MINB defaults to 1). LAB_PIPE = K > 0: a ring of K tiles with mbarriers
// (force_body_ring) instead of the product's barrier per tile. LAB_PACK = 1: uniform-mass tiles packed
// as x, y, z (12 bytes a body; q = 1 only). LAB_DIRECT = 1: no shared memory and no barrier at all;
// every warp reads the j-bodies straight from a global copy in tile layout (warp-uniform LDG.128,
// served by L1), so warps never wait for each other (force_body_direct). LAB_T = T > 1: tiles of T p
// bodies, each thread staging T of them, so one barrier per T p j-bodies (force_body_big).
#include <cuda_runtime.h>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

#include "lab_check.h"

#include "force_kernel_body.cuh"  // the helpers the lab body shares with the product

#ifndef LAB_S
#define LAB_S 0
#endif
#ifndef LAB_LB
#define LAB_LB 0
#endif
#ifndef LAB_PACK
#define LAB_PACK 0
#endif
#ifndef LAB_PIPE
#define LAB_PIPE 0
#endif
#ifndef LAB_DIRECT
#define LAB_DIRECT 0
#endif
#ifndef LAB_T
#define LAB_T 1
#endif
#ifndef LAB_MINB
#define LAB_MINB 1
#endif


namespace lab {
using nbody::cuda::detail::ForceKernelParams;
using nbody::cuda::detail::block_of_step;
using nbody::cuda::detail::sum_over_lanes;
using nbody::cuda::detail::load_body;
using nbody::cuda::detail::to_tile;
using nbody::cuda::detail::rescale;
using nbody::cuda::detail::enter_tile_unit;
using nbody::cuda::detail::store_result;
using nbody::cuda::detail::finish_split_iblock;
constexpr int kRotF = nbody::cuda::kForceRotatedTile, kSingleF = nbody::cuda::kForceSingleBarrier,
              kMassF = nbody::cuda::kForceMassTiles;

struct Pair {  // one pair's inputs after the j-load: the differences and r^2
    float dx, dy, dz, r2;
};

template <bool Rot>
__device__ __forceinline__ Pair pair_of(const float3& xi, const float4& pj, float eps2) {
    const float xj = Rot ? pj.y : pj.x, yj = Rot ? pj.z : pj.y, zj = Rot ? pj.w : pj.z;
    Pair p;
    if (LAB_S & 2048) {  // the differences in z, y, x order
        p.dz = (LAB_S & 8) ? xi.z - zj : zj - xi.z;
        p.dy = (LAB_S & 8) ? xi.y - yj : yj - xi.y;
        p.dx = (LAB_S & 8) ? xi.x - xj : xj - xi.x;
    } else if (LAB_S & 8) {
        p.dx = xi.x - xj;
        p.dy = xi.y - yj;
        p.dz = xi.z - zj;
    } else {
        p.dx = xj - xi.x;
        p.dy = yj - xi.y;
        p.dz = zj - xi.z;
    }
    if (LAB_S & 1) p.r2 = fmaf(p.dz, p.dz, fmaf(p.dy, p.dy, fmaf(p.dx, p.dx, eps2)));
    else p.r2 = fmaf(p.dx, p.dx, fmaf(p.dy, p.dy, fmaf(p.dz, p.dz, eps2)));
    return p;
}

template <bool Rot, bool UnitMass>
__device__ __forceinline__ float factor_of(const float4& pj, float inv_r) {
    const float mj = Rot ? pj.x : pj.w;
    if (LAB_S & 2) return UnitMass ? (inv_r * inv_r) * inv_r : (inv_r * inv_r) * (mj * inv_r);
    return UnitMass ? inv_r * (inv_r * inv_r) : (mj * inv_r) * (inv_r * inv_r);
}

__device__ __forceinline__ void add_term(const Pair& p, float s, float3& a) {
    const float f = (LAB_S & 8) ? -s : s;
    if (LAB_S & 512) {  // the sums in z, y, x order
        a.z = (LAB_S & 1024) ? fmaf(f, p.dz, a.z) : fmaf(p.dz, f, a.z);
        a.y = (LAB_S & 1024) ? fmaf(f, p.dy, a.y) : fmaf(p.dy, f, a.y);
        a.x = (LAB_S & 1024) ? fmaf(f, p.dx, a.x) : fmaf(p.dx, f, a.x);
    } else if (LAB_S & 1024) {  // the factor as the first operand
        a.x = fmaf(f, p.dx, a.x);
        a.y = fmaf(f, p.dy, a.y);
        a.z = fmaf(f, p.dz, a.z);
    } else {
        a.x = fmaf(p.dx, f, a.x);
        a.y = fmaf(p.dy, f, a.y);
        a.z = fmaf(p.dz, f, a.z);
    }
}

// LAB_S & 256 (a probe, wrong forces): an FMUL where the MUFU.RSQ was, same issue slots.
__device__ __forceinline__ float lab_rsqrt(float x) { return (LAB_S & 256) ? x * 1.0001f : rsqrtf(x); }

template <int B, bool Rot, bool UnitMass>
__device__ __forceinline__ void accumulate_j(const float4& pj, const float3 (&xi)[B], float3 (&ai)[B], float eps2) {
    if (LAB_S & 4) {
        Pair p[B];
        float inv[B];
#pragma unroll
        for (int c = 0; c < B; ++c) {
            const int b = (LAB_S & 16) ? B - 1 - c : c;
            p[b] = pair_of<Rot>(xi[b], pj, eps2);
        }
#pragma unroll
        for (int c = 0; c < B; ++c) {
            const int b = (LAB_S & 16) ? B - 1 - c : c;
            inv[b] = lab_rsqrt(p[b].r2);
        }
#pragma unroll
        for (int c = 0; c < B; ++c) {
            const int b = (LAB_S & 16) ? B - 1 - c : c;
            add_term(p[b], factor_of<Rot, UnitMass>(pj, inv[b]), ai[b]);
        }
    } else {
#pragma unroll
        for (int c = 0; c < B; ++c) {
            const int b = (LAB_S & 16) ? B - 1 - c : c;
            const Pair p = pair_of<Rot>(xi[b], pj, eps2);
            add_term(p, factor_of<Rot, UnitMass>(pj, lab_rsqrt(p.r2)), ai[b]);
        }
    }
}

// LAB_DIRECT reads each j-body from global memory as one 128-bit load at an immediate offset from
// the group's pointer. A plain float4 read whose mass is unused becomes a 64- and a 32-bit load (two
// MIO instructions), and __ldg takes every address in its own register pair (about seven more
// instructions a j-body); both seen in the cubin here.
template <int Off>
__device__ __forceinline__ float4 lab_ldg4(const float4* row) {
    float4 v;
    asm("ld.global.nc.v4.f32 {%0, %1, %2, %3}, [%4+%5];"
        : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w)
        : "l"(row), "n"(Off));
    return v;
}
template <int U, int Q, int B, bool Rot, bool UnitMass, int u = 0>
__device__ __forceinline__ void accumulate_group(const float4* row, const float3 (&xi)[B], float3 (&ai)[B],
                                                 float eps2) {
    if constexpr (u < U) {
        accumulate_j<B, Rot, UnitMass>(lab_ldg4<u * Q * 16>(row), xi, ai, eps2);
        accumulate_group<U, Q, B, Rot, UnitMass, u + 1>(row, xi, ai, eps2);
    }
}

template <int U, int Q, int B, bool Rot, bool UnitMass>
__device__ __forceinline__ int interact_unrolled(const float4* lane_tile, int groups, const float3 (&xi)[B],
                                                 float3 (&ai)[B], float eps2) {
    int k = 0;
    if (LAB_S & 32) {
        if (groups < U) return 0;
        float4 first = lane_tile[0];
        for (; k + U <= groups; k += U) {
            const float4 head = first;
            if (k + 2 * U <= groups) first = lane_tile[(k + U) * Q];
            accumulate_j<B, Rot, UnitMass>(head, xi, ai, eps2);
#pragma unroll
            for (int u = 1; u < U; ++u) accumulate_j<B, Rot, UnitMass>(lane_tile[(k + u) * Q], xi, ai, eps2);
        }
        return k;
    }
    if (LAB_S & 128) {  // a probe, wrong forces: one FADD per j-body where its LDS was
        const float4 first = lane_tile[0];
        float t = first.y;  // every coordinate of the j-body moves with t: nothing can be hoisted
        for (; k + U <= groups; k += U) {
#pragma unroll
            for (int u = 0; u < U; ++u) {
                t += 0x1p-10f;
                accumulate_j<B, Rot, UnitMass>(make_float4(t, t, t, t), xi, ai, eps2);
            }
        }
        return k;
    }
    if (LAB_S & 64) {  // software pipelined: j's rsqrts issued among j - 1's sums
        for (; k + U <= groups; k += U) {
            Pair prev[B];
            float prev_inv[B];
            float4 prev_pj;
#pragma unroll
            for (int u = 0; u <= U; ++u) {
                float4 pj;
                Pair cur[B];
                float cur_inv[B];
                if (u < U) pj = lane_tile[(k + u) * Q];
#pragma unroll
                for (int b = 0; b < B; ++b) {
                    if (u < U) {
                        cur[b] = pair_of<Rot>(xi[b], pj, eps2);
                        cur_inv[b] = lab_rsqrt(cur[b].r2);
                    }
                    if (u > 0) add_term(prev[b], factor_of<Rot, UnitMass>(prev_pj, prev_inv[b]), ai[b]);
                }
                if (u < U) {
#pragma unroll
                    for (int b = 0; b < B; ++b) {
                        prev[b] = cur[b];
                        prev_inv[b] = cur_inv[b];
                    }
                    prev_pj = pj;
                }
            }
        }
        return k;
    }
    if constexpr (LAB_DIRECT != 0) {
        for (; k + U <= groups; k += U) accumulate_group<U, Q, B, Rot, UnitMass>(lane_tile + k * Q, xi, ai, eps2);
    } else {
        for (; k + U <= groups; k += U) {
#pragma unroll
            for (int u = 0; u < U; ++u) accumulate_j<B, Rot, UnitMass>(lane_tile[(k + u) * Q], xi, ai, eps2);
        }
    }
    return k;
}

template <int Q, int B, bool Rot, bool UnitMass>
__device__ __forceinline__ void interact_remainder(const float4* lane_tile, int k, int groups, const float3 (&xi)[B],
                                                   float3 (&ai)[B], float eps2) {
#pragma unroll 1
    for (; k < groups; ++k) {
        if constexpr (LAB_DIRECT != 0) accumulate_j<B, Rot, UnitMass>(lab_ldg4<0>(lane_tile + k * Q), xi, ai, eps2);
        else accumulate_j<B, Rot, UnitMass>(lane_tile[k * Q], xi, ai, eps2);
    }
}

// ---- the product's force_kernel_body.cuh with the lab's interact_tile; its helpers are used as they are ----
// LAB_PACK: a uniform-mass tile holds x, y, z only, 12 bytes per body (three LDS.128 per four
// bodies instead of four); mixed tiles keep the float4 layout (their loop needs m_j).
__device__ __forceinline__ bool tile_is_uniform(const ForceKernelParams& a, int tile) {
    return LAB_PACK && a.tile_mass != nullptr && __ldg(a.tile_mass + tile).x > 0.0f;
}
template <bool Rot>
__device__ __forceinline__ void put_body(float4* slot_base, int t, const float4& body, bool packed) {
    if (packed) {
        float* f = reinterpret_cast<float*>(slot_base) + 3 * t;
        f[0] = body.x;
        f[1] = body.y;
        f[2] = body.z;
    } else {
        slot_base[t] = to_tile<Rot>(body);
    }
}
#if LAB_PACK
template <bool Rot>
__device__ __forceinline__ void stage_tile(float4* slot_base, int t, bool write, const float4& body, bool packed) {
    if (write) put_body<Rot>(slot_base, t, body, packed);
    __syncthreads();
}
#else
using nbody::cuda::detail::stage_tile;
#endif
template <int U, int B>
__device__ __forceinline__ void interact_packed(const float4* slot_base, int groups, const float3 (&xi)[B],
                                                float3 (&ai)[B], float eps2) {
    static_assert(U % 4 == 0, "packed tiles are read four bodies at a time");
    int k = 0;
    for (; k + U <= groups; k += U) {
#pragma unroll
        for (int u = 0; u < U; u += 4) {
            const float4* q = slot_base + (k + u) / 4 * 3;
            const float4 a0 = q[0], a1 = q[1], a2 = q[2];
            accumulate_j<B, false, true>(make_float4(a0.x, a0.y, a0.z, 0.0f), xi, ai, eps2);
            accumulate_j<B, false, true>(make_float4(a0.w, a1.x, a1.y, 0.0f), xi, ai, eps2);
            accumulate_j<B, false, true>(make_float4(a1.z, a1.w, a2.x, 0.0f), xi, ai, eps2);
            accumulate_j<B, false, true>(make_float4(a2.y, a2.z, a2.w, 0.0f), xi, ai, eps2);
        }
    }
    const float* f = reinterpret_cast<const float*>(slot_base);
#pragma unroll 1
    for (; k < groups; ++k)
        accumulate_j<B, false, true>(make_float4(f[3 * k], f[3 * k + 1], f[3 * k + 2], 0.0f), xi, ai, eps2);
}
// One tile; lane s reads entries k Q + s of the tile at slot_base. LAB_PACK sends a uniform-mass
// tile at q = 1 to the packed loop; otherwise it is the product's interact_tile.
template <int U, int Q, int B, bool Rot, bool MassTiles>
__device__ __forceinline__ void interact_tile(const float4* slot_base, int s, int groups, const float3 (&xi)[B],
                                              float3 (&ai)[B], float eps2, bool unit_masses) {
    const float4* lane_tile = slot_base + s;
    if (MassTiles && unit_masses) {
        if constexpr (LAB_PACK && Q == 1) {
            interact_packed<U, B>(slot_base, groups, xi, ai, eps2);
        } else {
            const int k = interact_unrolled<U, Q, B, Rot, true>(lane_tile, groups, xi, ai, eps2);
            interact_remainder<Q, B, Rot, true>(lane_tile, k, groups, xi, ai, eps2);
        }
    } else {
        const int k = interact_unrolled<U, Q, B, Rot, false>(lane_tile, groups, xi, ai, eps2);
        interact_remainder<Q, B, Rot, false>(lane_tile, k, groups, xi, ai, eps2);
    }
}
// The bodies of i-block ib this thread owns, and zero sums in units of 1.
template <int Q, int B>
__device__ __forceinline__ int start_iblock(const ForceKernelParams& a, int ib, int groups, float3 (&xi)[B],
                                            float3 (&ai)[B], float& scale) {
    const int first = ib * groups * B + static_cast<int>(threadIdx.x) / Q;
    scale = 1.0f;
#pragma unroll
    for (int b = 0; b < B; ++b) {
        const float4 pi = load_body(a.pos, a.n, first + b * groups);
        xi[b] = make_float3(pi.x, pi.y, pi.z);
        ai[b] = make_float3(0.0f, 0.0f, 0.0f);
    }
    return first;
}
template <int Q, int B, bool MassTiles>
__device__ __forceinline__ void finish_iblock(const ForceKernelParams& a, int ib, int first, int groups, int s, int g,
                                              float3 (&ai)[B], float scale, int& finisher) {
    sum_over_lanes<Q>(ai);
    if constexpr (MassTiles) rescale<B>(ai, scale);
    if (a.counters != nullptr) {
        const int g_first = block_of_step(ib * a.tiles, a);
        const int g_last = block_of_step(ib * a.tiles + a.tiles - 1, a);
        if (g_first != g_last) {
            finish_split_iblock<Q, B>(a, ib, groups * B, g - g_first, g_last - g_first + 1, first, groups, s, ai,
                                      finisher);
            return;
        }
    }
#pragma unroll
    for (int b = 0; b < B; ++b) {
        const int i = first + b * groups;
        if (s == b % Q && i < a.n) store_result(a, i, ai[b]);
    }
}
template <int U, int Q, int B, int F>
__device__ __forceinline__ void force_body(const ForceKernelParams& a) {
    static_assert(!LAB_PACK || (Q == 1 && (F & kMassF) != 0), "packed tiles: q = 1, uniform-mass tiles");
    constexpr bool kRot = (F & kRotF) != 0;
    constexpr bool kSingle = (F & kSingleF) != 0;
    constexpr bool kMassTiles = (F & kMassF) != 0;
    extern __shared__ float4 tile_smem[];
    __shared__ int finisher;
    const int p = blockDim.x;
    const int t = threadIdx.x;
    const int s = t % Q;
    const int groups = p / Q;
    const int g = blockIdx.x;
    // The product's text, not a helper: as a helper it moved ptxas's allocation (run 75).
    int ib, tile, remaining;
    if (a.counters == nullptr) {
        ib = g;
        tile = 0;
        remaining = a.tiles;
    } else {
        const int w0 = nbody::cuda::detail::first_step(g, a);
        remaining = a.share + (g < a.extra ? 1 : 0);
        ib = w0 / a.tiles;
        tile = w0 - ib * a.tiles;
    }
    float4 next = load_body(a.pos, a.n, tile * p + t);
    int buf = 0;
#if LAB_PACK
    if constexpr (kSingle) stage_tile<kRot>(tile_smem, t, true, next, tile_is_uniform(a, tile));
#else
    if constexpr (kSingle) stage_tile<kRot>(tile_smem + t, true, next);
#endif
    for (; remaining > 0; ++ib, tile = 0) {
        const int count = min(a.tiles - tile, remaining);
        remaining -= count;
        float3 xi[B];
        float3 ai[B];
        float scale;
        const int first = start_iblock<Q, B>(a, ib, groups, xi, ai, scale);
        const int tile_end = tile + count;
        for (; tile < tile_end; ++tile) {
            const bool more = tile + 1 < tile_end || remaining > 0;
            const int j_next = (tile + 1 == a.tiles ? 0 : tile + 1) * p + t;
            const bool unit_masses = kMassTiles && enter_tile_unit<B>(a.tile_mass, tile, ai, scale);
            if constexpr (kSingle) {
                if (more) next = load_body(a.pos, a.n, j_next);
                interact_tile<U, Q, B, kRot, kMassTiles>(tile_smem + buf * p, s, groups, xi, ai, a.eps2,
                                                         unit_masses);
#if LAB_PACK
                stage_tile<kRot>(tile_smem + (buf ^ 1) * p, t, more, next, more && tile_is_uniform(a, j_next / p));
#else
                stage_tile<kRot>(tile_smem + (buf ^ 1) * p + t, more, next);
#endif
                buf ^= 1;
            } else {
#if LAB_PACK
                stage_tile<kRot>(tile_smem, t, true, next, unit_masses && LAB_PACK);
#else
                stage_tile<kRot>(tile_smem + t, true, next);
#endif
                if (more) next = load_body(a.pos, a.n, j_next);
                interact_tile<U, Q, B, kRot, kMassTiles>(tile_smem, s, groups, xi, ai, a.eps2, unit_masses);
                __syncthreads();
            }
        }
        finish_iblock<Q, B, kMassTiles>(a, ib, first, groups, s, g, ai, scale, finisher);
    }
}

// Where block g's work starts (i-block, tile) and how many tile steps it has: the product's split,
// written once for the big-tile and direct bodies (their SASS is the one runs 79-80 timed, checked on
// the cubins). force_body keeps the product's inline text (run 75) and the ring body the text runs
// 71-73 timed: through this helper its SASS differs.
__device__ __forceinline__ void block_work(const ForceKernelParams& a, int g, int& ib, int& tile, int& steps) {
    if (a.counters == nullptr) {
        ib = g;
        tile = 0;
        steps = a.tiles;
    } else {
        const int w0 = nbody::cuda::detail::first_step(g, a);
        steps = a.share + (g < a.extra ? 1 : 0);
        ib = w0 / a.tiles;
        tile = w0 - ib * a.tiles;
    }
}

// ---- LAB_T = T > 1: tiles of T p bodies, one barrier per T p j-bodies ----
// Does the barrier cost a fixed drain per tile (then T tiles' worth of work per barrier recovers most
// of it) or grow with the work between barriers? The next tile is loaded after the current one is
// done, not ahead (T float4s held across the loop would cost 4 T registers); its latency is paid
// once per T p j-bodies. Double-buffered as flags 2 (kForceSingleBarrier) does, whatever F says.
template <int U, int Q, int B, int F, int T>
__device__ __forceinline__ void force_body_big(const ForceKernelParams& a) {
    constexpr bool kRot = (F & kRotF) != 0;
    constexpr bool kMassTiles = (F & kMassF) != 0;
    extern __shared__ float4 tile_smem[];  // two tiles of T p bodies
    __shared__ int finisher;
    const int p = blockDim.x;
    const int P = T * p;
    const int t = threadIdx.x;
    const int s = t % Q;
    const int groups = P / Q;        // j-values a lane reads per tile
    const int i_groups = p / Q;      // the i-block's layout, as with tiles of p
    const int g = blockIdx.x;
    int ib, tile, remaining;
    block_work(a, g, ib, tile, remaining);
    int buf = 0;
#pragma unroll
    for (int r = 0; r < T; ++r) tile_smem[r * p + t] = to_tile<kRot>(load_body(a.pos, a.n, tile * P + r * p + t));
    __syncthreads();
    for (; remaining > 0; ++ib, tile = 0) {
        const int count = min(a.tiles - tile, remaining);
        remaining -= count;
        float3 xi[B];
        float3 ai[B];
        float scale;
        const int first = start_iblock<Q, B>(a, ib, i_groups, xi, ai, scale);
        const int tile_end = tile + count;
        for (; tile < tile_end; ++tile) {
            const bool more = tile + 1 < tile_end || remaining > 0;
            const int next_tile = tile + 1 == a.tiles ? 0 : tile + 1;
            const bool unit_masses = kMassTiles && enter_tile_unit<B>(a.tile_mass, tile, ai, scale);
            interact_tile<U, Q, B, kRot, kMassTiles>(tile_smem + buf * P, s, groups, xi, ai, a.eps2, unit_masses);
            if (more) {
#pragma unroll
                for (int r = 0; r < T; ++r)
                    tile_smem[(buf ^ 1) * P + r * p + t] = to_tile<kRot>(load_body(a.pos, a.n, next_tile * P + r * p + t));
            }
            __syncthreads();
            buf ^= 1;
        }
        finish_iblock<Q, B, kMassTiles>(a, ib, first, i_groups, s, g, ai, scale, finisher);
    }
}

// ---- LAB_DIRECT: each warp streams the j-bodies from global memory, no tile barrier ----
// ncu put 45 % of the cycles in which no warp issued on the per-tile barrier (run 70), and a ring of
// tiles only moved that wait to mbarriers and the MUFU queue (run 71). Here no warp ever waits for
// another: jt is the bodies in tile layout (to_tile, padded to whole tiles with zero-mass bodies),
// read with one warp-uniform LDG.128 per j-body, as the LDS.128 read the tile.
template <int U, int Q, int B, int F>
__device__ __forceinline__ void force_body_direct(const ForceKernelParams& a, const float4* __restrict__ jt) {
    constexpr bool kRot = (F & kRotF) != 0;
    constexpr bool kMassTiles = (F & kMassF) != 0;
    __shared__ int finisher;
    const int p = blockDim.x;
    const int t = threadIdx.x;
    const int s = t % Q;
    const int groups = p / Q;
    const int g = blockIdx.x;
    int ib, tile, remaining;
    block_work(a, g, ib, tile, remaining);
    for (; remaining > 0; ++ib, tile = 0) {
        const int count = min(a.tiles - tile, remaining);
        remaining -= count;
        float3 xi[B];
        float3 ai[B];
        float scale;
        const int first = start_iblock<Q, B>(a, ib, groups, xi, ai, scale);
        const int tile_end = tile + count;
        for (; tile < tile_end; ++tile) {
            const bool unit_masses = kMassTiles && enter_tile_unit<B>(a.tile_mass, tile, ai, scale);
            interact_tile<U, Q, B, kRot, kMassTiles>(jt + tile * p, s, groups, xi, ai, a.eps2, unit_masses);
        }
        finish_iblock<Q, B, kMassTiles>(a, ib, first, groups, s, g, ai, scale, finisher);
    }
}

// ---- LAB_PIPE = K > 0: a ring of K tiles with mbarriers instead of one barrier per tile ----
// Each step (one tile of the block's work) waits only for its own tile to be complete (full[slot]);
// a thread refills the slot of the step before last, once every thread has finished reading it
// (empty[slot]). A warp may so run up to a tile ahead of the slowest one instead of waiting for it
// at every tile: ncu put 45 % of the cycles in which no warp issued on the per-tile barrier.
__device__ __forceinline__ unsigned smem_u32(const void* p) {
    return static_cast<unsigned>(__cvta_generic_to_shared(p));
}
__device__ __forceinline__ void mbar_init(unsigned long long* b, unsigned count) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(smem_u32(b)), "r"(count) : "memory");
}
__device__ __forceinline__ void mbar_arrive(unsigned long long* b) {
    asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(smem_u32(b)) : "memory");
}
__device__ __forceinline__ void mbar_wait(unsigned long long* b, unsigned parity) {
    asm volatile(
        "{\n\t.reg .pred P1;\n\t"
        "LAB_WAIT:\n\t"
        "mbarrier.try_wait.parity.shared::cta.b64 P1, [%0], %1;\n\t"
        "@P1 bra DONE;\n\t"
        "bra LAB_WAIT;\n\t"
        "DONE:\n\t}" ::"r"(smem_u32(b)),
        "r"(parity)
        : "memory");
}


template <int U, int Q, int B, int F, int K>
__device__ __forceinline__ void force_body_ring(const ForceKernelParams& a) {
    static_assert(!LAB_PACK || (Q == 1 && (F & kMassF) != 0), "packed tiles: q = 1, uniform-mass tiles");
    constexpr bool kRot = (F & kRotF) != 0;
    constexpr bool kMassTiles = (F & kMassF) != 0;
    extern __shared__ float4 tile_smem[];  // K tiles
    __shared__ unsigned long long full[K], empty[K];
    __shared__ int finisher;
    const int p = blockDim.x;
    const int t = threadIdx.x;
    const int s = t % Q;
    const int groups = p / Q;
    const int g = blockIdx.x;
    int ib, tile, steps;  // inline as timed in runs 71-73: through block_work() its SASS differs
    if (a.counters == nullptr) {
        ib = g;
        tile = 0;
        steps = a.tiles;
    } else {
        const int w0 = nbody::cuda::detail::first_step(g, a);
        steps = a.share + (g < a.extra ? 1 : 0);
        ib = w0 / a.tiles;
        tile = w0 - ib * a.tiles;
    }
    if (t == 0) {
        for (int k = 0; k < K; ++k) {
            mbar_init(&full[k], p);
            mbar_init(&empty[k], p);
        }
    }
    __syncthreads();
    int staged_tile = tile;  // the tile of the next step to stage
    for (int m = 0; m < K && m < steps; ++m) {
        put_body<kRot>(tile_smem + m * p, t, load_body(a.pos, a.n, staged_tile * p + t),
                       tile_is_uniform(a, staged_tile));
        mbar_arrive(&full[m]);
        staged_tile = staged_tile + 1 == a.tiles ? 0 : staged_tile + 1;
    }
    float4 next = K < steps ? load_body(a.pos, a.n, staged_tile * p + t) : make_float4(0.0f, 0.0f, 0.0f, 0.0f);

    float3 xi[B];
    float3 ai[B];
    float scale;
    int first = start_iblock<Q, B>(a, ib, groups, xi, ai, scale);
    for (int m = 0; m < steps; ++m) {
        const int slot = m % K;
        mbar_wait(&full[slot], (m / K) & 1);
        const bool unit_masses = kMassTiles && enter_tile_unit<B>(a.tile_mass, tile, ai, scale);
        interact_tile<U, Q, B, kRot, kMassTiles>(tile_smem + slot * p, s, groups, xi, ai, a.eps2, unit_masses);
        mbar_arrive(&empty[slot]);
        if (m >= 1 && m - 1 + K < steps) {  // refill the slot of step m - 1 with step m - 1 + K
            const int refill = (m - 1) % K;
            mbar_wait(&empty[refill], ((m - 1) / K) & 1);
            put_body<kRot>(tile_smem + refill * p, t, next, tile_is_uniform(a, staged_tile));
            mbar_arrive(&full[refill]);
            staged_tile = staged_tile + 1 == a.tiles ? 0 : staged_tile + 1;
            if (m + K < steps) next = load_body(a.pos, a.n, staged_tile * p + t);
        }
        if (++tile == a.tiles || m + 1 == steps) {  // this block's part of i-block ib is done
            finish_iblock<Q, B, kMassTiles>(a, ib, first, groups, s, g, ai, scale, finisher);
            ++ib;
            tile = 0;
            first = start_iblock<Q, B>(a, ib, groups, xi, ai, scale);
        }
    }
}
}  // namespace lab

#if LAB_LB > 0
__global__ void __launch_bounds__(LAB_LB, LAB_MINB) lab_force(const lab::ForceKernelParams a, const float4* __restrict__ jt) {
#else
__global__ void lab_force(const lab::ForceKernelParams a, const float4* __restrict__ jt) {
#endif
#if LAB_DIRECT
    lab::force_body_direct<LAB_U, LAB_Q, LAB_B, LAB_F>(a, jt);
#elif LAB_T > 1
    lab::force_body_big<LAB_U, LAB_Q, LAB_B, LAB_F, LAB_T>(a);
#elif LAB_PIPE > 0
    lab::force_body_ring<LAB_U, LAB_Q, LAB_B, LAB_F, LAB_PIPE>(a);
#else
    lab::force_body<LAB_U, LAB_Q, LAB_B, LAB_F>(a);
#endif
}

namespace {
// A Plummer sphere of equal masses (the benchmark's system), positions only.
std::vector<float4> plummer(int n) {
    std::mt19937_64 rng(12345);
    std::uniform_real_distribution<double> u(0.0, 1.0);
    std::vector<float4> b(n);
    for (int i = 0; i < n; ++i) {
        const double x = std::min(u(rng), 0.999), r = 1.0 / std::sqrt(std::pow(x, -2.0 / 3.0) - 1.0);
        const double cz = 2.0 * u(rng) - 1.0, ph = 2.0 * M_PI * u(rng), sz = std::sqrt(1.0 - cz * cz);
        b[i] = make_float4(float(r * sz * std::cos(ph)), float(r * sz * std::sin(ph)), float(r * cz), 1.0f / n);
    }
    return b;
}

double time_force(int n, int p, int reps, double* max_err) {
    const std::vector<float4> host = plummer(n);
    const int per_iblock = p / LAB_Q * LAB_B;
    const int P = LAB_T * p;  // bodies per tile
    const int iblocks = (n + per_iblock - 1) / per_iblock, tiles = (n + P - 1) / P;
    std::vector<float2> tm(tiles, make_float2(0.0f, 0.0f));
    for (int t = 0; t < tiles; ++t)
        if ((t + 1) * P <= n) tm[t] = make_float2(1.0f / n, float(n));
    const size_t smem =
        LAB_DIRECT ? 0 : (LAB_PIPE > 0 ? LAB_PIPE : (LAB_F & lab::kSingleF) || LAB_T > 1 ? 2 : 1) * size_t(P) * sizeof(float4);
    std::vector<float4> jt_host(size_t(tiles) * P, make_float4(0.0f, 0.0f, 0.0f, 0.0f));  // tile layout, padded
    for (int j = 0; j < n; ++j)
        jt_host[j] = (LAB_F & lab::kRotF) ? make_float4(host[j].w, host[j].x, host[j].y, host[j].z) : host[j];
    int sms = 0, bps = 0;
    CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    CK(cudaFuncSetAttribute(lab_force, cudaFuncAttributeMaxDynamicSharedMemorySize, int(smem)));
    CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&bps, lab_force, p, smem));
    if (bps == 0) return -1.0;
    const long long work = (long long)iblocks * tiles, blocks = std::min(work, (long long)sms * bps);
    lab::ForceKernelParams k{};
    k.n = n;
    k.eps2 = 1e-4f;
    k.tiles = tiles;
    k.share = int(work / blocks);
    k.extra = int(work % blocks);
    const long long contributors = (tiles - 1 + k.share - 1) / k.share + 1;
    float4 *pos, *acc, *partials, *jt;
    unsigned* counters;
    float2* tile_mass;
    CK(cudaMalloc(&pos, n * sizeof(float4)));
    CK(cudaMalloc(&acc, n * sizeof(float4)));
    CK(cudaMalloc(&partials, contributors * n * sizeof(float4)));
    CK(cudaMalloc(&counters, iblocks * sizeof(unsigned)));
    CK(cudaMalloc(&tile_mass, tiles * sizeof(float2)));
    CK(cudaMalloc(&jt, jt_host.size() * sizeof(float4)));
    CK(cudaMemcpy(jt, jt_host.data(), jt_host.size() * sizeof(float4), cudaMemcpyHostToDevice));
    CK(cudaMemset(counters, 0, iblocks * sizeof(unsigned)));
    CK(cudaMemcpy(pos, host.data(), n * sizeof(float4), cudaMemcpyHostToDevice));
    CK(cudaMemcpy(tile_mass, tm.data(), tiles * sizeof(float2), cudaMemcpyHostToDevice));
    k.pos = pos;
    k.acc = acc;
    k.partials = partials;
    k.counters = counters;
    k.tile_mass = (LAB_F & lab::kMassF) ? tile_mass : nullptr;
    for (int w = 0; w < 2; ++w) lab_force<<<int(blocks), p, smem>>>(k, jt);
    CK(cudaGetLastError());
    cudaEvent_t e0, e1;
    CK(cudaEventCreate(&e0));
    CK(cudaEventCreate(&e1));
    float best = 1e30f;
    for (int batch = 0; batch < 3; ++batch) {
        CK(cudaEventRecord(e0));
        for (int r = 0; r < reps; ++r) lab_force<<<int(blocks), p, smem>>>(k, jt);
        CK(cudaEventRecord(e1));
        CK(cudaEventSynchronize(e1));
        float ms = 0;
        CK(cudaEventElapsedTime(&ms, e0, e1));
        best = std::min(best, ms / reps);
    }
    std::vector<float4> out(n);
    CK(cudaMemcpy(out.data(), acc, n * sizeof(float4), cudaMemcpyDeviceToHost));
    *max_err = 0;
    for (int s = 0; s < 16; ++s) {  // direct sums in double for a few bodies
        const int i = int((long long)s * 7919 % n);
        double ax = 0, ay = 0, az = 0;
        for (int j = 0; j < n; ++j) {
            const double dx = host[j].x - host[i].x, dy = host[j].y - host[i].y, dz = host[j].z - host[i].z;
            const double r2 = dx * dx + dy * dy + dz * dz + 1e-4, w = host[j].w / (r2 * std::sqrt(r2));
            ax += w * dx, ay += w * dy, az += w * dz;
        }
        const double e = std::sqrt((out[i].x - ax) * (out[i].x - ax) + (out[i].y - ay) * (out[i].y - ay) +
                                   (out[i].z - az) * (out[i].z - az)) / std::sqrt(ax * ax + ay * ay + az * az);
        *max_err = std::max(*max_err, e);
    }
    cudaFree(pos), cudaFree(acc), cudaFree(partials), cudaFree(counters), cudaFree(tile_mass), cudaFree(jt);
    return best;
}
}  // namespace

int main(int argc, char** argv) {
    std::vector<int> blocks;
    for (int k = 1; k < argc; ++k) blocks.push_back(std::atoi(argv[k]));
    if (blocks.empty()) blocks.push_back(1024);
    cudaFuncAttributes attr{};
    CK(cudaFuncGetAttributes(&attr, lab_force));
    for (int p : blocks) {
        for (int n : {262144, 1048576}) {
            double err = 0;
            const double ms = time_force(n, p, n > 300000 ? 3 : 10, &err);
            if (ms < 0) {
                std::printf("U%d q%d B%d F%d S%d LB%d K%d p%d: cannot launch (%d registers)\n", LAB_U, LAB_Q, LAB_B,
                            LAB_F, LAB_S, LAB_LB, LAB_PIPE, p, attr.numRegs);
                break;
            }
            std::printf("U%-2d q%d B%d F%d S%-2d LB%-4d K%d P%d D%d T%d p%-4d N %7d: %8.3f ms  %.4e /s  regs %d  err %.1e\n",
                        LAB_U, LAB_Q, LAB_B, LAB_F, LAB_S, LAB_LB, LAB_PIPE, LAB_PACK, LAB_DIRECT, LAB_T, p, n, ms, double(n) * n / (ms * 1e-3),
                        attr.numRegs, err);
        }
    }
    return 0;
}
