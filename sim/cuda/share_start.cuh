#pragma once
// Where a GPU's share of a force pass starts, for every kind of share (the every-pair kernel's
// i-bodies, each pair once's tiles, the tree walk's groups): the shares are fractions
// [f_r, f_r+1) of the work (CudaBackend's bounds), and every rank turns them into item indices by
// this one rule, so that the shares of the ranks cover each item exactly once.

#include <cuda_runtime_api.h>

#include <cmath>

namespace nbody::cuda {

// The first of `count` items of the share that starts at fraction f (f >= 1: the end).
template <class Count>
__host__ __device__ inline Count share_start(Count count, double f) {
    if (f >= 1.0) return count;
    const double at = floor(double(count) * f);
    return at < double(count) ? static_cast<Count>(at) : count;
}

}  // namespace nbody::cuda
