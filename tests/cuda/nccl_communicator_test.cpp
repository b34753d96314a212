// The NCCL communicator over the GPUs of one process (ncclCommInitAll, one thread per GPU): the
// same collectives as the MPI ones (tests/mpi), on device buffers. Skips without NCCL in the build
// or with fewer than two GPUs (CI, and the one-GPU machines).

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <functional>
#include <limits>
#include <mutex>
#include <numeric>
#include <string>
#include <vector>

#include "nbody/sim/comm/nccl_communicator.hpp"

#ifdef NBODY_HAVE_CUDA
#include <cuda_runtime_api.h>
#endif

namespace nbody::comm {
namespace {

int visible_gpus() {
#ifdef NBODY_HAVE_CUDA
    int count = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess) return 0;
    return count;
#else
    return 0;
#endif
}

#define REQUIRE_TWO_GPUS_AND_NCCL()                                                                  \
    do {                                                                                             \
        if (!have_nccl()) GTEST_SKIP() << "this build has no NCCL";                                  \
        if (visible_gpus() < 2) GTEST_SKIP() << "needs 2 GPUs, " << visible_gpus() << " visible";   \
    } while (0)

#ifdef NBODY_HAVE_CUDA
// A device copy of `values` on the rank's GPU, and back.
template <class T>
class DeviceArray {
public:
    DeviceArray(const DeviceCommunicator& comm, const std::vector<T>& values) : stream_(comm.stream()) {
        cudaSetDevice(comm.device());
        if (cudaMalloc(reinterpret_cast<void**>(&ptr_), std::max<std::size_t>(values.size(), 1) * sizeof(T)) != cudaSuccess)
            throw std::runtime_error("cudaMalloc failed in the test");
        cudaMemcpy(ptr_, values.data(), values.size() * sizeof(T), cudaMemcpyHostToDevice);
        size_ = values.size();
    }
    ~DeviceArray() { cudaFree(ptr_); }
    DeviceArray(const DeviceArray&) = delete;
    DeviceArray& operator=(const DeviceArray&) = delete;
    T* get() const { return ptr_; }
    std::vector<T> read() const {
        std::vector<T> out(size_);
        cudaStreamSynchronize(static_cast<cudaStream_t>(stream_));
        cudaMemcpy(out.data(), ptr_, size_ * sizeof(T), cudaMemcpyDeviceToHost);
        return out;
    }

private:
    T* ptr_ = nullptr;
    std::size_t size_ = 0;
    void* stream_ = nullptr;
};

// Runs `body` on every GPU's rank; each rank's result is stored at its rank for checks made after
// all threads ended (a failed check on one thread must not keep another waiting in NCCL).
template <class Result>
std::vector<Result> on_every_gpu(const std::function<Result(DeviceCommunicator&)>& body) {
    const std::vector<int> devices = select_gpus("all", visible_gpus());
    const auto ranks = make_nccl_communicators(devices);
    std::vector<Result> results(ranks.size());
    run_on_each_rank(ranks, [&](DeviceCommunicator& comm) { results[std::size_t(comm.rank())] = body(comm); });
    return results;
}
#endif

// NCCL 2.22+ connects the ranks at their first collective by default; the communicator asks for the
// connections at its creation (under mpirun that took up to 0.57 s of a run's first step, device run
// 129), unless the user said otherwise.
TEST(NcclCommunicator, ConnectsTheRanksAtCreationUnlessTheUserChose) {
    if (!have_nccl()) GTEST_SKIP() << "this build has no NCCL";
    if (visible_gpus() < 1) GTEST_SKIP() << "no GPU visible";
    unsetenv("NCCL_RUNTIME_CONNECT");
    {
        const auto ranks = make_nccl_communicators(std::vector<int>{0});
        ASSERT_NE(std::getenv("NCCL_RUNTIME_CONNECT"), nullptr);
        EXPECT_STREQ(std::getenv("NCCL_RUNTIME_CONNECT"), "0");
    }
    setenv("NCCL_RUNTIME_CONNECT", "1", 1);
    { const auto ranks = make_nccl_communicators(std::vector<int>{0}); }
    EXPECT_STREQ(std::getenv("NCCL_RUNTIME_CONNECT"), "1") << "the user's choice was overwritten";
    unsetenv("NCCL_RUNTIME_CONNECT");
}

TEST(NcclCommunicator, AllGatherVUnevenAndEvenSharesInRankOrder) {
    REQUIRE_TWO_GPUS_AND_NCCL();
#ifdef NBODY_HAVE_CUDA
    const auto results = on_every_gpu<std::vector<float>>([](DeviceCommunicator& comm) {
        const int p = comm.size(), r = comm.rank();
        std::vector<std::size_t> uneven(static_cast<std::size_t>(p));
        for (int k = 0; k < p; ++k) uneven[std::size_t(k)] = std::size_t(k) + 2;
        std::vector<float> mine(std::size_t(r) + 2);
        for (std::size_t k = 0; k < mine.size(); ++k) mine[k] = 100.0f * float(r) + float(k);
        DeviceArray<float> send(comm, mine);
        DeviceArray<float> recv(comm, std::vector<float>(std::accumulate(uneven.begin(), uneven.end(), std::size_t(0)), -1.0f));
        all_gather_v(comm, send.get(), recv.get(), uneven);
        // Even shares, in place: this rank's block of the output is its input.
        std::vector<float> even_values(std::size_t(p) * 3, -1.0f);
        for (int k = 0; k < 3; ++k) even_values[std::size_t(r) * 3 + std::size_t(k)] = 10.0f * float(r) + float(k);
        DeviceArray<float> even(comm, even_values);
        const std::size_t counts[] = {3, 3, 3, 3, 3, 3, 3, 3};
        all_gather_v(comm, even.get() + std::size_t(r) * 3, even.get(), std::span(counts, std::size_t(p)));
        std::vector<float> both = recv.read();
        const std::vector<float> e = even.read();
        both.insert(both.end(), e.begin(), e.end());
        return both;
    });
    const int p = int(results.size());
    std::vector<float> expected;
    for (int k = 0; k < p; ++k)
        for (int i = 0; i < k + 2; ++i) expected.push_back(100.0f * float(k) + float(i));
    for (int k = 0; k < p; ++k)
        for (int i = 0; i < 3; ++i) expected.push_back(10.0f * float(k) + float(i));
    for (int r = 0; r < p; ++r) EXPECT_EQ(results[std::size_t(r)], expected) << "rank " << r;
#endif
}

TEST(NcclCommunicator, SumReductionsBroadcastAndMinWithIndex) {
    REQUIRE_TWO_GPUS_AND_NCCL();
#ifdef NBODY_HAVE_CUDA
    struct Seen {
        std::vector<double> sum, block;
        std::vector<std::int64_t> broadcast;
        ValueIndex tie, smallest;
    };
    const auto results = on_every_gpu<Seen>([](DeviceCommunicator& comm) {
        const int p = comm.size(), r = comm.rank();
        Seen seen;
        DeviceArray<double> sum(comm, {double(r + 1), -0.5});
        all_reduce_sum(comm, sum.get(), sum.get(), 2);
        std::vector<double> whole(std::size_t(p) * 2);
        for (int b = 0; b < p; ++b)
            for (int k = 0; k < 2; ++k) whole[std::size_t(b) * 2 + std::size_t(k)] = 10.0 * r + b + k;
        DeviceArray<double> send(comm, whole);
        DeviceArray<double> block(comm, {-1.0, -1.0});
        reduce_scatter_sum(comm, send.get(), block.get(), 2);
        DeviceArray<std::int64_t> value(comm, {std::int64_t(r) * 7});
        broadcast(comm, value.get(), 1, p - 1);
        seen.tie = comm.all_reduce_min_with_index({2.5, 100 + (p - 1 - r)});
        const double v = r == 0 ? std::numeric_limits<double>::quiet_NaN() : (r == 1 ? -1.0 : 7.0);
        seen.smallest = comm.all_reduce_min_with_index({v, 1000 - r});
        seen.sum = sum.read();
        seen.block = block.read();
        seen.broadcast = value.read();
        return seen;
    });
    const int p = int(results.size());
    const double rank_sum = p * (p - 1) / 2.0;
    for (int r = 0; r < p; ++r) {
        const Seen& s = results[std::size_t(r)];
        EXPECT_EQ(s.sum, (std::vector<double>{p * (p + 1) / 2.0, -0.5 * p})) << "rank " << r;
        EXPECT_EQ(s.block, (std::vector<double>{10.0 * rank_sum + p * r, 10.0 * rank_sum + p * (r + 1.0)})) << "rank " << r;
        EXPECT_EQ(s.broadcast, (std::vector<std::int64_t>{std::int64_t(p - 1) * 7})) << "rank " << r;
        EXPECT_EQ(s.tie.index, 100) << "rank " << r;
        EXPECT_EQ(s.smallest.value, -1.0) << "rank " << r;
        EXPECT_EQ(s.smallest.index, 999) << "rank " << r;
    }
#endif
}

}  // namespace
}  // namespace nbody::comm
