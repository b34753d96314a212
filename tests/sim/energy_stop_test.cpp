// The O(N^2) energy sums give up when asked (issue 34: a Ctrl-C is honoured within a second even
// at N = 10^6): compute_diagnostics_or_stop and HermiteIntegrator::energy_or_stop poll `stop`
// between rows, return nothing once it says so, and otherwise the same figures as without it.

#include <gtest/gtest.h>

#include <atomic>
#include <cmath>
#include <vector>

#include "nbody/sim/diagnostics.hpp"
#include "nbody/sim/hermite/force_engine.hpp"
#include "nbody/sim/hermite/integrator.hpp"
#include "nbody/sim/ic/plummer.hpp"

namespace nbody {
namespace {

State plummer(std::size_t n) {
    ic::PlummerParams p;
    p.bodies = n;
    p.seed = 7;
    return ic::make_plummer(p);
}

TEST(EnergyStop, DiagnosticsGiveUpWhenAskedAndAreUnchangedOtherwise) {
    const State s = plummer(3000);
    const Diagnostics whole = compute_diagnostics(s, 0.01);
    std::atomic<int> polls{0};
    const auto never = [&polls] {
        ++polls;
        return false;
    };
    const std::optional<Diagnostics> polled = compute_diagnostics_or_stop(s, 0.01, never);
    ASSERT_TRUE(polled.has_value());
    // The workers' partial sums meet in any order: equal to rounding.
    EXPECT_NEAR(polled->potential, whole.potential, 1e-12 * std::abs(whole.potential));
    EXPECT_EQ(polled->kinetic, whole.kinetic);
    EXPECT_GE(polls.load(), 1500) << "one poll per pair of rows (1500 here)";

    // Asked to stop at the 10th poll: nothing, and no row sums after it (each worker polls once more).
    polls = 0;
    const auto after_ten = [&polls] { return ++polls >= 10; };
    EXPECT_FALSE(compute_diagnostics_or_stop(s, 0.01, after_ten).has_value());
    EXPECT_LT(polls.load(), 10 + 64);
}

TEST(EnergyStop, HermiteEnergyGivesUpWhenAskedAndIsUnchangedOtherwise) {
    // 800 bodies on a 10 x 10 x 8 lattice, at rest but for a slow turn: any system has an energy.
    std::vector<double> m(800, 1.0 / 800);
    std::vector<Vec3d> x, v;
    for (int i = 0; i < 800; ++i) {
        const Vec3d at{double(i % 10), double(i / 10 % 10), double(i / 100)};
        x.push_back(at);
        v.push_back({-0.01 * at.y, 0.01 * at.x, 0});
    }
    hermite::HermiteParams p;
    p.softening = 0.01;
    hermite::HermiteIntegrator h(hermite::make_force_engine(hermite::EngineKind::Cpu), p);
    h.start(m, x, v, 0.0);
    const double whole = h.energy();
    std::atomic<int> polls{0};
    const std::optional<double> polled = h.energy_or_stop([&polls] {
        ++polls;
        return false;
    });
    ASSERT_TRUE(polled.has_value());
    EXPECT_EQ(*polled, whole);
    EXPECT_GE(polls.load(), 800);
    polls = 0;
    EXPECT_FALSE(h.energy_or_stop([&polls] { return ++polls >= 5; }).has_value());
    EXPECT_LT(polls.load(), 5 + 64);
}

}  // namespace
}  // namespace nbody
