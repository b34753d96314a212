// Issue 33: the simulation beside the frame loop, seen from the command line (headless EGL on
// Mesa). NBODY_SIM_THREAD=1 puts a scripted run on the simulation thread, as a window run is.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <thread>
#include <vector>

#include "test_support.hpp"

namespace nbody {
namespace {

namespace fs = std::filesystem;

const std::string kTiny = "--backend cpu --no-ui --size 96x54 ";

// Every child gets a bound: a hung viewer fails the test instead of stalling the suite.
test::CommandResult run_viewer(const std::string& env, const std::string& arguments) {
    return test::run_command(env + " timeout 300 '" + test::nbody_executable() + "' " + arguments);
}

bool no_egl(const test::CommandResult& r) {
    return r.exit_code != 0 && r.output.find("cannot create a headless OpenGL") != std::string::npos;
}

#define SKIP_WITHOUT_EGL(r) \
    if (no_egl(r)) GTEST_SKIP() << "no headless EGL: " << (r).output

// A number from the fps_report line ("ms_per_frame=39.3858").
double report_value(const std::string& output, const std::string& key) {
    const std::size_t line = output.find("fps_report ");
    if (line == std::string::npos) return -1;
    const std::size_t at = output.find(" " + key + "=", line);
    if (at == std::string::npos) return -1;
    return std::stod(output.substr(at + key.size() + 2));
}

std::string bytes_of(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), {}};
}

TEST(ViewerBeside, FramesKeepComingWhileASlowStepRuns) {
    // 8,192 bodies, every pair: most of a second per step on two cores, four steps per frame.
    // Stepping in the frame loop, each frame would last four steps; beside it, the frames come at
    // the display's rate and the steps land when they are done. N grows with the cores (as the
    // square root: pairs per core stay those of two cores), so that a step is slower than a frame
    // on a 16-core GPU server too (device run 85: 8,192 bodies stepped in 17 ms there).
    const double cores = std::max(2u, std::thread::hardware_concurrency());
    const int bodies = int(8192 * std::ceil(std::sqrt(cores / 2)));
    const auto r = run_viewer("NBODY_SIM_THREAD=1", "view --headless " + kTiny + "--gravity direct --frames 30 --scene '" +
                                                        test::source_dir() + "/scenes/plummer.toml' --bodies " +
                                                        std::to_string(bodies));
    SKIP_WITHOUT_EGL(r);
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_NE(r.output.find("the simulation steps on its own thread"), std::string::npos) << r.output;
    const double frames = report_value(r.output, "frames");
    const double ms_per_frame = report_value(r.output, "ms_per_frame");
    ASSERT_GT(frames, 0) << r.output;
    const std::size_t steps_at = r.output.find(" steps\n");
    ASSERT_NE(steps_at, std::string::npos) << r.output;
    const double steps = std::stod(r.output.substr(r.output.rfind(", ", steps_at) + 2));
    EXPECT_LT(steps, 4 * frames) << "frames waited for their steps\n" << r.output;
    EXPECT_LT(ms_per_frame, 250.0) << r.output;
    const double ms_per_step = report_value(r.output, "ms_per_step");
    if (ms_per_step > 0) EXPECT_LT(ms_per_frame, ms_per_step) << r.output;
}

// Records `args` (ending in "--out '") twice, with the simulation in the frame loop and on its own
// thread, into dir/in-loop and dir/beside; `frames` gets the frames' names, sorted. Without EGL the
// test is skipped; the caller returns when IsSkipped() or HasFatalFailure().
void record_both_ways(const test::TempDir& dir, const std::string& args, std::vector<std::string>& frames) {
    const auto in_loop = run_viewer("NBODY_SIM_THREAD=0", args + dir.file("in-loop") + "'");
    SKIP_WITHOUT_EGL(in_loop);
    ASSERT_EQ(in_loop.exit_code, 0) << in_loop.output;
    const auto beside = run_viewer("NBODY_SIM_THREAD=1", args + dir.file("beside") + "'");
    ASSERT_EQ(beside.exit_code, 0) << beside.output;
    EXPECT_NE(beside.output.find("the simulation steps on its own thread"), std::string::npos) << beside.output;
    for (const auto& e : fs::directory_iterator(dir.path() / "in-loop"))
        if (e.path().extension() == ".png") frames.push_back(e.path().filename().string());
    std::sort(frames.begin(), frames.end());
}

// Each frame of dir/in-loop is byte for byte the one of the same name in dir/beside.
void expect_same_frames(const test::TempDir& dir, const std::vector<std::string>& frames) {
    for (const std::string& name : frames) {
        const std::string a = bytes_of(dir.path() / "in-loop" / name), b = bytes_of(dir.path() / "beside" / name);
        ASSERT_FALSE(a.empty()) << name;
        EXPECT_TRUE(a == b) << name << " differs";
    }
}

TEST(ViewerBeside, RecordedFramesAreTheSameOnTheSimulationThread) {
    // A recorded frame is taken after exactly its steps: the frames recorded with the simulation
    // on its own thread are those recorded with it in the frame loop, byte for byte.
    test::TempDir dir;
    std::vector<std::string> names;
    record_both_ways(dir, "record --backend cpu --size 96x54 --bodies 1500 --frames 4 --steps-per-frame 3 --out '",
                     names);
    if (IsSkipped() || HasFatalFailure()) return;
    ASSERT_EQ(names.size(), 4u);
    expect_same_frames(dir, names);
    EXPECT_NE(bytes_of(dir.path() / "in-loop" / names.front()), bytes_of(dir.path() / "in-loop" / names.back()))
        << "the frames should show the bodies moving";
}

// Issue 33, item 7: trail points are sampled by model time where the steps run, after each step
// on the simulation thread and between runs of steps in the frame loop: the same points either
// way, so frames with trails are byte-identical too (a point every 2 steps here: 4 a frame).
TEST(ViewerBeside, TrailsAreTheSameOnTheSimulationThread) {
    test::TempDir dir;
    std::vector<std::string> names;
    record_both_ways(dir,
                     "record --backend cpu --size 96x54 --bodies 96 --trails 48 --frames 5 --steps-per-frame 8 "
                     "--scene '" + test::source_dir() + "/scenes/rv770-figure-eight-3.toml' --out '",
                     names);
    if (IsSkipped() || HasFatalFailure()) return;
    EXPECT_EQ(names.size(), 5u);
    expect_same_frames(dir, names);
}

TEST(ViewerBeside, HeadlessFramesPrintAProgressLine) {
    const auto r = run_viewer("", "view --headless " + kTiny + "--frames 3 --scene '" + test::source_dir() +
                                      "/scenes/plummer.toml' --bodies 256");
    SKIP_WITHOUT_EGL(r);
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_NE(r.output.find("frame 3/3"), std::string::npos) << r.output;
}

TEST(ViewerBeside, KernelOptionsOnTheCpuSayTheyAreNotUsed) {
    const auto r = run_viewer("", "view --headless " + kTiny + "--frames 1 --unroll 3 --block 100 --scene '" +
                                      test::source_dir() + "/scenes/plummer.toml' --bodies 256");
    SKIP_WITHOUT_EGL(r);
    ASSERT_EQ(r.exit_code, 0) << r.output;
    const std::string note = "the cpu backend has no kernel config: --unroll, --block tune the cuda kernel and are not used";
    EXPECT_NE(r.output.find(note), std::string::npos) << r.output;
    EXPECT_EQ(r.output.find(note), r.output.rfind(note)) << "said once on stderr:\n" << r.output;
}

// The Kernel panel's Auto-tune on the CPU says what it needs instead of a CUDA error, and the
// viewer goes on.
TEST(ViewerBeside, AutotuneOnTheCpuSaysItNeedsTheCudaBackend) {
    const auto r = run_viewer("", "view --headless " + kTiny + "--frames 2 --autotune --scene '" +
                                      test::source_dir() + "/scenes/plummer.toml' --bodies 256");
    SKIP_WITHOUT_EGL(r);
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_NE(r.output.find("auto-tune needs the cuda backend (this is cpu)"), std::string::npos) << r.output;
}

}  // namespace
}  // namespace nbody
