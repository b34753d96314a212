// The NaN/Inf guard (finite_guard.hpp) on the host backends: the first non-finite body, the
// exact step found by replaying from the last checkpoint, the backend left on the last finite
// state; and the memory estimate's arithmetic.

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <iostream>
#include <limits>

#include "nbody/sim/backend.hpp"
#include "nbody/sim/finite_guard.hpp"
#include "nbody/sim/ic/plummer.hpp"
#include "nbody/sim/memory_check.hpp"

namespace nbody {
namespace {

// Body 0 flies off at 1e37 per unit time: in float it overflows at step 35 with dt = 1.
State runaway(std::size_t n) {
    State s = ic::make_plummer({.bodies = n, .seed = 11});
    s.pos_mass[0] = {0, 0, 0, 1e-3f};
    s.velocity[0] = {1e37f, 0, 0, 0};
    return s;
}

TEST(FiniteGuard, FirstNonFiniteNamesTheFirstBadBody) {
    State s = ic::make_plummer({.bodies = 100, .seed = 1});
    EXPECT_FALSE(first_non_finite(s));
    s.velocity[42].y = std::numeric_limits<float>::quiet_NaN();
    s.pos_mass[77].w = std::numeric_limits<float>::infinity();
    EXPECT_EQ(first_non_finite(s), 42u);
}

TEST(FiniteGuard, BackendsReportABlowUp) {
    for (BackendKind kind : {BackendKind::Cpu, BackendKind::Reference}) {
        State s = ic::make_plummer({.bodies = 300, .seed = 2});
        s.pos_mass[200] = s.pos_mass[100];  // two bodies at one point: 0/0 with softening 0
        auto b = make_backend(kind, std::cout);
        b->load(s);
        EXPECT_FALSE(b->first_non_finite());
        b->step({1e-3, 0.0}, 1);
        // Bodies 100 and 200 go NaN in the first kick; the force pass at the drifted positions
        // then spreads NaN to every body, so the first is body 0.
        EXPECT_EQ(b->first_non_finite(), 0u) << to_string(kind);
    }
}

TEST(FiniteGuard, GuardedRunStopsAtTheExactStepAndKeepsTheLastFiniteState) {
    const State s = runaway(64);
    const StepParams params{1.0, 0.05};
    auto b = make_backend(BackendKind::Cpu, std::cout);
    b->load(s);
    GuardedRun run(*b, s, params);
    ASSERT_TRUE(run.advance(10));
    run.checkpoint();  // the replay starts here, at step 10
    EXPECT_TRUE(run.advance(20));
    EXPECT_FALSE(run.advance(50));  // steps 31..80: 35 is the first bad one
    ASSERT_TRUE(run.event());
    EXPECT_EQ(run.event()->step, 35);
    EXPECT_EQ(run.event()->body, 0u);
    EXPECT_EQ(run.step(), 34);
    EXPECT_FALSE(b->first_non_finite());
    EXPECT_DOUBLE_EQ(b->time(), 34.0);
    // The state it kept is the one 34 straight steps reach.
    auto straight = make_backend(BackendKind::Cpu, std::cout);
    straight->load(s);
    straight->step(params, 34);
    State a = s, c = s;
    b->store(a);
    straight->store(c);
    EXPECT_EQ(0, std::memcmp(a.pos_mass.data(), c.pos_mass.data(), a.size() * sizeof(Vec4f)));
    EXPECT_EQ(0, std::memcmp(a.velocity.data(), c.velocity.data(), a.size() * sizeof(Vec4f)));
    EXPECT_NE(run.event()->describe(100).find("body 0 became non-finite (NaN or Inf) at step 35 of 100"),
              std::string::npos);
    EXPECT_THROW(run.advance(1), std::logic_error);
}

TEST(MemoryCheck, EstimatesAndRefusals) {
    EXPECT_EQ(memory_need("cpu", Precision::Fp32).host_per_body, 3u * 35 + 40);
    EXPECT_EQ(memory_need("reference", Precision::Fp32).host_per_body, 3u * 35 + 2 * 56 + 80);
    EXPECT_EQ(memory_need("cuda", Precision::Fp64, true).device_per_body, 64u + 96 + 32);
    EXPECT_EQ(memory_need("cuda", Precision::Fp32).device_per_body, 64u);
    EXPECT_NO_THROW(check_memory_for(1000, "cpu", Precision::Fp32));
    try {
        check_memory_for((1ull << 30) + 1, "cpu", Precision::Fp32);
        FAIL() << "no error above 2^30 bodies";
    } catch (const std::runtime_error& e) {
        EXPECT_NE(std::string(e.what()).find("more than nbody supports"), std::string::npos) << e.what();
    }
    const auto avail = host_memory_available();
    ASSERT_TRUE(avail.has_value()) << "no /proc/meminfo on Linux?";
    const std::uint64_t too_many = *avail / memory_need("reference", Precision::Fp32).host_per_body + 1000;
    if (too_many <= (1ull << 30)) {
        try {
            check_memory_for(too_many, "reference", Precision::Fp32);
            FAIL() << "no error for " << too_many << " bodies";
        } catch (const std::runtime_error& e) {
            EXPECT_NE(std::string(e.what()).find("of host memory (297 bytes per body"), std::string::npos) << e.what();
        }
    }
}

}  // namespace
}  // namespace nbody
