// The Hermite host loops' pool (sim/src/hermite/parallel.hpp): every index once, loops from several
// threads at once sharing the workers, exceptions back to the
// caller. (The integrator's results on one thread and on many: nbody_hermite_host_bench's checksum
// with NBODY_HERMITE_THREADS=1 and without, docs/HERMITE.md.)

#include <gtest/gtest.h>

#include <atomic>
#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <thread>
#include <vector>

#include "../../sim/src/hermite/parallel.hpp"

using namespace nbody;
using nbody::hermite::HostThreads;

TEST(HermiteHostThreads, EveryIndexOnceWhateverTheSize) {
    HostThreads pool(4);
    for (std::size_t n : {1u, 2u, 3u, 7u, 16u, 17u, 1000u, 100003u}) {
        std::vector<std::atomic<int>> seen(n);
        pool.parallel_for(n, [&](std::size_t begin, std::size_t end) {
            ASSERT_LT(begin, end);
            for (std::size_t i = begin; i < end; ++i) seen[i].fetch_add(1);
        });
        for (std::size_t i = 0; i < n; ++i) ASSERT_EQ(seen[i].load(), 1) << "n " << n << " index " << i;
    }
}

TEST(HermiteHostThreads, LoopsFromSeveralThreadsAtOnceShareTheWorkers) {
    HostThreads pool(4);
    constexpr int kCallers = 3, kRounds = 200;
    constexpr std::size_t kN = 5000;
    std::vector<std::vector<std::uint64_t>> out(kCallers, std::vector<std::uint64_t>(kN));
    std::vector<std::thread> callers;
    for (int c = 0; c < kCallers; ++c)
        callers.emplace_back([&, c] {
            for (int r = 0; r < kRounds; ++r)
                pool.parallel_for(kN, [&](std::size_t begin, std::size_t end) {
                    for (std::size_t i = begin; i < end; ++i) out[std::size_t(c)][i] += i * i + std::size_t(c);
                });
        });
    for (auto& t : callers) t.join();
    for (int c = 0; c < kCallers; ++c)
        for (std::size_t i = 0; i < kN; ++i) ASSERT_EQ(out[std::size_t(c)][i], kRounds * (i * i + std::size_t(c))) << c << " " << i;
}

TEST(HermiteHostThreads, AChunksExceptionReachesTheCallerAndThePoolGoesOn) {
    HostThreads pool(3);
    EXPECT_THROW(pool.parallel_for(10000,
                                   [](std::size_t begin, std::size_t end) {
                                       if (begin <= 5000 && 5000 < end) throw std::runtime_error("body 5000");
                                   }),
                 std::runtime_error);
    std::atomic<std::size_t> sum{0};
    pool.parallel_for(10000, [&](std::size_t begin, std::size_t end) { sum += end - begin; });
    EXPECT_EQ(sum.load(), 10000u);
}

TEST(HermiteHostThreads, FirstWhereFindsTheSmallestIndex) {
    EXPECT_EQ(hermite::first_where(100000, [](std::size_t k) { return k >= 77777 || k == 4242; }), 4242u);
    EXPECT_EQ(hermite::first_where(100000, [](std::size_t) { return false; }), 100000u);
    EXPECT_EQ(hermite::first_where(0, [](std::size_t) { return true; }), 0u);
}
