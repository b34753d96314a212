// Annotations in saved frames (issue 15): with --annotate a recorded frame or a --no-ui screenshot
// carries the colour legend, a scale bar and the model time, bottom left, and nothing else that
// the plain frame lacks (no panels, no backend badge); without it, the particles alone.

#include <gtest/gtest.h>
#include <imgui.h>

#include <algorithm>
#include <string>
#include <vector>

#include "nbody/render/annotations.hpp"
#include "nbody/render/frame_capture.hpp"
#include "nbody/render/imgui_layer.hpp"
#include "shared_egl_context.hpp"
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

// Annotations for a talk are drawn 27-54 px high (1080p to 4K, or --annotate-size): enlarged from
// the panels' 15 px face they were soft. From half its size on they take a face of their own,
// rasterised at kLargeAnnotationFontPx; smaller text keeps the panels' face.
TEST(Annotations, LargeTextHasAFaceOfItsOwn) {
    REQUIRE_EGL();
    const ImGuiLayer ui(nullptr, 1.0f);
    const ImFontAtlas* atlas = ImGui::GetIO().Fonts;
    if (atlas->Fonts.Size < 2) GTEST_SKIP() << "no UI font file was found: the built-in face serves all text";
    EXPECT_EQ(annotation_font(18.0f), atlas->Fonts[0]);
    EXPECT_EQ(annotation_font(23.0f), atlas->Fonts[0]);
    const ImFont* large = annotation_font(27.0f);
    EXPECT_NE(large, atlas->Fonts[0]);
    // The faces' sizes as asked (their FontSize is set when the atlas is built, at the first frame).
    ASSERT_EQ(atlas->ConfigData.Size, 2);
    EXPECT_EQ(atlas->ConfigData[1].DstFont, large);
    EXPECT_FLOAT_EQ(atlas->ConfigData[1].SizePixels, kLargeAnnotationFontPx);
    EXPECT_EQ(annotation_font(54.0f), large);
}

// The legend's swatches wrap onto more rows where the frame is too narrow for them in one (long
// galaxy names in large text: "Andromeda (M31)" ran off a 420 px frame at 30 px before).
TEST(Annotations, LegendRowsWrapWhereTheFrameIsTooNarrow) {
    using Rows = std::vector<std::size_t>;
    const std::vector<float> widths{100, 150, 80};
    EXPECT_EQ(legend_rows(widths, 400), Rows({0}));
    EXPECT_EQ(legend_rows(widths, 330), Rows({0}));     // exactly full
    EXPECT_EQ(legend_rows(widths, 260), Rows({0, 2}));
    EXPECT_EQ(legend_rows(widths, 120), Rows({0, 1, 2}));
    EXPECT_EQ(legend_rows({500}, 100), Rows({0}));      // wider than the room: a row of its own
    EXPECT_EQ(legend_rows({}, 100), Rows());
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

// Pixels that differ between two frames in the bottom-left legend corner, and how many distinct
// colours (to 1/16) those pixels of `a` take: a colour bar is a gradient, swatches a few hues.
struct CornerChange {
    int changed = 0;
    int colours = 0;
};
CornerChange corner_change(const Image& a, const Image& b) {
    CornerChange r;
    std::vector<bool> seen(4096, false);
    for (int y = a.height / 2; y < a.height; ++y)
        for (int x = 0; x < a.width * 60 / 100; ++x) {
            if (!differs(a, b, x, y)) continue;
            ++r.changed;
            const std::uint8_t* p = a.pixel(x, y);
            const int key = (p[0] >> 4) << 8 | (p[1] >> 4) << 4 | (p[2] >> 4);
            r.colours += !seen[std::size_t(key)];
            seen[std::size_t(key)] = true;
        }
    return r;
}

// Colouring by speed, the legend is a colour bar (many colours, not two swatches); by component,
// swatches. Each differs from the frame without annotations.
TEST(Annotations, SpeedColouringHasAColourBarAndComponentColouringALegend) {
    test::TempDir dir;
    const std::string view = "view --headless --backend cpu --bodies 2000 --size 480x270 --frames 2 --no-ui --screenshot ";
    const auto plain = test::run_nbody(view + dir.file("plain.png") + " --colour speed");
    if (no_egl(plain)) GTEST_SKIP() << "no headless EGL: " << plain.output;
    ASSERT_EQ(test::run_nbody(view + dir.file("speed.png") + " --colour speed --annotate").exit_code, 0);
    ASSERT_EQ(test::run_nbody(view + dir.file("plain-c.png") + " --colour component").exit_code, 0);
    ASSERT_EQ(test::run_nbody(view + dir.file("component.png") + " --colour component --annotate").exit_code, 0);
    const CornerChange speed = corner_change(read_png(dir.file("speed.png")), read_png(dir.file("plain.png")));
    const CornerChange component = corner_change(read_png(dir.file("component.png")), read_png(dir.file("plain-c.png")));
    EXPECT_GT(speed.colours, component.colours + 20) << "no colour bar: the speed legend has no more colours than swatches";
    EXPECT_GT(component.changed, 300) << "no component legend";
}

// --annotate-size sets the text height: larger text changes more of the corner.
TEST(Annotations, TheSizeOptionScalesTheText) {
    test::TempDir dir;
    const std::string view = "view --headless --backend cpu --bodies 2000 --size 480x270 --frames 2 --no-ui --screenshot ";
    const auto plain = test::run_nbody(view + dir.file("plain.png"));
    if (no_egl(plain)) GTEST_SKIP() << "no headless EGL: " << plain.output;
    ASSERT_EQ(test::run_nbody(view + dir.file("small.png") + " --annotate").exit_code, 0);
    const auto big = test::run_nbody(view + dir.file("big.png") + " --annotate --annotate-size 30");
    ASSERT_EQ(big.exit_code, 0) << big.output;
    const Image p = read_png(dir.file("plain.png"));
    EXPECT_GT(corner_change(read_png(dir.file("big.png")), p).changed,
              2 * corner_change(read_png(dir.file("small.png")), p).changed);
}

// Large text in a small frame: the colour bar shortens so that its labels end inside the frame
// (nothing drawn in its last columns), rather than run off it.
// The speed colour bar and the stellar-mass legend (a star cluster) both stay inside a narrow frame
// in large text.
TEST(Annotations, TheColourBarAndItsLabelsFitANarrowFrame) {
    for (const std::string colour :
         {std::string("--bodies 2000 --colour speed"),
          "--bodies 1024 --integrator leapfrog --colour mass --scene '" + test::source_dir() +
              "/scenes/star-cluster-kroupa.toml'"}) {
        SCOPED_TRACE(colour);
        test::TempDir dir;
        const std::string view = "view --headless --backend cpu --size 480x270 --frames 2 --no-ui " + colour + " --screenshot ";
        const auto plain = test::run_nbody(view + dir.file("plain.png"));
        if (no_egl(plain)) GTEST_SKIP() << "no headless EGL: " << plain.output;
        const auto big = test::run_nbody(view + dir.file("big.png") + " --annotate --annotate-size 24");
        ASSERT_EQ(big.exit_code, 0) << big.output;
        const Image a = read_png(dir.file("big.png")), b = read_png(dir.file("plain.png"));
        int at_edge = 0;
        for (int y = a.height / 2; y < a.height; ++y)
            for (int x = a.width - 4; x < a.width; ++x) at_edge += differs(a, b, x, y);
        EXPECT_EQ(at_edge, 0) << "the legend runs off the frame's right edge";
    }
}

}  // namespace
}  // namespace nbody::render
