// `nbody run --energy tree|exact`: where the energy of a run comes from, named on its energy line;
// `exact` keeps the old figures (every pair in double) for tree runs too.

#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <string>

#include "nbody/sim/diagnostics.hpp"
#include "nbody/sim/scene.hpp"
#include "test_support.hpp"

namespace nbody {
namespace {

std::string plummer_scene() { return test::source_dir() + "/scenes/plummer.toml"; }

// Each run is bounded: a hung child fails the test instead of stalling the suite.
test::CommandResult run_nbody_briefly(const std::string& arguments) {
    return test::run_command("timeout 120 '" + test::nbody_executable() + "' " + arguments);
}

// The number after `key` on the energy line ("E0 = ", "E = "); NaN when absent.
double value_after(const std::string& output, const std::string& key) {
    const std::size_t line = output.find("relative energy error");
    if (line == std::string::npos) return std::nan("");
    const std::size_t at = output.find(key, line);
    return at == std::string::npos ? std::nan("") : std::strtod(output.c_str() + at + key.size(), nullptr);
}

const std::string kTreeRun = "run --scene " + plummer_scene() + " --bodies 2048 --steps 2 --backend cpu --gravity tree";

TEST(EnergySourceCli, ATreeRunTakesItsEnergyFromTheTreeAndSaysSo) {
    const auto r = run_nbody_briefly(kTreeRun);
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_NE(r.output.find("potential from the tree walk (theta 1, alpha 0.0007): the error is the integrator's plus "
                            "the tree's"),
              std::string::npos)
        << r.output;
    const Scene scene = load_scene(plummer_scene(), 2048);
    const double exact = compute_diagnostics(scene.state, scene.params.softening).total;
    const double e0 = value_after(r.output, "E0 = ");
    EXPECT_NE(e0, exact) << r.output;  // not the direct sum
    EXPECT_NEAR(e0 / exact, 1.0, 1e-3) << r.output;
}

TEST(EnergySourceCli, ExactGivesTheOldFigures) {
    const auto r = run_nbody_briefly(kTreeRun + " --energy exact");
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_NE(r.output.find("potential summed over every pair in double"), std::string::npos) << r.output;
    const Scene scene = load_scene(plummer_scene(), 2048);
    const double exact = compute_diagnostics(scene.state, scene.params.softening).total;
    EXPECT_NEAR(value_after(r.output, "E0 = ") / exact, 1.0, 1e-8) << r.output;  // printed with 9 digits
    // A direct run sums every pair, as before.
    const auto direct = run_nbody_briefly("run --scene " + plummer_scene() + " --bodies 2048 --steps 2 --backend cpu");
    ASSERT_EQ(direct.exit_code, 0) << direct.output;
    EXPECT_NE(direct.output.find("potential summed over every pair in double"), std::string::npos) << direct.output;
    EXPECT_NEAR(value_after(direct.output, "E0 = ") / exact, 1.0, 1e-8) << direct.output;
}

TEST(EnergySourceCli, TreeEnergyWithoutATreeAndUnknownSourcesAreRefused) {
    const std::string direct = "run --scene " + plummer_scene() + " --bodies 256 --steps 1 --backend cpu";
    auto r = run_nbody_briefly(direct + " --energy tree");
    EXPECT_EQ(r.exit_code, 1) << r.output;
    EXPECT_NE(r.output.find("--energy tree takes the potential from the tree walk: it needs --gravity tree"),
              std::string::npos)
        << r.output;
    r = run_nbody_briefly(direct + " --gravity tree --energy fast");
    EXPECT_EQ(r.exit_code, 1) << r.output;
    EXPECT_NE(r.output.find("--energy: 'fast' is not an energy source"), std::string::npos) << r.output;
}

}  // namespace
}  // namespace nbody
