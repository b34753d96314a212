#pragma once
// Error-free float arithmetic and aligned double loads shared by the precision kernels
// (precision_kernel_body.cuh) and their integration kernels (precision_kernels.cu). Device code.
// They use __fadd_rn/__fsub_rn, which the compiler never contracts or reorders, so they stay exact
// under --use_fast_math.

#include <cuda_runtime.h>

#include "precision_kernels.hpp"

namespace nbody::cuda::detail {

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

}  // namespace nbody::cuda::detail
