// The Hermite run behind the viewer's Simulation panel, without a window: switching the order live
// (the Integrator combo) keeps the state on screen and continues it with the other scheme.

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <string>

#include "nbody/sim/scene.hpp"
#include "test_support.hpp"
#include "viewer_hermite.hpp"

namespace nbody::app {
namespace {

TEST(ViewerHermite, SwitchingTheOrderKeepsTheStateOnScreen) {
    const Scene scene = load_scene(test::source_dir() + "/scenes/few-body/figure-eight.toml");
    HermiteSettings s;
    s.order = 4;
    s.eta = hermite::default_eta(4);
    s.engine = hermite::EngineKind::Cpu;
    ViewerHermite run(s, scene.state);
    run.advance_to(1.0, 0);
    const State before = run.state(scene.state);
    s.order = 6;
    s.eta = hermite::default_eta(6);
    run.change(s);
    EXPECT_EQ(run.integrator().params().order, 6);
    EXPECT_EQ(run.integrator().params().eta, 0.1);
    EXPECT_EQ(run.time(), 1.0);
    const State after = run.state(scene.state);
    for (std::size_t i = 0; i < before.size(); ++i) {
        EXPECT_EQ(after.pos_mass[i].x, before.pos_mass[i].x) << i;
        EXPECT_EQ(after.velocity[i].y, before.velocity[i].y) << i;
    }
    run.advance_to(2.0, 0);
    // The energy error still counts from the run's start (hermite4 to t = 1, then hermite6).
    std::printf("figure eight, hermite4 to t = 1, hermite6 to t = 2: dE/E %.3e, %s\n", run.energy_error(),
                run.engine_line().c_str());
    EXPECT_LT(std::abs(run.energy_error()), 1e-6);
    EXPECT_GT(run.integrator().stats().body_steps, 0u);
}

}  // namespace
}  // namespace nbody::app
