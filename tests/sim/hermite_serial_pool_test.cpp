// The Hermite integrator with its host pool serial (NBODY_HERMITE_THREADS=1, the setting of the
// measurements in docs/HERMITE.md): a run to the end, the end-of-run paths included, in a child
// process under a time limit (a hang fails the test instead of blocking the suite), with the same
// results as on a pool of several threads; and the O(N^2) energy sum still on every core. (A 128K
// run on one GPU with NBODY_HERMITE_THREADS=1 looked hung after its last block: the energy sums
// before and after the run took about a minute each on the one thread the variable left them.)
//
// The pool is made once per process from the environment, so the HermiteSerialPoolChild tests run
// only in the child that HermiteSerialPool starts (NBODY_HERMITE_SERIAL_CHILD=1); alone they skip.

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <mutex>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "../../sim/src/hermite/parallel.hpp"
#include "nbody/sim/hermite/energy.hpp"
#include "nbody/sim/hermite/force_engine.hpp"
#include "nbody/sim/hermite/integrator.hpp"
#include "nbody/sim/ic/plummer.hpp"
#include "test_support.hpp"

namespace nbody::hermite {
namespace {

bool in_child() {
    const char* env = std::getenv("NBODY_HERMITE_SERIAL_CHILD");
    return env != nullptr && std::string(env) == "1";
}

constexpr const char* kResult = "serial-pool-result:";

// A 1,536-body Plummer sphere on the cpu engine to t = dt_max = 0.125: the first force pass and the
// last block have every body active, above the 1,024 from which the host loops go parallel
// (host_threads_from()), and many small blocks between.
TEST(HermiteSerialPoolChild, RunsToTheEnd) {
    if (!in_child()) GTEST_SKIP() << "run in a child by HermiteSerialPool.RunsToTheEndOnOneThreadAsOnSeveral";
    constexpr std::size_t kBodies = 1536;
    constexpr double kEnd = 0.125;
    const State st = ic::make_plummer({.bodies = kBodies, .seed = 29});
    std::vector<double> m;
    std::vector<Vec3d> x, v;
    for (std::size_t i = 0; i < kBodies; ++i) {
        m.push_back(st.pos_mass[i].w);
        x.push_back(xyz(st.pos_mass[i]));
        v.push_back(xyz(st.velocity[i]));
    }
    HermiteIntegrator h(make_force_engine(EngineKind::Cpu), {.order = 4, .dt_max = kEnd, .softening = 0.01});
    h.start(m, x, v, 0);
    const double e0 = h.energy();
    h.set_profiling(true);
    // As nbody run does: block by block (advance), then evolve for the synchronisation.
    std::uint64_t largest_block = 0, steps = h.stats().body_steps;
    while (h.advance(kEnd)) {
        largest_block = std::max<std::uint64_t>(largest_block, h.stats().body_steps - steps);
        steps = h.stats().body_steps;
    }
    h.evolve(kEnd);
    largest_block = std::max<std::uint64_t>(largest_block, h.stats().body_steps - steps);
    EXPECT_GE(largest_block, host_threads_from()) << "no block large enough for the parallel loops";
    EXPECT_EQ(h.time(), kEnd);
    const std::optional<double> e1 = h.energy_or_stop([] { return false; });
    ASSERT_TRUE(e1.has_value());
    EXPECT_LT(std::abs((*e1 - e0) / e0), 1e-4);
    std::vector<Vec3d> xe, ve;
    h.predicted(xe, ve);
    double checksum = 0;
    for (std::size_t i = 0; i < kBodies; ++i) checksum += xe[i].x + 2 * xe[i].y + 3 * ve[i].z;
    const std::string report = h.profile_report(1.0);
    EXPECT_NE(report.find("profile:"), std::string::npos) << report;
    EXPECT_NE(report.find("select (block time, active list)"), std::string::npos) << report;
    // The host took every block: the GPU's phase never ran and has no row of zeros.
    EXPECT_EQ(report.find("block steps on the GPU"), std::string::npos) << report;
    std::printf("%s threads %u blocks %llu steps %llu largest %llu E0 %.17g E1 %.17g checksum %.17g\n", kResult,
                HostThreads::shared().size(), (unsigned long long)h.stats().blocks,
                (unsigned long long)h.stats().body_steps, (unsigned long long)largest_block, e0, *e1, checksum);
}

// The energy's rows are computed by several threads where the machine has several cores, whatever
// NBODY_HERMITE_THREADS says. `stop` is asked once a row by the thread computing it: the first row
// waits (2 s at most) for a second thread to ask.
TEST(HermiteSerialPoolChild, TheEnergyIsSummedOnEveryCore) {
    if (!in_child()) GTEST_SKIP() << "run in a child by HermiteSerialPool.RunsToTheEndOnOneThreadAsOnSeveral";
    if (std::thread::hardware_concurrency() < 2) GTEST_SKIP() << "one core";
    constexpr std::size_t kBodies = 4096;
    std::mt19937_64 rng(5);
    std::uniform_real_distribution<double> u(-1, 1);
    std::vector<double> m(kBodies, 1.0 / kBodies);
    std::vector<Vec3d> x(kBodies), v(kBodies);
    for (std::size_t i = 0; i < kBodies; ++i) x[i] = {u(rng), u(rng), u(rng)}, v[i] = {u(rng), u(rng), u(rng)};
    std::mutex mutex;
    std::set<std::thread::id> threads;
    std::atomic<std::size_t> distinct{0};
    std::atomic<bool> waited{false};
    const auto stop = [&] {
        {
            const std::lock_guard lock(mutex);
            threads.insert(std::this_thread::get_id());
            distinct = threads.size();
        }
        if (!waited.exchange(true))
            for (const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(2);
                 distinct.load() < 2 && std::chrono::steady_clock::now() < until;)
                std::this_thread::yield();
        return false;
    };
    ASSERT_TRUE(total_energy(m, x, v, 0.01, stop).has_value());
    EXPECT_GE(distinct.load(), 2u) << "the energy was summed on one thread (pool of " << HostThreads::shared().size()
                                   << " for the block steps' loops)";
}

// The child's result line (without its thread count), or "" where it printed none.
std::string result_of(const std::string& output) {
    const std::size_t at = output.find(kResult);
    if (at == std::string::npos) return "";
    const std::size_t from = output.find(" blocks ", at), end = output.find('\n', at);
    return output.substr(from, end - from);
}

TEST(HermiteSerialPool, RunsToTheEndOnOneThreadAsOnSeveral) {
    const std::string self = std::filesystem::read_symlink("/proc/self/exe").string();
    auto child = [&](const char* threads, const char* filter) {
        return test::run_command(std::string("env NBODY_HERMITE_SERIAL_CHILD=1 NBODY_HERMITE_THREADS=") + threads + " '" +
                                     self + "' --gtest_filter='" + filter + "'",
                                 60.0);
    };
    const test::CommandResult serial = child("1", "HermiteSerialPoolChild.*");
    ASSERT_FALSE(serial.timed_out) << "hung with NBODY_HERMITE_THREADS=1:\n" << serial.output;
    ASSERT_EQ(serial.exit_code, 0) << serial.output;
    EXPECT_NE(serial.output.find(std::string(kResult) + " threads 1 "), std::string::npos) << serial.output;
    const test::CommandResult pooled = child("3", "HermiteSerialPoolChild.RunsToTheEnd");
    ASSERT_FALSE(pooled.timed_out) << pooled.output;
    ASSERT_EQ(pooled.exit_code, 0) << pooled.output;
    EXPECT_NE(pooled.output.find(std::string(kResult) + " threads 3 "), std::string::npos) << pooled.output;
    ASSERT_NE(result_of(serial.output), "") << serial.output;
    EXPECT_EQ(result_of(serial.output), result_of(pooled.output)) << "the same bits on 1 thread and on 3";
}

}  // namespace
}  // namespace nbody::hermite
