// Issue 33: the viewer's energy drift of a run continued from a snapshot counts from the run's
// first state (E0 kept in the snapshot), for the float monitor and for Hermite's double sum.

#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include "nbody/sim/io/snapshot.hpp"
#include "nbody/sim/scene.hpp"
#include "test_support.hpp"
#include "viewer_hermite.hpp"
#include "viewer_stats.hpp"

namespace nbody::app {
namespace {

void wait_for(EnergyMonitor& m) {
    for (int i = 0; i < 2000 && m.busy(); ++i) {
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
        m.poll();
    }
    ASSERT_FALSE(m.busy());
}

TEST(EnergyOrigin, SnapshotsE0IsTheMonitorsBaseline) {
    const Scene scene = load_scene(test::source_dir() + "/scenes/plummer.toml", 128);
    const double softening = scene.params.softening;
    EnergyMonitor fresh;
    fresh.start(scene.state, softening);
    wait_for(fresh);
    ASSERT_TRUE(fresh.latest());
    const double e = fresh.latest()->total;

    EnergyMonitor continued;
    continued.reset(io::RunEnergy{e * 1.01, -3.0, "exact"}, softening);
    continued.start(scene.state, softening);
    wait_for(continued);
    ASSERT_TRUE(continued.energy_error());
    EXPECT_NEAR(*continued.energy_error(), (e - e * 1.01) / std::abs(e * 1.01), 1e-12);
    EXPECT_EQ(continued.run_energy()->time, -3.0);  // what the next snapshot keeps
    EXPECT_EQ(continued.run_energy()->energy, e * 1.01);

    // Summed another way, or with another softening: this state is the baseline.
    for (const auto& [source, eps] : {std::pair{"tree", softening}, std::pair{"exact", softening * 2}}) {
        EnergyMonitor other;
        other.reset(io::RunEnergy{e * 1.01, -3.0, source}, eps);
        other.start(scene.state, softening);
        wait_for(other);
        EXPECT_EQ(*other.energy_error(), 0.0) << source;
        EXPECT_EQ(other.run_energy()->time, scene.state.time) << source;
    }
}

// A potential summed elsewhere (the GPU tree's, between two steps) gives the same diagnostics as
// the monitor's own sum with that potential; one asked for before a reset (another system) is dropped.
TEST(EnergyOrigin, APotentialSummedElsewhereIsTakenUnlessASystemCameBetween) {
    const Scene scene = load_scene(test::source_dir() + "/scenes/plummer.toml", 128);
    const double softening = scene.params.softening;
    // Not the monitor's own sum, so that taking it is seen.
    const double potential = 1.5 * compute_diagnostics(scene.state, softening).potential;
    EnergyMonitor monitor;
    const unsigned before_reset = monitor.generation();
    monitor.reset();
    monitor.start_known(scene.state, softening, GravityConfig{}, potential, before_reset);
    EXPECT_FALSE(monitor.busy());  // dropped: it belongs to the system before the reset
    monitor.start_known(scene.state, softening, GravityConfig{}, potential, monitor.generation());
    wait_for(monitor);
    ASSERT_TRUE(monitor.latest());
    const Diagnostics expected = diagnostics_with_potential(scene.state, potential);
    EXPECT_EQ(monitor.latest()->potential, expected.potential);
    EXPECT_EQ(monitor.latest()->total, expected.total);
    EXPECT_EQ(monitor.latest()->kinetic, expected.kinetic);
}

TEST(EnergyOrigin, HermiteRunKeepsAndTakesTheRunsE0) {
    const Scene scene = load_scene(test::source_dir() + "/scenes/few-body/figure-eight.toml");
    HermiteSettings s;
    s.engine = hermite::EngineKind::Cpu;
    ViewerHermite run(s, scene.state);
    run.advance_to(0.5, 0);
    io::Snapshot snap;
    run.save_into(snap);
    ASSERT_TRUE(snap.energy0.has_value());
    EXPECT_EQ(snap.energy0->source, io::kHermiteEnergySource);
    EXPECT_EQ(snap.energy0->time, scene.state.time);

    ViewerHermite next(s, *snap.precise, run.time());
    EXPECT_EQ(next.energy_error(), 0.0) << "a leg alone counts from its own start";
    next.continue_run_energy(*snap.energy0);
    EXPECT_NEAR(next.energy_error(), run.energy_error(), 1e-9) << "the drift since the run's first state";
    io::Snapshot again;
    next.save_into(again);
    EXPECT_EQ(again.energy0->energy, snap.energy0->energy) << "passed on to the next snapshot";
    EXPECT_EQ(again.energy0->time, scene.state.time);
    // The panel's measurement for larger N: on a worker thread, from a copy, collected by polling.
    next.measure_energy();
    for (int i = 0; i < 2000 && !next.measured(); ++i) {
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
        next.poll_energy();
    }
    ASSERT_TRUE(next.measured().has_value());
    EXPECT_NEAR(next.measured()->error, next.energy_error(), 1e-9);
    EXPECT_EQ(next.measured()->time, next.time());
    const double kept = next.energy_error();
    next.continue_run_energy(io::RunEnergy{1.0, 0, "exact"});  // a float monitor's: not Hermite's
    EXPECT_EQ(next.energy_error(), kept);
}

}  // namespace
}  // namespace nbody::app
