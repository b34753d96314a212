// `nbody run --integrator hermite4|hermite6`: end to end through the executable.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>
#include <string>
#include <vector>

#include "test_support.hpp"

namespace nbody {
namespace {

using test::run_nbody;

std::vector<std::vector<double>> read_rows(const std::string& text) {
    std::vector<std::vector<double>> rows;
    std::istringstream in(text);
    std::string line;
    std::getline(in, line);
    while (std::getline(in, line)) {
        std::vector<double> row;
        std::stringstream ss(line);
        std::string f;
        while (std::getline(ss, f, ',')) row.push_back(std::stod(f));
        rows.push_back(row);
    }
    return rows;
}

const char* kFigureEight =
    "x,y,z,vx,vy,vz,m\n"
    "0.97000435971594168,-0.24308750704796772,0,0.46620367583808053,0.43236574253045301,0,1\n"
    "-0.97000435971594168,0.24308750704796772,0,0.46620367583808053,0.43236574253045301,0,1\n"
    "0,0,0,-0.93240735167616107,-0.86473148506090602,0,1\n";

// The largest difference of a position or velocity component between two CSV files of one system.
double largest_difference(const std::string& a_text, const std::string& b_text) {
    const auto a = read_rows(a_text), b = read_rows(b_text);
    if (a.size() != b.size()) return INFINITY;
    double d = 0;
    for (std::size_t i = 0; i < a.size(); ++i)
        for (int c = 0; c < 6; ++c) d = std::max(d, std::abs(b[i][std::size_t(c)] - a[i][std::size_t(c)]));
    return d;
}

TEST(HermiteCli, FigureEightFromADoubleCsvClosesTo1e8) {
    test::TempDir dir;
    test::write_text(dir.file("in.csv"), kFigureEight);
    const auto r = run_nbody("run --integrator hermite4 --backend cpu -i " + dir.file("in.csv") +
                             " --t-end 6.3259139542252996 --eta 5e-4 -o " + dir.file("out.csv"));
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_NE(r.output.find("hermite4"), std::string::npos) << r.output;
    EXPECT_LT(largest_difference(kFigureEight, test::read_text(dir.file("out.csv"))), 1e-8) << r.output;
    // Every value that is not a small whole number carries 17 significant digits, so the file reads
    // back to the same doubles.
    const std::string text = test::read_text(dir.file("out.csv"));
    std::string values = text.substr(text.find('\n') + 1);
    std::replace(values.begin(), values.end(), '\n', ',');
    std::istringstream fields(values);
    int checked = 0;
    for (std::string field; std::getline(fields, field, ',');) {
        if (field.empty() || field.find_first_not_of("-0123456789") == std::string::npos) continue;  // 0, the masses
        const std::string mantissa = field.substr(0, field.find_first_of("eE"));
        const auto digits = std::count_if(mantissa.begin(), mantissa.end(), [](char c) { return c >= '0' && c <= '9'; });
        EXPECT_GE(digits, 16) << field;  // %.17g drops trailing zeros
        ++checked;
    }
    EXPECT_GE(checked, 12) << text;
}

// A head-on pair with zero softening: the step underflows as they meet. The message names the time
// and the other body, and -o gets the last completed step's state, not nothing.
TEST(HermiteCli, StepUnderflowWritesTheLastGoodState) {
    test::TempDir dir;
    test::write_text(dir.file("pair.csv"), "x,y,z,vx,vy,vz,m\n0.5,0,0,0,0,0,0.5\n-0.5,0,0,0,0,0,0.5\n");
    const auto r = run_nbody("run --integrator hermite4 --backend cpu -i " + dir.file("pair.csv") +
                             " --softening 0 --t-end 2 -o " + dir.file("out.csv"));
    EXPECT_EQ(r.exit_code, 1) << r.output;
    EXPECT_NE(r.output.find("step underflow at t = 1.11"), std::string::npos) << r.output;  // free fall: pi/2^1.5 = 1.1107
    EXPECT_NE(r.output.find("its nearest body is"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("wrote the last good state (t = 1.11"), std::string::npos) << r.output;
    const auto rows = read_rows(test::read_text(dir.file("out.csv")));
    ASSERT_EQ(rows.size(), 2u);
    EXPECT_GT(rows[0][0], 0.0);  // not yet met: the state before the failing step
    EXPECT_LT(rows[0][0], 1e-3);
    EXPECT_TRUE(std::isfinite(rows[0][3]));
}

// Issue 18's figure-eight target from the command line: hermite6 at its default eta closes one
// period to 1e-8 with fewer force evaluations than leapfrog's 3,075 for 1e-4.
TEST(HermiteCli, FigureEightWithHermite6AtTheDefaultEta) {
    test::TempDir dir;
    test::write_text(dir.file("in.csv"), kFigureEight);
    const auto r = run_nbody("run --integrator hermite6 --backend auto -i " + dir.file("in.csv") +
                             " --t-end 6.3259139542252996 -o " + dir.file("out.csv"));
    ASSERT_EQ(r.exit_code, 0) << r.output;
    // The cpu engine, or the GPU's fp64 snap kernel where there is one (the same trajectory to ~1e-15).
    EXPECT_TRUE(r.output.find("hermite6 (cpu engine)") != std::string::npos ||
                r.output.find("hermite6 (cuda engine)") != std::string::npos)
        << r.output;
    EXPECT_NE(r.output.find("eta 0.1,"), std::string::npos) << r.output;
    EXPECT_LT(largest_difference(kFigureEight, test::read_text(dir.file("out.csv"))), 1e-8) << r.output;
    const auto at = r.output.find(" force evaluations");
    ASSERT_NE(at, std::string::npos) << r.output;
    const long evaluations = std::stol(r.output.substr(r.output.rfind(' ', at - 1) + 1));
    EXPECT_LT(evaluations, 3075) << r.output;
}

// hermite6 on --backend cuda: the fp64 snap kernel where there is a GPU, else the reason.
TEST(HermiteCli, Hermite6OnTheCudaBackend) {
    const auto r = run_nbody("run --integrator hermite6 --backend cuda --precision ds --scene " + test::source_dir() +
                             "/scenes/few-body/figure-eight.toml --t-end 1");
    if (r.exit_code == 0) {
        EXPECT_NE(r.output.find("hermite6 (cuda engine)"), std::string::npos) << r.output;
        EXPECT_NE(r.output.find("cuda, fp64"), std::string::npos) << r.output;  // ds was asked for: said, not silent
    } else {
        EXPECT_NE(r.output.find("cuda force engine unavailable"), std::string::npos) << r.output;
    }
}

TEST(HermiteCli, SnapshotResumesTheBlockStepRunExactly) {
  for (const char* integrator : {"hermite4", "hermite6"}) {
    SCOPED_TRACE(integrator);
    test::TempDir dir;
    const std::string common = std::string(" --integrator ") + integrator + " --backend cpu --softening 0.01" +
                               (std::string(integrator) == "hermite4" ? " --eta 0.02" : " --eta 0.3");
    auto r = run_nbody("run --scene " + test::source_dir() + "/scenes/plummer.toml -n 64" + common +
                       " --t-end 0.5 -o " + dir.file("half.nbsnap"));
    ASSERT_EQ(r.exit_code, 0) << r.output;
    r = run_nbody("run -i " + dir.file("half.nbsnap") + common + " --t-end 1 -o " + dir.file("resumed.csv"));
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_NE(r.output.find("resuming"), std::string::npos) << r.output;
    r = run_nbody("run --scene " + test::source_dir() + "/scenes/plummer.toml -n 64" + common + " --t-end 1 -o " +
                  dir.file("straight.csv"));
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_EQ(test::read_text(dir.file("resumed.csv")), test::read_text(dir.file("straight.csv")));
  }
}

TEST(HermiteCli, ZeroSeparationNamesTheBodiesAndTheTime) {
    test::TempDir dir;
    test::write_text(dir.file("bad.csv"), "x,y,z,vx,vy,vz,m\n0,0,0,0,0,0,1\n1,0,0,0,0,0,1\n1,0,0,0,0,0,1\n");
    const auto r = run_nbody("run --integrator hermite4 --backend cpu -i " + dir.file("bad.csv") +
                             " --softening 0 --t-end 1 -o " + dir.file("out.csv"));
    EXPECT_NE(r.exit_code, 0);
    EXPECT_NE(r.output.find("bodies 1 and 2"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("zero separation"), std::string::npos) << r.output;
}

TEST(HermiteCli, ClearErrors) {
    auto r = run_nbody("run --integrator hermite4 --scene " + test::source_dir() + "/scenes/few-body/figure-eight.toml");
    EXPECT_NE(r.exit_code, 0);
    EXPECT_NE(r.output.find("--t-end"), std::string::npos) << r.output;
    r = run_nbody("run --integrator rk4 --scene " + test::source_dir() + "/scenes/few-body/figure-eight.toml --t-end 1");
    EXPECT_NE(r.exit_code, 0);
    EXPECT_NE(r.output.find("leapfrog, hermite4"), std::string::npos) << r.output;
    r = run_nbody("run --integrator hermite4 --eta -1 --scene " + test::source_dir() + "/scenes/few-body/figure-eight.toml --t-end 1");
    EXPECT_NE(r.exit_code, 0);
    EXPECT_NE(r.output.find("--eta"), std::string::npos) << r.output;
}

// --profile: every phase of the block steps with its share, the same run (blocks, energy) as without;
// refused, with the reason, for leapfrog.
TEST(HermiteCli, ProfileListsThePhasesAndChangesNothing) {
    const std::string common = "run --integrator hermite4 --backend cpu --scene " + test::source_dir() +
                               "/scenes/plummer.toml -n 256 --t-end 0.0625";
    const auto plain = run_nbody(common);
    const auto profiled = run_nbody(common + " --profile");
    ASSERT_EQ(plain.exit_code, 0) << plain.output;
    ASSERT_EQ(profiled.exit_code, 0) << profiled.output;
    for (const char* phase : {"profile: ", "select", "predict", "force (engine compute)", "correct", "commit", "requeue",
                              "other (outside the phases)", "ns/body step"})
        EXPECT_NE(profiled.output.find(phase), std::string::npos) << phase << "\n" << profiled.output;
    EXPECT_EQ(plain.output.find("profile: "), std::string::npos) << plain.output;
    auto line = [](const std::string& text, const std::string& start) {
        const std::size_t at = text.find(start);
        return at == std::string::npos ? std::string() : text.substr(at, text.find('\n', at) - at);
    };
    EXPECT_EQ(line(plain.output, "relative energy error"), line(profiled.output, "relative energy error"));
    const auto blocks = [&](const std::string& text) {  // "N blocks, M force evaluations" (no times, no rates)
        const std::string s = line(text, "hermite4 (cpu engine)");
        const std::size_t from = s.find(" s: ") + 4;
        return s.substr(from, s.find(" force evaluations") - from);
    };
    EXPECT_EQ(blocks(plain.output), blocks(profiled.output));
    const auto refused = run_nbody("run --scene " + test::source_dir() + "/scenes/plummer.toml -n 64 --steps 2 --profile");
    EXPECT_NE(refused.exit_code, 0);
    EXPECT_NE(refused.output.find("--profile"), std::string::npos) << refused.output;
}

TEST(HermiteCli, FewBodyScenesRun) {
    for (const char* integrator : {"hermite4", "hermite6"})
        for (const char* scene : {"figure-eight", "pythagorean-three-body"}) {
            const auto r = run_nbody(std::string("run --integrator ") + integrator + " --backend cpu --scene " +
                                     test::source_dir() + "/scenes/few-body/" + scene + ".toml --t-end 1");
            EXPECT_EQ(r.exit_code, 0) << scene << ": " << r.output;
            EXPECT_NE(r.output.find(std::string(integrator) + " (cpu engine)"), std::string::npos) << r.output;
            EXPECT_NE(r.output.find("relative energy error"), std::string::npos) << r.output;
        }
}

// Leapfrog's step count, pair modes, tree and per-body thread options are refused by name (they were
// accepted and ignored), each with what the Hermite integrators take instead.
TEST(HermiteCli, LeapfrogOnlyOptionsAreRefusedByName) {
    const std::string base = "run --integrator hermite4 --backend cpu --scene " + test::source_dir() +
                             "/scenes/few-body/figure-eight.toml --t-end 0.1 ";
    for (const char* option : {"--steps 5", "--pairs symmetric", "--gravity tree", "--theta 0.5", "--alpha 0.001",
                               "--leaf-size 8", "--group-size 32", "--threads-per-body 2", "--bodies-per-lane 2",
                               "--dt 0.01"}) {
        const auto r = run_nbody(base + option);
        EXPECT_NE(r.exit_code, 0) << option;
        const std::string name(option, std::string(option).find(' '));  // "--gravity tree" is named whole
        EXPECT_NE(r.output.find("error: " + name), std::string::npos) << option << ": " << r.output;
        EXPECT_NE(r.output.find(" is leapfrog's; hermite4"), std::string::npos) << option << ": " << r.output;
    }
    auto r = run_nbody("run --scene " + test::source_dir() + "/scenes/plummer.toml -n 32 --steps 2 --backend cpu --j-split 2");
    EXPECT_NE(r.exit_code, 0);
    EXPECT_NE(r.output.find("--j-split tunes the Hermite engine"), std::string::npos) << r.output;
    r = run_nbody("run --integrator hermite6 --backend cpu --scene " + test::source_dir() +
                  "/scenes/few-body/figure-eight.toml --t-end 0.1 --block 256");
    EXPECT_NE(r.exit_code, 0);
    EXPECT_NE(r.output.find("hermite6 computes the snap in one kernel shape"), std::string::npos) << r.output;
}

// --block, --unroll, --bodies-per-thread and --j-split reach the cuda engine, whose line shows the shape
// it runs; an unsupported shape is refused with the supported list. On the cpu engine the line says
// they are not used.
TEST(HermiteCli, KernelOptionsReachTheCudaEngine) {
    const std::string base = "run --integrator hermite4 --scene " + test::source_dir() + "/scenes/plummer.toml -n 512 --t-end 0.01 ";
    auto r = run_nbody(base + "--backend cpu --block 64");
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_NE(r.output.find("tune the cuda engine and are not used"), std::string::npos) << r.output;
    r = run_nbody(base + "--backend cuda --block 64 --unroll 8 --bodies-per-thread 2 --j-split 3");
    if (r.output.find("cuda force engine unavailable") != std::string::npos) GTEST_SKIP() << "no usable GPU: " << r.output;
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_NE(r.output.find("(ds, block 64, unroll 8, bodies per thread 2, j-split 3)"), std::string::npos) << r.output;
    r = run_nbody(base + "--backend cuda --block 96");
    EXPECT_NE(r.exit_code, 0);
    EXPECT_NE(r.output.find("block 64 | 128 | 256"), std::string::npos) << r.output;
}

TEST(LeapfrogCli, TEndSetsTheStepCount) {
    const auto r = run_nbody("run --scene " + test::source_dir() + "/scenes/plummer.toml -n 32 --dt 0.01 --t-end 0.05 --backend cpu");
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_NE(r.output.find("5 steps"), std::string::npos) << r.output;
}

}  // namespace
}  // namespace nbody
