// Signals in the headless viewer and `record` (issue 34): a SIGINT in the first milliseconds still
// saves --save-snapshot, a SIGTERM or SIGHUP still writes --screenshot (of the state reached, the
// same as the snapshot's), and a second Ctrl-C aborts only a second after the first was
// acknowledged, never when it came with it (a process group's copy). Headless EGL (Mesa here) is
// needed; without it each test skips. Every wait is bounded.

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <chrono>
#include <filesystem>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "child_process.hpp"
#include "nbody/render/frame_capture.hpp"
#include "nbody/sim/io/snapshot.hpp"
#include "test_support.hpp"

namespace nbody {
namespace {

namespace fs = std::filesystem;
using test::NbodyChild;
using test::TempDir;

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

#define SKIP_WITHOUT_EGL(text)                                                    \
    if (contains(text, "cannot create a headless OpenGL")) GTEST_SKIP() << "no headless EGL: " << (text)

const std::vector<std::string> kSmallView = {"--backend", "cpu", "--bodies", "500", "--size", "64x48"};

std::vector<std::string> args_of(std::vector<std::string> head, const std::vector<std::string>& tail) {
    head.insert(head.end(), tail.begin(), tail.end());
    return head;
}

std::string status_of(const std::string& snapshot_path) {
    const io::Snapshot snap = io::read_snapshot(snapshot_path);
    const auto it = snap.metadata.find(io::kStatusKey);
    return it == snap.metadata.end() ? std::string() : it->second;
}

// Case 2: SIGINT 20-50 ms after the start (the scene built, the EGL context made) of `view
// --headless --save-snapshot`: exit 130 with the message, the snapshot written.
TEST(SignalsViewer, AnEarlySigintStillSavesTheSnapshot) {
    std::mt19937 random(std::random_device{}());
    std::uniform_int_distribution<int> delay_ms(20, 50);
    for (int round = 0; round < 3; ++round) {
        const int ms = delay_ms(random);
        SCOPED_TRACE("SIGINT " + std::to_string(ms) + " ms after the start");
        TempDir dir;
        const std::string snapshot = dir.file("s.nbsnap");
        NbodyChild child(args_of({"view", "--headless", "--frames", "100000", "--save-snapshot", snapshot}, kSmallView),
                         dir.file("log.txt"));
        ASSERT_TRUE(child.started());
        std::this_thread::sleep_for(std::chrono::milliseconds(ms));
        child.signal(SIGINT);
        const std::optional<int> status = child.wait(60);
        const std::string text = child.log();
        SKIP_WITHOUT_EGL(text);
        ASSERT_TRUE(status) << "did not stop:\n" << text;
        EXPECT_TRUE(WIFEXITED(*status) && WEXITSTATUS(*status) == 130) << test::describe_status(*status) << "\n" << text;
        EXPECT_TRUE(contains(text, "nbody: interrupted by SIGINT (Ctrl-C) after")) << text;
        EXPECT_TRUE(contains(text, "saved to " + snapshot)) << text;
        ASSERT_TRUE(fs::exists(snapshot)) << text;
        (void)io::read_snapshot(snapshot);  // whole: throws if not
    }
}

// Case 2 for `record --mp4` (a stand-in ffmpeg that keeps what it is sent): SIGINT 20-50 ms after
// the start ends it with exit 130 and the report, the frames recorded complete.
TEST(SignalsViewer, AnEarlySigintEndsARecordingCleanly) {
    TempDir dir;
    const std::string ffmpeg = dir.file("ffmpeg");
    test::write_text(ffmpeg, "#!/bin/sh\nfor a; do out=\"$a\"; done\ncat > \"$out\"\n");
    ::chmod(ffmpeg.c_str(), 0755);
    ::setenv("NBODY_FFMPEG", ffmpeg.c_str(), 1);
    ::setenv("NBODY_FFPROBE", "", 1);
    std::mt19937 random(std::random_device{}());
    std::uniform_int_distribution<int> delay_ms(20, 50);
    for (int round = 0; round < 3; ++round) {
        const int ms = delay_ms(random);
        SCOPED_TRACE("SIGINT " + std::to_string(ms) + " ms after the start");
        const fs::path frames = dir.path() / ("frames" + std::to_string(round));
        NbodyChild child(args_of({"record", "--frames", "100000", "--out", frames.string(), "--mp4",
                                  dir.file("m" + std::to_string(round) + ".mp4")},
                                 kSmallView),
                         dir.file("log.txt"));
        ASSERT_TRUE(child.started());
        std::this_thread::sleep_for(std::chrono::milliseconds(ms));
        child.signal(SIGINT);
        const std::optional<int> status = child.wait(60);
        const std::string text = child.log();
        SKIP_WITHOUT_EGL(text);
        ASSERT_TRUE(status) << "did not stop:\n" << text;
        EXPECT_TRUE(WIFEXITED(*status) && WEXITSTATUS(*status) == 130) << test::describe_status(*status) << "\n" << text;
        EXPECT_TRUE(contains(text, "nbody: interrupted by SIGINT (Ctrl-C) after")) << text;
        EXPECT_TRUE(contains(text, "interrupted=1")) << text;
    }
    ::unsetenv("NBODY_FFMPEG");
    ::unsetenv("NBODY_FFPROBE");
}

// Case 4 (and 5): SIGTERM, or SIGHUP, to `view --headless --screenshot --save-snapshot` still
// writes both: the screenshot is drawn once more, without a step, from the state saved.
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
        EXPECT_TRUE(contains(text, "the last one drawn for --screenshot, not stepped")) << text;
        ASSERT_TRUE(fs::exists(shot)) << text;
        const render::Image image = render::read_png(shot);
        EXPECT_EQ(image.width, 64);
        EXPECT_EQ(image.height, 48);
        ASSERT_TRUE(fs::exists(snapshot)) << text;
        (void)status_of(snapshot);
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
    ::setenv("NBODY_FFMPEG", ffmpeg.c_str(), 1);
    ::setenv("NBODY_FFPROBE", "", 1);
    const std::string movie = dir.file("m.mp4");
    NbodyChild child(args_of({"record", "--frames", "100000", "--out", dir.file("frames"), "--mp4", movie}, kSmallView),
                     dir.file("log.txt"));
    ::unsetenv("NBODY_FFMPEG");
    ::unsetenv("NBODY_FFPROBE");
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
