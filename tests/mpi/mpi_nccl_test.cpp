// The NCCL communicator made from MPI: one rank per GPU, rank 0's ncclUniqueId broadcast over the
// MPI communicator (make_nccl_communicator). Skips on every rank alike where the build has no
// NCCL or the machine has fewer GPUs than ranks (CI; the lead runs it with mpirun -np 2 on the
// 2-GPU machine).

#include <gtest/gtest.h>

#include <limits>
#include <vector>

#include "nbody/sim/comm/mpi_session.hpp"
#include "nbody/sim/comm/nccl_communicator.hpp"

#ifdef NBODY_HAVE_CUDA
#include <cuda_runtime_api.h>
#endif

namespace nbody::comm {
namespace {

TEST(NcclFromMpi, CollectivesOnOneGpuPerRank) {
    Communicator& host = launch_communicator();
    if (!have_nccl()) GTEST_SKIP() << "this build has no NCCL";
    if (visible_gpu_count() < host.size())
        GTEST_SKIP() << host.size() << " ranks need as many GPUs, " << visible_gpu_count() << " visible";
#ifdef NBODY_HAVE_CUDA
    const int r = host.rank(), p = host.size();
    const auto nccl = make_nccl_communicator(host, r);
    const auto stream = static_cast<cudaStream_t>(nccl->stream());
    // Uneven all-gather: rank k sends k + 1 doubles.
    std::vector<std::size_t> counts;
    std::size_t total = 0;
    for (int k = 0; k < p; ++k) counts.push_back(std::size_t(k) + 1), total += std::size_t(k) + 1;
    std::vector<double> mine(std::size_t(r) + 1);
    for (std::size_t k = 0; k < mine.size(); ++k) mine[k] = 10.0 * r + double(k);
    double *send = nullptr, *recv = nullptr, *sum = nullptr;
    ASSERT_EQ(cudaMalloc(reinterpret_cast<void**>(&send), mine.size() * sizeof(double)), cudaSuccess);
    ASSERT_EQ(cudaMalloc(reinterpret_cast<void**>(&recv), total * sizeof(double)), cudaSuccess);
    ASSERT_EQ(cudaMalloc(reinterpret_cast<void**>(&sum), sizeof(double)), cudaSuccess);
    cudaMemcpy(send, mine.data(), mine.size() * sizeof(double), cudaMemcpyHostToDevice);
    all_gather_v(*nccl, send, recv, counts);
    const double one = r + 1.0;
    cudaMemcpy(sum, &one, sizeof one, cudaMemcpyHostToDevice);
    all_reduce_sum(*nccl, sum, sum, 1);
    const ValueIndex tie = nccl->all_reduce_min_with_index({1.0, 50 - r});
    std::vector<double> gathered(total);
    double summed = 0;
    cudaStreamSynchronize(stream);
    cudaMemcpy(gathered.data(), recv, total * sizeof(double), cudaMemcpyDeviceToHost);
    cudaMemcpy(&summed, sum, sizeof summed, cudaMemcpyDeviceToHost);
    cudaFree(send), cudaFree(recv), cudaFree(sum);

    std::vector<double> expected;
    for (int k = 0; k < p; ++k)
        for (int i = 0; i <= k; ++i) expected.push_back(10.0 * k + i);
    EXPECT_EQ(gathered, expected);
    EXPECT_EQ(summed, p * (p + 1) / 2.0);
    EXPECT_EQ(tie.index, 50 - (p - 1));
#endif
}

}  // namespace
}  // namespace nbody::comm
