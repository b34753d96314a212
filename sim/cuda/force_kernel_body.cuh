#pragma once
// The tiled all-pairs gravity kernel (GPU Gems 3, ch. 31), included only by the translation units
// that compile its instances (force_kernel_u*.cu). See force_kernel.hpp for the parameters.
// Cost model (SASS with --use_fast_math, one interaction):
//   3 FADD (r = x_j - x_i), 3 FFMA (r.r + eps^2), 1 MUFU.RSQ, 3 FMUL (m_j / r^3), 3 FFMA (a += s r)
// = 12 FP32 instructions + 1 MUFU, plus 1/B shared loads (LDS.128) and loop overhead / (U B).
// With kForceMassTiles a tile whose bodies all share one mass m_t takes s = 1 / r^3 and the sums
// are kept in units of m_t: 11 FP32 + 1 MUFU (docs/PERFORMANCE.md, sections 11 and 12).
// No masking in the inner loop: a tail tile is padded with zero-mass bodies, whose terms are
// exactly 0 because eps^2 > 0 keeps r^2 + eps^2 finite and positive.

#include "balanced_split.cuh"
#include "force_interaction.cuh"
#include "force_kernel_instances.hpp"

namespace nbody::cuda::detail {

__device__ __forceinline__ float4 load_body(const float4* pos, int n, int j) {
    return j < n ? __ldg(pos + j) : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
}

// The tile layout (kForceRotatedTile): (m, x, y, z) puts x_j, y_j, z_j in registers 4k+1, 4k+2,
// 4k+3 of an LDS.128, x_i, y_i, z_i sit in 4k'+0..2 from their LDG.128: each dx = x_j - x_i then
// reads one even and one odd register (the two banks) instead of two of the same parity.
template <bool Rot>
__device__ __forceinline__ float4 to_tile(const float4& b) {
    if constexpr (Rot) return make_float4(b.w, b.x, b.y, b.z);
    else return b;
}

// Stores this thread's body of a tile into `slot` (when `write`: the last tile of a block has no
// next one, but every thread must still reach the barrier), then the barrier that publishes it.
template <bool Rot>
__device__ __forceinline__ void stage_tile(float4* slot, bool write, const float4& body) {
    if (write) *slot = to_tile<Rot>(body);
    __syncthreads();
}

// Uniform-mass tiles (kForceMassTiles). The running sums ai are kept in units of `scale`: a tile
// whose bodies all have mass m_t (ForceKernelParams::tile_mass, block-uniform) runs the unit-mass
// loop once the sums are in units of m_t; a mixed tile runs the general loop in units of 1. A
// change of unit costs 3 B FMULs and one rounding per sum: once per run of tiles of one mass, so
// an equal-mass system pays it once, on zero sums (bit-identical to version 4's common-mass tiles
// when p divides N),
// and a galaxy whose components are stored one after another a few times per body.
template <int B>
__device__ __forceinline__ void rescale(float3 (&ai)[B], float factor) {
#pragma unroll
    for (int b = 0; b < B; ++b) {
        ai[b].x *= factor;
        ai[b].y *= factor;
        ai[b].z *= factor;
    }
}

// Puts the sums in the unit the tile needs; returns whether it is a uniform tile.
template <int B>
__device__ __forceinline__ bool enter_tile_unit(const float2* tile_mass, int tile, float3 (&ai)[B], float& scale) {
    const float2 tm = tile_mass != nullptr ? __ldg(tile_mass + tile) : make_float2(0.0f, 0.0f);
    const bool uniform = tm.x > 0.0f;
    const float unit = uniform ? tm.x : 1.0f;
    if (unit != scale) {
        rescale<B>(ai, uniform ? scale * tm.y : scale);
        scale = unit;
    }
    return uniform;
}

// The j-values k .. groups-1 that the unrolled loop left: only when U does not divide p/Q (small
// blocks with large U or Q).
template <int Q, int B, bool Rot, bool UnitMass>
__device__ __forceinline__ void interact_remainder(const float4* lane_tile, int k, int groups, const float3 (&xi)[B],
                                                   float3 (&ai)[B], float eps2) {
#pragma unroll 1
    for (; k < groups; ++k) {
        const float4& pj = lane_tile[k * Q];
#pragma unroll
        for (int b = 0; b < B; ++b) accumulate<Rot, UnitMass>(xi[b], pj, eps2, ai[b]);
    }
}

// One tile, k < groups. A tile of one mass (block-uniform `unit_masses`) runs its own copy of the
// unrolled loop: twice the code of the instance, one FMUL less per interaction. Its sums are in
// units of the tile's mass, so its remainder must ignore m_j too (the tile holds the true masses).
template <int U, int Q, int B, bool Rot, bool MassTiles>
__device__ __forceinline__ void interact_tile(const float4* lane_tile, int groups, const float3 (&xi)[B],
                                              float3 (&ai)[B], float eps2, bool unit_masses) {
    if (MassTiles && unit_masses) {
        const int k = interact_unrolled<U, Q, B, Rot, true>(lane_tile, groups, xi, ai, eps2);
        interact_remainder<Q, B, Rot, true>(lane_tile, k, groups, xi, ai, eps2);
    } else {
        const int k = interact_unrolled<U, Q, B, Rot, false>(lane_tile, groups, xi, ai, eps2);
        interact_remainder<Q, B, Rot, false>(lane_tile, k, groups, xi, ai, eps2);
    }
}

// The finished sum of body i: a and, for a step, the closing kick.
__device__ __forceinline__ void store_result(const ForceKernelParams& a, int i, const float3& ai) {
    a.acc[i] = make_float4(ai.x, ai.y, ai.z, 0.0f);
    if (a.vel != nullptr) {
        float4 v = a.vel[i];
        v.x = fmaf(ai.x, a.half_dt, v.x);
        v.y = fmaf(ai.y, a.half_dt, v.y);
        v.z = fmaf(ai.z, a.half_dt, v.z);
        a.vel[i] = v;
    }
}

// An i-block split among `contributors` blocks (this one is number k): publish this block's
// partial sums; whichever contributor arrives last adds all of them up in contributor order, so
// the result does not depend on timing. The summing is spread over the block's threads by body,
// not done in the (U, q, B) layout: that keeps it out of the kernel's register budget (summing in
// that layout cost ptxas up to 24 more registers per thread, all instances).
template <int Q, int B>
__device__ __forceinline__ void finish_split_iblock(const ForceKernelParams& a, int ib, int per_block, int k,
                                                    int contributors, int first, int groups, int s,
                                                    const float3 (&ai)[B], int& finisher) {
#pragma unroll
    for (int b = 0; b < B; ++b) {
        const int i = first + b * groups;
        if (s == b % Q && i < a.i_count) a.partials[k * a.i_count + i] = make_float4(ai[b].x, ai[b].y, ai[b].z, 0.0f);
    }
    __threadfence();
    __syncthreads();
    if (threadIdx.x == 0) {
        const unsigned arrived = atomicAdd(a.counters + ib, 1u);
        finisher = arrived == static_cast<unsigned>(contributors - 1);
        if (finisher) a.counters[ib] = 0;  // every contributor has counted: ready for the next pass
    }
    __syncthreads();
    if (!finisher) return;
    __threadfence();
    const int base = ib * per_block;
#pragma unroll 1
    for (int r = threadIdx.x; r < per_block && base + r < a.i_count; r += blockDim.x) {
        float3 sum = make_float3(0.0f, 0.0f, 0.0f);
#pragma unroll 1
        for (int c = 0; c < contributors; ++c) {
            const float4 v = __ldcg(a.partials + c * a.i_count + base + r);  // L2: other SMs wrote it
            sum.x += v.x;
            sum.y += v.y;
            sum.z += v.z;
        }
        store_result(a, a.i_begin + base + r, sum);
    }
}

// A block of p = blockDim.x threads. Thread t is lane s = t % Q of body group t / Q; in i-block ib
// the group owns bodies ib * p/Q * B + t/Q + b * p/Q, b < B (consecutive groups own consecutive
// bodies, so loads and stores stay coalesced). Every thread loads one body of each tile, so the
// tile is p bodies whatever Q and B are. Lane s reads tile[k*Q + s]: the Q lanes of a group read Q
// consecutive float4s, which every group of the warp reads too (broadcast): no bank conflicts.
// Threads whose bodies lie beyond n compute on a dummy body and write nothing: they must still
// reach every __syncthreads() and shuffle. Every branch around a barrier is block-uniform.
template <int U, int Q, int B, int F>
__device__ __forceinline__ void force_body(const ForceKernelParams& a) {
    static_assert(U >= 1 && Q >= 1 && Q <= 32 && (Q & (Q - 1)) == 0 && B >= 1 && F >= 0 && F <= kForceAllFlags,
                  "bad force kernel variant");
    constexpr bool kRot = (F & kForceRotatedTile) != 0;
    constexpr bool kSingle = (F & kForceSingleBarrier) != 0;
    constexpr bool kMassTiles = (F & kForceMassTiles) != 0;
    extern __shared__ float4 tile_smem[];  // kSingle: two tiles, used in turn
    __shared__ int finisher;               // this block adds up a split i-block's partial sums

    const int p = blockDim.x;
    const int t = threadIdx.x;
    const int s = t % Q;
    const int groups = p / Q;  // bodies per i-block for each b; also j-values per lane per tile
    const int g = blockIdx.x;

    // This block's work: `remaining` steps from tile `tile` of i-block `ib` on. Block-uniform.
    int ib, tile, remaining;
    if (a.counters == nullptr) {
        ib = g;
        tile = 0;
        remaining = a.tiles;
    } else {
        const int w0 = first_step(g, a);
        remaining = a.share + (g < a.extra ? 1 : 0);
        ib = w0 / a.tiles;
        tile = w0 - ib * a.tiles;
    }
    // Software pipelining: the next tile's body is loaded from global memory before this tile's
    // interactions run, so its latency (~600 cycles) hides behind them instead of stalling the
    // block at the barrier. Costs 4 registers.
    float4 next = load_body(a.pos, a.n, tile * p + t);
    int buf = 0;
    if constexpr (kSingle) stage_tile<kRot>(tile_smem + t, true, next);

    for (; remaining > 0; ++ib, tile = 0) {
        const int count = min(a.tiles - tile, remaining);  // this i-block's steps in this block
        remaining -= count;
        const int first = ib * groups * B + t / Q;

        float3 xi[B];
        float3 ai[B];
        float scale = 1.0f;  // kMassTiles: the unit the sums ai are in
#pragma unroll
        for (int b = 0; b < B; ++b) {
            const float4 pi = load_body(a.pos + a.i_begin, a.i_count, first + b * groups);
            xi[b] = make_float3(pi.x, pi.y, pi.z);
            ai[b] = make_float3(0.0f, 0.0f, 0.0f);
        }

        const int tile_end = tile + count;
        for (; tile < tile_end; ++tile) {
            const bool more = tile + 1 < tile_end || remaining > 0;
            const int j_next = (tile + 1 == a.tiles ? 0 : tile + 1) * p + t;
            const bool unit_masses = kMassTiles && enter_tile_unit<B>(a.tile_mass, tile, ai, scale);
            if constexpr (kSingle) {
                // One barrier per tile: the other buffer was last read before the previous barrier.
                if (more) next = load_body(a.pos, a.n, j_next);
                interact_tile<U, Q, B, kRot, kMassTiles>(tile_smem + buf * p + s, groups, xi, ai, a.eps2,
                                                         unit_masses);
                stage_tile<kRot>(tile_smem + (buf ^ 1) * p + t, more, next);
                buf ^= 1;
            } else {
                stage_tile<kRot>(tile_smem + t, true, next);
                if (more) next = load_body(a.pos, a.n, j_next);
                interact_tile<U, Q, B, kRot, kMassTiles>(tile_smem + s, groups, xi, ai, a.eps2, unit_masses);
                __syncthreads();
            }
        }

        sum_over_lanes<Q>(ai);
        if constexpr (kMassTiles) rescale<B>(ai, scale);  // back to units of 1 (scale is block-uniform)

        if (a.counters != nullptr) {
            const int g_first = block_of_step(ib * a.tiles, a);
            const int g_last = block_of_step(ib * a.tiles + a.tiles - 1, a);
            if (g_first != g_last) {
                finish_split_iblock<Q, B>(a, ib, groups * B, g - g_first, g_last - g_first + 1, first, groups,
                                          s, ai, finisher);
                continue;
            }
        }
#pragma unroll
        for (int b = 0; b < B; ++b) {
            const int i = first + b * groups;
            if (s == b % Q && i < a.i_count) store_result(a, a.i_begin + i, ai[b]);  // spread the B stores over the lanes
        }
    }
}

// The register budget ptxas schedules for is a launch-bounds matter (docs/PERFORMANCE.md section
// 12): no bounds (the product), 64 registers (kForceRegisters64: __launch_bounds__(1024, 1), what
// one 1024-thread block per SM can use) or 128 (kForceRegisters128: __launch_bounds__(512, 1),
// blocks of at most 512 threads). The kernel body is the same; only ptxas's allocation differs.
template <int U, int Q, int B, int F>
__global__ void force_kernel(const ForceKernelParams a) {
    force_body<U, Q, B, F>(a);
}
template <int U, int Q, int B, int F>
__global__ void __launch_bounds__(1024, 1) force_kernel_regs64(const ForceKernelParams a) {
    force_body<U, Q, B, F>(a);
}
template <int U, int Q, int B, int F>
__global__ void __launch_bounds__(512, 1) force_kernel_regs128(const ForceKernelParams a) {
    force_body<U, Q, B, F>(a);
}

// The kernel of flags F: the register-budget bits pick the launch bounds, the rest the body.
template <int U, int Q, int B, int F>
constexpr ForceKernelFn kernel_of() {
    constexpr int body = F & kForceAllFlags;
    if constexpr ((F & kForceRegisters64) != 0) return &force_kernel_regs64<U, Q, B, body>;
    else if constexpr ((F & kForceRegisters128) != 0) return &force_kernel_regs128<U, Q, B, body>;
    else return &force_kernel<U, Q, B, body>;
}

template <int U, int Q, int B, int F>
ForceKernelFn force_kernel_instance() {
    return kernel_of<U, Q, B, F>();
}

}  // namespace nbody::cuda::detail

// The explicit instantiation of one variant's accessor (and so its kernel), for force_kernel_u*.cu.
#define NBODY_FORCE_INSTANTIATE(U, Q, B, F) \
    template nbody::cuda::detail::ForceKernelFn nbody::cuda::detail::force_kernel_instance<U, Q, B, F>();
