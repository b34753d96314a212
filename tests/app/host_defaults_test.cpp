// The CPU viewer's defaults for galaxy scenes (issue 33, item 3): N from the measured cost of a
// step, so that one frame's steps take about a fifth of a second, 8,192 bodies at least.

#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "host_defaults.hpp"
#include "nbody/sim/scene.hpp"
#include "test_support.hpp"

namespace nbody::app {
namespace {

// A model under which exactly `bodies` bodies take `seconds` per step.
HostStepModel model_where(std::size_t bodies, double seconds) {
    const double n = double(bodies);
    return {seconds / (n * std::log2(n))};
}

TEST(HostDefaults, LargestBodiesThatKeepFiveSimulatedFramesPerSecond) {
    // 10 steps per frame at 5 frames/s: 20 ms per step. 32,768 bodies take exactly that.
    const HostStepModel model = model_where(32768, 0.020);
    EXPECT_EQ(fit_host_bodies(model, 10, 65536), 32768u);
    EXPECT_LE(10 * model.seconds(fit_host_bodies(model, 10, 65536)), 1.0 / kHostSimulatedFramesPerSecond + 1e-12);
    // Twice the steps per frame: fewer bodies, and a multiple of 1,024.
    const std::size_t fewer = fit_host_bodies(model, 20, 65536);
    EXPECT_LT(fewer, 32768u);
    EXPECT_EQ(fewer % 1024, 0u);
    EXPECT_GT(10 * 2 * model.seconds(fewer + 1024), 1.0 / kHostSimulatedFramesPerSecond);
}

TEST(HostDefaults, NeverBelowTheFloorNorAboveTheScene) {
    const HostStepModel slow = model_where(1024, 1.0);  // a second per step at 1,024 bodies
    EXPECT_EQ(fit_host_bodies(slow, 10, 65536), kHostMinBodies);
    EXPECT_EQ(fit_host_bodies(slow, 10, 5000), 5000u) << "a scene smaller than the floor keeps its N";
    const HostStepModel fast = model_where(1 << 20, 1e-3);
    EXPECT_EQ(fit_host_bodies(fast, 10, 65536), 65536u);
}

TEST(HostDefaults, StepsPerFrameOfListedScenes) {
    EXPECT_EQ(listed_steps_per_frame(test::source_dir() + "/scenes/antennae.toml"), 10);
    EXPECT_EQ(listed_steps_per_frame(test::source_dir() + "/scenes/no-such-scene.toml"), 1);
    EXPECT_GE(listed_steps_per_frame(""), 1);  // the default scene's
}

TEST(HostDefaults, GalaxyScenesAreThoseWithDisks) {
    const Scene galaxy = load_scene(test::source_dir() + "/scenes/isolated-disk.toml", 2048);
    EXPECT_TRUE(is_galaxy_scene(galaxy.state));
    const Scene cluster = load_scene(test::source_dir() + "/scenes/plummer.toml", 512);
    EXPECT_FALSE(is_galaxy_scene(cluster.state));
}

}  // namespace
}  // namespace nbody::app
