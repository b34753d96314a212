// Issue 33: the Simulation panel of a star cluster run under Hermite, seen as a user sees it
// (headless EGL on Mesa, the panels drawn): the Lagrangian-radii plot is in view without scrolling
// at 1280x720 and 1920x1080, and the energy line has a value from the first frames on (it read
// "not computed yet" for the first 4 s and more above 256 bodies).

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <string>

#include "nbody/render/frame_capture.hpp"
#include "test_support.hpp"

namespace nbody {
namespace {

// The plot's background (app/viewer/ui/cluster_plot.hpp: kClusterPlotBackground) and size at the
// UI's 15 px font: 18 x 5 lines of text.
constexpr int kPlotRgb[3] = {20, 22, 30};
constexpr int kPlotWidth = 18 * 15, kPlotHeight = 5 * 15;

test::CommandResult cluster_view(const std::string& size, const std::string& png, int frames) {
    return test::run_command("timeout 300 '" + test::nbody_executable() +
                             "' view --headless --backend cpu --bodies 1024 --size " + size + " --frames " +
                             std::to_string(frames) + " --scene '" + test::source_dir() +
                             "/scenes/star-cluster-kroupa.toml' --screenshot '" + png + "'");
}

bool no_egl(const test::CommandResult& r) {
    return r.exit_code != 0 && r.output.find("cannot create a headless OpenGL") != std::string::npos;
}

// The first and last rows of `image` that are mostly the plot's background (a star's halo may
// have a pixel of that colour here and there; the plot has rows of them), and their widest run.
struct Found {
    int first_row = -1, last_row = -2, widest = 0;
};

Found plot_rows(const render::Image& image) {
    Found f;
    for (int y = 0; y < image.height; ++y) {
        int run = 0, widest = 0, count = 0;
        for (int x = 0; x < image.width; ++x) {
            const std::uint8_t* p = image.pixel(x, y);
            run = p[0] == kPlotRgb[0] && p[1] == kPlotRgb[1] && p[2] == kPlotRgb[2] ? run + 1 : 0;
            count += run > 0;
            widest = std::max(widest, run);
        }
        if (count < kPlotWidth / 2) continue;  // a row of the caption's letters may be skipped
        if (f.first_row < 0) f.first_row = y;
        f.last_row = y;
        f.widest = std::max(f.widest, widest);
    }
    return f;
}

// Two frames: the plot still says it is measuring (no lines yet), so every row of it is found.
TEST(SimulationPanel, TheRadiiPlotIsInViewAt720pAnd1080p) {
    for (const char* size : {"1280x720", "1920x1080"}) {
        SCOPED_TRACE(size);
        test::TempDir dir;
        const std::string png = dir.file("shot.png");
        const auto r = cluster_view(size, png, 2);
        if (no_egl(r)) GTEST_SKIP() << r.output;
        ASSERT_EQ(r.exit_code, 0) << r.output;
        const Found f = plot_rows(render::read_png(png));
        std::printf("%s: the plot from y = %d to %d, %d px wide\n", size, f.first_row, f.last_row, f.widest);
        // Whole: as tall and wide as drawn; a plot under the panel's fold is cut or missing.
        EXPECT_GE(f.last_row - f.first_row + 1, kPlotHeight - 2) << "the plot is cut off by the panel's fold";
        EXPECT_GE(f.widest, kPlotWidth - 2);
    }
}

TEST(SimulationPanel, TheEnergyLineHasAValueFromTheStart) {
    test::TempDir dir;
    const auto r = cluster_view("320x180", dir.file("shot.png"), 6);
    if (no_egl(r)) GTEST_SKIP() << r.output;
    ASSERT_EQ(r.exit_code, 0) << r.output;
    const std::size_t at = r.output.find("energy line: ");
    ASSERT_NE(at, std::string::npos) << r.output;
    const std::string line = r.output.substr(at, r.output.find('\n', at) - at);
    EXPECT_NE(line.find("dE/|E0| = "), std::string::npos) << line;
    EXPECT_EQ(line.find("not computed yet"), std::string::npos) << line;
    EXPECT_NE(line.find("(double), at t = "), std::string::npos)
        << "Hermite's own sum, with its time: " << line;
    EXPECT_NE(line.find(" s ago"), std::string::npos) << "its age: " << line;
}

// Above the automatic sums' limit on the CPU (16,384 bodies) nothing sums the energy by itself:
// the line says how to get it instead of waiting for ever.
TEST(SimulationPanel, AboveTheAutomaticLimitTheEnergyLineSaysHowToGetIt) {
    test::TempDir dir;
    const auto r = test::run_command("timeout 300 '" + test::nbody_executable() +
                                     "' view --headless --backend cpu --gravity tree --bodies 17000 --size 160x90 "
                                     "--frames 1 --scene '" +
                                     test::source_dir() + "/scenes/plummer.toml' --screenshot '" +
                                     dir.file("shot.png") + "'");
    if (no_egl(r)) GTEST_SKIP() << r.output;
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_NE(r.output.find("energy line: dE/|E0| = (not computed yet), summed on request here: Compute energy"),
              std::string::npos)
        << r.output;
}

}  // namespace
}  // namespace nbody
