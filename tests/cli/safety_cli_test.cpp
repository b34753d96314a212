// Nothing a user asked for is lost (issue 14): outputs checked before any work, the --overwrite
// rule, the NaN/Inf guard, Ctrl-C / SIGTERM in `run`, progress lines, counts beyond their types,
// the memory estimate, 17-digit CSV from double-state runs, and clear messages for bad input.
// Every case runs the nbody executable on the cpu or reference backend (no GPU, no display).

#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <spawn.h>
#include <sys/mount.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <regex>
#include <string>
#include <thread>
#include <vector>

#include "nbody/sim/csv.hpp"
#include "nbody/sim/ic/plummer.hpp"
#include "nbody/sim/io/snapshot.hpp"
#include "nbody/sim/memory_check.hpp"
#include "test_support.hpp"

extern char** environ;

namespace nbody {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;
using test::read_text;
using test::run_nbody;
using test::TempDir;
using test::write_text;

std::string scene(const std::string& name) { return test::source_dir() + "/scenes/" + name; }
std::string q(const std::string& path) { return "'" + path + "'"; }

bool has(const test::CommandResult& r, const std::string& text) { return r.output.find(text) != std::string::npos; }

double seconds_since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

// Names in `folder` that look like temporary files of an atomic write.
std::vector<std::string> temporaries(const fs::path& folder) {
    std::vector<std::string> found;
    for (const auto& e : fs::directory_iterator(folder))
        if (e.path().filename().string().find(".tmp") != std::string::npos) found.push_back(e.path().filename());
    return found;
}

// A long `run` that would take minutes: it must fail at once on a bad output.
const std::string kLongRun = " --scene " + scene("plummer.toml") + " --bodies 4096 --steps 100000000 --backend cpu ";

TEST(Outputs, AMissingFolderIsCreatedBeforeTheRun) {
    TempDir dir;
    const std::string out = dir.file("missing/dir/o.csv");
    const auto r = run_nbody("run --scene " + scene("plummer.toml") + " --bodies 128 --steps 2 --backend cpu --out " + q(out));
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_EQ(read_csv(out).size(), 128u);
}

TEST(Outputs, AnUnusableOutputFailsBeforeAnyWork) {
    TempDir dir;
    fs::create_directory(dir.path() / "adir");
    struct Case {
        std::string out, message;
    } cases[] = {
        // /proc takes no new folder or file even from root, who ignores permissions.
        {"/proc/nbody-test/o.csv", "cannot create the folder '/proc/nbody-test' for --out"},
        {"/proc/o.csv", "cannot write into the folder '/proc' for --out '/proc/o.csv'"},
        {dir.file("adir"), "--out '" + dir.file("adir") + "' is a folder"},
        {dir.file("adir") + "/", "is a folder"},
    };
    for (const Case& c : cases) {
        const auto t0 = Clock::now();
        const auto r = run_nbody("run" + kLongRun + "--out " + q(c.out));
        EXPECT_EQ(r.exit_code, 1) << c.out << "\n" << r.output;
        EXPECT_TRUE(has(r, c.message)) << c.out << "\n" << r.output;
        EXPECT_LT(seconds_since(t0), 20.0) << "the run started before the output was checked";
    }
}

TEST(Outputs, TheInputIsReplacedOnlyWithOverwrite) {
    TempDir dir;
    write_csv(dir.file("in.csv"), ic::make_plummer({.bodies = 64, .seed = 3}));
    const std::string before = read_text(dir.file("in.csv"));
    auto r = run_nbody("run --input " + q(dir.file("in.csv")) + " --steps 3 --backend cpu --out " + q(dir.file("in.csv")));
    EXPECT_EQ(r.exit_code, 1) << r.output;
    EXPECT_TRUE(has(r, "is an input of this command")) << r.output;
    EXPECT_TRUE(has(r, "--overwrite")) << r.output;
    EXPECT_EQ(read_text(dir.file("in.csv")), before);
    r = run_nbody("run --input " + q(dir.file("in.csv")) + " --steps 3 --backend cpu --overwrite --out " +
                  q(dir.file("in.csv")));
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_NE(read_text(dir.file("in.csv")), before);
    EXPECT_TRUE(temporaries(dir.path()).empty());
}

// The same rule in the commands that write particle-sized outputs without `run`'s leapfrog:
// `run --integrator hermite4` (checked before its run) and `forces`.
TEST(Outputs, HermiteAndForcesFollowTheSameRule) {
    TempDir dir;
    write_csv(dir.file("in.csv"), ic::make_plummer({.bodies = 32, .seed = 4}));
    const std::string before = read_text(dir.file("in.csv"));
    const std::string hermite = "run --integrator hermite4 --t-end 0.01 --backend cpu --input " + q(dir.file("in.csv"));
    const std::string forces = "forces --backend cpu --input " + q(dir.file("in.csv"));
    for (const std::string& cmd : {hermite, forces}) {
        SCOPED_TRACE(cmd);
        auto r = run_nbody(cmd + " --out " + q(dir.file("in.csv")));
        EXPECT_EQ(r.exit_code, 1) << r.output;
        EXPECT_TRUE(has(r, "--out '" + dir.file("in.csv") + "' is an input of this command")) << r.output;
        EXPECT_EQ(read_text(dir.file("in.csv")), before);
        // A missing folder is created up front, a folder named as the file refused.
        r = run_nbody(cmd + " --out " + q(dir.file("new/dir/o.csv")));
        EXPECT_EQ(r.exit_code, 0) << r.output;
        EXPECT_TRUE(fs::exists(dir.file("new/dir/o.csv")));
        r = run_nbody(cmd + " --out " + q(dir.file("new")));
        EXPECT_EQ(r.exit_code, 1) << r.output;
        EXPECT_TRUE(has(r, "is a folder")) << r.output;
    }
    // forces takes --overwrite like every command.
    const auto r = run_nbody(forces + " --overwrite --out " + q(dir.file("in.csv")));
    EXPECT_EQ(r.exit_code, 0) << r.output;
    EXPECT_EQ(read_text(dir.file("in.csv")).rfind("ax,ay,az\n", 0), 0u);
}

TEST(Outputs, AFileOfAnotherKindIsReplacedOnlyWithOverwrite) {
    TempDir dir;
    write_text(dir.file("notes.csv"), "[scene]\nname = \"my notes\"\n");  // TOML text under a .csv name
    const std::string cmd = "run --scene " + scene("plummer.toml") + " --bodies 64 --steps 0 --out " + q(dir.file("notes.csv"));
    auto r = run_nbody(cmd);
    EXPECT_EQ(r.exit_code, 1) << r.output;
    EXPECT_TRUE(has(r, "exists and holds text, not CSV; add --overwrite")) << r.output;
    EXPECT_EQ(read_text(dir.file("notes.csv")), "[scene]\nname = \"my notes\"\n");
    r = run_nbody(cmd + " --overwrite");
    EXPECT_EQ(r.exit_code, 0) << r.output;
    // An earlier result of the same kind is replaced without asking.
    r = run_nbody(cmd);
    EXPECT_EQ(r.exit_code, 0) << r.output;
    EXPECT_EQ(read_csv(dir.file("notes.csv")).size(), 64u);

    // A snapshot over a PNG needs --overwrite too.
    write_text(dir.file("p.nbsnap"), std::string("\x89PNG\r\n\x1a\n", 8) + "rest");
    r = run_nbody("run --scene " + scene("plummer.toml") + " --bodies 64 --steps 0 --out " + q(dir.file("p.nbsnap")));
    EXPECT_EQ(r.exit_code, 1) << r.output;
    EXPECT_TRUE(has(r, "holds PNG image, not nbody snapshot")) << r.output;
}

TEST(Outputs, ViewScreenshotOverItsSceneIsRefusedBeforeTheViewerStarts) {
    TempDir dir;
    fs::copy_file(scene("plummer.toml"), dir.file("s.toml"));
    const std::string before = read_text(dir.file("s.toml"));
    const auto r = run_nbody("view --headless --scene " + q(dir.file("s.toml")) + " --screenshot " + q(dir.file("s.toml")));
    EXPECT_EQ(r.exit_code, 1) << r.output;
    EXPECT_TRUE(has(r, "--screenshot '" + dir.file("s.toml") + "' is an input of this command")) << r.output;
    EXPECT_EQ(read_text(dir.file("s.toml")), before);
    // Another command's JSON output follows the same rule.
    const auto b = run_nbody("bench --backend cpu --bodies 1K --json " + q(dir.file("s.toml")));
    EXPECT_EQ(b.exit_code, 1) << b.output;
    EXPECT_TRUE(has(b, "holds text, not JSON; add --overwrite")) << b.output;
    EXPECT_EQ(read_text(dir.file("s.toml")), before);
}

// A full disk, up front: a tiny tmpfs where the test may mount one (root outside a restricted
// container); else the free-space check is shown against a size no disk has (fake filler).
TEST(Outputs, NotEnoughFreeSpaceIsRefusedUpFront) {
    TempDir dir;
    const fs::path small = dir.path() / "small";
    fs::create_directory(small);
    const bool mounted = ::mount("tmpfs", small.c_str(), "tmpfs", 0, "size=64k") == 0;
    if (!mounted) GTEST_SKIP() << "cannot mount a tmpfs here (" << std::strerror(errno) << "); the disk-full path of "
                               << "writes is covered by the recorder's ulimit test and IoSnapshot.FailedWriteLeavesNoFile";
    const auto r = run_nbody("run --scene " + scene("plummer.toml") + " --bodies 5000 --steps 1 --backend cpu --out " +
                             q((small / "o.csv").string()));
    // The file would not fit: refused before the run, nothing left in the folder.
    EXPECT_EQ(r.exit_code, 1) << r.output;
    EXPECT_TRUE(has(r, "needs about")) << r.output;
    EXPECT_TRUE(has(r, "free")) << r.output;
    EXPECT_TRUE(fs::is_empty(small));
    ::umount(small.c_str());
}

TEST(NonFinite, TwoBodiesAtOnePointWithoutSofteningStopAtStepOne) {
    TempDir dir;
    write_text(dir.file("two.csv"), "x,y,z,vx,vy,vz,m\n0,0,0,0,0,0,1\n0,0,0,0,0,0,1\n1,0,0,0,0.5,0,1\n");
    for (const char* backend : {"cpu", "reference"}) {
        SCOPED_TRACE(backend);
        const auto r = run_nbody("run --input " + q(dir.file("two.csv")) + " --softening 0 --steps 50 --backend " +
                                 backend + " --out " + q(dir.file("o.nbsnap")));
        EXPECT_EQ(r.exit_code, 1) << r.output;
        EXPECT_TRUE(has(r, "body 0 became non-finite (NaN or Inf) at step 1 of 50")) << r.output;
        const io::Snapshot snap = io::read_snapshot(dir.file("o.nbsnap"));  // finite: it validates
        ASSERT_TRUE(snap.metadata.count(io::kStatusKey)) << r.output;
        EXPECT_NE(snap.metadata.at(io::kStatusKey).find("last finite state: step 0 of 50"), std::string::npos)
            << snap.metadata.at(io::kStatusKey);
        EXPECT_EQ(snap.state.pos_mass[2].x, 1.0f);
    }
    // CSV output: the mark is a comment line, and the file reads back.
    const auto r = run_nbody("run --input " + q(dir.file("two.csv")) + " --softening 0 --steps 5 --backend cpu --out " +
                             q(dir.file("o.csv")));
    EXPECT_EQ(r.exit_code, 1) << r.output;
    EXPECT_EQ(read_text(dir.file("o.csv")).rfind("# last finite state: step 0 of 5", 0), 0u) << read_text(dir.file("o.csv"));
    EXPECT_EQ(read_csv(dir.file("o.csv")).size(), 3u);
}

TEST(NonFinite, AHugeTimeStepStopsAtStepOne) {
    TempDir dir;
    const auto r = run_nbody("run --scene " + scene("plummer.toml") + " --bodies 256 --dt 1e300 --steps 100 --backend cpu "
                             "--out " + q(dir.file("o.csv")));
    EXPECT_EQ(r.exit_code, 1) << r.output;
    EXPECT_TRUE(has(r, "became non-finite (NaN or Inf) at step 1 of 100")) << r.output;
    EXPECT_EQ(read_csv(dir.file("o.csv")).size(), 256u);  // the initial state: finite, readable
    EXPECT_TRUE(temporaries(dir.path()).empty());
}

TEST(NonFinite, TheFirstBadStepIsFoundAfterGoodOnes) {
    TempDir dir;
    // x grows by 1e37 a step in float: finite up to step 34 (3.4e38), infinite at step 35. The
    // guard checks after batches, then replays from its last checkpoint one step at a time.
    write_text(dir.file("in.csv"), "x,y,z,vx,vy,vz,m\n0,0,0,1e37,0,0,1\n5,0,0,0,0,0,1\n");
    const auto r = run_nbody("run --input " + q(dir.file("in.csv")) + " --dt 1 --steps 100 --backend cpu --out " +
                             q(dir.file("o.nbsnap")));
    EXPECT_EQ(r.exit_code, 1) << r.output;
    EXPECT_TRUE(has(r, "body 0 became non-finite (NaN or Inf) at step 35 of 100")) << r.output;
    const io::Snapshot snap = io::read_snapshot(dir.file("o.nbsnap"));
    EXPECT_NE(snap.metadata.at(io::kStatusKey).find("last finite state: step 34 of 100"), std::string::npos)
        << snap.metadata.at(io::kStatusKey);
    EXPECT_NEAR(snap.state.pos_mass[0].x, 3.4e38, 0.01e38);
    EXPECT_DOUBLE_EQ(snap.state.time, 34.0);
}

TEST(EnergyWarning, ALargeEnergyErrorIsReported) {
    TempDir dir;
    // A close pair with a time step far too large: finite, but energy is not conserved.
    write_text(dir.file("pair.csv"), "x,y,z,vx,vy,vz,m\n-0.05,0,0,0,-2,0,1\n0.05,0,0,0,2,0,1\n");
    auto r = run_nbody("run --input " + q(dir.file("pair.csv")) + " --dt 0.05 --softening 0.001 --steps 20 --backend cpu");
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_TRUE(has(r, "warning: the relative energy error")) << r.output;
    // A sound run says nothing of the kind.
    r = run_nbody("run --scene " + scene("plummer.toml") + " --bodies 128 --steps 5 --backend cpu");
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_FALSE(has(r, "warning")) << r.output;
    // The Hermite integrator too: the same pair with a coarse eta, against a tight limit.
    r = run_nbody("run --integrator hermite4 --input " + q(dir.file("pair.csv")) +
                  " --softening 0.001 --eta 0.3 --t-end 1 --backend cpu --max-energy-error 1e-12");
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_TRUE(has(r, "warning: the relative energy error")) << r.output;
    r = run_nbody("run --integrator hermite4 --input " + q(dir.file("pair.csv")) +
                  " --softening 0.001 --t-end 1 --backend cpu");
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_FALSE(has(r, "warning")) << r.output;
}

TEST(Counts, ValuesBeyondTheirTypesAreRefusedNotClamped) {
    auto r = run_nbody("run --scene " + scene("plummer.toml") + " --steps 99999999999999999999 --backend cpu");
    EXPECT_NE(r.exit_code, 0) << r.output;
    EXPECT_TRUE(has(r, "'99999999999999999999' is beyond the supported range")) << r.output;
    r = run_nbody("run --scene " + scene("plummer.toml") + " --steps 1e3 --backend cpu");
    EXPECT_NE(r.exit_code, 0) << r.output;
    EXPECT_TRUE(has(r, "is not a whole number")) << r.output;
    for (const char* cmd : {"run --steps 1", "view --headless", "record --frames 1 --out x", "forces --out x.csv"}) {
        r = run_nbody(std::string(cmd) + " --scene " + scene("plummer.toml") + " --bodies 5000000000");
        EXPECT_NE(r.exit_code, 0) << cmd << "\n" << r.output;
        EXPECT_TRUE(has(r, "--bodies: '5000000000' is beyond the supported range (1 to 1073741824")) << cmd << "\n" << r.output;
    }
}

TEST(Memory, TooManyBodiesAreRefusedWithTheNumbersBeforeAllocating) {
    const MemoryNeed need = memory_need("cpu", Precision::Fp32);
    const auto avail = host_memory_available();
    if (!avail) GTEST_SKIP() << "no /proc/meminfo";
    const unsigned long long n = 1000000000ull;
    if (double(n) * double(need.host_per_body) < double(*avail)) GTEST_SKIP() << "this machine has room for 1e9 bodies";
    const auto t0 = Clock::now();
    const auto r = run_nbody("run --scene " + scene("plummer.toml") + " --bodies 1000000000 --steps 1 --backend cpu");
    EXPECT_EQ(r.exit_code, 1) << r.output;
    EXPECT_TRUE(has(r, "N = 1000000000 needs about")) << r.output;
    EXPECT_TRUE(has(r, "of host memory (" + std::to_string(need.host_per_body) + " bytes per body")) << r.output;
    EXPECT_TRUE(has(r, "are available; use fewer bodies")) << r.output;
    EXPECT_FALSE(has(r, "bad_alloc")) << r.output;
    EXPECT_LT(seconds_since(t0), 20.0);
    // Refused before the output's folder is made: nothing is left behind.
    TempDir dir;
    for (const std::string cmd : {"run --steps 1 --out " + q(dir.file("a/o.csv")), "record --frames 2 --out " + q(dir.file("b")),
                                  "forces --out " + q(dir.file("c/f.csv"))}) {
        const auto refused = run_nbody(cmd + " --scene " + scene("plummer.toml") + " --bodies 1000000000 --backend cpu");
        EXPECT_EQ(refused.exit_code, 1) << cmd << "\n" << refused.output;
        EXPECT_TRUE(has(refused, "N = 1000000000 needs about")) << cmd << "\n" << refused.output;
    }
    EXPECT_TRUE(fs::is_empty(dir.path()));
}

// Starts `nbody args...` with stdout and stderr to `log`; returns the pid.
pid_t spawn_nbody(std::vector<std::string> args, const std::string& log) {
    args.insert(args.begin(), test::nbody_executable());
    return test::spawn_logged(std::move(args), log);
}

// Waits up to `seconds` for `pid`; returns its wait status, or -1 (then it was killed).
int wait_for(pid_t pid, double seconds) {
    const auto t0 = Clock::now();
    int status = 0;
    while (seconds_since(t0) < seconds) {
        if (::waitpid(pid, &status, WNOHANG) == pid) return status;
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    ::kill(pid, SIGKILL);
    ::waitpid(pid, &status, 0);
    return -1;
}

// Ctrl-C / SIGTERM: stop after the steps in progress, write the state reached (saying which step
// of how many), leave no temporary file, exit 130 / 143. The SIGINT case also waits for a
// progress line, which must come within a few seconds whatever --steps is.
TEST(Signals, RunWritesTheStateReachedAndExits130Or143) {
    for (int sig : {SIGINT, SIGTERM}) {
        SCOPED_TRACE(sig == SIGINT ? "SIGINT" : "SIGTERM");
        TempDir dir;
        const std::string log = dir.file("log.txt"), out = dir.file("o.nbsnap");
        const pid_t pid = spawn_nbody({"run", "--scene", scene("plummer.toml"), "--bodies", "2048", "--steps",
                                       "100000000", "--backend", "cpu", "--out", out},
                                      log);
        ASSERT_GT(pid, 0);
        const auto t0 = Clock::now();
        // SIGINT after the first progress line; SIGTERM as soon as it runs.
        while (seconds_since(t0) < 30) {
            const std::string text = read_text(log);
            if (sig == SIGINT ? text.find("ETA") != std::string::npos : seconds_since(t0) > 0.7) break;
            std::this_thread::sleep_for(std::chrono::milliseconds(50));
        }
        const std::string before = read_text(log);
        if (sig == SIGINT) {
            EXPECT_TRUE(std::regex_search(before, std::regex(R"(step \d+ / 100000000 \(.*ETA )"))) << before;
            EXPECT_LT(seconds_since(t0), 10.0) << "no progress line within 10 s:\n" << before;
        }
        ASSERT_EQ(::kill(pid, sig), 0);
        const auto t1 = Clock::now();
        const int status = wait_for(pid, 30);
        const std::string text = read_text(log);
        ASSERT_NE(status, -1) << "did not stop:\n" << text;
        EXPECT_LT(seconds_since(t1), 5.0) << "stopping took too long";
        ASSERT_TRUE(WIFEXITED(status)) << text;
        EXPECT_EQ(WEXITSTATUS(status), 128 + sig) << text;
        std::smatch m;
        ASSERT_TRUE(std::regex_search(text, m, std::regex(R"(after step (\d+) of 100000000)"))) << text;
        const long long step = std::stoll(m[1].str());
        const io::Snapshot snap = io::read_snapshot(out);
        ASSERT_TRUE(snap.metadata.count(io::kStatusKey));
        EXPECT_NE(snap.metadata.at(io::kStatusKey).find("at step " + std::to_string(step) + " of 100000000"),
                  std::string::npos)
            << snap.metadata.at(io::kStatusKey);
        EXPECT_NEAR(snap.state.time, double(step) * snap.params.dt, 1e-9 * (1 + double(step)));
        EXPECT_TRUE(temporaries(dir.path()).empty());
    }
}

// The Hermite integrator's run loop too: a progress line with the time left, then Ctrl-C stops
// after the block step in progress and writes the state reached, marked as such.
TEST(Signals, HermiteRunWritesTheStateReachedAndExits130) {
    TempDir dir;
    const std::string log = dir.file("log.txt"), out = dir.file("o.nbsnap");
    const pid_t pid = spawn_nbody({"run", "--integrator", "hermite4", "--scene", scene("star-cluster-kroupa.toml"),
                                   "--bodies", "1024", "--t-end", "100000", "--backend", "cpu", "--out", out},
                                  log);
    ASSERT_GT(pid, 0);
    const auto t0 = Clock::now();
    while (seconds_since(t0) < 30 && read_text(log).find(" left") == std::string::npos)
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
    const std::string before = read_text(log);
    EXPECT_TRUE(std::regex_search(before, std::regex(R"(t = \S+ / 100000 \(.*%\).*elapsed, about .* left)"))) << before;
    ASSERT_EQ(::kill(pid, SIGINT), 0);
    const int status = wait_for(pid, 30);
    const std::string text = read_text(log);
    ASSERT_NE(status, -1) << "did not stop:\n" << text;
    ASSERT_TRUE(WIFEXITED(status)) << text;
    EXPECT_EQ(WEXITSTATUS(status), 128 + SIGINT) << text;
    EXPECT_NE(text.find("the state reached was written to"), std::string::npos) << text;
    const io::Snapshot snap = io::read_snapshot(out);
    ASSERT_TRUE(snap.metadata.count(io::kStatusKey));
    EXPECT_NE(snap.metadata.at(io::kStatusKey).find("interrupted by SIGINT"), std::string::npos)
        << snap.metadata.at(io::kStatusKey);
    EXPECT_GT(snap.state.time, 0.0);
    EXPECT_TRUE(temporaries(dir.path()).empty());
}

// True once `pid` catches SIGINT (bit 2 of SigCgt in /proc/PID/status): its handler is in place.
bool catches_sigint(pid_t pid) {
    const std::string status = read_text("/proc/" + std::to_string(pid) + "/status");
    const std::size_t at = status.find("SigCgt:");
    return at != std::string::npos && (std::stoull(status.substr(at + 7), nullptr, 16) & (1ull << (SIGINT - 1))) != 0;
}

// Ctrl-C before the first step (while a large system is built) stops at once: the initial energy
// (N^2/2 pairs, about 10 s here) is not computed, the state is written as "step 0 of 5"; and a
// conversion (--steps 0) interrupted while it reads or writes still writes its file whole and says
// it was interrupted (exit 130, not 0), with no temporary left.
TEST(Signals, ACtrlCBeforeTheFirstStepOrDuringAConversionIsHonoured) {
    for (const char* steps : {"5", "0"}) {
        SCOPED_TRACE(std::string("--steps ") + steps);
        TempDir dir;
        const std::string log = dir.file("log.txt"), out = dir.file(std::string(steps) == "0" ? "o.csv" : "o.nbsnap");
        const pid_t pid = spawn_nbody({"run", "--scene", scene("plummer.toml"), "--bodies", "150000", "--steps", steps,
                                       "--backend", "cpu", "--out", out},
                                      log);
        ASSERT_GT(pid, 0);
        const auto t0 = Clock::now();
        while (!catches_sigint(pid) && seconds_since(t0) < 10) std::this_thread::sleep_for(std::chrono::milliseconds(2));
        ASSERT_EQ(::kill(pid, SIGINT), 0);
        const int status = wait_for(pid, 60);
        const std::string text = read_text(log);
        ASSERT_NE(status, -1) << "did not stop:\n" << text;
        ASSERT_TRUE(WIFEXITED(status)) << text;
        EXPECT_EQ(WEXITSTATUS(status), 130) << text;
        EXPECT_TRUE(has({0, text}, "interrupted by SIGINT")) << text;
        EXPECT_FALSE(has({0, text}, "computing the energy")) << text;
        EXPECT_TRUE(temporaries(dir.path()).empty());
        if (std::string(steps) == "0") {
            EXPECT_EQ(read_csv(out).size(), 150000u);
        } else {
            const io::Snapshot snap = io::read_snapshot(out);
            EXPECT_NE(snap.metadata.at(io::kStatusKey).find("at step 0 of 5"), std::string::npos)
                << snap.metadata.at(io::kStatusKey);
        }
    }
}

// A run from a double state (reference backend) writes 17 significant digits and reads them back
// in double: 5 steps + CSV + 5 steps equals 10 steps bit for bit.
TEST(DoubleState, CsvFromTheReferenceBackendContinuesExactly) {
    TempDir dir;
    write_csv(dir.file("in.csv"), ic::make_plummer({.bodies = 200, .seed = 5}));
    const std::string common = " --backend reference --dt 0.002 --softening 0.05 ";
    auto r = run_nbody("run --input " + q(dir.file("in.csv")) + " --steps 5" + common + "--out " + q(dir.file("half.csv")));
    ASSERT_EQ(r.exit_code, 0) << r.output;
    const std::string text = read_text(dir.file("half.csv"));
    EXPECT_TRUE(std::regex_search(text, std::regex(R"(\d\.\d{14,})"))) << text.substr(0, 300);
    r = run_nbody("run --input " + q(dir.file("half.csv")) + " --steps 5" + common + "--out " + q(dir.file("resumed.nbsnap")));
    ASSERT_EQ(r.exit_code, 0) << r.output;
    r = run_nbody("run --input " + q(dir.file("in.csv")) + " --steps 10" + common + "--out " + q(dir.file("straight.nbsnap")));
    ASSERT_EQ(r.exit_code, 0) << r.output;
    const io::Snapshot a = io::read_snapshot(dir.file("resumed.nbsnap")), b = io::read_snapshot(dir.file("straight.nbsnap"));
    ASSERT_TRUE(a.precise && b.precise);
    ASSERT_EQ(a.precise->size(), 200u);
    EXPECT_EQ(0, std::memcmp(a.precise->position.data(), b.precise->position.data(), 200 * sizeof(Vec3d)));
    EXPECT_EQ(0, std::memcmp(a.precise->velocity.data(), b.precise->velocity.data(), 200 * sizeof(Vec3d)));
    // The cpu backend's CSV stays at 9 digits (floats).
    r = run_nbody("run --input " + q(dir.file("in.csv")) + " --steps 1 --backend cpu --out " + q(dir.file("cpu.csv")));
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_FALSE(std::regex_search(read_text(dir.file("cpu.csv")), std::regex(R"(\d{12})")));
}

struct Message {
    const char* name;
    const char* csv;      // contents of in.csv
    const char* args;     // the command line, {in} for the file, {dir} for the folder
    const char* message;  // must appear
    int exit_code;
};

void PrintTo(const Message& m, std::ostream* os) { *os << m.name; }

class ClearMessages : public ::testing::TestWithParam<Message> {};

TEST_P(ClearMessages, Appear) {
    const Message& c = GetParam();
    TempDir dir;
    write_text(dir.file("in.csv"), c.csv);
    fs::create_directory(dir.path() / "folder.csv");
    std::string args = c.args;
    for (auto [key, value] : {std::pair<std::string, std::string>{"{in}", dir.file("in.csv")}, {"{dir}", dir.path().string()}})
        for (std::size_t at; (at = args.find(key)) != std::string::npos;) args.replace(at, key.size(), value);
    const auto r = run_nbody(args);
    EXPECT_EQ(r.exit_code, c.exit_code) << r.output;
    EXPECT_TRUE(has(r, c.message)) << "output was:\n" << r.output;
    EXPECT_LT(r.output.size(), 2000u) << "a long message: " << r.output.substr(0, 300);
}

const std::string kHugeField = "x,y,z,vx,vy,vz,m\n0," + std::string(100000, 'a') + ",0,0,0,0,1\n";

INSTANTIATE_TEST_SUITE_P(
    Cases, ClearMessages,
    ::testing::Values(
        Message{"float_range", "x,y,z,vx,vy,vz,m\n1e39,0,0,0,0,0,1\n", "run --input {in} --steps 0",
                "column 'x': '1e39' is beyond the range of float", 1},
        Message{"double_range", "x,y,z,vx,vy,vz,m\n1e999,0,0,0,0,0,1\n", "run --input {in} --steps 0",
                "'1e999' is beyond the range of a double", 1},
        Message{"utf8_bom_accepted", "\xEF\xBB\xBFx,y,z,vx,vy,vz,m\n0,0,0,0,0,0,1\n", "run --input {in} --steps 0",
                "converted 1 bodies", 0},
        Message{"folder_as_input", "x\n", "run --input {dir}/folder.csv --steps 0", "folder.csv: is a folder, not a CSV file", 1},
        Message{"csv_as_scene", "x,y,z,vx,vy,vz,m\n0,0,0,0,0,0,1\n", "run --scene {in} --steps 0",
                "is a particle file (.csv), not a scene file (.toml); give it as `nbody run --input", 1},
        Message{"huge_field_cut", kHugeField.c_str(), "run --input {in} --steps 0", "...' (100000 characters) is not a number", 1},
        Message{"repeated_column", "x,x,y,z,vx,vy,vz,m\n1,2,0,0,0,0,0,1\n", "run --input {in} --steps 0",
                "the header names column 'x' twice (columns 1 and 2)", 1},
        Message{"size_limit", "x\n", "view --headless --size 20000x20000",
                "'20000x20000' is outside the supported sizes 16x16 to 16384x16384", 105}),
    [](const auto& info) { return std::string(info.param.name); });

}  // namespace
}  // namespace nbody
