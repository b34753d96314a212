// The viewer's defaults for galaxy scenes (issue 33, item 3): N from the measured cost of a step.
// On the CPU one frame's steps take about a fifth of a second, 8,192 bodies at least; on the GPU one
// step takes at most 8 ms of GPU time, N a power of two.

#include <gtest/gtest.h>

#include <cmath>
#include <sstream>
#include <string>
#include <vector>

#include "machine_defaults.hpp"
#include "nbody/sim/scene.hpp"
#include "nbody/sim/scene_spec.hpp"
#include "viewer_scenes.hpp"
#include "test_support.hpp"

namespace nbody::app {
namespace {

// A model under which exactly `bodies` bodies take `seconds` per step.
StepModel model_where(std::size_t bodies, double seconds) { return StepModel::through(bodies, seconds); }

TEST(HostDefaults, LargestBodiesThatKeepFiveSimulatedFramesPerSecond) {
    // 10 steps per frame at 5 frames/s: 20 ms per step. 32,768 bodies take exactly that.
    const StepModel model = model_where(32768, 0.020);
    EXPECT_EQ(fit_host_bodies(model, 10, 65536), 32768u);
    EXPECT_LE(10 * model.seconds(fit_host_bodies(model, 10, 65536)), 1.0 / kHostSimulatedFramesPerSecond + 1e-12);
    // Twice the steps per frame: fewer bodies, and a multiple of 1,024.
    const std::size_t fewer = fit_host_bodies(model, 20, 65536);
    EXPECT_LT(fewer, 32768u);
    EXPECT_EQ(fewer % 1024, 0u);
    EXPECT_GT(10 * 2 * model.seconds(fewer + 1024), 1.0 / kHostSimulatedFramesPerSecond);
}

TEST(HostDefaults, NeverBelowTheFloorNorAboveTheScene) {
    const StepModel slow = model_where(1024, 1.0);  // a second per step at 1,024 bodies
    EXPECT_EQ(fit_host_bodies(slow, 10, 65536), kHostMinBodies);
    EXPECT_EQ(fit_host_bodies(slow, 10, 5000), 5000u) << "a scene smaller than the floor keeps its N";
    const StepModel fast = model_where(1 << 20, 1e-3);
    EXPECT_EQ(fit_host_bodies(fast, 10, 65536), 65536u);
}

// A GPU like the H200: about 7.3 ms a tree step at 1M bodies (docs/TREE.md: 7.25 ms, run 10; the
// viewer in run 99: 7.45 ms), N log N.
TEST(GpuDefaults, AnH200StepsAMillionBodiesAFrame) {
    const StepModel h200 = model_where(1 << 20, 0.0073);
    EXPECT_EQ(fit_gpu_bodies(h200, 1), std::size_t(1) << 20);
    EXPECT_LE(h200.seconds(fit_gpu_bodies(h200, 1)), kGpuStepBudgetSeconds);
    EXPECT_GT(h200.seconds(2 * fit_gpu_bodies(h200, 1)), kGpuStepBudgetSeconds) << "the largest power of two";
    EXPECT_EQ(fit_gpu_bodies(h200, 10), std::size_t(1) << 17) << "ten steps a frame share the budget: 0.78 ms at 128K";
}

TEST(GpuDefaults, ALowerEndGpuGetsFewerBodiesByTheSameRule) {
    const StepModel h200 = model_where(1 << 20, 0.0073);
    std::size_t previous = fit_gpu_bodies(h200, 1);
    for (double slower : {2.0, 4.0, 8.0, 30.0}) {  // a GPU this many times slower
        const StepModel gpu{h200.seconds_per_n_log_n * slower};
        const std::size_t n = fit_gpu_bodies(gpu, 1);
        EXPECT_LT(n, previous) << slower;
        EXPECT_EQ(n & (n - 1), 0u) << n << " is a power of two";
        EXPECT_LE(gpu.seconds(n), kGpuStepBudgetSeconds) << slower;
        previous = n;
    }
    EXPECT_LE(previous, std::size_t(1) << 15) << "30 times slower than an H200: 32K bodies at most";
}

TEST(GpuDefaults, NeverBelowTheFloorNorAboveTheCeiling) {
    EXPECT_EQ(fit_gpu_bodies(model_where(1024, 1.0), 1), kGpuMinBodies) << "a second a step at 1,024 bodies";
    EXPECT_EQ(fit_gpu_bodies(model_where(std::size_t(1) << 30, 1e-3), 1), kGpuMaxBodies);
}

TEST(GpuDefaults, TheMeasuredStepIsTheClocksAtTheSamplesSize) {
    // The clock is the caller's (CUDA events on the GPU): a made-up one gives its model exactly.
    std::ostringstream notice;
    auto backend = make_backend(BackendKind::Cpu, notice);
    const Scene scene = load_scene(test::source_dir() + "/scenes/isolated-disk.toml", 2048);
    int timed = 0;
    const StepModel model = measure_step(*backend, scene.state, scene.params, [&](Backend& b, const StepParams& p) {
        ++timed;
        b.step(p, 1);
        return 0.004;
    });
    EXPECT_EQ(timed, 1);
    EXPECT_NEAR(model.seconds(2048), 0.004, 1e-12);
    EXPECT_EQ(backend->time(), scene.state.time) << "the sample is loaded again after the timing";
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

// A scene launched in the window (picker, Open, a dropped file) is fitted by the first scene's rule.
TEST(LaunchedScenes, OnAGpuAGalaxyGetsTheFittedNAtTheFirstScenesStepsPerFrame) {
    const MachineFit h200{model_where(1 << 20, 0.0073), 1};
    EXPECT_EQ(fit_launched_bodies(h200, true, 65536, 10, true), std::size_t(1) << 20)
        << "the antennae (65,536 listed, 10 steps a frame) at one step a frame: 1M, as the start-up scene";
    EXPECT_EQ(fit_launched_bodies(h200, true, 0, 10, true), std::size_t(1) << 20) << "N not listed: the fit's";
    EXPECT_EQ(fit_launched_bodies(h200, true, 131072, 1, false), std::nullopt) << "a star cluster keeps its N";
    EXPECT_EQ(fit_launched_bodies(std::nullopt, true, 65536, 10, true), std::nullopt)
        << "N was asked for at start-up (no fit): each file's own";
    const MachineFit ten_a_frame{h200.model, 10};
    EXPECT_EQ(fit_launched_bodies(ten_a_frame, true, 65536, 1, true), std::size_t(1) << 17)
        << "--steps-per-frame 10 at start-up: ten steps share the budget";
}

TEST(LaunchedScenes, OnTheCpuEveryLargeFileIsFittedAtItsOwnStepsPerFrame) {
    const MachineFit cpu{model_where(32768, 0.020), std::nullopt};
    EXPECT_EQ(fit_launched_bodies(cpu, false, 65536, 10, true), std::optional<std::size_t>(32768));
    EXPECT_EQ(fit_launched_bodies(cpu, false, 65536, 10, false), std::optional<std::size_t>(32768))
        << "any scene above the floor: seconds a step on a CPU whatever it holds";
    EXPECT_EQ(fit_launched_bodies(cpu, false, 4096, 10, true), std::nullopt) << "small files keep their N";
    EXPECT_EQ(fit_launched_bodies(std::nullopt, false, 65536, 10, true), std::optional<std::size_t>(kHostMinBodies))
        << "no measured step (N asked for at start-up): the floor";
}

TEST(LaunchedScenes, ListedScenesSayWhichAreGalaxies) {
    const std::vector<SceneEntry> entries = list_scenes(test::source_dir() + "/scenes");
    const auto entry = [&](const std::string& file) {
        for (const SceneEntry& e : entries)
            if (e.path.ends_with("/" + file)) return e;
        ADD_FAILURE() << file << " not listed";
        return SceneEntry{};
    };
    EXPECT_TRUE(entry("antennae.toml").galaxy);
    EXPECT_TRUE(entry(kDefaultSceneFile).galaxy);
    EXPECT_FALSE(entry("plummer.toml").galaxy);
    EXPECT_FALSE(entry("star-cluster-kroupa.toml").galaxy);
}

TEST(LaunchedScenes, ThePickersDefaultSceneListsTheDefaultFilesNAndKind) {
    // Its N was not known (0), so the picker loaded the default scene at 65,536 bodies on a CPU.
    const std::vector<SceneChoice> choices = list_scene_choices();
    ASSERT_FALSE(choices.empty());
    EXPECT_TRUE(choices.front().path.empty()) << "the built-in entry comes first";
    EXPECT_EQ(choices.front().bodies, read_scene_spec(test::source_dir() + "/scenes/" + kDefaultSceneFile).bodies);
    EXPECT_TRUE(choices.front().galaxy);
}

}  // namespace
}  // namespace nbody::app
