// Annotations in saved frames (issue 15): with --annotate a recorded frame or a --no-ui screenshot
// carries the colour legend, a scale bar and the model time, bottom left, and nothing else that
// the plain frame lacks (no panels, no backend badge); without it, the particles alone.

#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "nbody/render/frame_capture.hpp"
#include "test_support.hpp"

namespace nbody::render {
namespace {

bool no_egl(const test::CommandResult& r) {
    return r.exit_code != 0 && r.output.find("cannot create a headless OpenGL") != std::string::npos;
}

bool differs(const Image& a, const Image& b, int x, int y) {
    const std::uint8_t *p = a.pixel(x, y), *q = b.pixel(x, y);
    return p[0] != q[0] || p[1] != q[1] || p[2] != q[2];
}

struct AnnotationPixels {
    int in_corner = 0;     // differing pixels in the bottom-left corner
    int elsewhere = 0;     // differing pixels anywhere else
    int orange = 0, blue = 0;  // of those in the corner: the legend's swatches (Milky Way, Andromeda)
    int orange_top = 1 << 30;  // the first row of the Milky Way swatch
    int above_legend = 0;      // differing pixels in rows above it: the time stamp
};

// What `annotated` adds to `plain` (the same frame without annotations).
AnnotationPixels added(const Image& annotated, const Image& plain) {
    AnnotationPixels r;
    const auto corner = [&](int x, int y) { return x < annotated.width * 60 / 100 && y > annotated.height * 50 / 100; };
    for (int y = 0; y < annotated.height; ++y)
        for (int x = 0; x < annotated.width; ++x) {
            if (!differs(annotated, plain, x, y)) continue;
            if (!corner(x, y)) {
                ++r.elsewhere;
                continue;
            }
            ++r.in_corner;
            const std::uint8_t* p = annotated.pixel(x, y);
            if (p[0] > p[2] + 60 && p[0] > 150) {
                ++r.orange;
                r.orange_top = std::min(r.orange_top, y);
            }
            if (p[2] > p[0] + 40 && p[2] > 150) ++r.blue;
        }
    for (int y = 0; y + 3 < std::min(r.orange_top, annotated.height); ++y)
        for (int x = 0; x < annotated.width * 60 / 100; ++x) r.above_legend += y > annotated.height / 2 && differs(annotated, plain, x, y);
    return r;
}

void expect_annotations(const AnnotationPixels& r) {
    EXPECT_GT(r.in_corner, 300) << "no scale bar / legend / time drawn";
    EXPECT_EQ(r.elsewhere, 0) << "something besides the bottom-left annotations differs (panels, the badge?)";
    EXPECT_GT(r.orange, 20) << "no Milky Way swatch in the legend";
    EXPECT_GT(r.blue, 20) << "no Andromeda swatch in the legend";
    EXPECT_GT(r.above_legend, 30) << "no model time above the legend";
}

TEST(Annotations, RecordedFramesCarryLegendScaleBarAndTimeOnlyWhenAsked) {
    test::TempDir dir;
    const std::string record = "record --backend cpu --bodies 2000 --size 480x270 --frames 2 --out ";
    const auto plain = test::run_nbody(record + dir.file("plain"));
    if (no_egl(plain)) GTEST_SKIP() << "no headless EGL: " << plain.output;
    ASSERT_EQ(plain.exit_code, 0) << plain.output;
    const auto annotated = test::run_nbody(record + dir.file("annotated") + " --annotate");
    ASSERT_EQ(annotated.exit_code, 0) << annotated.output;
    for (const char* frame : {"/frame_000000.png", "/frame_000001.png"}) {
        SCOPED_TRACE(frame);
        expect_annotations(added(read_png(dir.file("annotated") + frame), read_png(dir.file("plain") + frame)));
    }
}

TEST(Annotations, ScreenshotsWithoutPanelsCarryThemWhenAsked) {
    test::TempDir dir;
    const std::string view = "view --headless --backend cpu --bodies 2000 --size 480x270 --frames 2 --no-ui --screenshot ";
    const auto plain = test::run_nbody(view + dir.file("plain.png"));
    if (no_egl(plain)) GTEST_SKIP() << "no headless EGL: " << plain.output;
    ASSERT_EQ(plain.exit_code, 0) << plain.output;
    const auto annotated = test::run_nbody(view + dir.file("annotated.png") + " --annotate");
    ASSERT_EQ(annotated.exit_code, 0) << annotated.output;
    expect_annotations(added(read_png(dir.file("annotated.png")), read_png(dir.file("plain.png"))));
}

}  // namespace
}  // namespace nbody::render
