// `mpirun -np P nbody run` on the CPU backend: the output is byte for byte the one-process run's,
// rank 0 alone writes, and a rank that fails or disagrees ends the launch with one message naming
// the rank and the cause. Skipped in a build without MPI. Every launch has a timeout (`timeout`),
// so a hang fails the test instead of stalling CI.

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <regex>
#include <string>
#include <thread>
#include <vector>

#include "nbody/sim/csv.hpp"
#include "nbody/sim/hermite/force_engine.hpp"
#include "nbody/sim/io/snapshot.hpp"
#include "test_support.hpp"

namespace nbody::test {
namespace {

#ifdef NBODY_MPIEXEC
constexpr const char* kMpiexec = NBODY_MPIEXEC;
#else
constexpr const char* kMpiexec = "";
#endif

// 2 cores in CI: --oversubscribe lets 3 ranks start; as root OpenMPI needs --allow-run-as-root.
std::string mpirun(int ranks) {
    return std::string("timeout 300 ") + kMpiexec + " --allow-run-as-root --oversubscribe -np " + std::to_string(ranks);
}

std::string quoted(const std::string& path) { return "'" + path + "'"; }

class MpiRun : public ::testing::Test {
protected:
    void SetUp() override {
        if (std::string(kMpiexec).empty()) GTEST_SKIP() << "this build has no MPI (NBODY_MPI found none)";
    }
    std::string nbody() const { return quoted(nbody_executable()); }
    TempDir dir;
};

int count_of(const std::string& text, const std::string& what) {
    int n = 0;
    for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
    return n;
}

// The 16K-body Plummer scene, every pair, 2 steps: what issue 29 asks CI to compare.
TEST_F(MpiRun, TwoAndThreeRanksWriteTheOneProcessOutputByteForByte) {
    const std::string args = " run --backend cpu --scene " + quoted(source_dir() + "/scenes/plummer.toml") +
                             " --bodies 16384 --steps 2 --out ";
    const CommandResult one = run_nbody(args.substr(1) + quoted(dir.file("one.csv")));
    ASSERT_EQ(one.exit_code, 0) << one.output;
    const std::string expected = read_text(dir.file("one.csv"));
    for (const int ranks : {2, 3}) {
        const std::string out = dir.file("np" + std::to_string(ranks) + ".csv");
        const CommandResult many = run_command(mpirun(ranks) + " " + nbody() + args + quoted(out));
        ASSERT_EQ(many.exit_code, 0) << many.output;
        EXPECT_EQ(read_text(out), expected) << ranks << " ranks";
        // Rank 0 alone reports: one summary line, not one per rank.
        EXPECT_EQ(count_of(many.output, "relative energy error"), 1) << many.output;
    }
}

TEST_F(MpiRun, RanksReadingDifferentInputsAreRefusedAndNothingIsWritten) {
    const std::string scene = quoted(source_dir() + "/scenes/plummer.toml");
    const std::string out = dir.file("never.csv");
    // MPMD launch: rank 0 scales the scene to 500 bodies, rank 1 to 400.
    const std::string common = " run --backend cpu --steps 1 --scene " + scene + " --out " + quoted(out);
    const CommandResult r = run_command(mpirun(1) + " " + nbody() + common + " --bodies 500 : -np 1 " + nbody() +
                                        common + " --bodies 400");
    EXPECT_NE(r.exit_code, 0) << r.output;
    EXPECT_NE(r.output.find("error on rank 0 of 2: the ranks disagree on the system: rank 1 has 400 bodies"),
              std::string::npos)
        << r.output;
    EXPECT_EQ(count_of(r.output, "nbody: error"), 1) << r.output;
    EXPECT_FALSE(std::filesystem::exists(out));
}

TEST_F(MpiRun, RanksGivenDifferentStepParametersAreRefused) {
    const std::string out = dir.file("never.csv");
    const std::string common = " run --backend cpu --steps 3 --bodies 200 --scene " +
                               quoted(source_dir() + "/scenes/plummer.toml") + " --out " + quoted(out);
    const CommandResult r = run_command(mpirun(1) + " " + nbody() + common + " --dt 0.001 : -np 1 " + nbody() +
                                        common + " --dt 0.002");
    EXPECT_NE(r.exit_code, 0) << r.output;
    EXPECT_NE(r.output.find("the ranks disagree on the step parameters: rank 1 has dt 0.002"), std::string::npos)
        << r.output;
    EXPECT_FALSE(std::filesystem::exists(out));
}

// A copy of nbody that differs only in its build stamp (main.cpp's __DATE__ "\0" __TIME__ in the
// binary: the hour moved by one), standing in for a second build of the same source.
std::string copy_with_other_build_stamp(const std::string& folder) {
    std::string binary = read_text(nbody_executable());
    // "Mmm dd yyyy\0hh:mm:ss": checked by character class (a regex over megabytes is slow).
    const auto matches = [&](std::size_t at, const char* shape) {
        for (std::size_t k = 0; shape[k] != 0; ++k) {
            const char c = binary[at + k], want = shape[k];
            const bool ok = want == 'A' ? (c >= 'A' && c <= 'Z') : want == 'a' ? (c >= 'a' && c <= 'z')
                          : want == '9' ? (c >= '0' && c <= '9') : want == '_' ? (c == ' ' || (c >= '0' && c <= '9'))
                          : want == '0' ? c == 0 : c == want;
            if (!ok) return false;
        }
        return true;
    };
    constexpr const char* kShape = "Aaa _9 9999099:99:99";
    const std::size_t length = std::char_traits<char>::length(kShape);
    for (std::size_t at = 0; at + length <= binary.size(); ++at) {
        if (!matches(at, kShape)) continue;
        const std::size_t hour = at + 12;
        const int next = ((binary[hour] - '0') * 10 + (binary[hour + 1] - '0') + 1) % 24;
        binary[hour] = char('0' + next / 10);
        binary[hour + 1] = char('0' + next % 10);
        const std::string path = folder + "/nbody-other-build";
        write_text(path, binary);
        std::filesystem::permissions(path, std::filesystem::perms::owner_all);
        return path;
    }
    return "";
}

TEST_F(MpiRun, RanksOfDifferentBuildsAreRefused) {
    const std::string other = copy_with_other_build_stamp(dir.path().string());
    ASSERT_FALSE(other.empty()) << "no build stamp found in " << nbody_executable();
    const std::string args = " run --backend cpu --steps 1 --bodies 100 --scene " +
                             quoted(source_dir() + "/scenes/plummer.toml");
    const CommandResult r =
        run_command(mpirun(1) + " " + nbody() + args + " : -np 1 " + quoted(other) + args);
    EXPECT_NE(r.exit_code, 0) << r.output;
    EXPECT_NE(r.output.find("the ranks disagree on the build: rank 1 has build"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("give every rank the same nbody executable"), std::string::npos) << r.output;
}

TEST_F(MpiRun, ARankThatFailsAloneEndsEveryRankNamingItself) {
    const std::string scene = quoted(source_dir() + "/scenes/plummer.toml");
    const std::string out = dir.file("never.csv");
    const std::string missing = dir.file("no-such-input.csv");
    const std::string common = " run --backend cpu --steps 1 --out " + quoted(out);
    // Rank 1 is given a file that does not exist; rank 0 waits for it in the first collective.
    const CommandResult r = run_command(mpirun(1) + " " + nbody() + common + " --scene " + scene +
                                        " --bodies 300 : -np 1 " + nbody() + common + " --input " + quoted(missing));
    EXPECT_NE(r.exit_code, 0) << r.output;
    EXPECT_NE(r.exit_code, 124) << "the launch hung until the timeout:\n" << r.output;
    EXPECT_NE(r.output.find("error on rank 1 of 2"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("no-such-input.csv"), std::string::npos) << r.output;
    EXPECT_FALSE(std::filesystem::exists(out));
}

TEST_F(MpiRun, ModesNotDistributedYetAreRefusedWithTheReason) {
    const std::string scene = quoted(source_dir() + "/scenes/plummer.toml");
    const CommandResult tree = run_command(mpirun(2) + " " + nbody() + " run --backend cpu --steps 1 --bodies 300 " +
                                           "--gravity tree --scene " + scene);
    EXPECT_NE(tree.exit_code, 0) << tree.output;
    EXPECT_NE(tree.output.find("tree code does not run across MPI ranks"), std::string::npos) << tree.output;
    // The cuda backend runs one rank per GPU: three ranks on a machine with fewer GPUs (CI has none)
    // are refused on every rank with the reason, before anything is written. Builds without CUDA or
    // NCCL say that instead.
    const std::string out = dir.file("never.csv");
    const CommandResult cuda = run_command(mpirun(3) + " " + nbody() + " run --backend cuda --steps 1 --bodies 300 " +
                                           "--scene " + scene + " --out " + quoted(out));
    EXPECT_NE(cuda.exit_code, 0) << cuda.output;
    EXPECT_NE(cuda.exit_code, 124) << "the launch hung until the timeout:\n" << cuda.output;
    const auto says = [&](const char* reason) { return cuda.output.find(reason) != std::string::npos; };
    EXPECT_TRUE(says("runs one rank per GPU") || says("no cuda backend") || says("needs NCCL")) << cuda.output;
    EXPECT_FALSE(std::filesystem::exists(out));
    // Commands other than run would run whole on every rank, each writing its outputs.
    const CommandResult bench = run_command(mpirun(2) + " " + nbody() + " bench --backend cpu --bodies 1K");
    EXPECT_NE(bench.exit_code, 0) << bench.output;
    EXPECT_NE(bench.output.find("nbody bench does not run across 2 MPI ranks"), std::string::npos) << bench.output;
}

// What a Hermite run's report says: "... B blocks, F force evaluations, ..." and "(E0 = ..., E = ...)".
struct HermiteReport {
    long long blocks = -1, evaluations = -1;
    double energy = 0;
};
HermiteReport hermite_report(const std::string& output) {
    HermiteReport r;
    const std::size_t blocks = output.rfind(" s: ", output.find(" force evaluations"));
    if (blocks != std::string::npos)
        std::sscanf(output.c_str() + blocks, " s: %lld blocks, %lld force evaluations", &r.blocks, &r.evaluations);
    if (const std::size_t e = output.find(", E = "); e != std::string::npos) r.energy = std::stod(output.substr(e + 6));
    return r;
}

// Issue 29: Hermite across ranks, the j-particles split round robin, each rank's partial forces added
// on every rank. The sums run in another order than in one process, so the run is the one-process
// run to rounding: the same block steps and, over this 1/8 time unit of 512 bodies, positions within
// 1e-13 (measured on the 2-core development machine: 1.1e-16 on 2 ranks and 3.3e-16 on 3 for
// hermite4, 2.2e-16 on 2 for hermite6, i.e. one or two units in the last place of a coordinate of
// size ~1; 1e-13 leaves a few hundred times that for another compiler's or library's rounding
// while a lost or extra block step would move bodies by far more) and the final energy within 1e-12
// of the one-process run's (measured: equal to 2e-16).
TEST_F(MpiRun, HermiteAcrossRanksTakesTheOneProcessBlockSteps) {
    for (const char* integrator : {"hermite4", "hermite6"}) {
        const std::string args = std::string(" run --integrator ") + integrator + " --backend cpu --scene " +
                                 quoted(source_dir() + "/scenes/plummer.toml") + " --bodies 512 --t-end 0.125 --out ";
        const CommandResult one = run_nbody(args.substr(1) + quoted(dir.file("one.csv")));
        ASSERT_EQ(one.exit_code, 0) << one.output;
        const HermiteReport expected = hermite_report(one.output);
        ASSERT_GT(expected.blocks, 0) << one.output;
        const PreciseState x1 = read_csv_file(dir.file("one.csv")).values;
        for (const int ranks : {2, 3}) {
            if (std::string(integrator) == "hermite6" && ranks == 3) continue;  // the 4th order covers 3 ranks
            const std::string out = dir.file(std::string(integrator) + "-np" + std::to_string(ranks) + ".csv");
            const CommandResult many = run_command(mpirun(ranks) + " " + nbody() + args + quoted(out));
            ASSERT_EQ(many.exit_code, 0) << many.output;
            EXPECT_NE(many.output.find("cpu across " + std::to_string(ranks) + " MPI ranks"), std::string::npos)
                << many.output;
            EXPECT_EQ(count_of(many.output, "relative energy error"), 1) << many.output;  // rank 0 alone reports
            const HermiteReport got = hermite_report(many.output);
            EXPECT_EQ(got.blocks, expected.blocks) << integrator << ", " << ranks << " ranks";
            EXPECT_EQ(got.evaluations, expected.evaluations) << integrator << ", " << ranks << " ranks";
            EXPECT_LT(std::abs(got.energy - expected.energy), 1e-12 * std::abs(expected.energy))
                << integrator << ", " << ranks << " ranks:\n" << many.output;
            const PreciseState xp = read_csv_file(out).values;
            ASSERT_EQ(xp.position.size(), x1.position.size());
            double worst = 0;
            for (std::size_t i = 0; i < xp.position.size(); ++i)
                worst = std::max(worst, norm(xp.position[i] - x1.position[i]));
            EXPECT_LT(worst, 1e-13) << integrator << ", " << ranks << " ranks";
            std::printf("%s, %d ranks: largest position difference from one process %.3e\n", integrator, ranks, worst);
        }
    }
}

// The replicated integrators part ways (and then wait in different collectives) if one rank steps
// another system or with another eta: refused before the first force pass, nothing written.
// Ctrl-C to mpirun (docs/DISTRIBUTED.md): OpenMPI passes it to the ranks as SIGTERM and exits with
// its own status, not 130; what must hold is that the ranks stop together after the step in
// progress and rank 0 writes the state reached whole, marked as interrupted at that step.
TEST_F(MpiRun, CtrlCToMpirunWritesTheStateReachedWhole) {
    using Clock = std::chrono::steady_clock;
    const auto seconds_since = [](Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); };
    const std::string log = dir.file("log.txt"), out = dir.file("o.nbsnap");
    const pid_t pid = spawn_logged({kMpiexec, "--allow-run-as-root", "--oversubscribe", "-np", "2", nbody_executable(),
                                    "run", "--scene", source_dir() + "/scenes/plummer.toml", "--bodies", "2048",
                                    "--steps", "100000000", "--backend", "cpu", "--out", out},
                                   log);
    ASSERT_GT(pid, 0);
    const auto t0 = Clock::now();
    while (seconds_since(t0) < 60 && read_text(log).find("ETA") == std::string::npos)
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
    ASSERT_NE(read_text(log).find("ETA"), std::string::npos) << "no progress line within 60 s:\n" << read_text(log);
    ASSERT_EQ(::kill(pid, SIGINT), 0);
    const auto t1 = Clock::now();
    int status = 0;
    while (::waitpid(pid, &status, WNOHANG) != pid && seconds_since(t1) < 60)
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    const bool ended = seconds_since(t1) < 60;
    if (!ended) ::kill(pid, SIGKILL), ::waitpid(pid, &status, 0);
    const std::string text = read_text(log);
    ASSERT_TRUE(ended) << "mpirun did not end within 60 s of the SIGINT:\n" << text;
    EXPECT_LT(seconds_since(t1), 10.0) << text;
    std::smatch m;
    ASSERT_TRUE(std::regex_search(text, m, std::regex(R"(after step (\d+) of 100000000)"))) << text;
    const long long step = std::stoll(m[1].str());
    const io::Snapshot snap = io::read_snapshot(out);  // throws on a file not written whole
    ASSERT_TRUE(snap.metadata.count(io::kStatusKey));
    EXPECT_NE(snap.metadata.at(io::kStatusKey).find("interrupted by"), std::string::npos)
        << snap.metadata.at(io::kStatusKey);
    EXPECT_NE(snap.metadata.at(io::kStatusKey).find("at step " + std::to_string(step) + " of 100000000"),
              std::string::npos)
        << snap.metadata.at(io::kStatusKey);
    EXPECT_EQ(snap.state.size(), 2048u);
    EXPECT_NEAR(snap.state.time, double(step) * snap.params.dt, 1e-9 * (1 + double(step)));
}

// The GPUs this build's Hermite cuda engine can use on this machine (0 without one).
int hermite_gpus() { return hermite::cuda_engine_usable() ? int(hermite::engine_devices("all").size()) : 0; }

// Issue 29: Hermite on one GPU per rank. Every rank's cuda engine holds every j-particle and computes
// its range of the slots of a spread evaluation (65,536 bodies: from 512 active bodies on), as the GPUs
// of one process do with --gpus 2, and the partial forces are added in rank order as that process adds
// them in GPU order: the output is the --gpus 2 run's byte for byte. Against one GPU (other sums) the
// block steps agree to 1 % and the energy error to 10 %. Where the ranks outnumber the GPUs (CI has
// none) the launch is refused on every rank with the reason, before anything is written.
TEST_F(MpiRun, HermiteOnTheCudaEngineRunsOneRankPerGpu) {
    const std::string args = " run --integrator hermite4 --backend cuda --scene " +
                             quoted(source_dir() + "/scenes/plummer.toml") + " --bodies 65536 --t-end 0.0625 --out ";
    const std::string two_out = dir.file("np2.csv");
    const CommandResult two = run_command(mpirun(2) + " " + nbody() + args + quoted(two_out));
    EXPECT_NE(two.exit_code, 124) << "the launch hung until the timeout:\n" << two.output;
    if (hermite_gpus() < 2) {
        EXPECT_NE(two.exit_code, 0) << two.output;
        const auto says = [&](const char* reason) { return two.output.find(reason) != std::string::npos; };
        EXPECT_TRUE(says("--backend cuda under mpirun: ") || says("the Hermite cuda engine runs one rank per GPU"))
            << two.output;
        EXPECT_FALSE(std::filesystem::exists(two_out));
        GTEST_SKIP() << "the refusal checked; the run itself needs two GPUs (" << hermite_gpus() << " here)";
    }
    ASSERT_EQ(two.exit_code, 0) << two.output;
    EXPECT_NE(two.output.find("cuda across 2 MPI ranks, one GPU each"), std::string::npos) << two.output;
    EXPECT_EQ(count_of(two.output, "relative energy error"), 1) << two.output;  // rank 0 alone reports
    const CommandResult gpus = run_nbody(args.substr(1) + quoted(dir.file("gpus2.csv")) + " --gpus 2");
    ASSERT_EQ(gpus.exit_code, 0) << gpus.output;
    EXPECT_TRUE(read_text(two_out) == read_text(dir.file("gpus2.csv"))) << "mpirun -np 2 and --gpus 2 differ";
    const CommandResult one = run_nbody(args.substr(1) + quoted(dir.file("one.csv")));
    ASSERT_EQ(one.exit_code, 0) << one.output;
    const HermiteReport expected = hermite_report(one.output), got = hermite_report(two.output);
    ASSERT_GT(expected.blocks, 0) << one.output;
    EXPECT_NEAR(double(got.blocks), double(expected.blocks), 0.01 * double(expected.blocks));
    const auto energy_error = [](const std::string& output) {
        const std::size_t at = output.find("relative energy error");
        return at == std::string::npos ? NAN : std::stod(output.substr(output.find_first_of("-+0123456789", at)));
    };
    const double de_one = energy_error(one.output), de_two = energy_error(two.output);
    EXPECT_NEAR(de_two, de_one, 0.1 * std::abs(de_one) + 1e-10) << one.output << "\n" << two.output;
    std::printf("65536 bodies to t = 0.0625: blocks %lld on one GPU, %lld on two ranks; dE/E %.3e and %.3e\n",
                expected.blocks, got.blocks, de_one, de_two);
}

TEST_F(MpiRun, HermiteRanksGivenDifferentParametersAreRefused) {
    const std::string out = dir.file("never.csv");
    const std::string common = " run --integrator hermite4 --backend cpu --t-end 0.125 --bodies 256 --scene " +
                               quoted(source_dir() + "/scenes/plummer.toml") + " --out " + quoted(out);
    const CommandResult r = run_command(mpirun(1) + " " + nbody() + common + " --eta 0.01 : -np 1 " + nbody() +
                                        common + " --eta 0.02");
    EXPECT_NE(r.exit_code, 0) << r.output;
    EXPECT_NE(r.exit_code, 124) << "the launch hung until the timeout:\n" << r.output;
    EXPECT_NE(r.output.find("the ranks disagree on the Hermite run: rank 1 has 256 bodies"), std::string::npos)
        << r.output;
    EXPECT_NE(r.output.find("eta 0.02"), std::string::npos) << r.output;
    EXPECT_FALSE(std::filesystem::exists(out));
}

}  // namespace
}  // namespace nbody::test
