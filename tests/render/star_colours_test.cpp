// Issue 33, item 6: a star cluster is shown by stellar mass: main-sequence temperature as a
// blackbody colour, heavier stars wider, the default for cluster scenes (headless EGL on Mesa).

#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <string>

#include "nbody/render/frame_capture.hpp"
#include "nbody/render/stellar_colours.hpp"
#include "nbody/sim/ic/stellar.hpp"
#include "test_support.hpp"

namespace nbody {
namespace {

TEST(StarColours, BlackbodyGoesFromRedToBlueWithTemperature) {
    const glm::vec3 m_dwarf = render::blackbody_colour(2700), sun = render::blackbody_colour(5800),
                    b_star = render::blackbody_colour(30000);
    EXPECT_FLOAT_EQ(m_dwarf.r, 1.0f);
    EXPECT_LT(m_dwarf.b, 0.35f) << "a 2,700 K dwarf is orange-red";
    EXPECT_GT(sun.b, 0.8f) << "the Sun is nearly white";
    EXPECT_GT(sun.r, 0.95f);
    EXPECT_FLOAT_EQ(b_star.b, 1.0f);
    EXPECT_LT(b_star.r, 0.8f) << "a B star is blue-white";
    // The table ColourMode::Mass samples runs through the same colours by log mass.
    const auto table = render::stellar_colour_table(64);
    EXPECT_GT(table.front().r - table.front().b, 0.5f);
    EXPECT_GT(table.back().b - table.back().r, 0.2f);
    EXPECT_EQ(render::stellar_table_position(ic::kStellarMassMin), 0.0f);
    EXPECT_EQ(render::stellar_table_position(ic::kStellarMassMax), 1.0f);
    EXPECT_LT(render::stellar_size_factor(0.1), render::stellar_size_factor(10.0));
}

struct Tally {
    int lit = 0, blue = 0, red = 0;
};

Tally tally(const render::Image& image) {
    Tally t;
    for (int y = 0; y < image.height; ++y)
        for (int x = 0; x < image.width; ++x) {
            const std::uint8_t* p = image.pixel(x, y);
            if (p[0] + p[1] + p[2] < 120) continue;
            ++t.lit;
            t.blue += p[2] > p[0] + 8;
            t.red += p[0] > p[2] + 12;
        }
    return t;
}

test::CommandResult shot(const std::string& extra, const std::string& png) {
    return test::run_command("timeout 300 '" + test::nbody_executable() + "' view --headless --backend cpu --no-ui " +
                             "--size 320x180 --frames 1 --integrator leapfrog --scene '" + test::source_dir() +
                             "/scenes/star-cluster-kroupa.toml' --screenshot '" + png + "' " + extra);
}

TEST(StarColours, ClusterSceneIsShownByStellarMass) {
    test::TempDir dir;
    const auto by_mass = shot("", dir.file("mass.png"));
    if (by_mass.exit_code != 0 && by_mass.output.find("cannot create a headless OpenGL") != std::string::npos)
        GTEST_SKIP() << by_mass.output;
    ASSERT_EQ(by_mass.exit_code, 0) << by_mass.output;
    const auto by_galaxy = shot("--colour galaxy", dir.file("galaxy.png"));
    ASSERT_EQ(by_galaxy.exit_code, 0) << by_galaxy.output;
    const Tally mass = tally(render::read_png(dir.file("mass.png")));
    const Tally galaxy = tally(render::read_png(dir.file("galaxy.png")));
    std::printf("lit/blue/red pixels: by mass %d/%d/%d, by galaxy %d/%d/%d\n", mass.lit, mass.blue, mass.red, galaxy.lit,
                galaxy.blue, galaxy.red);
    // Kroupa's many orange dwarfs and its few hot, heavy stars (wide, bright, blue-white: most of
    // the lit pixels at this size, 2,226 blue and 304 orange of 7,016) both show; one galaxy hue
    // has no blue.
    EXPECT_GT(mass.red, 100) << "no cool dwarf drawn orange";
    EXPECT_GT(mass.blue, 500) << "no hot, heavy star drawn blue";
    EXPECT_EQ(galaxy.blue, 0);
}

// The radii are measured by the simulation every ten frames' worth of model time (plummer.toml:
// 4 steps of 0.005 a frame, so every 0.2), in the frame loop as on the simulation thread: the
// same measurements however the steps are run, none between.
TEST(StarColours, ClusterRadiiAreMeasuredByModelTime) {
    std::string reports[2];
    for (int beside : {0, 1}) {
        const auto r = test::run_command("NBODY_SIM_THREAD=" + std::to_string(beside) + " timeout 300 '" +
                                         test::nbody_executable() + "' view --headless --backend cpu --no-ui " +
                                         "--size 96x54 --frames 26 --bodies 512 --scene '" + test::source_dir() +
                                         "/scenes/plummer.toml'");
        if (r.exit_code != 0 && r.output.find("cannot create a headless OpenGL") != std::string::npos)
            GTEST_SKIP() << r.output;
        ASSERT_EQ(r.exit_code, 0) << r.output;
        const std::size_t at = r.output.find("  cluster: ");
        ASSERT_NE(at, std::string::npos) << r.output;
        reports[beside] = r.output.substr(at, r.output.find('\n', at) - at);
    }
    // 25 frames of steps (the first frame is drawn before any) to t = 0.5, measured after the
    // first step (t = 0.005), then at 0.205 and 0.405.
    EXPECT_NE(reports[0].find("cluster: 3 measurements; at t = 0.4"), std::string::npos) << reports[0];
    EXPECT_EQ(reports[0], reports[1]);
}

}  // namespace
}  // namespace nbody
