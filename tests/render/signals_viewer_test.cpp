// Signals in the headless viewer and `record` (issue 34): a SIGINT in the first milliseconds still
// saves --save-snapshot, a SIGTERM or SIGHUP still writes --screenshot (of the state reached, the
// same as the snapshot's), and a second Ctrl-C aborts only a second after the first was
// acknowledged, never when it came with it (a process group's copy). Headless EGL (Mesa here) is
// needed; without it each test skips. Every wait is bounded.

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "child_process.hpp"
#include "nbody/render/frame_capture.hpp"
#include "test_support.hpp"

namespace nbody {
namespace {

namespace fs = std::filesystem;
using test::NbodyChild;
using test::TempDir;

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

#define SKIP_WITHOUT_EGL(text)                                                    \
    if (contains(text, "cannot create a headless OpenGL")) GTEST_SKIP() << "no headless EGL: " << (text)
#define SKIP_WITHOUT_EGL_LOG(text) \
    if ((text).empty()) GTEST_SKIP() << "no headless EGL"

const std::vector<std::string> kSmallView = {"--backend", "cpu", "--bodies", "500", "--size", "64x48"};

// Sets an environment variable for the children spawned while it lives.
class ScopedEnv {
  public:
    ScopedEnv(const char* name, const std::string& value) : name_(name) { ::setenv(name, value.c_str(), 1); }
    ~ScopedEnv() { ::unsetenv(name_); }
    ScopedEnv(const ScopedEnv&) = delete;
    ScopedEnv& operator=(const ScopedEnv&) = delete;

  private:
    const char* name_;
};

std::vector<std::string> args_of(std::vector<std::string> head, const std::vector<std::string>& tail) {
    head.insert(head.end(), tail.begin(), tail.end());
    return head;
}

// One round of case 2: `args` started with the stop signals blocked (so that a slow start cannot
// let the signal come before main), SIGINT 20-50 ms later; expects exit 130 and the interruption
// said, and returns the log ("" when there is no headless EGL: the caller skips).
std::string early_sigint_round(const std::vector<std::string>& args, const std::string& log, std::mt19937& random) {
    const int ms = std::uniform_int_distribution<int>(20, 50)(random);
    SCOPED_TRACE("SIGINT " + std::to_string(ms) + " ms after the start");
    NbodyChild child(args, log, {.stop_signals_blocked = true});
    EXPECT_TRUE(child.started());
    std::this_thread::sleep_for(std::chrono::milliseconds(ms));
    child.signal(SIGINT);
    const std::optional<int> status = child.wait(60);
    const std::string text = child.log();
    if (contains(text, "cannot create a headless OpenGL")) return "";
    EXPECT_TRUE(status) << "did not stop:\n" << text;
    if (status)
        EXPECT_TRUE(WIFEXITED(*status) && WEXITSTATUS(*status) == 130) << test::describe_status(*status) << "\n" << text;
    EXPECT_TRUE(contains(text, "nbody: interrupted by SIGINT (Ctrl-C) after")) << text;
    return text;
}

// Case 2: SIGINT 20-50 ms after the start (the scene built, the EGL context made) of `view
// --headless --save-snapshot`: exit 130 with the message, the snapshot written.
TEST(SignalsViewer, AnEarlySigintStillSavesTheSnapshot) {
    std::mt19937 random(std::random_device{}());
    for (int round = 0; round < 3; ++round) {
        TempDir dir;
        const std::string snapshot = dir.file("s.nbsnap");
        const std::string text = early_sigint_round(
            args_of({"view", "--headless", "--frames", "100000", "--save-snapshot", snapshot}, kSmallView),
            dir.file("log.txt"), random);
        SKIP_WITHOUT_EGL_LOG(text);
        EXPECT_TRUE(contains(text, "saved to " + snapshot)) << text;
        ASSERT_TRUE(fs::exists(snapshot)) << text;
        (void)io::read_snapshot(snapshot);  // whole: throws if not
    }
}

// Case 2 for `record --mp4` (a stand-in ffmpeg): SIGINT 20-50 ms after the start ends it with exit
// 130 and the report; the recording keeps at least its first frame, in the MP4 too.
TEST(SignalsViewer, AnEarlySigintEndsARecordingCleanly) {
    TempDir dir;
    const std::string ffmpeg = dir.file("ffmpeg");
    // Reads every frame, then writes the boxes of a playable file (ftyp, mdat, moov), as ffmpeg would.
    test::write_text(ffmpeg, "#!/bin/sh\nfor a; do out=\"$a\"; done\ncat > /dev/null\nprintf '"
                             "\\000\\000\\000\\020ftypisom\\000\\000\\002\\000\\000\\000\\000\\014mdat1234"
                             "\\000\\000\\000\\010moov' > \"$out\"\n");
    ::chmod(ffmpeg.c_str(), 0755);
    const ScopedEnv stand_in("NBODY_FFMPEG", ffmpeg), no_probe("NBODY_FFPROBE", "");
    std::mt19937 random(std::random_device{}());
    for (int round = 0; round < 3; ++round) {
        const fs::path frames = dir.path() / ("frames" + std::to_string(round));
        const std::string movie = dir.file("m" + std::to_string(round) + ".mp4");
        const std::string text = early_sigint_round(
            args_of({"record", "--frames", "100000", "--out", frames.string(), "--mp4", movie}, kSmallView),
            dir.file("log.txt"), random);
        SKIP_WITHOUT_EGL_LOG(text);
        EXPECT_TRUE(contains(text, "interrupted=1")) << text;
        EXPECT_TRUE(fs::exists(frames / "frame_000000.png")) << text;
        EXPECT_TRUE(fs::exists(movie)) << text;
    }
}

// Case 4 (and 5): SIGTERM, or SIGHUP, to `view --headless --screenshot --save-snapshot` still
// writes both: the screenshot is the last frame drawn, of the state saved (issue 33: not drawn
// again, which took a second at 1080p on Mesa).
TEST(SignalsViewer, AStopStillWritesTheScreenshotAndTheSnapshot) {
    for (const int sig : {SIGTERM, SIGHUP}) {
        SCOPED_TRACE(sig == SIGTERM ? "SIGTERM" : "SIGHUP");
        TempDir dir;
        const std::string shot = dir.file("s.png"), snapshot = dir.file("s.nbsnap");
        NbodyChild child(args_of({"view", "--headless", "--no-ui", "--frames", "100000", "--screenshot", shot,
                                  "--save-snapshot", snapshot},
                                 kSmallView),
                         dir.file("log.txt"));
        ASSERT_TRUE(child.started());
        child.wait_for_log("positions:", 30);  // the viewer is running
        std::this_thread::sleep_for(std::chrono::milliseconds(500));
        child.signal(sig);
        const std::optional<int> status = child.wait(60);
        const std::string text = child.log();
        SKIP_WITHOUT_EGL(text);
        ASSERT_TRUE(status) << "did not stop:\n" << text;
        EXPECT_TRUE(WIFEXITED(*status) && WEXITSTATUS(*status) == 128 + sig) << test::describe_status(*status) << "\n"
                                                                              << text;
        // Headless, the last frame drawn is still in the render target: the screenshot, as it was.
        EXPECT_TRUE(contains(text, "(--screenshot: the last one drawn, as it was)")) << text;
        ASSERT_TRUE(fs::exists(shot)) << text;
        const render::Image image = render::read_png(shot);
        EXPECT_EQ(image.width, 64);
        EXPECT_EQ(image.height, 48);
        ASSERT_TRUE(fs::exists(snapshot)) << text;
        (void)test::snapshot_status(snapshot);
    }
}

// Issue 33: a stop while a long step runs (every pair of a Plummer sphere: seconds per step on two
// cores, N grown with the cores as the square root) ends `view --headless --screenshot` within a
// second, not after the step: the screenshot is the last complete frame, whole, and the exit
// status and message say it was interrupted and that the step was not waited for. Both ways the
// host backends step: each frame waiting for exactly its steps (scripted runs), and free-running
// beside the frame loop (a window's; NBODY_SIM_THREAD=1 puts a headless run there), stopped by
// SIGTERM and by Ctrl-C.
TEST(SignalsViewer, AStopDuringALongStepEndsWithinASecondWithTheLastFrame) {
    const double cores = std::max(2u, std::thread::hardware_concurrency());
    // 65,536 on two cores: ~2.4 s a step. At 32,768 a step (0.55-0.65 s on this machine at load 1.5)
    // could end within the stop's 300 ms wait plus its 250 ms patience, and the run then rightly
    // had no step to leave: the test failed 9 times in 10 on this machine.
    const int bodies = int(65536 * std::ceil(std::sqrt(cores / 2)));
    for (const auto& [place, sig] : {std::pair{"", SIGTERM}, std::pair{"1", SIGINT}}) {
        SCOPED_TRACE(*place ? "free-running beside the frame loop, SIGINT"
                            : "each frame after exactly its steps, SIGTERM");
        const ScopedEnv where("NBODY_SIM_THREAD", place);
        TempDir dir;
        const std::string shot = dir.file("s.png"), snapshot = dir.file("s.nbsnap");
        NbodyChild child({"view", "--headless", "--backend", "cpu", "--gravity", "direct", "--scene",
                          test::source_dir() + "/scenes/plummer.toml", "--bodies", std::to_string(bodies),
                          "--steps-per-frame", "4", "--frames", "100000", "--size", "64x48", "--screenshot", shot,
                          "--save-snapshot", snapshot},
                         dir.file("log.txt"));
        ASSERT_TRUE(child.started());
        // The first frame drawn; the steps of the next (seconds) are then running.
        const bool drawn = child.wait_for_log("frame 1/100000", 120);
        SKIP_WITHOUT_EGL(child.log());
        ASSERT_TRUE(drawn) << child.log();
        std::this_thread::sleep_for(std::chrono::milliseconds(300));
        const auto signalled = std::chrono::steady_clock::now();
        child.signal(sig);
        const std::optional<int> status = child.wait(60);
        const double seconds =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - signalled).count();
        const std::string text = child.log();
        ASSERT_TRUE(status) << "did not stop:\n" << text;
        EXPECT_LT(seconds, 1.0) << "the stop waited for the step\n" << text;
        EXPECT_TRUE(WIFEXITED(*status) && WEXITSTATUS(*status) == 128 + sig)
            << test::describe_status(*status) << "\n"
            << text;
        EXPECT_TRUE(contains(text, std::string("nbody: interrupted by ") +
                                       (sig == SIGINT ? "SIGINT (Ctrl-C)" : "SIGTERM") + " after"))
            << text;
        EXPECT_TRUE(contains(text, "not waiting for a step of " + std::to_string(bodies) + " bodies"))
            << text;
        ASSERT_TRUE(fs::exists(shot)) << text;
        const render::Image image = render::read_png(shot);  // whole: throws if not
        EXPECT_EQ(image.width, 64);
        EXPECT_EQ(image.height, 48);
        // The state saved is the one drawn last, whole frames of 4 steps of 0.005 (plummer.toml),
        // not the steps of the frame the stop cut short.
        const double frames = io::read_snapshot(snapshot).state.time / (4 * 0.005);
        if (!*place) EXPECT_NEAR(frames, std::round(frames), 1e-6) << text;
        for (const auto& e : fs::directory_iterator(dir.path()))
            EXPECT_FALSE(contains(e.path().filename().string(), ".tmp")) << e.path();
    }
}

// Case 1 in `record`, where the end (ffmpeg finishing the MP4, here a stand-in that takes 8 s)
// is long: two SIGINTs a millisecond apart are one request; a third, 1.2 s after the
// acknowledgement, aborts: it says what it did not write and leaves no temporary MP4.
TEST(SignalsViewer, ASecondCtrlCAbortsOnlyASecondAfterTheAcknowledgement) {
    TempDir dir;
    const std::string ffmpeg = dir.file("ffmpeg");
    // Deaf to the process group's signals, as a real encoder finishing its file would be for a while.
    test::write_text(ffmpeg,
                     "#!/bin/sh\ntrap '' INT TERM\nfor a; do out=\"$a\"; done\nexec 3>\"$out\"\ncat > /dev/null\nsleep 8\n");
    ::chmod(ffmpeg.c_str(), 0755);
    const std::string movie = dir.file("m.mp4");
    const ScopedEnv stand_in("NBODY_FFMPEG", ffmpeg), no_probe("NBODY_FFPROBE", "");
    NbodyChild child(args_of({"record", "--frames", "100000", "--out", dir.file("frames"), "--mp4", movie}, kSmallView),
                     dir.file("log.txt"));
    ASSERT_TRUE(child.started());
    const auto t0 = std::chrono::steady_clock::now();
    while (!fs::exists(dir.path() / "frames" / "frame_000002.png") && !child.exited() &&
           std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() < 60)
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    SKIP_WITHOUT_EGL(child.log());
    child.signal(SIGINT);
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
    child.signal_group(SIGINT);  // as `timeout` sends it
    ASSERT_TRUE(child.wait_for_log("A second Ctrl-C (or signal) 1 s from now or later aborts", 10)) << child.log();
    EXPECT_FALSE(child.exited()) << "the pair of signals aborted:\n" << child.log();
    std::this_thread::sleep_for(std::chrono::milliseconds(1200));
    ASSERT_FALSE(child.exited()) << "the stand-in ffmpeg should still be finishing:\n" << child.log();
    child.signal(SIGINT);
    const std::optional<int> status = child.wait(30);
    const std::string text = child.log();
    ASSERT_TRUE(status) << text;
    EXPECT_TRUE(WIFSIGNALED(*status) && WTERMSIG(*status) == SIGINT) << test::describe_status(*status) << "\n" << text;
    EXPECT_TRUE(contains(text, "nbody: aborted by a second SIGINT (Ctrl-C): " + movie + " not written")) << text;
    EXPECT_FALSE(fs::exists(movie));
    for (const auto& e : fs::directory_iterator(dir.path()))
        EXPECT_FALSE(contains(e.path().filename().string(), ".tmp")) << e.path();
}

}  // namespace
}  // namespace nbody
