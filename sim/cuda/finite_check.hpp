#pragma once
// The NaN/Inf guard on the device: the first body whose position, mass or velocity is not finite,
// found by one CUB reduction over the float4 buffers, with one integer copied back. Cheap (two
// reads of 16 bytes per body, against the force pass's N) so a run can check every few steps.
// Host code; the kernel is in finite_check.cu.

#include <cuda_runtime_api.h>

#include <cstddef>

#include "cuda_raii.hpp"

namespace nbody::cuda {

class FiniteCheck {
  public:
    // Index of the first body with a non-finite x, y, z, m, vx, vy or vz, or n when there is none.
    // Waits for the stream (the answer is needed on the host). Keeps its scratch between calls.
    std::size_t first_non_finite(const float4* pos, const float4* vel, std::size_t n, cudaStream_t stream);

    std::size_t bytes() const { return scratch_.bytes() + result_.bytes(); }

  private:
    DeviceBuffer<unsigned char> scratch_;
    DeviceBuffer<long long> result_;
    std::size_t scratch_for_n_ = 0;  // the n the scratch was sized for
};

}  // namespace nbody::cuda
