// Keyframed camera paths (`record --camera path:FILE`): the interpolation passes through every
// keyframe exactly and is smooth between them (no GL); bad files are refused naming the line and
// the problem; `record` along a path writes frames whose view changes; the selection and trail
// options of `view`.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "nbody/render/camera_path.hpp"
#include "nbody/render/frame_capture.hpp"
#include "test_support.hpp"

namespace nbody::render {
namespace {

namespace fs = std::filesystem;

const char* kPath =
    "# frame azimuth elevation distance [target]\n"
    "0    -90   60   10\n"
    "\n"
    "30    0    20   5    1 2 0   # swing round and in\n"
    "45   90   -10   8\n"
    "90  180    45  20    0 0 1\n";

double channel(const CameraPose& p, int c) {
    switch (c) {
        case 0: return p.azimuth_deg;
        case 1: return p.elevation_deg;
        case 2: return p.distance;
        case 3: return p.target.x;
        case 4: return p.target.y;
        default: return p.target.z;
    }
}

TEST(CameraPath, PassesThroughEveryKeyframeExactly) {
    const CameraPath path = CameraPath::parse(kPath, "test.path");
    ASSERT_EQ(path.keyframes().size(), 4u);
    EXPECT_EQ(path.keyframes()[1].line, 4);
    EXPECT_EQ(path.keyframes()[2].pose.target, glm::dvec3(1, 2, 0)) << "a line without a target keeps the last one";
    for (const CameraKeyframe& k : path.keyframes()) {
        const CameraPose p = path.at(k.frame);
        for (int c = 0; c < 6; ++c)
            EXPECT_NEAR(channel(p, c), channel(k.pose, c), 1e-9 * (1 + std::abs(channel(k.pose, c))))
                << "frame " << k.frame << " channel " << c;
    }
    // Held before the first keyframe and after the last.
    EXPECT_EQ(path.at(-5).azimuth_deg, -90);
    EXPECT_EQ(path.at(500).distance, 20);
    EXPECT_EQ(path.at(500).target, glm::dvec3(0, 0, 1));
}

TEST(CameraPath, IsSmoothBetweenKeyframes) {
    const CameraPath path = CameraPath::parse(kPath, "test.path");
    const double h = 1e-4;
    for (int c = 0; c < 6; ++c) {
        // No jumps: tiny steps make tiny changes everywhere.
        double worst = 0;
        for (double f = 0; f < 90; f += 0.05)
            worst = std::max(worst, std::abs(channel(path.at(f + 0.05), c) - channel(path.at(f), c)));
        EXPECT_LT(worst, 2.0) << "channel " << c << " jumps";
        // The first derivative is continuous at the inner keyframes (same slope from both sides)
        // and zero at the ends (a gentle start and stop).
        for (double f : {30.0, 45.0}) {
            const double left = (channel(path.at(f), c) - channel(path.at(f - h), c)) / h;
            const double right = (channel(path.at(f + h), c) - channel(path.at(f), c)) / h;
            EXPECT_NEAR(left, right, 1e-3 * (1 + std::abs(left))) << "channel " << c << " kinks at frame " << f;
        }
        EXPECT_NEAR((channel(path.at(h), c) - channel(path.at(0), c)) / h, 0.0, 1e-3) << "channel " << c;
    }
    // Between keyframes the azimuth moves monotonically from one to the next here (no overshoot
    // backwards on a steady turn).
    for (double f = 30; f < 45; f += 0.5) EXPECT_LT(path.at(f).azimuth_deg, path.at(f + 0.5).azimuth_deg);
    // log-distance interpolation: halfway between 5 and 8 is about sqrt(40), not 6.5.
    EXPECT_GT(path.at(37.5).distance, 5.0);
    EXPECT_LT(path.at(37.5).distance, 8.0);
}

void expect_error(const std::string& text, const std::string& expected) {
    try {
        CameraPath::parse(text, "bad.path");
        FAIL() << "accepted:\n" << text;
    } catch (const std::runtime_error& e) {
        EXPECT_NE(std::string(e.what()).find(expected), std::string::npos) << e.what();
    }
}

TEST(CameraPath, BadFilesAreRefusedNamingTheLine) {
    expect_error("0 0 30 10\n10 abc 30 10\n", "bad.path:2: azimuth_deg: 'abc' is not a number");
    expect_error("0 0 30\n", "bad.path:1: expected 4 or 7 numbers");
    expect_error("0 0 30 10 1 2\n", "bad.path:1: expected 4 or 7 numbers");
    expect_error("# c\n0 0 30 10\n20 0 30 10\n20 0 30 10\n", "bad.path:4: frames must increase: 20 follows 20 (line 3)");
    expect_error("0 0 30 -1\n", "bad.path:1: distance must be > 0");
    expect_error("0 0 95 10\n", "bad.path:1: elevation_deg must be within [-89, 89]");
    expect_error("-1 0 30 10\n", "bad.path:1: frame must be >= 0");
    expect_error("0 0 30 1e999\n", "bad.path:1: distance: '1e999' is out of range");
    expect_error("# only a comment\n\n", "bad.path: no keyframes");
    try {
        CameraPath::load("/nonexistent/camera.path");
        FAIL();
    } catch (const std::runtime_error& e) {
        EXPECT_NE(std::string(e.what()).find("cannot open '/nonexistent/camera.path' for reading (camera path file)"), std::string::npos) << e.what();
    }
}

TEST(CameraPath, TheShippedExamplesLoad) {
    int files = 0;
    for (const auto& entry : std::filesystem::directory_iterator(test::source_dir() + "/assets/camera-paths")) {
        SCOPED_TRACE(entry.path().string());
        const CameraPath path = CameraPath::load(entry.path().string());
        EXPECT_GE(path.keyframes().size(), 3u);
        ++files;
    }
    EXPECT_GE(files, 2);  // the figure-eight fly-by and the collision fly-by
}

bool no_egl(const test::CommandResult& r) {
    return r.exit_code != 0 && r.output.find("cannot create a headless OpenGL") != std::string::npos;
}
#define SKIP_WITHOUT_EGL(r) \
    if (no_egl(r)) GTEST_SKIP() << "no headless EGL: " << (r).output

// Spread of the light about the image centre (root mean square distance, pixels, weighted by
// luminance above the background, the median pixel): large close up, small from far away.
double light_spread(const Image& image) {
    std::vector<double> l;
    for (int y = 0; y < image.height; ++y)
        for (int x = 0; x < image.width; ++x) {
            const std::uint8_t* p = image.pixel(x, y);
            l.push_back(0.2126 * p[0] + 0.7152 * p[1] + 0.0722 * p[2]);
        }
    std::vector<double> sorted = l;
    std::nth_element(sorted.begin(), sorted.begin() + sorted.size() / 2, sorted.end());
    const double background = sorted[sorted.size() / 2] + 1.0;
    double sum = 0, weighted = 0;
    for (int y = 0; y < image.height; ++y)
        for (int x = 0; x < image.width; ++x) {
            const double w = std::max(0.0, l[std::size_t(y) * image.width + x] - background);
            const double dx = x - image.width / 2.0, dy = y - image.height / 2.0;
            sum += w;
            weighted += w * (dx * dx + dy * dy);
        }
    return sum > 0 ? std::sqrt(weighted / sum) : 0;
}

TEST(CameraPath, RecordFliesAlongThePath) {
    test::TempDir dir;
    // A Plummer sphere, scale ~1: from distance 3 it fills the frame, from 40 it is a small spot.
    test::write_text(dir.file("zoom.path"), "0 30 20 3\n4 60 20 40\n");
    const fs::path out = dir.path() / "frames";
    const auto r = test::run_nbody("record --backend cpu --bodies 1500 --size 192x108 --frames 5 --scene '" +
                                   test::source_dir() + "/scenes/plummer.toml' --camera path:" + dir.file("zoom.path") +
                                   " --out '" + out.string() + "'");
    SKIP_WITHOUT_EGL(r);
    ASSERT_EQ(r.exit_code, 0) << r.output;
    double spread[5];
    for (int i = 0; i < 5; ++i) {
        char name[32];
        std::snprintf(name, sizeof name, "frame_%06d.png", i);
        spread[i] = light_spread(read_png((out / name).string()));
    }
    for (int i = 1; i < 5; ++i) EXPECT_LT(spread[i], spread[i - 1]) << "frame " << i << " did not zoom out";
    std::printf("light spread, frames 0-4: %.1f %.1f %.1f %.1f %.1f pixels\n", spread[0], spread[1], spread[2],
                spread[3], spread[4]);
    EXPECT_LT(spread[4], 0.5 * spread[0]);
}

TEST(CameraPath, RecordRefusesABadPathBeforeRendering) {
    test::TempDir dir;
    test::write_text(dir.file("bad.path"), "0 30 20 3\n\n4 60 20\n");
    const fs::path out = dir.path() / "frames";
    const auto r = test::run_nbody("record --backend cpu --bodies 100 --frames 2 --camera path:" + dir.file("bad.path") +
                                   " --out '" + out.string() + "'");
    EXPECT_NE(r.exit_code, 0);
    EXPECT_NE(r.output.find(dir.file("bad.path") + ":3: expected 4 or 7 numbers"), std::string::npos) << r.output;
    EXPECT_FALSE(fs::exists(out)) << "nothing is written for a bad path";
    const auto missing = test::run_nbody("record --backend cpu --bodies 100 --frames 2 --camera path: --out '" +
                                         out.string() + "'");
    EXPECT_NE(missing.exit_code, 0);
    EXPECT_NE(missing.output.find("path: needs a file"), std::string::npos) << missing.output;
}

int lit_pixels(const Image& image) {
    int n = 0;
    for (int y = 0; y < image.height; ++y)
        for (int x = 0; x < image.width; ++x) n += image.pixel(x, y)[1] > 40;
    return n;
}

// The figure-eight scenes switch trails on; --trails 0 switches them off; the trails add light
// along the galaxies' paths.
TEST(ViewOptions, FigureEightSceneDrawsTrailsUnlessAskedNot) {
    test::TempDir dir;
    const std::string common = "view --headless --backend cpu --bodies 600 --no-ui --size 320x180 --frames 24 --scene '" +
                               test::source_dir() + "/scenes/rv770-figure-eight-3.toml' ";
    const auto on = test::run_nbody(common + "--screenshot " + dir.file("on.png"));
    SKIP_WITHOUT_EGL(on);
    ASSERT_EQ(on.exit_code, 0) << on.output;
    const auto off = test::run_nbody(common + "--trails 0 --screenshot " + dir.file("off.png"));
    ASSERT_EQ(off.exit_code, 0) << off.output;
    const int lit_on = lit_pixels(read_png(dir.file("on.png"))), lit_off = lit_pixels(read_png(dir.file("off.png")));
    EXPECT_GT(lit_on, lit_off + 100) << "trails add no light: " << lit_on << " vs " << lit_off;
    const auto bad = test::run_nbody("view --headless --trails -3");
    EXPECT_NE(bad.exit_code, 0);
    EXPECT_NE(bad.output.find("--trails"), std::string::npos) << bad.output;
}

// A click at the image centre of the figure-eight scene picks a body of galaxy 3, which starts at
// the camera's target; one in an empty corner picks nothing; --select names a body directly.
TEST(ViewOptions, PickAndSelectReportTheBody) {
    const std::string common = "view --headless --backend cpu --bodies 600 --size 320x180 --scene '" +
                               test::source_dir() + "/scenes/rv770-figure-eight-3.toml' ";
    const auto centre = test::run_nbody(common + "--pick 160,90");
    SKIP_WITHOUT_EGL(centre);
    ASSERT_EQ(centre.exit_code, 0) << centre.output;
    EXPECT_NE(centre.output.find("selected body "), std::string::npos) << centre.output;
    EXPECT_NE(centre.output.find("(galaxy 3, "), std::string::npos) << centre.output;
    EXPECT_NE(centre.output.find("(N-body units)"), std::string::npos) << centre.output;
    const auto corner = test::run_nbody(common + "--pick 2,2");
    ASSERT_EQ(corner.exit_code, 0) << corner.output;
    EXPECT_EQ(corner.output.find("selected body"), std::string::npos) << corner.output;
    const auto select = test::run_nbody(common + "--select 17");
    ASSERT_EQ(select.exit_code, 0) << select.output;
    EXPECT_NE(select.output.find("selected body 17"), std::string::npos) << select.output;
    const auto beyond = test::run_nbody(common + "--select 600");
    EXPECT_NE(beyond.exit_code, 0);
    EXPECT_NE(beyond.output.find("--select 600: the scene has bodies 0 to 599"), std::string::npos) << beyond.output;
    const auto malformed = test::run_nbody(common + "--pick 12");
    EXPECT_NE(malformed.exit_code, 0);
    EXPECT_NE(malformed.output.find("expected X,Y"), std::string::npos) << malformed.output;
}

}  // namespace
// The Selected body panel and its stderr line name the galaxy as the scene does (issue 33 item 8),
// not "galaxy 1", with the speed in km/s.
TEST(ViewOptions, TheSelectedBodyNamesItsGalaxy) {
    const auto r = test::run_nbody("view --headless --backend cpu --bodies 2000 --size 320x180 --frames 2 --select 0");
    SKIP_WITHOUT_EGL(r);
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_NE(r.output.find("selected body 0 (Milky Way, "), std::string::npos) << r.output;
    EXPECT_NE(r.output.find(" km/s"), std::string::npos) << r.output;
}

}  // namespace nbody::render
