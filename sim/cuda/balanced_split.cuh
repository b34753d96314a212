// Device helpers shared by the tiled force kernels (force_kernel.cu, precision_kernels.cu).
//
// The balanced split (force_kernel.hpp, ForceGrid::Balanced): the I x T grid of (i-block, tile)
// steps in row-major order, block g of G taking steps [first_step(g), first_step(g + 1)): share =
// W / G steps each, the first `extra` = W % G blocks one more. P is a kernel's launch parameters,
// with int members share and extra.
#pragma once

#include <cuda_runtime.h>

namespace nbody::cuda::detail {

template <class P>
__device__ __forceinline__ int first_step(int g, const P& k) {
    return g * k.share + min(g, k.extra);
}

// The block whose range holds step w.
template <class P>
__device__ __forceinline__ int block_of_step(int w, const P& k) {
    const int big = k.extra * (k.share + 1);  // steps of the longer blocks
    return w < big ? w / (k.share + 1) : k.extra + (w - big) / k.share;
}

// Butterfly over the Q lanes of a body group: a pairwise tree of log2(Q) levels. Q divides 32 and
// groups are aligned, so they never straddle a warp; a + b == b + a in IEEE arithmetic, so every
// lane ends with the same sums. V3 is float3 or double3.
template <int Q, int B, class V3>
__device__ __forceinline__ void sum_over_lanes(V3 (&v)[B]) {
#pragma unroll
    for (int offset = Q / 2; offset > 0; offset /= 2) {
#pragma unroll
        for (int b = 0; b < B; ++b) {
            v[b].x += __shfl_xor_sync(0xffffffffu, v[b].x, offset);
            v[b].y += __shfl_xor_sync(0xffffffffu, v[b].y, offset);
            v[b].z += __shfl_xor_sync(0xffffffffu, v[b].z, offset);
        }
    }
}

}  // namespace nbody::cuda::detail
