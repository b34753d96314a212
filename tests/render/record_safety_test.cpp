// `nbody record` must not report success for a movie nothing can play, and `--overwrite` must
// never leave two recordings mixed in one folder (issue 14). ffmpeg and ffprobe are stood in for
// by small scripts ($NBODY_FFMPEG, $NBODY_FFPROBE), so the failures are exact and need no real
// ffmpeg: one exits 0 after writing a movie without its index, as ffmpeg does when the disk
// fills up while it writes the trailer. Headless EGL is needed; without it each test skips.

#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <spawn.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include "test_support.hpp"

extern char** environ;

namespace nbody {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

const std::string kSmall = "--backend cpu --bodies 500 --size 64x48 ";

bool no_egl(const test::CommandResult& r) {
    return r.exit_code != 0 && r.output.find("cannot create a headless OpenGL") != std::string::npos;
}
#define SKIP_WITHOUT_EGL(r) \
    if (no_egl(r)) GTEST_SKIP() << "no headless EGL: " << (r).output

std::vector<std::string> listing(const fs::path& folder) {
    std::vector<std::string> names;
    for (const auto& e : fs::directory_iterator(folder)) names.push_back(e.path().filename().string());
    std::sort(names.begin(), names.end());
    return names;
}

void write_script(const std::string& path, const std::string& body) {
    test::write_text(path, "#!/bin/sh\n" + body);
    ::chmod(path.c_str(), 0755);
}

// A stand-in ffmpeg: a shell script `body` run with $out set to its last argument (the file).
std::string stand_in_ffmpeg(const test::TempDir& dir, const std::string& body) {
    const std::string path = dir.file("ffmpeg");
    write_script(path, "for a; do out=\"$a\"; done\n" + body);
    return path;
}

// Reads every frame, writes `payload` (printf format) to its last argument and exits 0, as
// ffmpeg does after failing to write the trailer.
std::string fake_ffmpeg(const test::TempDir& dir, const std::string& payload) {
    return stand_in_ffmpeg(dir, "cat > /dev/null\nprintf '" + payload + "' > \"$out\"\nexit 0\n");
}

// The boxes of a playable file, minus the codec data: ftyp, mdat, moov.
const std::string kSoundBoxes =
    "\\000\\000\\000\\020ftypisom\\000\\000\\002\\000\\000\\000\\000\\014mdat1234\\000\\000\\000\\010moov";

test::CommandResult record(const std::string& env, const test::TempDir& dir, int frames, const std::string& extra = "") {
    return test::run_command(env + " '" + test::nbody_executable() + "' record " + kSmall + "--frames " +
                             std::to_string(frames) + " --out '" + dir.file("frames") + "' --mp4 '" +
                             dir.file("movie.mp4") + "' " + extra);
}

TEST(RecordMp4Check, AMovieWithoutItsIndexIsAnErrorAndIsNotKept) {
    test::TempDir dir;
    // ftyp and mdat but no moov: what a full disk leaves when ffmpeg cannot write the trailer.
    const std::string ffmpeg = fake_ffmpeg(dir, "\\000\\000\\000\\020ftypisom\\000\\000\\002\\000\\000\\000\\000\\014mdat1234");
    const auto r = record("NBODY_FFMPEG='" + ffmpeg + "' NBODY_FFPROBE=", dir, 3);
    SKIP_WITHOUT_EGL(r);
    EXPECT_EQ(r.exit_code, 1) << r.output;
    EXPECT_NE(r.output.find("no 'moov' box"), std::string::npos) << r.output;
    EXPECT_FALSE(fs::exists(dir.file("movie.mp4")));
    EXPECT_EQ(listing(dir.path()), (std::vector<std::string>{"ffmpeg", "frames"})) << "a temporary file was left";
    EXPECT_EQ(listing(dir.path() / "frames").size(), 3u) << "the PNGs are unaffected";
}

TEST(RecordMp4Check, ATruncatedBoxIsAnError) {
    test::TempDir dir;
    const std::string ffmpeg = fake_ffmpeg(dir, "\\000\\000\\000\\020ftypisom\\000\\000\\002\\000\\000\\000\\377\\377mdat12");
    const auto r = record("NBODY_FFMPEG='" + ffmpeg + "' NBODY_FFPROBE=", dir, 2);
    SKIP_WITHOUT_EGL(r);
    EXPECT_EQ(r.exit_code, 1) << r.output;
    EXPECT_NE(r.output.find("past the end of the file"), std::string::npos) << r.output;
    EXPECT_FALSE(fs::exists(dir.file("movie.mp4")));
}

TEST(RecordMp4Check, AnErrorInFfmpegsLogIsAnErrorEvenWithExitZero) {
    test::TempDir dir;
    const std::string path = stand_in_ffmpeg(dir, "cat > /dev/null\nprintf '" + kSoundBoxes +
                                                      "' > \"$out\"\necho 'Error writing trailer of movie.mp4: No space "
                                                      "left on device' >&2\nexit 0\n");
    const auto r = record("NBODY_FFMPEG='" + path + "' NBODY_FFPROBE=", dir, 2);
    SKIP_WITHOUT_EGL(r);
    EXPECT_EQ(r.exit_code, 1) << r.output;
    EXPECT_NE(r.output.find("No space left on device"), std::string::npos) << r.output;
    EXPECT_FALSE(fs::exists(dir.file("movie.mp4")));
}

TEST(RecordMp4Check, FfprobesFrameCountMustMatch) {
    test::TempDir dir;
    const std::string ffmpeg = fake_ffmpeg(dir, kSoundBoxes);
    const std::string ffprobe = dir.file("ffprobe");
    write_script(ffprobe, "echo 3\n");
    auto r = record("NBODY_FFMPEG='" + ffmpeg + "' NBODY_FFPROBE='" + ffprobe + "'", dir, 5);
    SKIP_WITHOUT_EGL(r);
    EXPECT_EQ(r.exit_code, 1) << r.output;
    EXPECT_NE(r.output.find("it holds 3 frames, not the 5 sent"), std::string::npos) << r.output;
    EXPECT_FALSE(fs::exists(dir.file("movie.mp4")));
    // The same movie with the right count is accepted and renamed into place.
    write_script(ffprobe, "echo 5\n");
    r = record("NBODY_FFMPEG='" + ffmpeg + "' NBODY_FFPROBE='" + ffprobe + "'", dir, 5, "--overwrite");
    EXPECT_EQ(r.exit_code, 0) << r.output;
    EXPECT_TRUE(fs::exists(dir.file("movie.mp4")));
}

// The real thing where the test may mount a small tmpfs and ffmpeg is installed: the MP4 does
// not fit, ffmpeg exits 0 after "Error writing trailer", and record must say so (exit 1).
TEST(RecordMp4Check, AFullDiskIsAnErrorWithTheRealFfmpeg) {
    test::TempDir dir;
    if (test::run_command("command -v ffmpeg").exit_code != 0) GTEST_SKIP() << "no ffmpeg on PATH";
    const fs::path small = dir.path() / "small";
    fs::create_directory(small);
    if (::mount("tmpfs", small.c_str(), "tmpfs", 0, "size=8k") != 0)
        GTEST_SKIP() << "cannot mount a tmpfs here (" << std::strerror(errno)
                     << "); the stand-in ffmpeg tests above cover the same checks";
    // More than 8 KB of MP4 (measured: ffmpeg fails writing the trailer, and exits 0).
    const auto r = test::run_nbody("record --backend cpu --bodies 2000 --size 320x240 --camera orbit:3 --frames 40 --out '" +
                                   dir.file("frames") + "' --mp4 '" + (small / "movie.mp4").string() + "'");
    const bool empty = fs::is_empty(small);
    ::umount(small.c_str());
    SKIP_WITHOUT_EGL(r);
    EXPECT_EQ(r.exit_code, 1) << r.output;
    EXPECT_NE(r.output.find("No space left on device"), std::string::npos) << r.output;
    EXPECT_TRUE(empty) << "an MP4 or its temporary was left on the full disk";
    EXPECT_EQ(listing(dir.path() / "frames").size(), 40u) << "the PNGs are unaffected";
}

// A run killed outright leaves `movie.mp4.tmpPID`; the next recording of that MP4 removes it
// (its pid is gone), and leaves files that only look alike.
TEST(RecordLeftovers, AKilledRunsUnfinishedMp4IsRemoved) {
    test::TempDir dir;
    const pid_t gone = ::fork();
    if (gone == 0) ::_exit(0);
    ASSERT_TRUE(test::wait_or_kill(gone, 10));
    const std::string stale = dir.file("movie.mp4.tmp" + std::to_string(gone));
    test::write_text(stale, "half a movie");
    test::write_text(dir.file("movie.mp4.tmp-notes"), "mine");
    const auto r = record("NBODY_FFMPEG='" + fake_ffmpeg(dir, kSoundBoxes) + "' NBODY_FFPROBE=", dir, 2);
    SKIP_WITHOUT_EGL(r);
    EXPECT_EQ(r.exit_code, 0) << r.output;
    EXPECT_FALSE(fs::exists(stale));
    EXPECT_TRUE(fs::exists(dir.file("movie.mp4.tmp-notes")));
    EXPECT_TRUE(fs::exists(dir.file("movie.mp4")));
}


// A second Ctrl-C ends the process at once (the first one asks for a clean stop): the temporary
// MP4 ffmpeg was writing is removed all the same. The stand-in ffmpeg opens its output at once
// and takes 5 s to finish it, so the second Ctrl-C comes while nbody waits for it.
TEST(RecordInterrupt, ASecondCtrlCLeavesNoTemporaryMp4) {
    test::TempDir dir;
    const std::string ffmpeg =
        stand_in_ffmpeg(dir, "exec 3>\"$out\"\ncat > /dev/null\nsleep 5\nprintf '" + kSoundBoxes + "' >&3\nexit 0\n");
    const auto probe = record("NBODY_FFMPEG='" + ffmpeg + "' NBODY_FFPROBE=", dir, 1);
    SKIP_WITHOUT_EGL(probe);
    fs::remove_all(dir.path() / "frames");
    fs::remove(dir.file("movie.mp4"));
    ::setenv("NBODY_FFMPEG", ffmpeg.c_str(), 1);
    ::setenv("NBODY_FFPROBE", "", 1);
    const pid_t pid = test::spawn_logged({test::nbody_executable(), "record", "--backend", "cpu", "--bodies", "500", "--size", "64x48",
                             "--frames", "100000", "--out", dir.file("frames"), "--mp4", dir.file("movie.mp4")},
                            dir.file("log.txt"));
    ::unsetenv("NBODY_FFMPEG");
    ::unsetenv("NBODY_FFPROBE");
    ASSERT_GT(pid, 0);
    const std::string temporary = dir.file("movie.mp4.tmp" + std::to_string(pid));
    const auto t0 = Clock::now();
    while (!fs::exists(temporary) && std::chrono::duration<double>(Clock::now() - t0).count() < 60)
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    ASSERT_TRUE(fs::exists(temporary)) << test::read_text(dir.file("log.txt"));
    ::kill(pid, SIGINT);
    // A second signal aborts only 1 s or more after the first was acknowledged (issue 34).
    std::this_thread::sleep_for(std::chrono::milliseconds(1300));
    ::kill(pid, SIGINT);
    const std::optional<int> ended = test::wait_or_kill(pid, 60);
    ASSERT_TRUE(ended) << "nbody could not be ended:\n" << test::read_text(dir.file("log.txt"));
    const int status = *ended;
    EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGINT) << test::read_text(dir.file("log.txt"));
    EXPECT_FALSE(fs::exists(temporary));
    EXPECT_FALSE(fs::exists(dir.file("movie.mp4")));
}

// SIGKILL in the middle of `record --overwrite` leaves the old recording whole; a finished one
// leaves only the new frames (and the user's other files).
TEST(RecordOverwrite, AKillLeavesTheOldSequenceAndAFinishedRunOnlyTheNew) {
    test::TempDir dir;
    const fs::path frames = dir.path() / "frames";
    auto r = test::run_nbody("record " + kSmall + "--frames 4 --out '" + frames.string() + "'");
    SKIP_WITHOUT_EGL(r);
    ASSERT_EQ(r.exit_code, 0) << r.output;
    test::write_text((frames / "notes.txt").string(), "mine");
    const auto old_listing = listing(frames);
    const std::string old_first = test::read_text((frames / "frame_000000.png").string());

    const std::string log = dir.file("log.txt");
    const pid_t pid = test::spawn_logged({test::nbody_executable(), "record", "--backend", "cpu", "--bodies", "500", "--size", "96x64",
                             "--frames", "100000", "--overwrite", "--out", frames.string()},
                            log);
    ASSERT_GT(pid, 0);
    // Wait until the new recording has frames of its own (in its staging folder), then SIGKILL.
    const auto t0 = Clock::now();
    bool staged = false;
    while (!staged && std::chrono::duration<double>(Clock::now() - t0).count() < 60) {
        for (const auto& e : fs::directory_iterator(dir.path()))
            if (e.path().filename().string().rfind(".frames.recording-", 0) == 0 &&
                fs::exists(e.path() / "frame_000003.png"))
                staged = true;
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    ::kill(pid, SIGKILL);
    ASSERT_TRUE(test::wait_or_kill(pid, 30)) << "nbody survived SIGKILL (stuck in the kernel?)";
    ASSERT_TRUE(staged) << test::read_text(log);
    EXPECT_EQ(listing(frames), old_listing) << "the old recording changed";
    EXPECT_EQ(test::read_text((frames / "frame_000000.png").string()), old_first);

    // Run to the end: the 2 new frames replace the 4 old ones; notes.txt stays; nothing staged is left.
    r = test::run_nbody("record --backend cpu --bodies 500 --size 96x64 --frames 2 --overwrite --out '" + frames.string() + "'");
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_EQ(listing(frames), (std::vector<std::string>{"frame_000000.png", "frame_000001.png", "notes.txt"}));
    EXPECT_NE(test::read_text((frames / "frame_000000.png").string()), old_first) << "96x64, not 64x48";
    EXPECT_EQ(test::read_text((frames / "notes.txt").string()), "mine");
    // The killed run's staging folder went too (its pid is gone), and the finished run's own.
    for (const auto& name : listing(dir.path())) EXPECT_EQ(name.find(".frames.recording-"), std::string::npos) << name;
}

// The viewer's NaN/Inf guard: two bodies at one point without softening (a snapshot keeps the
// softening of 0) turn non-finite at the first step; the viewer pauses with a notice at its next
// energy check (every 3 s) and goes on drawing. Stopped with Ctrl-C once the notice is out.
TEST(ViewerNonFinite, PausesWithANotice) {
    test::TempDir dir;
    test::write_text(dir.file("two.csv"), "x,y,z,vx,vy,vz,m\n0,0,0,0,0,0,1\n0,0,0,0,0,0,1\n1,0,0,0,0.5,0,1\n");
    auto r = test::run_nbody("run --input '" + dir.file("two.csv") + "' --softening 0 --steps 0 --out '" +
                             dir.file("two.nbsnap") + "'");
    ASSERT_EQ(r.exit_code, 0) << r.output;
    r = test::run_nbody("view --headless --backend cpu --size 64x48 --frames 1 --scene '" + dir.file("two.nbsnap") + "'");
    SKIP_WITHOUT_EGL(r);
    const std::string log = dir.file("log.txt");
    const pid_t pid = test::spawn_logged({test::nbody_executable(), "view", "--headless", "--backend", "cpu", "--size", "64x48",
                             "--frames", "100000000", "--scene", dir.file("two.nbsnap")},
                            log);
    ASSERT_GT(pid, 0);
    const auto t0 = Clock::now();
    while (test::read_text(log).find("non-finite") == std::string::npos &&
           std::chrono::duration<double>(Clock::now() - t0).count() < 60)
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
    ::kill(pid, SIGINT);
    const std::optional<int> ended = test::wait_or_kill(pid, 60);
    const std::string text = test::read_text(log);
    ASSERT_TRUE(ended) << "nbody could not be ended:\n" << text;
    const int status = *ended;
    EXPECT_NE(text.find("the simulation became non-finite (NaN/Inf, first at body 0): paused"), std::string::npos) << text;
    EXPECT_TRUE(WIFEXITED(status)) << text;
}

TEST(UiFont, ABadFontFallsBackToTheBuiltInOneWithANotice) {
    test::TempDir dir;
    test::write_text(dir.file("font.ttf"), "this is not a font, but it is long enough to look like one at first");
    const auto r = test::run_command("NBODY_UI_FONT='" + dir.file("font.ttf") + "' '" + test::nbody_executable() +
                                     "' view --headless --backend cpu --bodies 500 --size 320x200 --frames 2 --screenshot '" +
                                     dir.file("shot.png") + "'");
    SKIP_WITHOUT_EGL(r);
    EXPECT_EQ(r.exit_code, 0) << r.output;
    EXPECT_NE(r.output.find("is not a TrueType/OpenType font (no sfnt header); using the built-in font"),
              std::string::npos)
        << r.output;
    EXPECT_TRUE(fs::exists(dir.file("shot.png")));
}

}  // namespace
}  // namespace nbody
