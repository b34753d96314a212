// `nbody view --encounter` opens the Encounter panel: at the top of the right-hand column (issue 33
// item 4: stacked with the other panels, none over another), the middle of the window and the
// legend left as they were.

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <string>

#include "nbody/render/frame_capture.hpp"
#include "test_support.hpp"

namespace nbody {
namespace {

// Fraction of pixels in [x0, x1) x [y0, y1) (fractions of the image) whose colours differ.
double changed_fraction(const render::Image& a, const render::Image& b, double x0, double y0, double x1, double y1) {
    long changed = 0, total = 0;
    for (int y = int(y0 * a.height); y < int(y1 * a.height); ++y)
        for (int x = int(x0 * a.width); x < int(x1 * a.width); ++x) {
            const std::uint8_t* p = a.pixel(x, y);
            const std::uint8_t* q = b.pixel(x, y);
            int d = 0;
            for (int c = 0; c < 3; ++c) d = std::max(d, std::abs(int(p[c]) - int(q[c])));
            changed += d > 6;  // the panel's background is only a little lighter than the sky
            ++total;
        }
    return double(changed) / double(total);
}

TEST(EncounterPanel, OpensFromTheCommandLine) {
    test::TempDir dir;
    const std::string view = "view --headless --backend cpu --size 1280x720 --frames 1 --bodies 600 --scene " +
                             test::source_dir() + "/scenes/antennae.toml --screenshot ";
    auto r = test::run_nbody(view + dir.file("plain.png"));
    ASSERT_EQ(r.exit_code, 0) << r.output;
    r = test::run_nbody(view + dir.file("editor.png") + " --encounter");
    ASSERT_EQ(r.exit_code, 0) << r.output;
    const render::Image plain = render::read_png(dir.file("plain.png"));
    const render::Image editor = render::read_png(dir.file("editor.png"));
    ASSERT_EQ(plain.width, editor.width);
    ASSERT_EQ(plain.height, editor.height);
    // The panel (opaque, with text and fields) is at the top right, where the Rendering panel was...
    const double right = changed_fraction(plain, editor, 0.66, 0.08, 0.98, 0.65);
    EXPECT_GT(right, 0.2) << "the Encounter panel is not at the top of the right-hand column";
    // ... the action in the middle of the window is not covered...
    const double centre = changed_fraction(plain, editor, 0.30, 0.08, 0.64, 0.90);
    EXPECT_LT(centre, 0.01) << "a panel covers the middle of the window";
    // ... nor the legend and scale bar at the bottom left.
    const double legend = changed_fraction(plain, editor, 0.0, 0.92, 0.25, 1.0);
    EXPECT_LT(legend, 0.01) << "a panel covers the legend or the scale bar";
}

}  // namespace
}  // namespace nbody
