// `nbody accuracy` and `--precision` from the command line. The help and the refusals of bad
// options need no GPU (options are checked before any work); the short end-to-end run needs one
// and checks the no-GPU message otherwise.

#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

#include "nbody/sim/backend.hpp"
#include "test_support.hpp"

namespace nbody {
namespace {

bool contains(const std::string& text, const std::string& part) {
    return text.find(part) != std::string::npos;
}

TEST(AccuracyCli, HelpNamesTheOptionsAndTheMeasure) {
    const test::CommandResult r = test::run_nbody("accuracy --help");
    ASSERT_EQ(r.exit_code, 0) << r.output;
    for (const char* part : {"--bodies", "--precision", "--softening", "--offset", "--energy",
                             "--energy-bodies", "--json", "Chamomile", "fp32-jbag"})
        EXPECT_TRUE(contains(r.output, part)) << "help lacks '" << part << "':\n" << r.output;
}

TEST(AccuracyCli, TopLevelHelpListsTheCommand) {
    const test::CommandResult r = test::run_nbody("--help");
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_TRUE(contains(r.output, "accuracy")) << r.output;
}

struct BadOption {
    const char* args;
    const char* message;
};

TEST(AccuracyCli, BadOptionsAreRefusedWithTheReason) {
    const BadOption cases[] = {
        {"--precision fp16", "unknown precision 'fp16'; supported: fp32, fp32-jbag, ds, fp64"},
        {"--precision fp32,double", "unknown precision 'double'"},
        {"--bodies 0", "--bodies: '0' is not a positive count"},
        {"--bodies 2K,-5", "--bodies: '-5' is not a positive count"},
        {"--bodies 12x", "--bodies: '12x' is not a positive count"},
        {"--softening 0", "--softening must be a finite number > 0"},
        {"--softening -0.1", "--softening must be a finite number > 0"},
        {"--offset -1", "--offset must be a finite distance >= 0"},
        {"--energy-dt 0", "--energy-dt must be > 0"},
        {"--energy-bodies none", "--energy-bodies: 'none' is not a positive count"},
        {"--repeats 0", "--repeats must be >= 1"},
        {"--unroll 0", "--unroll must be >= 1"},
    };
    for (const BadOption& c : cases) {
        const test::CommandResult r = test::run_nbody(std::string("accuracy ") + c.args);
        EXPECT_NE(r.exit_code, 0) << c.args << ":\n" << r.output;
        EXPECT_TRUE(contains(r.output, c.message)) << c.args << ": expected '" << c.message << "' in:\n"
                                                   << r.output;
    }
    // A CLI11-level error (a value that is not a number) is reported by the parser.
    const test::CommandResult r = test::run_nbody("accuracy --softening abc");
    EXPECT_NE(r.exit_code, 0) << r.output;
    EXPECT_TRUE(contains(r.output, "--softening")) << r.output;
}

TEST(PrecisionCli, RunRefusesAnUnknownPrecision) {
    test::TempDir dir;
    const std::string input = dir.file("two.csv");
    test::write_text(input, "x,y,z,vx,vy,vz,m\n0,0,0,0,0,0,1\n1,0,0,0,1,0,0.001\n");
    const test::CommandResult r =
        test::run_nbody("run --input '" + input + "' --steps 2 --backend cpu --precision half");
    EXPECT_NE(r.exit_code, 0) << r.output;
    EXPECT_TRUE(contains(r.output, "unknown precision 'half'")) << r.output;
}

TEST(PrecisionCli, RunOnTheCpuBackendSaysPrecisionDoesNotApply) {
    test::TempDir dir;
    const std::string input = dir.file("two.csv");
    test::write_text(input, "x,y,z,vx,vy,vz,m\n0,0,0,0,0,0,1\n1,0,0,0,1,0,0.001\n");
    const test::CommandResult r =
        test::run_nbody("run --input '" + input + "' --steps 2 --backend cpu --precision ds");
    EXPECT_EQ(r.exit_code, 0) << r.output;
    EXPECT_TRUE(contains(r.output, "--precision ds applies to the cuda backend")) << r.output;
}

// End to end on a small sphere: with a GPU the JSON carries a row per mode; without one the
// command fails with the reason and writes nothing.
TEST(AccuracyCli, SmallRunWritesTheTableAndJsonOrSaysWhyNot) {
    test::TempDir dir;
    const std::string json = dir.file("acc.json");
    const test::CommandResult r = test::run_nbody(
        "accuracy --bodies 1K --precision fp32,ds,fp64 --offset 1000 "
        "--repeats 1 --min-ms 1 --json '" +
        json + "'");
    std::string why;
    if (!cuda_available(&why)) {
        EXPECT_NE(r.exit_code, 0) << r.output;
        EXPECT_TRUE(contains(r.output, "CUDA")) << r.output;
        EXPECT_FALSE(std::filesystem::exists(json));
        GTEST_SKIP() << "no usable CUDA device (" << why << "); checked the refusal only";
    }
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_TRUE(contains(r.output, "Chamomile")) << r.output;
    const nlohmann::json doc = nlohmann::json::parse(test::read_text(json));
    ASSERT_EQ(doc.at("results").size(), 3u) << doc.dump(2);
    for (const nlohmann::json& row : doc["results"]) {
        ASSERT_TRUE(row.at("valid").get<bool>()) << row.dump();
        EXPECT_GT(row.at("emax").get<double>(), 0.0) << row.dump();
        EXPECT_GT(row.at("interactions_per_second").get<double>(), 0.0) << row.dump();
    }
    const double fp32_far = doc["results"][0]["emax_displaced"], ds_far = doc["results"][1]["emax_displaced"];
    EXPECT_GT(fp32_far, 10 * ds_far) << doc.dump(2);
}

}  // namespace
}  // namespace nbody
