// Signals as the world sends them (issue 34): twice within a millisecond (`timeout`, job
// schedulers, process-group kills), in the first milliseconds, during an O(N^2) energy sum, to
// commands that have nothing to save yet (forces, accuracy) or rows to keep (bench), and SIGHUP
// with stderr gone. Each spawns the nbody executable (cpu backend) in a process group of its own,
// and every wait is bounded (the child is killed after it).

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <random>
#include <regex>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "child_process.hpp"
#include "test_support.hpp"

namespace nbody {
namespace {

namespace fs = std::filesystem;
using test::NbodyChild;
using test::TempDir;

std::string scene(const std::string& name) { return test::source_dir() + "/scenes/" + name; }

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

std::vector<std::string> temporaries(const fs::path& folder) {
    std::vector<std::string> found;
    for (const auto& e : fs::directory_iterator(folder))
        if (contains(e.path().filename().string(), ".tmp")) found.push_back(e.path().filename());
    return found;
}

std::vector<std::string> with_out(std::vector<std::string> command, const std::string& out) {
    command.insert(command.end(), {"--out", out});
    return command;
}

// Waits (bounded) until the child's handlers are in place, then `extra` seconds more.
void wait_until_handled(NbodyChild& child, double extra = 0) {
    while (!child.catches_sigint() && child.seconds_since_start() < 20 && !child.exited())
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
    std::this_thread::sleep_for(std::chrono::duration<double>(extra));
}

// Case 1: `timeout -s INT` delivers SIGINT to the program and to its process group, two signals
// within a millisecond. One user action must not abort: the state is written, exit 130. Each
// round sends the pair at another moment of the run (set-up, energy, the loop); on a busy machine
// two signals that close often arrive as one, so the last round sends the second only once the
// first was handled (its acknowledgement is on stderr), well within the second that protects it.
TEST(SignalsHostile, TwoSigintsAMillisecondApartAreOneRequest) {
    struct Round {
        double after;  // s after the handlers are in place
        bool to_group;
        bool after_acknowledgement;
    };
    for (const Round round : {Round{0.0, false, false}, Round{0.25, true, false}, Round{1.0, true, true}}) {
        SCOPED_TRACE("pair sent " + std::to_string(round.after) + " s after the handlers, the second to the " +
                     (round.to_group ? "process group" : "process") +
                     (round.after_acknowledgement ? " once the first was acknowledged" : " 1 ms later"));
        TempDir dir;
        const std::string out = dir.file("int.nbsnap");
        NbodyChild child({"run", "--scene", scene("plummer.toml"), "--bodies", "4096", "--steps", "100000",
                          "--backend", "cpu", "--out", out},
                         dir.file("log.txt"));
        ASSERT_TRUE(child.started());
        wait_until_handled(child, round.after);
        child.signal(SIGINT);
        if (round.after_acknowledgement)
            EXPECT_TRUE(child.wait_for_log("A second Ctrl-C", 5)) << child.log();
        else
            std::this_thread::sleep_for(std::chrono::milliseconds(1));
        if (round.to_group)
            child.signal_group(SIGINT);
        else
            child.signal(SIGINT);
        const std::string text = test::expect_exit(child, 130, 30);
        // Before `run` knows its output (the first milliseconds) the acknowledgement is generic.
        EXPECT_TRUE(contains(text, "nbody: SIGINT (Ctrl-C): stopping")) << "no acknowledgement:\n" << text;
        EXPECT_TRUE(contains(text, "A second Ctrl-C (or signal) 1 s from now or later aborts")) << text;
        if (round.after > 0)
            EXPECT_TRUE(contains(text, "stopping after the steps in progress; the state reached will be written to " +
                                           out + ". A second Ctrl-C (or signal) 1 s from now or later aborts: " + out +
                                           " is not written"))
                << text;
        EXPECT_FALSE(contains(text, "aborted")) << text;
        EXPECT_TRUE(contains(text, "the state reached was written to " + out)) << text;
        ASSERT_TRUE(fs::exists(out)) << text;
        EXPECT_TRUE(contains(test::snapshot_status(out), "interrupted by SIGINT (Ctrl-C)")) << test::snapshot_status(out);
        EXPECT_TRUE(temporaries(dir.path()).empty());
    }
}

// Case 2: a SIGINT 20-50 ms after the start, while the scene is built or the Hermite integrator
// starts, is honoured as one later on: exit 130, the message, the state written (as it started).
// The child starts with the stop signals blocked, so that on a machine slow to start a program the
// signal cannot come before main and kill it: the program unblocks them once it handles them.
TEST(SignalsHostile, ASigintInTheFirstMillisecondsIsHonoured) {
    std::mt19937 random(std::random_device{}());
    std::uniform_int_distribution<int> delay_ms(20, 50);
    const std::vector<std::vector<std::string>> commands = {
        {"run", "--integrator", "hermite4", "--scene", scene("star-cluster-kroupa.toml"), "--bodies", "1024",
         "--t-end", "100000", "--backend", "cpu"},
        {"run", "--scene", scene("plummer.toml"), "--bodies", "4096", "--steps", "100000", "--backend", "cpu"}};
    for (const auto& command : commands) {
        for (int round = 0; round < 3; ++round) {
            const int ms = delay_ms(random);
            SCOPED_TRACE(command[1] + " " + command[2] + ", SIGINT " + std::to_string(ms) + " ms after the start");
            TempDir dir;
            const std::string out = dir.file("early.nbsnap");
            NbodyChild child(with_out(command, out), dir.file("log.txt"), {.stop_signals_blocked = true});
            ASSERT_TRUE(child.started());
            std::this_thread::sleep_for(std::chrono::milliseconds(ms));
            child.signal(SIGINT);
            const std::string text = test::expect_exit(child, 130, 30);
            EXPECT_TRUE(std::regex_search(text, std::regex("nbody: interrupted by SIGINT \\(Ctrl-C\\).*the state reached "
                                                           "was written to")))
                << text;
            ASSERT_TRUE(fs::exists(out)) << text;
            EXPECT_TRUE(contains(test::snapshot_status(out), "interrupted by SIGINT")) << test::snapshot_status(out);
            EXPECT_TRUE(temporaries(dir.path()).empty());
        }
    }
}

// Case 6: a Ctrl-C during the O(N^2) initial energy (1.1e10 pairs at N = 150,000: about a minute
// here) is honoured within a second or two: the sum polls the request between rows.
TEST(SignalsHostile, TheEnergySumStopsWithinASecond) {
    TempDir dir;
    const std::string out = dir.file("o.nbsnap");
    NbodyChild child({"run", "--scene", scene("plummer.toml"), "--bodies", "150000", "--steps", "5", "--backend",
                      "cpu", "--out", out},
                     dir.file("log.txt"));
    ASSERT_TRUE(child.started());
    ASSERT_TRUE(child.wait_for_log("computing the energy on the host", 60)) << child.log();
    std::this_thread::sleep_for(std::chrono::milliseconds(300));  // inside the sum
    child.signal(SIGINT);
    const auto t0 = std::chrono::steady_clock::now();
    const std::string text = test::expect_exit(child, 130, 30);
    const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    EXPECT_LT(took, 3.0) << "the energy sum did not stop (a full sum takes about a minute here):\n" << text;
    EXPECT_TRUE(contains(test::snapshot_status(out), "at step 0 of 5")) << test::snapshot_status(out);
}

// Case 3: forces has nothing to write until its force pass ends: a stop signal ends it at once,
// saying the file was not written (exit 130 / 143), and leaves no file.
TEST(SignalsHostile, ForcesStopsAtOnceAndSaysWhatItDidNotWrite) {
    for (const int sig : {SIGINT, SIGTERM}) {
        SCOPED_TRACE(sig == SIGINT ? "SIGINT" : "SIGTERM");
        TempDir dir;
        const std::string out = dir.file("f.csv");
        // 4e10 interactions: tens of seconds on any host.
        NbodyChild child({"forces", "--scene", scene("plummer.toml"), "--bodies", "200000", "--backend", "cpu",
                          "--out", out},
                         dir.file("log.txt"));
        ASSERT_TRUE(child.started());
        wait_until_handled(child, 0.5);
        child.signal(sig);
        const auto t0 = std::chrono::steady_clock::now();
        const std::string text = test::expect_exit(child, 128 + sig, 20);
        EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), 1.5) << text;
        EXPECT_TRUE(contains(text, std::string("interrupted by ") + (sig == SIGINT ? "SIGINT (Ctrl-C)" : "SIGTERM") +
                                       ": " + out + " was not written"))
            << text;
        EXPECT_FALSE(fs::exists(out));
        EXPECT_TRUE(temporaries(dir.path()).empty());
    }
}

// Case 3: bench keeps the runs measured so far, printed and, with --json, written whole (rewritten
// after each run, marked as unfinished, so that a stop during a run of minutes ends it at once
// without losing them): exit 143 for SIGTERM; without --json it says no file was written (130).
TEST(SignalsHostile, BenchKeepsTheRowsMeasuredSoFar) {
    for (const bool json : {true, false}) {
        SCOPED_TRACE(json ? "--json" : "no --json");
        const int sig = json ? SIGTERM : SIGINT;
        TempDir dir;
        const std::string out = dir.file("b.json");
        // 64K bodies: seconds per step on any host, minutes here.
        std::vector<std::string> args = {"bench", "--backend", "cpu", "--bodies", "512,1K,2K,4K,64K", "--repeats", "5"};
        if (json) args.insert(args.end(), {"--json", out});
        NbodyChild child(args, dir.file("log.txt"));
        ASSERT_TRUE(child.started());
        ASSERT_TRUE(child.wait_for_log("\n     4096 ", 60)) << "no row for 4K:\n" << child.log();
        std::this_thread::sleep_for(std::chrono::milliseconds(300));  // into the 64K run
        child.signal(sig);
        const auto t0 = std::chrono::steady_clock::now();
        const std::string text = test::expect_exit(child, 128 + sig, 30);
        EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), 1.5) << text;
        std::smatch m;
        ASSERT_TRUE(std::regex_search(text, m, std::regex(R"(interrupted by \S+( \(Ctrl-C\))?: .*?(\d+) runs? measured)")))
            << text;
        const int measured = std::stoi(m[2].str());
        EXPECT_EQ(measured, 4) << text;
        if (json) {
            EXPECT_TRUE(contains(text, " in " + out + ", marked as")) << text;
            std::ifstream in(out);
            const nlohmann::json doc = nlohmann::json::parse(in);
            EXPECT_EQ(int(doc.at("runs").size()), measured);
            EXPECT_TRUE(doc.contains("interrupted")) << doc.dump();
        } else {
            EXPECT_TRUE(contains(text, "no --json, so no file was written")) << text;
            EXPECT_FALSE(fs::exists(out));
        }
        EXPECT_TRUE(temporaries(dir.path()).empty());
    }
}

// Case 3: accuracy (the tree report, on the host) prints each figure as it is measured and writes
// --json at the end: a stop ends it at once, saying the JSON was not written.
TEST(SignalsHostile, AccuracyStopsAtOnceAndSaysTheJsonWasNotWritten) {
    TempDir dir;
    const std::string out = dir.file("a.json");
    NbodyChild child({"accuracy", "--gravity", "tree", "--backend", "cpu", "--bodies", "100000", "--theta",
                      "0.3,0.5,0.7", "--json", out},
                     dir.file("log.txt"));
    ASSERT_TRUE(child.started());
    wait_until_handled(child, 0.5);
    child.signal(SIGINT);
    const auto t0 = std::chrono::steady_clock::now();
    const std::string text = test::expect_exit(child, 130, 20);
    EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), 1.5) << text;
    EXPECT_TRUE(contains(text, "interrupted by SIGINT (Ctrl-C): the figures printed so far are all that was measured; " +
                                   out + " was not written"))
        << text;
    EXPECT_FALSE(fs::exists(out));
    EXPECT_TRUE(temporaries(dir.path()).empty());
}

// Case 5: SIGHUP (a closed terminal or ssh session) is a stop like SIGTERM: the state reached is
// written, exit 129, even though stderr is gone (its writes fail with EPIPE) by then.
TEST(SignalsHostile, SighupWithStderrGoneWritesTheStateAndExits129) {
    const std::vector<std::vector<std::string>> commands = {
        {"run", "--scene", scene("plummer.toml"), "--bodies", "2048", "--steps", "100000000", "--backend", "cpu"},
        {"run", "--integrator", "hermite4", "--scene", scene("star-cluster-kroupa.toml"), "--bodies", "1024",
         "--t-end", "100000", "--backend", "cpu"}};
    for (const auto& command : commands) {
        SCOPED_TRACE(command[1] + " " + command[2]);
        TempDir dir;
        const std::string out = dir.file("hup.nbsnap");
        NbodyChild child(with_out(command, out), dir.file("log.txt"), {.stderr_to_pipe = true});
        ASSERT_TRUE(child.started());
        wait_until_handled(child, 0.8);
        child.close_stderr_pipe();  // the terminal went away
        child.signal_group(SIGHUP);
        test::expect_exit(child, 129, 30);
        ASSERT_TRUE(fs::exists(out));
        EXPECT_TRUE(contains(test::snapshot_status(out), "interrupted by SIGHUP")) << test::snapshot_status(out);
        EXPECT_TRUE(temporaries(dir.path()).empty());
    }
}

}  // namespace
}  // namespace nbody
