// `nbody record`: frame sequences written headless through EGL (Mesa's software device here, the
// GPU's on a GPU machine), the MP4 made by ffmpeg, and everything that must not go wrong: an
// unwritable folder, frames already there, a write failing half-way, Ctrl-C.

#include <fcntl.h>
#include <gtest/gtest.h>

#include "image_luminance.hpp"
#include <signal.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <string>
#include <thread>
#include <vector>

#include "nbody/render/frame_capture.hpp"
#include "test_support.hpp"

extern char** environ;

namespace nbody::render {
namespace {

namespace fs = std::filesystem;

// Small and fast on two cores: the cpu backend, a few thousand bodies, thumbnail frames.
const std::string kSmall = "--backend cpu --bodies 2000 --size 320x180 ";

bool no_egl(const test::CommandResult& r) {
    return r.exit_code != 0 && r.output.find("cannot create a headless OpenGL") != std::string::npos;
}

#define SKIP_WITHOUT_EGL(r) \
    if (no_egl(r)) GTEST_SKIP() << "no headless EGL: " << (r).output

std::string frame_name(int i) {
    char name[32];
    std::snprintf(name, sizeof name, "frame_%06d.png", i);
    return name;
}

// Every entry of `folder`, sorted by name.
std::vector<std::string> listing(const fs::path& folder) {
    std::vector<std::string> names;
    for (const auto& e : fs::directory_iterator(folder)) names.push_back(e.path().filename().string());
    std::sort(names.begin(), names.end());
    return names;
}

// frame_000000.png ... frame_{n-1}.png and nothing else (no temporary files, no gap).
void expect_complete_sequence(const fs::path& folder, int n) {
    const auto names = listing(folder);
    std::vector<std::string> expected;
    for (int i = 0; i < n; ++i) expected.push_back(frame_name(i));
    EXPECT_EQ(names, expected) << "in " << folder;
}

int lit_pixels(const Image& image) {
    int lit = 0;
    for (int y = 0; y < image.height; ++y)
        for (int x = 0; x < image.width; ++x) lit += luminance(image, x, y) > 60;
    return lit;
}

// Pixels whose colour differs by more than a little (dithering aside).
int differing_pixels(const Image& a, const Image& b) {
    int n = 0;
    for (std::size_t i = 0; i + 3 < a.rgba.size() && i + 3 < b.rgba.size(); i += 4)
        n += std::abs(int(a.rgba[i]) - int(b.rgba[i])) + std::abs(int(a.rgba[i + 1]) - int(b.rgba[i + 1])) +
                 std::abs(int(a.rgba[i + 2]) - int(b.rgba[i + 2])) >
             12;
    return n;
}

std::string read_bytes(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

bool have_command(const std::string& name) {
    return test::run_command("command -v " + name + " >/dev/null 2>&1").exit_code == 0;
}

// An MP4 of w x h and `frames` frames (ffprobe when present; else the container's signature).
void expect_mp4(const fs::path& path, int w, int h, int frames) {
    ASSERT_TRUE(fs::exists(path)) << path;
    const std::string bytes = read_bytes(path);
    ASSERT_GT(bytes.size(), 1000u) << "MP4 too small to hold a movie";
    EXPECT_EQ(bytes.substr(4, 4), "ftyp") << "not an ISO media file";
    if (!have_command("ffprobe")) return;
    const auto r = test::run_command(
        "ffprobe -v error -select_streams v:0 -count_frames -show_entries "
        "stream=codec_name,width,height,nb_read_frames -of default=nw=1 '" +
        path.string() + "'");
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_NE(r.output.find("codec_name=h264"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("width=" + std::to_string(w) + "\n"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("height=" + std::to_string(h) + "\n"), std::string::npos) << r.output;
    if (frames > 0)
        EXPECT_NE(r.output.find("nb_read_frames=" + std::to_string(frames)), std::string::npos) << r.output;
}

TEST(Record, TwelveFramesAreValidChangingPngsOfTheRightSize) {
    test::TempDir dir;
    const fs::path out = dir.path() / "frames";
    const auto r =
        test::run_nbody("record " + kSmall + "--frames 12 --steps-per-frame 20 --out '" + out.string() + "'");
    SKIP_WITHOUT_EGL(r);
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_NE(r.output.find("record_report frames=12 "), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("fps_report"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("stage breakdown"), std::string::npos) << r.output;
    expect_complete_sequence(out, 12);

    std::vector<Image> frames;
    for (int i = 0; i < 12; ++i) {
        frames.push_back(read_png((out / frame_name(i)).string()));
        const Image& f = frames.back();
        ASSERT_EQ(f.width, 320) << frame_name(i);
        ASSERT_EQ(f.height, 180) << frame_name(i);
        EXPECT_GT(lit_pixels(f), 100) << frame_name(i) << " is (nearly) blank";
    }
    // The system moves: each frame differs from the one before, and the last from the first by
    // more still.
    for (int i = 1; i < 12; ++i)
        EXPECT_GT(differing_pixels(frames[i - 1], frames[i]), 20) << "frames " << i - 1 << ", " << i;
    EXPECT_GT(differing_pixels(frames[0], frames[11]), differing_pixels(frames[0], frames[1]));
}

// Frame k is the system after k * S steps, exactly as the viewer draws it: the asynchronous
// readback (pixel buffer objects, rows bottom-up, PNG written on a worker) gives the same pixels
// as the viewer's synchronous screenshot.
TEST(Record, FrameKIsTheViewerAfterKTimesSSteps) {
    test::TempDir dir;
    const fs::path out = dir.path() / "frames";
    auto r =
        test::run_nbody("record " + kSmall + "--frames 4 --steps-per-frame 10 --out '" + out.string() + "'");
    SKIP_WITHOUT_EGL(r);
    ASSERT_EQ(r.exit_code, 0) << r.output;
    const std::string shot = dir.file("view.png");
    // view steps before drawing each frame: its frame 3 of 3 shows 3 x 10 steps.
    r = test::run_nbody("view --headless --no-ui " + kSmall +
                        "--frames 3 --steps-per-frame 10 --screenshot '" + shot + "'");
    ASSERT_EQ(r.exit_code, 0) << r.output;
    const Image recorded = read_png((out / frame_name(3)).string());
    const Image viewed = read_png(shot);
    ASSERT_EQ(recorded.width, viewed.width);
    ASSERT_EQ(recorded.height, viewed.height);
    EXPECT_EQ(differing_pixels(recorded, viewed), 0);
    // And not trivially: the frame before differs.
    EXPECT_GT(differing_pixels(read_png((out / frame_name(2)).string()), viewed), 20);
}

TEST(Record, UnwritableFolderIsRefusedWithAClearMessage) {
    test::TempDir dir;
    // A regular file where a folder should be: refused even for root, who ignores permissions.
    test::write_text(dir.file("not-a-folder"), "x");
    const std::string bad = dir.file("not-a-folder") + "/frames";
    auto r = test::run_nbody("record " + kSmall + "--frames 3 --out '" + bad + "'");
    EXPECT_EQ(r.exit_code, 1) << r.output;
    EXPECT_NE(r.output.find("cannot create the folder '" + bad + "' for --out"), std::string::npos) << r.output;
    EXPECT_EQ(r.output.find("Segmentation"), std::string::npos) << r.output;

    if (::geteuid() != 0) {
        const fs::path locked = dir.path() / "locked";
        fs::create_directory(locked);
        fs::permissions(locked, fs::perms::owner_read | fs::perms::owner_exec);
        r = test::run_nbody("record " + kSmall + "--frames 3 --out '" + locked.string() + "'");
        fs::permissions(locked, fs::perms::owner_all);
        EXPECT_EQ(r.exit_code, 1) << r.output;
        EXPECT_NE(r.output.find("cannot write into the folder '" + locked.string() + "'"), std::string::npos)
            << r.output;
        EXPECT_TRUE(fs::is_empty(locked));
    }
}

TEST(Record, ExistingFramesAreNotOverwrittenWithoutOverwrite) {
    test::TempDir dir;
    const fs::path out = dir.path() / "frames";
    fs::create_directory(out);
    test::write_text((out / frame_name(0)).string(), "an earlier recording's frame");
    test::write_text((out / frame_name(50)).string(), "and a later one");
    auto r = test::run_nbody("record " + kSmall + "--frames 3 --out '" + out.string() + "'");
    SKIP_WITHOUT_EGL(r);
    EXPECT_EQ(r.exit_code, 1) << r.output;
    EXPECT_NE(r.output.find((out / frame_name(0)).string() + "' already exists"), std::string::npos)
        << r.output;
    EXPECT_NE(r.output.find("--overwrite"), std::string::npos) << r.output;
    EXPECT_EQ(test::read_text((out / frame_name(0)).string()), "an earlier recording's frame");

    // With --overwrite the new frames replace the old, and the older recording's frames beyond
    // this one's end go (else they would play on after it).
    r = test::run_nbody("record " + kSmall + "--frames 3 --overwrite --out '" + out.string() + "'");
    ASSERT_EQ(r.exit_code, 0) << r.output;
    expect_complete_sequence(out, 3);
    EXPECT_EQ(read_png((out / frame_name(0)).string()).width, 320);
}

TEST(Record, Mp4IsMadeWhenFfmpegIsInstalled) {
    if (!have_command("ffmpeg")) GTEST_SKIP() << "ffmpeg is not installed (CI installs it)";
    test::TempDir dir;
    const fs::path out = dir.path() / "frames";
    const fs::path movie = dir.path() / "movie.mp4";
    auto r = test::run_nbody("record " + kSmall + "--frames 12 --out '" + out.string() + "' --mp4 '" +
                             movie.string() + "' --camera orbit:2");
    SKIP_WITHOUT_EGL(r);
    ASSERT_EQ(r.exit_code, 0) << r.output;
    expect_complete_sequence(out, 12);
    expect_mp4(movie, 320, 180, 12);
    EXPECT_EQ(listing(dir.path()), (std::vector<std::string>{"frames", "movie.mp4"}))
        << "a temporary file was left";

    // Odd sizes: yuv420p needs even ones, so the movie loses a row and a column, and says so.
    const fs::path odd = dir.path() / "odd.mp4";
    r = test::run_nbody("record --backend cpu --bodies 2000 --size 161x91 --frames 4 --out '" +
                        (dir.path() / "odd").string() + "' --mp4 '" + odd.string() + "'");
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_NE(r.output.find("needs even sizes"), std::string::npos) << r.output;
    expect_mp4(odd, 160, 90, 4);
    EXPECT_EQ(read_png((dir.path() / "odd" / frame_name(0)).string()).width, 161);
}

TEST(Record, WithoutFfmpegThePngsAreStillWritten) {
    test::TempDir dir;
    const fs::path out = dir.path() / "frames";
    // NBODY_FFMPEG set but empty: "there is no ffmpeg", whatever PATH holds.
    const auto r =
        test::run_command("NBODY_FFMPEG= '" + test::nbody_executable() + "' record " + kSmall +
                          "--frames 3 --out '" + out.string() + "' --mp4 '" + dir.file("movie.mp4") + "'");
    SKIP_WITHOUT_EGL(r);
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_NE(r.output.find("ffmpeg was not found"), std::string::npos) << r.output;
    expect_complete_sequence(out, 3);
    EXPECT_FALSE(fs::exists(dir.file("movie.mp4")));
}

// Encoding slower than rendering (a test hook slows the one encoder to 300 ms a frame, slower
// than a thumbnail frame renders even in a sanitizer build): the frame loop waits for it, every
// frame is written, and the run says it waited.
TEST(Record, ASlowEncoderMakesTheSimulationWaitAndDropsNothing) {
    test::TempDir dir;
    const fs::path out = dir.path() / "frames";
    const auto r = test::run_command(
        "NBODY_TEST_ENCODER_DELAY_MS=300 '" + test::nbody_executable() + "' record " + kSmall +
        "--frames 10 --steps-per-frame 1 --encoders 1 --out '" + out.string() + "'");
    SKIP_WITHOUT_EGL(r);
    ASSERT_EQ(r.exit_code, 0) << r.output;
    expect_complete_sequence(out, 10);
    std::smatch m;
    ASSERT_TRUE(std::regex_search(r.output, m, std::regex(R"(the simulation waited ([0-9.]+) s in all)")))
        << r.output;
    // 10 frames at 300 ms each are 3 s of encoding; the readback pool holds five frames, so the
    // loop waited for the encoder through much of the rest.
    EXPECT_GT(std::stod(m[1].str()), 0.1) << r.output;
}

// A write that fails part-way (a file-size limit standing in for a full disk): a clear error
// naming the frame, exit 1, no crash, and no partial or temporary file left behind.
TEST(Record, WriteFailureIsAClearErrorAndLeavesNoPartialFiles) {
    test::TempDir dir;
    const fs::path out = dir.path() / "frames";
    // 16 KiB: less than one 320x180 frame. The shell applies the limit to nbody alone.
    const auto r = test::run_command("ulimit -f 32 && exec '" + test::nbody_executable() + "' record " +
                                     kSmall + "--frames 5 --out '" + out.string() + "'");
    SKIP_WITHOUT_EGL(r);
    EXPECT_EQ(r.exit_code, 1) << r.output;
    EXPECT_NE(r.output.find("frame 0 could not be written"), std::string::npos) << r.output;
    EXPECT_EQ(r.output.find("core dumped"), std::string::npos) << r.output;
    ASSERT_TRUE(fs::is_directory(out));
    EXPECT_TRUE(listing(out).empty()) << "left behind: " << ::testing::PrintToString(listing(out));
}

// Ctrl-C finishes the frame in progress: the sequence is complete (no gap, no temporary file,
// every PNG whole) and the MP4, when made, is a valid movie.
TEST(Record, SigintLeavesACompleteSequenceAndAValidMovie) {
    test::TempDir dir;
    const fs::path out = dir.path() / "frames";
    const fs::path movie = dir.path() / "movie.mp4";
    const bool mp4 = have_command("ffmpeg");
    const std::string log = dir.file("log.txt");
    std::vector<std::string> args{test::nbody_executable(),
                                  "record",
                                  "--backend",
                                  "cpu",
                                  "--bodies",
                                  "2000",
                                  "--size",
                                  "160x90",
                                  "--frames",
                                  "100000",
                                  "--out",
                                  out.string()};
    if (mp4) args.insert(args.end(), {"--mp4", movie.string()});
    const pid_t pid = test::spawn_logged(std::move(args), log);
    ASSERT_GT(pid, 0);

    // Let it write a few frames, then Ctrl-C.
    using Clock = std::chrono::steady_clock;
    const auto deadline = Clock::now() + std::chrono::seconds(60);
    int status = 0;
    bool exited = false;
    while (Clock::now() < deadline) {
        if (::waitpid(pid, &status, WNOHANG) == pid) {
            exited = true;
            break;
        }
        std::error_code ec;
        if (fs::exists(out / frame_name(4), ec)) break;
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    if (exited) {
        const std::string text = test::read_text(log);
        if (text.find("cannot create a headless OpenGL") != std::string::npos)
            GTEST_SKIP() << "no headless EGL";
        FAIL() << "nbody record exited before it was interrupted:\n" << text;
    }
    ASSERT_EQ(::kill(pid, SIGINT), 0);
    while (Clock::now() < deadline) {
        if (::waitpid(pid, &status, WNOHANG) == pid) {
            exited = true;
            break;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    if (!exited) {
        const bool reaped = test::wait_or_kill(pid, 0).has_value();  // SIGKILL, then 10 s at most
        FAIL() << "nbody record did not stop within a minute of SIGINT" << (reaped ? "" : " (nor after SIGKILL)")
               << ":\n" << test::read_text(log);
    }
    const std::string text = test::read_text(log);
    ASSERT_TRUE(WIFEXITED(status)) << "killed by a signal:\n" << text;
    EXPECT_EQ(WEXITSTATUS(status), 130) << text;
    std::smatch m;
    ASSERT_TRUE(std::regex_search(text, m, std::regex(R"(record_report frames=(\d+) .*interrupted=1)")))
        << text;
    const int n = std::stoi(m[1].str());
    EXPECT_GE(n, 5) << text;
    expect_complete_sequence(out, n);
    for (int i = 0; i < n; ++i) {
        const Image f = read_png((out / frame_name(i)).string());  // throws if truncated
        EXPECT_EQ(f.width, 160);
    }
    if (mp4) {
        expect_mp4(movie, 160, 90, n);
        EXPECT_EQ(listing(dir.path()), (std::vector<std::string>{"frames", "log.txt", "movie.mp4"}));
    }
}

TEST(Record, BadArgumentsAreClearErrors) {
    auto r = test::run_nbody("record --frames 3 --out x --camera spin");
    EXPECT_NE(r.exit_code, 0);
    EXPECT_NE(r.output.find("orbit:DEG_PER_FRAME"), std::string::npos) << r.output;
    r = test::run_nbody("record --frames 0 --out x");
    EXPECT_NE(r.exit_code, 0);
    EXPECT_NE(r.output.find("--frames"), std::string::npos) << r.output;
    r = test::run_nbody("record --frames 3");
    EXPECT_NE(r.exit_code, 0);
    EXPECT_NE(r.output.find("--out"), std::string::npos) << r.output;
}

}  // namespace
}  // namespace nbody::render

namespace nbody::render {
namespace {

// The viewer's own recording (the V key; --record starts it at once) in a window under Xvfb:
// with --record-ui the frames hold the panels, but never the REC indicator, which the screen
// (and so the screenshot of the same last frame) shows.
TEST(ViewerRecording, WindowFramesHaveThePanelsButNotTheRecIndicator) {
    const char* display = std::getenv("DISPLAY");
    std::string prefix;
    if (!display || !*display) {
        if (!have_command("xvfb-run"))
            GTEST_SKIP() << "no DISPLAY and no xvfb-run (Debian: apt-get install xvfb)";
        prefix = "xvfb-run -a -s '-screen 0 1280x720x24' ";
    }
    test::TempDir dir;
    const fs::path out = dir.path() / "frames";
    const std::string shot = dir.file("screen.png");
    const int w = 640, h = 360, frames = 20;
    const auto r =
        test::run_command(prefix + "'" + test::nbody_executable() + "' view --frames " +
                          std::to_string(frames) + " --backend cpu --bodies 1024 --size 640x360 --record '" +
                          out.string() + "' --record-ui --screenshot '" + shot + "'");
    ASSERT_EQ(r.exit_code, 0) << r.output;
    expect_complete_sequence(out, frames);
    const Image recorded = read_png((out / frame_name(frames - 1)).string());
    const Image screen = read_png(shot);
    ASSERT_EQ(recorded.width, w);
    ASSERT_EQ(recorded.height, h);
    ASSERT_EQ(screen.width, w);
    // The panels are there: the menu bar across the top is no night sky.
    EXPECT_GT(luminance(recorded, 4, 4), 20.0f) << "no menu bar in the recorded frame";
    // The same frame on screen and on disk, except the REC indicator at the top centre.
    int inside = 0, outside = 0;
    int x0 = w, y0 = h, x1 = -1, y1 = -1;  // where the outside differences lie, for a failure's message
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
            const std::uint8_t* a = recorded.pixel(x, y);
            const std::uint8_t* b = screen.pixel(x, y);
            if (a[0] == b[0] && a[1] == b[1] && a[2] == b[2]) continue;
            // The indicator is centred, 280 px wide at most, or 370 px with "encoder behind:
            // simulation waiting", which a loaded machine shows (a CI run: x 137..502, y 29..57).
            if (std::abs(x - w / 2) < 200 && y < 60) {
                ++inside;
                continue;
            }
            ++outside;
            x0 = std::min(x0, x), y0 = std::min(y0, y), x1 = std::max(x1, x), y1 = std::max(y1, y);
        }
    EXPECT_GT(inside, 50) << "the screen shows no REC indicator";
    EXPECT_EQ(outside, 0) << "the recorded frame differs from the screen elsewhere than the indicator, within x "
                          << x0 << ".." << x1 << ", y " << y0 << ".." << y1 << "\n"
                          << r.output;
}

}  // namespace
}  // namespace nbody::render
