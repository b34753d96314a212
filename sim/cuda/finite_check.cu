#include "finite_check.hpp"

#include <cub/device/device_reduce.cuh>
#include <thrust/iterator/counting_iterator.h>

namespace nbody::cuda {
namespace {

// Body i -> i when anything of it is not finite, else n (the "none" value of the min-reduction).
struct NonFiniteIndex {
    const float4* pos;
    const float4* vel;
    long long n;
    __device__ long long operator()(long long i) const {
        const float4 p = pos[i], v = vel[i];
        const bool finite = isfinite(p.x) && isfinite(p.y) && isfinite(p.z) && isfinite(p.w) && isfinite(v.x) &&
                            isfinite(v.y) && isfinite(v.z);
        return finite ? n : i;
    }
};

struct Min {
    __device__ long long operator()(long long a, long long b) const { return a < b ? a : b; }
};

}  // namespace

std::size_t FiniteCheck::first_non_finite(const float4* pos, const float4* vel, std::size_t n, cudaStream_t stream) {
    if (n == 0) return 0;
    const long long count = static_cast<long long>(n);
    const thrust::counting_iterator<long long> index(0);
    const NonFiniteIndex op{pos, vel, count};
    if (result_.empty()) result_ = DeviceBuffer<long long>(1);
    if (scratch_for_n_ != n) {
        std::size_t bytes = 0;
        CUDA_CHECK(cub::DeviceReduce::TransformReduce(nullptr, bytes, index, result_.get(), count, Min{}, op, count,
                                                      stream));
        if (bytes > scratch_.bytes()) scratch_ = DeviceBuffer<unsigned char>(bytes);
        scratch_for_n_ = n;
    }
    std::size_t bytes = scratch_.bytes();
    CUDA_CHECK(cub::DeviceReduce::TransformReduce(scratch_.get(), bytes, index, result_.get(), count, Min{}, op,
                                                  count, stream));
    long long first = count;
    CUDA_CHECK(cudaMemcpyAsync(&first, result_.get(), sizeof first, cudaMemcpyDeviceToHost, stream));
    CUDA_CHECK(cudaStreamSynchronize(stream));
    return static_cast<std::size_t>(first);
}

}  // namespace nbody::cuda
