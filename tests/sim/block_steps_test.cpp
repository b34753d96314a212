// Block time steps (time_steps.hpp, block_steps.hpp) on the CPU tree: the level rules, the active
// bodies' walk, and block against shared steps on a two-body orbit and a Plummer sphere.

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <numeric>
#include <stdexcept>
#include <string>
#include <vector>

#include "nbody/sim/diagnostics.hpp"
#include "nbody/sim/direct_sum_backend.hpp"
#include "nbody/sim/time_steps.hpp"
#include "nbody/sim/tree/host_tree.hpp"
#include "tree_test_support.hpp"

namespace nbody {
namespace {

GravityConfig tree_gravity() { return {Gravity::Tree, TreeParams{}}; }
TimeStepConfig block(double eta = kDefaultBlockEta, int max_level = kDefaultMaxLevel) {
    return {TimeSteps::Block, eta, max_level};
}

// Two bodies of mass 1/2 on an orbit of semi-major axis 1 and eccentricity e (period 2 pi),
// started at apocentre.
State binary(double e) {
    State s;
    s.resize(2);
    const double r_apo = 1 + e, v_apo = std::sqrt((1 - e) / r_apo);
    s.pos_mass[0] = {float(0.5 * r_apo), 0, 0, 0.5f};
    s.pos_mass[1] = {float(-0.5 * r_apo), 0, 0, 0.5f};
    s.velocity[0] = {0, float(0.5 * v_apo), 0, 0};
    s.velocity[1] = {0, float(-0.5 * v_apo), 0, 0};
    return s;
}

struct Columns {
    std::vector<float> x, y, z, m;
};
Columns columns(const State& s) {
    Columns c;
    for (const Vec4f& p : s.pos_mass) c.x.push_back(p.x), c.y.push_back(p.y), c.z.push_back(p.z), c.m.push_back(p.w);
    return c;
}

using Outcome = test::TimeStepRun;

template <class Backend>
Outcome run(const State& s, const StepParams& p, long steps, const TimeStepConfig& ts) {
    return test::run_with_time_steps<Backend>(s, p, steps, ts);
}

TEST(BlockSchedule, LevelsArePowersOfTwoOfDtMax) {
    const BlockSchedule sched(8);
    EXPECT_EQ(sched.ticks_per_step(), 256u);
    for (int k = 0; k <= 8; ++k) EXPECT_EQ(sched.step_ticks(k) << k, 256u);
    // The coarsest k with dt_max / 2^k <= eta sqrt(eps / |a|): here the criterion's dt is 0.01.
    bool clamped = true;
    const double dt = 0.01, eps = 0.04, eta = 0.5, acc = eta * eta * eps / (dt * dt);
    const int k = sched.wanted_level(acc, eps, eta, 1.0, &clamped);
    EXPECT_EQ(k, 7);  // 1/128 <= 0.01 < 1/64
    EXPECT_FALSE(clamped);
    EXPECT_EQ(sched.wanted_level(0.0, eps, eta, 1.0, &clamped), 0);
    EXPECT_EQ(sched.wanted_level(acc * 1e6, eps, eta, 1.0, &clamped), 8);
    EXPECT_TRUE(clamped);
}

TEST(BlockSchedule, FinerAtOnceCoarserOnlyWhereTheCoarserStepStarts) {
    const BlockSchedule sched(4);  // 16 ticks; level 3 steps are 2 ticks, level 1 steps 8
    EXPECT_EQ(sched.next_level(1, 3, 8), 3);   // finer at any own boundary
    EXPECT_EQ(sched.next_level(3, 1, 2), 3);   // tick 2 starts no level-2 step: stays
    EXPECT_EQ(sched.next_level(3, 1, 4), 2);   // tick 4 starts a level-2 step, not a level-1 one
    EXPECT_EQ(sched.next_level(3, 1, 8), 1);   // tick 8 starts a level-1 step
    EXPECT_EQ(sched.next_level(3, 0, 8), 1);   // but no level-0 step
    EXPECT_EQ(sched.step_start(2, 7), 4u);
    EXPECT_EQ(sched.step_start(2, 8), 4u);     // the step that ends at 8
}

TEST(BlockStepsConfig, BadValuesAreRefusedWithTheReason) {
    EXPECT_NE(check_time_step_config(block(0.0)).find("eta must be a number > 0"), std::string::npos);
    EXPECT_FALSE(check_time_step_config(block(-1)).empty());
    EXPECT_FALSE(check_time_step_config(block(std::nan(""))).empty());
    EXPECT_NE(check_time_step_config(block(0.2, 31)).find("outside 0..30"), std::string::npos);
    EXPECT_TRUE(check_time_step_config(block()).empty());
    EXPECT_THROW(parse_time_steps("hierarchical"), std::invalid_argument);
    CpuBackend b;
    EXPECT_THROW(b.set_time_steps(block(0.0)), std::invalid_argument);
    EXPECT_EQ(b.time_steps().mode, TimeSteps::Shared);  // the running choice is kept
}

TEST(BlockStepsConfig, DirectGravityAndZeroSofteningAreRefused) {
    CpuBackend b;
    b.load(test::plummer_sphere(64));
    b.set_time_steps(block());
    try {
        b.step({0.01, 0.01});
        FAIL() << "block steps under direct gravity";
    } catch (const std::invalid_argument& e) {
        EXPECT_NE(std::string(e.what()).find("--gravity tree"), std::string::npos) << e.what();
    }
    b.set_gravity(tree_gravity());
    EXPECT_THROW(b.step({0.01, 0.0}), std::invalid_argument);
    EXPECT_NO_THROW(b.step({0.01, 0.01}));
}

// The active walk with every body listed is the force pass; with a subset, the others are untouched.
TEST(TreeActive, AllListedIsTheForcePassAndOthersAreUntouched) {
    const State s = test::plummer_sphere(3000, 6);
    const auto c = columns(s);
    const std::size_t n = s.size();
    std::vector<float> ax(n), ay(n), az(n), bx(n, -7.f), by(n, -7.f), bz(n, -7.f);
    tree::TreeStats all_stats, some_stats;
    tree::tree_accelerations(c.x.data(), c.y.data(), c.z.data(), c.m.data(), n, 1e-4f, TreeParams{}, ax.data(),
                             ay.data(), az.data(), &all_stats);
    std::vector<std::uint32_t> every(n);
    std::iota(every.begin(), every.end(), 0u);
    std::vector<float> ex(n), ey(n), ez(n);
    tree::tree_accelerations_active(c.x.data(), c.y.data(), c.z.data(), c.m.data(), n, 1e-4f, TreeParams{},
                                    every.data(), n, ex.data(), ey.data(), ez.data());
    EXPECT_EQ(ex, ax);
    EXPECT_EQ(ez, az);
    std::vector<std::uint32_t> some;
    for (std::uint32_t i = 0; i < n; i += 7) some.push_back(i);
    tree::tree_accelerations_active(c.x.data(), c.y.data(), c.z.data(), c.m.data(), n, 1e-4f, TreeParams{},
                                    some.data(), some.size(), bx.data(), by.data(), bz.data(), &some_stats);
    for (std::size_t i = 0; i < n; ++i) {
        if (i % 7 != 0) {
            ASSERT_EQ(bx[i], -7.f) << i;
            continue;
        }
        const double a = std::hypot(ax[i], ay[i], az[i]);
        ASSERT_LT(std::hypot(bx[i] - ax[i], by[i] - ay[i], bz[i] - az[i]), 1e-2 * a) << i;
    }
    EXPECT_LT(some_stats.body_interactions + some_stats.cell_interactions,
              0.3 * (all_stats.body_interactions + all_stats.cell_interactions));
}

// With every body held at level 0 the block stepper is the shared leapfrog, bit for bit.
TEST(BlockSteps, LevelZeroIsTheSharedLeapfrogBitForBit) {
    const State s = test::plummer_sphere(2048, 4);
    const StepParams p{1.0 / 64, 0.05};
    const Outcome shared = run<CpuBackend>(s, p, 5, {});
    const Outcome level0 = run<CpuBackend>(s, p, 5, block(0.2, 0));
    for (std::size_t i = 0; i < s.size(); ++i) {
        ASSERT_EQ(shared.state.pos_mass[i].x, level0.state.pos_mass[i].x) << i;
        ASSERT_EQ(shared.state.velocity[i].z, level0.state.velocity[i].z) << i;
    }
    EXPECT_EQ(shared.work.evaluations, level0.work.evaluations);
}

// After each step of dt_max: the time is k dt_max, the stored accelerations are the force pass of
// the stored positions (every body at a boundary), and several levels were in use.
TEST(BlockSteps, EveryBodyIsSynchronisedAtDtMax) {
    const State s = test::plummer_sphere(4096, 9);
    const StepParams p{1.0 / 16, 0.01};
    // The angle alone: its pass depends on the positions only, so a fresh pass at dt_max gives the
    // stepper's bits (the relative criterion's would also depend on the accelerations before it).
    const TreeParams angle{0.5, 16, 128, 0.0};
    CpuBackend b;
    b.load(s);
    b.set_gravity({Gravity::Tree, angle});
    b.set_time_steps(block(0.1));
    for (int k = 1; k <= 3; ++k) {
        b.step(p);
        EXPECT_EQ(b.time(), k * p.dt);
    }
    const std::vector<Vec3d> stored = b.accelerations(p.softening);  // no new pass: the step's last
    State now;
    b.store(now);
    const auto c = columns(now);
    std::vector<float> ax(now.size()), ay(now.size()), az(now.size());
    tree::tree_accelerations(c.x.data(), c.y.data(), c.z.data(), c.m.data(), now.size(), 1e-4f, angle, ax.data(),
                             ay.data(), az.data());
    for (std::size_t i = 0; i < now.size(); ++i) ASSERT_EQ(float(stored[i].x), ax[i]) << i;
    const std::vector<std::uint64_t> levels = b.force_work()->level_counts;
    int used = 0;
    for (std::uint64_t count : levels) used += count > 0;
    EXPECT_GE(used, 3);
    for (std::uint8_t k : b.levels()) EXPECT_LE(k, kDefaultMaxLevel);
}

TEST(BlockSteps, SameRunTwiceIsIdentical) {
    const State s = test::plummer_sphere(4096, 2);
    const StepParams p{1.0 / 16, 0.01};
    const Outcome a = run<CpuBackend>(s, p, 3, block(0.1));
    const Outcome b = run<CpuBackend>(s, p, 3, block(0.1));
    for (std::size_t i = 0; i < s.size(); ++i) {
        ASSERT_EQ(a.state.pos_mass[i].x, b.state.pos_mass[i].x) << i;
        ASSERT_EQ(a.state.pos_mass[i].y, b.state.pos_mass[i].y) << i;
        ASSERT_EQ(a.state.velocity[i].x, b.state.velocity[i].x) << i;
    }
    EXPECT_EQ(a.work.evaluations, b.work.evaluations);
}

// An eccentric binary (e = 0.9: the speed at pericentre is 19x that at apocentre) over three
// periods: shared steps of dt_max = 2 pi / 64 lose the orbit; block steps with the same dt_max keep
// it, and with fewer evaluations than shared steps of the same error need.
TEST(BlockSteps, EccentricBinaryBeatsSharedStepsPerEvaluation) {
    const State s = binary(0.9);
    const double period = 2 * M_PI;
    const StepParams p{period / 64, 0.01};
    const Outcome coarse = run<ReferenceBackend>(s, p, 3 * 64, {});
    const Outcome blocks = run<ReferenceBackend>(s, p, 3 * 64, block(0.2));
    // Shared steps with as many evaluations as the block run took.
    const long same_work_steps = long(blocks.work.evaluations / 2);
    const Outcome matched = run<ReferenceBackend>(s, {3 * period / double(same_work_steps), p.softening},
                                                  same_work_steps, {});
    std::printf("binary e=0.9, 3 periods: shared dt_max %.2e (%llu evaluations), block %.2e (%llu), shared at the "
                "block's evaluations %.2e\n",
                coarse.energy_error, (unsigned long long)coarse.work.evaluations, blocks.energy_error,
                (unsigned long long)blocks.work.evaluations, matched.energy_error);
    EXPECT_GT(coarse.energy_error, 1e-1);
    EXPECT_LT(blocks.energy_error, 1e-2);
    EXPECT_LT(blocks.energy_error, 0.5 * matched.energy_error);
}

// A Plummer sphere has a narrow range of time scales (and |a| -> 0 in its core, where the criterion
// gives long steps), so block steps gain little there; they must still reach about the error of the
// shared step most of its bodies get, with fewer evaluations. Measured (4096 bodies, eps 0.05, to
// t = 1): shared dt 1/32 2.5e-6 with 135,168 evaluations, block dt_max 1/8 eta 0.1 (levels 0-3,
// most at 2) 4.7e-6 with 122,425; shared dt 1/16 has 1.8e-5.
TEST(BlockSteps, PlummerSphereMatchesSharedEnergyWithFewerEvaluations) {
    const State s = test::plummer_sphere(4096, 12);
    const double eps = 0.05;
    const Outcome shared = run<CpuBackend>(s, {1.0 / 32, eps}, 32, {});
    const Outcome blocks = run<CpuBackend>(s, {1.0 / 8, eps}, 8, block(0.1));
    std::printf("plummer 4096 to t = 1: shared dt 1/32 error %.2e, %llu evaluations; block dt_max 1/8 eta 0.1 error "
                "%.2e, %llu evaluations\n",
                shared.energy_error, (unsigned long long)shared.work.evaluations, blocks.energy_error,
                (unsigned long long)blocks.work.evaluations);
    EXPECT_LT(blocks.energy_error, 3 * shared.energy_error);
    EXPECT_LT(blocks.work.evaluations, shared.work.evaluations);
}

}  // namespace
}  // namespace nbody
