// The MPI communicator and the distributed host backend across real ranks. CTest launches this
// under `mpirun -np 2` and `-np 3` (tests/CMakeLists.txt); every rank runs every test. A check
// that fails on one rank must not stop it before a collective the others wait in, so the checks
// come after each test's collectives (EXPECT, not ASSERT, in between), and CTest's timeout bounds
// the rest.

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <numeric>
#include <stdexcept>
#include <vector>

#include "nbody/sim/comm/distributed_direct_backend.hpp"
#include "nbody/sim/comm/mpi_session.hpp"
#include "nbody/sim/direct_sum_backend.hpp"
#include "nbody/sim/ic/plummer.hpp"

namespace nbody::comm {
namespace {

Communicator& world() { return launch_communicator(); }

TEST(MpiCommunicator, RunsOnSeveralRanks) {
    EXPECT_EQ(world().name(), "mpi");
    EXPECT_GE(world().size(), 2) << "launch this test with mpirun -np 2 or more";
    EXPECT_LT(world().rank(), world().size());
}

TEST(MpiCommunicator, AllGatherVPutsUnevenSharesInRankOrder) {
    const int p = world().size(), r = world().rank();
    std::vector<std::size_t> counts(static_cast<std::size_t>(p));
    for (int k = 0; k < p; ++k) counts[std::size_t(k)] = std::size_t(k) + 1;  // rank k sends k + 1 values
    std::vector<double> mine(std::size_t(r) + 1);
    for (std::size_t k = 0; k < mine.size(); ++k) mine[k] = 100.0 * r + double(k);
    std::vector<double> all(std::accumulate(counts.begin(), counts.end(), std::size_t(0)), -1.0);
    all_gather_v(world(), mine.data(), all.data(), counts);

    std::vector<double> expected;
    for (int k = 0; k < p; ++k)
        for (int i = 0; i <= k; ++i) expected.push_back(100.0 * k + i);
    EXPECT_EQ(all, expected);
}

TEST(MpiCommunicator, AllGatherVInPlace) {
    const int p = world().size(), r = world().rank();
    const Partition part = Partition::even(10, p);
    std::vector<float> values(10, -1.0f);
    for (std::size_t i = part.begin(r); i < part.end(r); ++i) values[i] = float(i) * 0.5f;
    all_gather_v(world(), values.data() + part.begin(r), values.data(), part.counts);
    for (std::size_t i = 0; i < values.size(); ++i) EXPECT_EQ(values[i], float(i) * 0.5f) << "element " << i;
}

TEST(MpiCommunicator, AllReduceSumAddsEveryRank) {
    const int p = world().size(), r = world().rank();
    double d[2] = {double(r + 1), -0.5};
    all_reduce_sum(world(), d, d, 2);  // in place
    std::int64_t big = (std::int64_t(1) << 40) + r;
    std::int64_t big_sum = 0;
    all_reduce_sum(world(), &big, &big_sum, 1);
    EXPECT_EQ(d[0], p * (p + 1) / 2.0);
    EXPECT_EQ(d[1], -0.5 * p);
    EXPECT_EQ(big_sum, std::int64_t(p) * (std::int64_t(1) << 40) + std::int64_t(p) * (p - 1) / 2);
}

TEST(MpiCommunicator, ReduceScatterSumKeepsThisRanksBlock) {
    const int p = world().size(), r = world().rank();
    constexpr std::size_t kBlock = 3;
    std::vector<double> send(std::size_t(p) * kBlock);
    for (int b = 0; b < p; ++b)
        for (std::size_t k = 0; k < kBlock; ++k) send[std::size_t(b) * kBlock + k] = 10.0 * r + b + double(k);
    std::vector<double> block(kBlock, -1.0);
    reduce_scatter_sum(world(), send.data(), block.data(), kBlock);
    const double rank_sum = p * (p - 1) / 2.0;
    for (std::size_t k = 0; k < kBlock; ++k) EXPECT_EQ(block[k], 10.0 * rank_sum + p * (r + double(k)));
}

TEST(MpiCommunicator, BroadcastFromTheLastRank) {
    const int p = world().size(), r = world().rank();
    std::int32_t values[2] = {r, -r};
    broadcast(world(), values, 2, p - 1);
    EXPECT_EQ(values[0], p - 1);
    EXPECT_EQ(values[1], -(p - 1));
}

TEST(MpiCommunicator, MinWithIndexKeepsTheLowestIndexOnTies) {
    const int p = world().size(), r = world().rank();
    // Every rank the same value, the indices falling with the rank: the lowest index is the last rank's.
    const ValueIndex tie = world().all_reduce_min_with_index({2.5, 100 + (p - 1 - r)});
    // A NaN on rank 0 is passed over; the smallest value (rank 1's) wins whatever its index.
    const double value = r == 0 ? std::numeric_limits<double>::quiet_NaN() : (r == 1 ? -1.0 : 7.0);
    const ValueIndex smallest = world().all_reduce_min_with_index({value, 1000 - r});
    EXPECT_EQ(tie.index, 100);
    EXPECT_EQ(tie.value, 2.5);
    EXPECT_EQ(smallest.value, -1.0);
    EXPECT_EQ(smallest.index, 999);
}

template <class Distributed, class Single>
void expect_distributed_equals_one_rank(std::size_t bodies, int steps) {
    const State start = ic::make_plummer({.bodies = bodies, .seed = 11});  // the same on every rank
    Distributed distributed(world());
    distributed.load(start);
    const StepParams params{2e-3, 0.02};
    distributed.step(params, steps);
    State spread;
    distributed.store(spread);
    const std::optional<std::size_t> non_finite = distributed.first_non_finite();

    Single single;  // this rank alone, all N
    single.load(start);
    single.step(params, steps);
    State alone;
    single.store(alone);
    ASSERT_EQ(spread.size(), alone.size());
    EXPECT_EQ(std::memcmp(spread.pos_mass.data(), alone.pos_mass.data(), alone.size() * sizeof(Vec4f)), 0);
    EXPECT_EQ(std::memcmp(spread.velocity.data(), alone.velocity.data(), alone.size() * sizeof(Vec4f)), 0);
    EXPECT_EQ(spread.time, alone.time);
    EXPECT_FALSE(non_finite.has_value());
    EXPECT_NE(std::memcmp(spread.pos_mass.data(), start.pos_mass.data(), alone.size() * sizeof(Vec4f)), 0);
}

TEST(DistributedDirectBackendMpi, CpuIsBitForBitOneRank) {
    // 1001 bodies: shares of unequal size for 2 and 3 ranks.
    expect_distributed_equals_one_rank<DistributedDirectBackend<float>, CpuBackend>(1001, 6);
}

TEST(DistributedDirectBackendMpi, ReferenceIsBitForBitOneRank) {
    expect_distributed_equals_one_rank<DistributedDirectBackend<double>, ReferenceBackend>(500, 3);
}

TEST(DistributedDirectBackendMpi, RanksWithDifferentSystemsAreRefusedWithTheReason) {
    // The last rank reads one body fewer. Rank 0 names it at once; the others wait up to 10 s for
    // rank 0 to end the launch (as main does) and then throw too.
    const int p = world().size(), r = world().rank();
    const State state = ic::make_plummer({.bodies = std::size_t(r == p - 1 ? 99 : 100), .seed = 3});
    DistributedDirectBackend<float> backend(world());
    try {
        backend.load(state);
        ADD_FAILURE() << "rank " << r << " accepted ranks with different systems";
    } catch (const std::runtime_error& e) {
        const std::string message = e.what();
        EXPECT_NE(message.find("rank " + std::to_string(p - 1) + " has 99 bodies"), std::string::npos) << message;
        EXPECT_NE(message.find("rank 0 has 100 bodies"), std::string::npos) << message;
    }
}

}  // namespace
}  // namespace nbody::comm
