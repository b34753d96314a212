// Defaults that fit the machine, as the viewer applies them (issue 33, item 3): `--bodies auto`
// runs a galaxy scene on the tree code with the N measured to fit (a window's default), and says
// what it chose and why; the looks follow that N unless --point-size, --exposure or --glow are given.
// Headless EGL on Mesa (the CPU's rule; the GPU's is the same fit, tests/app/machine_defaults_test.cpp).

#include <gtest/gtest.h>

#include <regex>
#include <string>

#include "nbody/render/sprite_looks.hpp"
#include "test_support.hpp"

namespace nbody {
namespace {

test::CommandResult view(const std::string& arguments) {
    return test::run_command("timeout 300 '" + test::nbody_executable() +
                             "' view --headless --backend cpu --no-ui --size 160x90 --frames 1 " + arguments);
}

bool no_egl(const test::CommandResult& r) {
    return r.exit_code != 0 && r.output.find("cannot create a headless OpenGL") != std::string::npos;
}

TEST(FitToMachine, BodiesAutoMeasuresAStepAndSaysWhatItChose) {
    const auto r = view("--bodies auto");
    if (no_egl(r)) GTEST_SKIP() << r.output;
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_NE(r.output.find("the tree code computes the forces"), std::string::npos) << r.output;
    std::smatch m;
    ASSERT_TRUE(std::regex_search(r.output, m, std::regex(R"(a step of 8192 bodies took [0-9.]+ ms here: showing (\d+) bodies)")))
        << r.output;
    const std::size_t chosen = std::stoul(m[1].str());
    EXPECT_GE(chosen, 8192u);
    EXPECT_LE(chosen, 65536u);
    EXPECT_EQ(chosen % 1024, 0u);
    EXPECT_NE(r.output.find("N = " + std::to_string(chosen) + ","), std::string::npos) << "the run shows that N\n"
                                                                                       << r.output;
    // The run itself steps with the tree the fit timed (device run 105: --gravity's default, applied
    // with the kernel options after the fit, put every pair back: 3 frames/s at 1M).
    EXPECT_NE(r.output.find("gravity: tree"), std::string::npos) << r.output;
}

TEST(FitToMachine, BodiesTakesACountOrAuto) {
    const auto r = view("--bodies many");
    EXPECT_NE(r.exit_code, 0) << r.output;
    EXPECT_NE(r.output.find("'many' is not a positive count"), std::string::npos) << r.output;
    EXPECT_NE(test::run_nbody("view --help").output.find("auto|N (e.g. 16384, 64K, 1M)"), std::string::npos);
}

// A particle file is the bodies it holds: the CPU's smaller default N is for scene files (a file of
// more than 8,192 bodies was refused: "--bodies cannot rescale a particle file").
TEST(FitToMachine, AParticleFileKeepsItsBodiesOnTheCpu) {
    test::TempDir dir;
    const std::string csv = dir.file("big.csv");
    const auto made = test::run_nbody("run --backend cpu --scene " + test::source_dir() +
                                      "/scenes/isolated-disk.toml --bodies 9000 --steps 0 --out '" + csv + "'");
    ASSERT_EQ(made.exit_code, 0) << made.output;
    const auto r = view("--scene '" + csv + "' --gravity tree");
    if (no_egl(r)) GTEST_SKIP() << r.output;
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_NE(r.output.find("N = 9000,"), std::string::npos) << r.output;
}

// The report's looks line: chosen for N, except what was given.
TEST(FitToMachine, TheLooksFollowNButTheOptionsWin) {
    const auto r = view("--scene " + test::source_dir() + "/scenes/plummer.toml --bodies 131072 --steps-per-frame 1 "
                        "--gravity tree --exposure 2.5");
    if (no_egl(r)) GTEST_SKIP() << r.output;
    ASSERT_EQ(r.exit_code, 0) << r.output;
    const render::SpriteLooks looks = render::looks_for_bodies(131072);
    char expected[160];
    std::snprintf(expected, sizeof expected, "looks: point size %.2f px, exposure 2.50 given, glow %.2f (chosen for N = 131072",
                  looks.point_size, looks.glow);
    EXPECT_NE(r.output.find(expected), std::string::npos) << expected << "\n" << r.output;
}

}  // namespace
}  // namespace nbody
