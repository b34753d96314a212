// `nbody bench` end to end: the JSON it writes. The cpu runs need no GPU; the cuda run skips
// without one.

#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include <nlohmann/json.hpp>

#include "nbody/sim/backend.hpp"
#include "test_support.hpp"

namespace nbody {
namespace {

nlohmann::json run_bench_json(const std::string& args, const test::TempDir& dir, test::CommandResult* result) {
    const std::string path = dir.file("bench.json");
    *result = test::run_nbody("bench " + args + " --json '" + path + "'");
    if (result->exit_code != 0) return nullptr;
    return nlohmann::json::parse(test::read_text(path));  // throws on malformed JSON: the test fails
}

void expect_run_fields(const nlohmann::json& run) {
    for (const char* key : {"bodies", "unroll", "block", "threads_per_body", "ms_per_step", "interactions_per_second"})
        EXPECT_TRUE(run.contains(key)) << "missing \"" << key << "\" in " << run.dump();
}

TEST(BenchJson, CpuBackendWritesOneWellFormedRecordPerRun) {
    test::TempDir dir;
    test::CommandResult r;
    const nlohmann::json doc = run_bench_json("--backend cpu --bodies 256,300 --repeats 3 --min-ms 2", dir, &r);
    ASSERT_EQ(r.exit_code, 0) << r.output;
    ASSERT_TRUE(doc.is_object());
    EXPECT_EQ(doc.at("backend"), "cpu");
    ASSERT_TRUE(doc.at("runs").is_array());
    ASSERT_EQ(doc["runs"].size(), 2u);
    const std::size_t expected_n[] = {256, 300};
    for (std::size_t k = 0; k < 2; ++k) {
        const nlohmann::json& run = doc["runs"][k];
        expect_run_fields(run);
        EXPECT_EQ(run.at("bodies").get<std::size_t>(), expected_n[k]);
        const double ms = run.at("ms_per_step").get<double>();
        const double ips = run.at("interactions_per_second").get<double>();
        EXPECT_GT(ms, 0.0);
        const double n = double(expected_n[k]);
        EXPECT_NEAR(ips, n * n / (ms * 1e-3), 1e-6 * ips) << "interactions/s must be N^2 / time";
        EXPECT_NEAR(run.at("gflops_20").get<double>(), ips * 20 / 1e9, 1e-9 * ips);
        EXPECT_EQ(run.at("ms_per_step_samples").size(), 3u);
        EXPECT_TRUE(run.at("unroll").is_null()) << "the cpu backend has no kernel config";
    }
    // The table goes to stdout too.
    EXPECT_NE(r.output.find("ms/step"), std::string::npos) << r.output;
}

TEST(BenchJson, CheckReportsTheErrorAgainstTheReference) {
    test::TempDir dir;
    test::CommandResult r;
    const nlohmann::json doc = run_bench_json("--backend cpu --bodies 200 --repeats 1 --min-ms 1 --check", dir, &r);
    ASSERT_EQ(r.exit_code, 0) << r.output;
    const nlohmann::json& run = doc.at("runs").at(0);
    const double err = run.at("check_max_relative_error").get<double>();
    EXPECT_GE(err, 0.0);
    EXPECT_LE(err, 2e-5);
    EXPECT_TRUE(run.at("check_passed").get<bool>());
}

TEST(BenchJson, BadArgumentsFailWithAMessage) {
    test::CommandResult r = test::run_nbody("bench --backend cpu --bodies 12x");
    EXPECT_NE(r.exit_code, 0);
    EXPECT_NE(r.output.find("--bodies"), std::string::npos) << r.output;
    r = test::run_nbody("bench --backend cpu --bodies 64 --repeats 0");
    EXPECT_NE(r.exit_code, 0);
    EXPECT_NE(r.output.find("--repeats"), std::string::npos) << r.output;
    r = test::run_nbody("bench --backend warp --bodies 64");
    EXPECT_NE(r.exit_code, 0);
    EXPECT_NE(r.output.find("warp"), std::string::npos) << r.output;
    r = test::run_nbody("bench --backend cpu --bodies 64 --split sideways");
    EXPECT_NE(r.exit_code, 0);
    EXPECT_NE(r.output.find("--split: 'sideways'"), std::string::npos) << r.output;
    r = test::run_nbody("bench --backend cpu --bodies 64 --kernel-flags 32");
    EXPECT_NE(r.exit_code, 0);
    EXPECT_NE(r.output.find("--kernel-flags: 32 is not in 0..31"), std::string::npos) << r.output;
}

// The A/B options: one record per (split, flags, config), each labelled, each checked.
TEST(BenchJson, CudaSplitAndFlagsAreRecorded) {
    std::string why;
    if (!cuda_available(&why)) GTEST_SKIP() << "no usable CUDA device: " << why;
    test::TempDir dir;
    test::CommandResult r;
    const nlohmann::json doc = run_bench_json(
        "--backend cuda --bodies 5000 --unroll 8 --block 256 --threads-per-body 2 --bodies-per-thread 4 "
        "--split classic,balanced --kernel-flags 0,7 --repeats 2 --min-ms 2 --check",
        dir, &r);
    ASSERT_EQ(r.exit_code, 0) << r.output;
    ASSERT_EQ(doc.at("runs").size(), 4u);
    const char* splits[] = {"classic", "classic", "balanced", "balanced"};
    const int flags[] = {0, 7, 0, 7};
    for (int k = 0; k < 4; ++k) {
        const nlohmann::json& run = doc["runs"][k];
        EXPECT_EQ(run.at("split"), splits[k]) << run.dump();
        EXPECT_EQ(run.at("kernel_flags"), flags[k]) << run.dump();
        EXPECT_TRUE(run.at("valid").get<bool>()) << run.dump();
        EXPECT_TRUE(run.at("check_passed").get<bool>()) << run.dump();
    }
}

TEST(BenchJson, CudaSweepRecordsEveryConfig) {
    std::string why;
    if (!cuda_available(&why)) GTEST_SKIP() << "no usable CUDA device: " << why;
    test::TempDir dir;
    test::CommandResult r;
    const nlohmann::json doc = run_bench_json(
        "--backend cuda --bodies 4096 --unroll 4,8 --block 128,256 --threads-per-body 1,4 --repeats 2 --min-ms 2 --check",
        dir, &r);
    ASSERT_EQ(r.exit_code, 0) << r.output;
    ASSERT_EQ(doc.at("runs").size(), 8u);
    for (const nlohmann::json& run : doc["runs"]) {
        expect_run_fields(run);
        EXPECT_TRUE(run.at("valid").get<bool>()) << run.dump();
        EXPECT_GT(run.at("ms_per_step").get<double>(), 0.0);
        EXPECT_GT(run.at("percent_fp32_ceiling").get<double>(), 0.0);
        EXPECT_TRUE(run.at("check_passed").get<bool>()) << run.dump();
    }
    EXPECT_GT(doc.at("device").at("sm_count").get<int>(), 0);
    EXPECT_EQ(doc.at("best").size(), 1u);
}

// A precision mode without tunables times the default config moved to that mode's instances, its
// block included: ds and fp32-jbag use too many registers for the fp32 default's 1024 threads on
// an H200, and a bench that only printed "refused" rows measured nothing.
TEST(BenchJson, CudaPrecisionModesWithoutTunablesRunAtABlockThatFits) {
    std::string why;
    if (!cuda_available(&why)) GTEST_SKIP() << "no usable CUDA device: " << why;
    test::TempDir dir;
    test::CommandResult r;
    const nlohmann::json doc =
        run_bench_json("--backend cuda --bodies 8192 --precision fp32-jbag,ds --repeats 1 --min-ms 1", dir, &r);
    ASSERT_EQ(r.exit_code, 0) << r.output;
    ASSERT_EQ(doc.at("runs").size(), 2u) << r.output;
    for (const nlohmann::json& run : doc["runs"]) {
        EXPECT_TRUE(run.at("valid").get<bool>()) << run.dump();
        EXPECT_GT(run.at("ms_per_step").get<double>(), 0.0) << run.dump();
    }
}

}  // namespace
}  // namespace nbody
