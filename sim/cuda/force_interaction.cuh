#pragma once
// The interaction code of the all-pairs force kernel (force_kernel.cu), in a header so that the
// tree code's body-body lists (tree/tree_walk.cu) run the same tiled, unrolled loop: one pair's
// arithmetic (accumulate) and the U-unrolled pass over a tile in shared memory with q lanes per
// body and B bodies per thread (interact_unrolled). Device code only; include from .cu files.

#include <cuda_runtime.h>

namespace nbody::cuda::detail {

// 20 flops in the GPU Gems 3 count; 12 FP32 instructions + 1 MUFU here, 11 + 1 for a body of
// unit (tile) mass: that FMUL is the one a tile of bodies of one mass saves on every interaction.
template <bool Rot, bool UnitMass>
__device__ __forceinline__ void accumulate(const float3& xi, const float4& pj, float eps2, float3& a) {
    const float xj = Rot ? pj.y : pj.x, yj = Rot ? pj.z : pj.y, zj = Rot ? pj.w : pj.z;
    const float mj = Rot ? pj.x : pj.w;
    const float dx = xj - xi.x;
    const float dy = yj - xi.y;
    const float dz = zj - xi.z;
    // x first: the same three FFMAs, in the order that measured fastest (docs/PERFORMANCE.md section
    // 12.6: ptxas allocates the loop with fewer same-bank operand pairs, +0.6-0.9 % in one call).
    const float r2 = fmaf(dz, dz, fmaf(dy, dy, fmaf(dx, dx, eps2)));
    const float inv_r = rsqrtf(r2);  // MUFU.RSQ under --use_fast_math (ftz)
    // m / r^3 as (m / r) * (1 / r^2): two independent FMULs, then one, a shorter chain than m*r*r*r.
    const float s = UnitMass ? inv_r * (inv_r * inv_r) : (mj * inv_r) * (inv_r * inv_r);
    a.x = fmaf(dx, s, a.x);
    a.y = fmaf(dy, s, a.y);
    a.z = fmaf(dz, s, a.z);
}

// The unrolled part of a tile: lane s of a group reads entries k*Q + s (lane_tile = tile + s).
// Returns the first k it left to the remainder loop. Only the first Used of the B bodies are
// computed (the tree walk's groups fill fewer lanes than they hold: see gpu_tree.cu).
template <int U, int Q, int B, bool Rot, bool UnitMass, int Used = B>
__device__ __forceinline__ int interact_unrolled(const float4* lane_tile, int groups, const float3 (&xi)[B],
                                                 float3 (&ai)[B], float eps2) {
    int k = 0;
    for (; k + U <= groups; k += U) {
#pragma unroll
        for (int u = 0; u < U; ++u) {
            // By reference, as in the kernel lab whose loop was measured (section 12.6): the PTX is then
            // the lab's; a copy makes different PTX, and ptxas's allocation follows the text.
            const float4& pj = lane_tile[(k + u) * Q];
#pragma unroll
            for (int b = 0; b < Used; ++b) accumulate<Rot, UnitMass>(xi[b], pj, eps2, ai[b]);
        }
    }
    return k;
}

}  // namespace nbody::cuda::detail
