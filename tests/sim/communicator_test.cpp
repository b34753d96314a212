// The single-rank communicator, the partition of bodies over ranks, the min-with-index rule, and
// the distributed host backend on one rank: the code above the communicator with MPI absent.
// The same collectives over 2 and 3 MPI ranks: tests/mpi/.

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include "nbody/sim/comm/communicator.hpp"
#include "nbody/sim/comm/distributed_direct_backend.hpp"
#include "nbody/sim/comm/nccl_communicator.hpp"
#include "nbody/sim/direct_sum_backend.hpp"
#include "nbody/sim/ic/plummer.hpp"

namespace nbody::comm {
namespace {

TEST(SerialCommunicator, CollectivesAreCopiesOnOneRank) {
    SerialCommunicator comm;
    EXPECT_EQ(comm.rank(), 0);
    EXPECT_EQ(comm.size(), 1);
    EXPECT_EQ(comm.memory(), MemorySpace::Host);

    const std::vector<float> send = {1.5f, -2.0f, 3.25f};
    std::vector<float> gathered(3, 0.0f);
    const std::size_t counts[] = {3};
    all_gather_v(comm, send.data(), gathered.data(), counts);
    EXPECT_EQ(gathered, send);

    std::vector<double> summed(2, 0.0);
    const double values[] = {4.0, -1.0};
    all_reduce_sum(comm, values, summed.data(), 2);
    EXPECT_EQ(summed, (std::vector<double>{4.0, -1.0}));

    std::vector<std::int64_t> block(2, 0);
    const std::int64_t whole[] = {7, 9};
    reduce_scatter_sum(comm, whole, block.data(), 2);
    EXPECT_EQ(block, (std::vector<std::int64_t>{7, 9}));

    std::int32_t value = 42;
    broadcast(comm, &value, 1, 0);
    EXPECT_EQ(value, 42);
    EXPECT_THROW(broadcast(comm, &value, 1, 1), std::invalid_argument);

    const std::vector<std::byte> bytes = {std::byte{1}, std::byte{2}};
    EXPECT_EQ(comm.all_gather_host_bytes(bytes), bytes);
    EXPECT_EQ(comm.all_reduce_min_with_index({3.0, 17}).index, 17);
}

TEST(SerialCommunicator, RefusesCountsForAnotherNumberOfRanks) {
    SerialCommunicator comm;
    float a[2] = {}, b[2] = {};
    const std::size_t counts[] = {1, 1};
    EXPECT_THROW(all_gather_v(comm, a, b, counts), std::invalid_argument);
}

TEST(Partition, SharesDifferByAtMostOneAndCoverEveryBody) {
    for (const std::size_t n : {0, 1, 7, 1000, 16384})
        for (const int ranks : {1, 2, 3, 5}) {
            const Partition p = Partition::even(n, ranks);
            ASSERT_EQ(p.counts.size(), std::size_t(ranks));
            EXPECT_EQ(p.offsets.front(), 0u);
            EXPECT_EQ(p.offsets.back(), n);
            for (int r = 0; r < ranks; ++r) {
                EXPECT_EQ(p.end(r) - p.begin(r), p.count(r));
                EXPECT_LE(p.count(0) - p.count(r), 1u) << "n " << n << " ranks " << ranks;
            }
        }
    EXPECT_THROW(Partition::even(10, 0), std::invalid_argument);
}

TEST(MinWithIndex, KeepsTheLowestIndexOnTiesAndIgnoresNaN) {
    const double nan = std::numeric_limits<double>::quiet_NaN();
    EXPECT_EQ(min_with_index({1.0, 9}, {1.0, 4}).index, 4);
    EXPECT_EQ(min_with_index({1.0, 4}, {1.0, 9}).index, 4);
    EXPECT_EQ(min_with_index({2.0, 1}, {1.0, 9}).index, 9);
    EXPECT_EQ(min_with_index({nan, 0}, {5.0, 3}).index, 3);
    EXPECT_EQ(min_with_index({5.0, 3}, {nan, 0}).index, 3);
    // Folding in any order gives the same answer: what makes the result independent of P.
    const std::vector<ValueIndex> values = {{3, 5}, {1, 8}, {1, 2}, {nan, 1}, {4, 0}};
    ValueIndex forward = values.front(), backward = values.back();
    for (const ValueIndex& v : values) forward = min_with_index(forward, v);
    for (auto it = values.rbegin(); it != values.rend(); ++it) backward = min_with_index(backward, *it);
    EXPECT_EQ(forward.index, 2);
    EXPECT_EQ(backward.index, 2);
    EXPECT_EQ(forward.value, 1.0);
}

// The distributed backend on one rank steps exactly as the host backend it distributes.
template <class Distributed, class Single>
void expect_same_bits_after_steps(int steps) {
    const State start = ic::make_plummer({.bodies = 301, .seed = 5});
    SerialCommunicator comm;
    Distributed distributed(comm);
    Single single;
    distributed.load(start);
    single.load(start);
    const StepParams params{1e-3, 0.05};
    distributed.step(params, steps);
    single.step(params, steps);
    State a, b;
    distributed.store(a);
    single.store(b);
    ASSERT_EQ(a.size(), b.size());
    EXPECT_EQ(std::memcmp(a.pos_mass.data(), b.pos_mass.data(), a.size() * sizeof(Vec4f)), 0);
    EXPECT_EQ(std::memcmp(a.velocity.data(), b.velocity.data(), a.size() * sizeof(Vec4f)), 0);
    EXPECT_EQ(a.time, b.time);
    // ...and the run moved: a test that would pass with no step taken proves nothing.
    EXPECT_NE(std::memcmp(a.pos_mass.data(), start.pos_mass.data(), a.size() * sizeof(Vec4f)), 0);
}

TEST(DistributedDirectBackend, OneRankIsBitForBitTheCpuBackend) {
    expect_same_bits_after_steps<DistributedDirectBackend<float>, CpuBackend>(7);
}

TEST(DistributedDirectBackend, OneRankIsBitForBitTheReferenceBackend) {
    expect_same_bits_after_steps<DistributedDirectBackend<double>, ReferenceBackend>(4);
}

TEST(DistributedDirectBackend, RefusesTheTreeAndBackendsNotDistributed) {
    SerialCommunicator comm;
    DistributedDirectBackend<float> backend(comm);
    GravityConfig tree;
    tree.gravity = Gravity::Tree;
    EXPECT_THROW(backend.set_gravity(tree), std::invalid_argument);
    EXPECT_THROW(make_distributed_backend("cuda", comm), std::invalid_argument);
    EXPECT_EQ(make_distributed_backend("cpu", comm)->name(), "cpu");
}

}  // namespace
}  // namespace nbody::comm

namespace nbody::comm {
namespace {

TEST(SelectGpus, AllOrACountWithinTheMachineElseTheReason) {
    EXPECT_EQ(select_gpus("all", 2), (std::vector<int>{0, 1}));
    EXPECT_EQ(select_gpus("1", 2), (std::vector<int>{0}));
    EXPECT_EQ(select_gpus("2", 2), (std::vector<int>{0, 1}));
    const auto message_of = [](const std::string& spec, int available) {
        try {
            select_gpus(spec, available);
        } catch (const std::invalid_argument& e) {
            return std::string(e.what());
        }
        return std::string("accepted");
    };
    EXPECT_EQ(message_of("0", 2), "--gpus 0: give 1 or more GPUs, or 'all'");
    EXPECT_EQ(message_of("9", 2), "--gpus 9: this machine has 2 GPUs");
    EXPECT_EQ(message_of("two", 2), "--gpus two: give a whole number of GPUs or 'all'");
    EXPECT_EQ(message_of("-1", 2), "--gpus -1: give a whole number of GPUs or 'all'");
    EXPECT_EQ(message_of("all", 0), "--gpus all: no usable GPU (this machine has 0 GPUs)");
}

TEST(NcclFactories, SayWhyInABuildWithoutNccl) {
    if (have_nccl()) GTEST_SKIP() << "this build has NCCL";
    const int devices[] = {0, 1};
    try {
        make_nccl_communicators(devices);
        FAIL() << "expected an error";
    } catch (const std::runtime_error& e) {
        EXPECT_NE(std::string(e.what()).find("this build has no NCCL"), std::string::npos) << e.what();
    }
}

}  // namespace
}  // namespace nbody::comm
