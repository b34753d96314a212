// `nbody run` as a user runs it: files in, files out, clear errors for bad input.

#include <gtest/gtest.h>

#include <cstdio>
#include <cstring>

#include "nbody/sim/csv.hpp"
#include "nbody/sim/gravity.hpp"
#include "nbody/sim/ic/plummer.hpp"
#include "test_support.hpp"

namespace nbody {
namespace {

using test::read_text;
using test::run_nbody;
using test::TempDir;
using test::write_text;

TEST(RunCli, SteppingZeroTimesRoundTripsACsvExactly) {
    TempDir dir;
    State s = ic::make_plummer({.bodies = 500, .seed = 9});
    // Awkward values: tiny, huge, negative zero and subnormal must survive too.
    s.pos_mass[0].x = 1e-38f;
    s.pos_mass[1].y = -3.4e38f;
    s.velocity[2].z = -0.0f;
    s.pos_mass[3].z = 1.17549435e-39f;
    write_csv(dir.file("in.csv"), s);
    const auto r = run_nbody("run --input " + dir.file("in.csv") + " --steps 0 --out " + dir.file("out.csv"));
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_EQ(read_text(dir.file("in.csv")), read_text(dir.file("out.csv")));
    const State back = read_csv(dir.file("out.csv"));
    ASSERT_EQ(back.size(), s.size());
    for (std::size_t i = 0; i < s.size(); ++i) {
        EXPECT_EQ(0, std::memcmp(&back.pos_mass[i], &s.pos_mass[i], sizeof(Vec4f))) << "body " << i;
        EXPECT_EQ(0, std::memcmp(&back.velocity[i].x, &s.velocity[i].x, 3 * sizeof(float))) << "body " << i;
    }
}

TEST(RunCli, IntegratesAndReportsEnergyErrorAndMomentumDrift) {
    TempDir dir;
    write_csv(dir.file("in.csv"), ic::make_plummer({.bodies = 256, .seed = 2}));
    const auto r = run_nbody("run --input " + dir.file("in.csv") + " --steps 50 --dt 0.005 --softening 0.05 " +
                             "--backend cpu --out " + dir.file("out.csv"));
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_NE(r.output.find("relative energy error"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("momentum drift"), std::string::npos) << r.output;
    // The step calls (1, 4, 16, ... steps): the first apart, then the fastest and the slowest, where.
    const std::size_t at = r.output.find("time per step by step call: the first ");
    ASSERT_NE(at, std::string::npos) << r.output;
    double first = -1, fastest = -1, slowest = -1;
    int first_steps = 0, calls = 0;
    long long from = 0, to = 0;
    ASSERT_EQ(std::sscanf(r.output.c_str() + at,
                          "time per step by step call: the first %lf ms (%d step), then %lf to %lf ms over %d calls "
                          "(the slowest: steps %lld-%lld)",
                          &first, &first_steps, &fastest, &slowest, &calls, &from, &to),
              7)
        << r.output.substr(at, 200);
    EXPECT_EQ(first_steps, 1);
    EXPECT_GT(first, 0.0);
    EXPECT_GT(fastest, 0.0);
    EXPECT_LE(fastest, slowest);
    EXPECT_GE(calls, 1);
    EXPECT_GE(from, 2);  // the first call is step 1
    EXPECT_LE(from, to);
    EXPECT_LE(to, 50);
    const State out = read_csv(dir.file("out.csv"));
    const State in = read_csv(dir.file("in.csv"));
    ASSERT_EQ(out.size(), 256u);
    EXPECT_NE(out.pos_mass[0].x, in.pos_mass[0].x) << "50 steps should have moved the bodies";
}

TEST(RunCli, ExtraColumnsAreAllowed) {
    TempDir dir;
    write_text(dir.file("in.csv"), "id,m,x,y,z,vx,vy,vz,colour\n1,1,0,0,0,0,0,0,red\n2,1,1,0,0,0,1,0,blue\n");
    const auto r = run_nbody("run --input " + dir.file("in.csv") + " --steps 0 --out " + dir.file("out.csv"));
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_EQ(read_text(dir.file("out.csv")), "x,y,z,vx,vy,vz,m\n0,0,0,0,0,0,1\n1,0,0,0,1,0,1\n");
}

struct BadInput {
    const char* name;
    const char* csv;         // file contents (nullptr: use a valid file)
    const char* extra_args;  // appended to the command line
    const char* message;     // must appear in the output
};

void PrintTo(const BadInput& c, std::ostream* os) { *os << c.name; }

class RunCliBadInput : public ::testing::TestWithParam<BadInput> {};

TEST_P(RunCliBadInput, FailsWithAClearMessage) {
    const BadInput& c = GetParam();
    TempDir dir;
    write_text(dir.file("in.csv"), c.csv ? c.csv : "x,y,z,vx,vy,vz,m\n0,0,0,0,0,0,1\n1,0,0,0,0,0,1\n");
    const std::string extra = c.extra_args;
    const std::string input = extra.rfind("--input", 0) == 0 ? "" : "--input " + dir.file("in.csv");
    const auto r = run_nbody("run " + input + " --steps 2 " + extra);
    EXPECT_NE(r.exit_code, 0) << r.output;
    EXPECT_NE(r.output.find(c.message), std::string::npos) << "output was:\n" << r.output;
    EXPECT_EQ(r.output.find("terminate called"), std::string::npos) << r.output;
    EXPECT_EQ(r.output.find("Segmentation"), std::string::npos) << r.output;
}

INSTANTIATE_TEST_SUITE_P(
    Cases, RunCliBadInput,
    ::testing::Values(BadInput{"missing_column", "x,y,z,vx,vy,m\n0,0,0,0,0,1\n", "", "missing column 'vz'"},
                      BadInput{"non_numeric", "x,y,z,vx,vy,vz,m\n0,0,0,0,0,0,1\n0,abc,0,0,0,0,1\n", "",
                               "in.csv:3: column 'y': 'abc' is not a number"},
                      BadInput{"no_bodies", "x,y,z,vx,vy,vz,m\n", "", "no bodies (N = 0)"},
                      BadInput{"negative_mass", "x,y,z,vx,vy,vz,m\n0,0,0,0,0,0,-1\n", "", "in.csv:2: negative mass"},
                      BadInput{"field_count", "x,y,z,vx,vy,vz,m\n0,0,0,0,0,0\n", "", "in.csv:2: expected 7 fields"},
                      BadInput{"zero_dt", nullptr, "--dt 0", "--dt must be > 0"},
                      BadInput{"negative_dt", nullptr, "--dt -0.1", "--dt must be > 0"},
                      BadInput{"unknown_flag", nullptr, "--frobnicate 3", "--frobnicate"},
                      BadInput{"unknown_backend", nullptr, "--backend gpu", "unknown backend 'gpu'"},
                      BadInput{"missing_file", nullptr, "--input /nonexistent/x.csv", "cannot open '/nonexistent/x.csv'"},
                      // /proc takes no new folders, even from root (who ignores permissions).
                      BadInput{"unwritable_output", nullptr, "--out /proc/nonexistent/out.csv",
                               "cannot create the folder '/proc/nonexistent' for --out '/proc/nonexistent/out.csv'"}),
    [](const auto& info) { return std::string(info.param.name); });

TEST(RunCli, HelpDescribesEveryOption) {
    const auto r = run_nbody("run --help");
    EXPECT_EQ(r.exit_code, 0) << r.output;
    for (const char* flag : {"--input", "--out", "--steps", "--dt", "--softening", "--backend"})
        EXPECT_NE(r.output.find(flag), std::string::npos) << flag << " missing from:\n" << r.output;
}

// The tree's defaults once changed in the code and not in --help; the help now quotes the code.
TEST(RunCli, HelpQuotesTheTreeDefaultsTheCodeUses) {
    const auto r = run_nbody("run --help");
    const TreeParams defaults;
    std::string help = r.output;
    std::erase(help, '\n');  // CLI11 may wrap a description
    for (const std::string& quoted : {"interaction list, 1..1024 (default " + std::to_string(defaults.group_size) + ")",
                                      "leaf cell, 1..256 (default " + std::to_string(defaults.leaf_size) + ")",
                                      std::string("(default 1)"), std::string("(default 0.0007;")})
        EXPECT_NE(help.find(quoted), std::string::npos) << quoted << " missing from:\n" << r.output;
    EXPECT_EQ(defaults.theta, 1.0);  // the last two lines above quote them
    EXPECT_EQ(defaults.alpha, 0.0007);
}

}  // namespace
}  // namespace nbody
