// run --timesteps shared|block (--eta, --max-level): the mistakes are refused before any work with
// what is supported, and a block run reports its force evaluations and levels.

#include <gtest/gtest.h>

#include <string>

#include "test_support.hpp"

namespace nbody {
namespace {

using test::run_nbody;

const std::string kPlummer = " --scene " + test::source_dir() + "/scenes/plummer.toml --bodies 512 --backend cpu";

bool has(const test::CommandResult& r, const std::string& text) { return r.output.find(text) != std::string::npos; }

void expect_refused(const std::string& args, const std::string& message) {
    const auto r = run_nbody("run" + kPlummer + " --steps 1 " + args);
    EXPECT_EQ(r.exit_code, 1) << args << "\n" << r.output;
    EXPECT_TRUE(has(r, message)) << args << "\n" << r.output;
    EXPECT_FALSE(has(r, "relative energy error")) << args;  // refused before the run
}

TEST(TimeStepsCli, MistakesAreRefusedWithWhatIsSupported) {
    expect_refused("--timesteps block", "--timesteps block runs with --gravity tree");
    expect_refused("--timesteps sideways --gravity tree", "unknown --timesteps 'sideways'; supported: shared, block");
    expect_refused("--timesteps block --gravity tree --eta 0", "eta must be a number > 0 (got 0)");
    expect_refused("--timesteps block --gravity tree --eta -1", "eta must be a number > 0");
    expect_refused("--timesteps block --gravity tree --max-level 40", "max level 40 is outside 0..30");
    expect_refused("--gravity tree --max-level 4", "--eta and --max-level belong to --timesteps block");
    expect_refused("--gravity tree --eta 0.1", "run --timesteps block (leapfrog) takes --eta too");
    expect_refused("--timesteps block --gravity tree --dt-max 1", "--timesteps block takes --dt as its largest step");
    expect_refused("--timesteps block --gravity tree --softening 0", "need a softening > 0");
    const auto r = run_nbody("run" + kPlummer + " --integrator hermite4 --t-end 0.1 --timesteps block");
    EXPECT_EQ(r.exit_code, 1) << r.output;
    EXPECT_TRUE(has(r, "--timesteps block is leapfrog's; hermite4 chooses its own block steps")) << r.output;
}

TEST(TimeStepsCli, BlockRunReportsEvaluationsAndLevels) {
    const auto r = run_nbody("run" + kPlummer + " --gravity tree --steps 2 --dt 0.05 --timesteps block --eta 0.1");
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_TRUE(has(r, "time steps block eta=0.1 max-level=8: force evaluations")) << r.output;
    EXPECT_TRUE(has(r, "levels at the last step's start")) << r.output;
    EXPECT_TRUE(has(r, "relative energy error")) << r.output;
    const auto shared = run_nbody("run" + kPlummer + " --gravity tree --steps 2 --dt 0.05");
    ASSERT_EQ(shared.exit_code, 0) << shared.output;
    // 512 bodies: the first pass and two steps.
    EXPECT_TRUE(has(shared, "time steps shared: force evaluations 1536 (1.5 per body per step")) << shared.output;
}

TEST(TimeStepsCli, HelpNamesTheOptions) {
    const auto r = run_nbody("run --help");
    EXPECT_EQ(r.exit_code, 0);
    EXPECT_TRUE(has(r, "--timesteps")) << r.output;
    EXPECT_TRUE(has(r, "--max-level")) << r.output;
}

}  // namespace
}  // namespace nbody
