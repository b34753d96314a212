#pragma once
// The leapfrog's per-body arithmetic on the GPU, one definition for every kernel that kicks or
// drifts (the shared step's kick and kick-drift kernels, the tree walk's closing kick, the block
// steps' kicks and predictions): the same fmaf in the same order, so that a block run with every
// body at level 0 is the shared run bit for bit. Device code only; include from .cu files.

#include <cuda_runtime.h>

namespace nbody::cuda::detail {

// v + a h (w of v kept).
__device__ __forceinline__ float4 kicked(float4 v, const float4& a, float h) {
    v.x = fmaf(a.x, h, v.x);
    v.y = fmaf(a.y, h, v.y);
    v.z = fmaf(a.z, h, v.z);
    return v;
}

// x + v t (the mass in w of x kept).
__device__ __forceinline__ float4 drifted(const float4& x, const float4& v, float t) {
    return make_float4(fmaf(v.x, t, x.x), fmaf(v.y, t, x.y), fmaf(v.z, t, x.z), x.w);
}

}  // namespace nbody::cuda::detail
