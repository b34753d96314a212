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
#include "nbody/sim/io/snapshot.hpp"
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

// Waits (bounded) until the child's handlers are in place, then `extra` seconds more.
void wait_until_handled(NbodyChild& child, double extra = 0) {
    while (!child.catches_sigint() && child.seconds_since_start() < 20 && !child.exited())
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
    std::this_thread::sleep_for(std::chrono::duration<double>(extra));
}

// The child ended by exiting with `code` within `seconds`; returns its log.
std::string expect_exit(NbodyChild& child, int code, double seconds) {
    const std::optional<int> status = child.wait(seconds);
    const std::string text = child.log();
    EXPECT_TRUE(status.has_value()) << "did not end within " << seconds << " s:\n" << text;
    if (status) {
        EXPECT_TRUE(WIFEXITED(*status) && WEXITSTATUS(*status) == code)
            << test::describe_status(*status) << ", expected exit " << code << ":\n"
            << text;
    }
    return text;
}

std::string status_of(const std::string& snapshot_path) {
    const io::Snapshot snap = io::read_snapshot(snapshot_path);
    const auto it = snap.metadata.find(io::kStatusKey);
    return it == snap.metadata.end() ? std::string() : it->second;
}

// Case 1: `timeout -s INT` delivers SIGINT to the program and to its process group, two signals
// within a millisecond. One user action must not abort: the state is written, exit 130. Each
// round sends the pair at another moment of the run (set-up, energy, the loop).
TEST(SignalsHostile, TwoSigintsAMillisecondApartAreOneRequest) {
    for (const double after : {0.0, 0.25, 1.0}) {
        for (const bool to_group : {false, true}) {
            SCOPED_TRACE("pair sent " + std::to_string(after) + " s after the handlers, second to the " +
                         (to_group ? "process group" : "process"));
            TempDir dir;
            const std::string out = dir.file("int.nbsnap");
            NbodyChild child({"run", "--scene", scene("plummer.toml"), "--bodies", "4096", "--steps", "100000",
                              "--backend", "cpu", "--out", out},
                             dir.file("log.txt"));
            ASSERT_TRUE(child.started());
            wait_until_handled(child, after);
            child.signal(SIGINT);
            std::this_thread::sleep_for(std::chrono::milliseconds(1));
            if (to_group)
                child.signal_group(SIGINT);
            else
                child.signal(SIGINT);
            const std::string text = expect_exit(child, 130, 30);
            // Before `run` knows its output (the first milliseconds) the acknowledgement is generic.
            EXPECT_TRUE(contains(text, "nbody: SIGINT (Ctrl-C): stopping")) << "no acknowledgement:\n" << text;
            EXPECT_TRUE(contains(text, "A second Ctrl-C (or signal) 1 s from now or later aborts")) << text;
            if (after > 0)
                EXPECT_TRUE(contains(text, "stopping after the steps in progress; the state reached will be written to " +
                                               out + ". A second Ctrl-C (or signal) 1 s from now or later aborts: " +
                                               out + " is not written"))
                    << text;
            EXPECT_FALSE(contains(text, "aborted")) << text;
            EXPECT_TRUE(contains(text, "the state reached was written to " + out)) << text;
            ASSERT_TRUE(fs::exists(out)) << text;
            EXPECT_TRUE(contains(status_of(out), "interrupted by SIGINT (Ctrl-C)")) << status_of(out);
            EXPECT_TRUE(temporaries(dir.path()).empty());
        }
    }
}

// Case 2: a SIGINT 20-50 ms after the start, while the scene is built or the Hermite integrator
// starts, is honoured as one later on: exit 130, the message, the state written (as it started).
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
            std::vector<std::string> args = command;
            args.insert(args.end(), {"--out", out});
            NbodyChild child(args, dir.file("log.txt"));
            ASSERT_TRUE(child.started());
            std::this_thread::sleep_for(std::chrono::milliseconds(ms));
            child.signal(SIGINT);
            const std::string text = expect_exit(child, 130, 30);
            EXPECT_TRUE(std::regex_search(text, std::regex("nbody: interrupted by SIGINT \\(Ctrl-C\\).*the state reached "
                                                           "was written to")))
                << text;
            ASSERT_TRUE(fs::exists(out)) << text;
            EXPECT_TRUE(contains(status_of(out), "interrupted by SIGINT")) << status_of(out);
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
    const std::string text = expect_exit(child, 130, 30);
    const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    EXPECT_LT(took, 3.0) << "the energy sum did not stop (a full sum takes about a minute here):\n" << text;
    EXPECT_TRUE(contains(status_of(out), "at step 0 of 5")) << status_of(out);
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
        const std::string text = expect_exit(child, 128 + sig, 20);
        EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), 1.5) << text;
        EXPECT_TRUE(contains(text, std::string("interrupted by ") + (sig == SIGINT ? "SIGINT (Ctrl-C)" : "SIGTERM") +
                                       ": " + out + " was not written"))
            << text;
        EXPECT_FALSE(fs::exists(out));
        EXPECT_TRUE(temporaries(dir.path()).empty());
    }
}

// Case 3: bench keeps the rows measured so far: printed, and written whole to --json marked as
// interrupted (exit 143 for SIGTERM); without --json it says no file was written (exit 130).
TEST(SignalsHostile, BenchKeepsTheRowsMeasuredSoFar) {
    for (const bool json : {true, false}) {
        SCOPED_TRACE(json ? "--json" : "no --json");
        const int sig = json ? SIGTERM : SIGINT;
        TempDir dir;
        const std::string out = dir.file("b.json");
        std::vector<std::string> args = {"bench", "--backend", "cpu", "--bodies", "512,1K,2K,4K,8K,16K,32K,64K",
                                         "--repeats", "5"};
        if (json) args.insert(args.end(), {"--json", out});
        NbodyChild child(args, dir.file("log.txt"));
        ASSERT_TRUE(child.started());
        ASSERT_TRUE(child.wait_for_log("\n      512 ", 60)) << "no first row:\n" << child.log();
        child.signal(sig);
        const auto t0 = std::chrono::steady_clock::now();
        const std::string text = expect_exit(child, 128 + sig, 30);
        EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), 5.0) << text;
        std::smatch m;
        ASSERT_TRUE(std::regex_search(text, m, std::regex(R"(interrupted by \S+( \(Ctrl-C\))?: (\d+) runs? measured)")))
            << text;
        const int measured = std::stoi(m[2].str());
        EXPECT_GE(measured, 1);
        EXPECT_LT(measured, 8) << "it did not stop";
        if (json) {
            EXPECT_TRUE(contains(text, "and written to " + out + ", marked as interrupted")) << text;
            std::ifstream in(out);
            const nlohmann::json doc = nlohmann::json::parse(in);
            EXPECT_EQ(int(doc.at("runs").size()), measured);
            EXPECT_TRUE(contains(doc.at("interrupted").get<std::string>(), "by SIGTERM")) << doc.dump();
        } else {
            EXPECT_TRUE(contains(text, "no --json, so no file was written")) << text;
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
    const std::string text = expect_exit(child, 130, 20);
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
        std::vector<std::string> args = command;
        args.insert(args.end(), {"--out", out});
        NbodyChild child(args, dir.file("log.txt"), /*stderr_to_pipe=*/true);
        ASSERT_TRUE(child.started());
        wait_until_handled(child, 0.8);
        child.close_stderr_pipe();  // the terminal went away
        child.signal_group(SIGHUP);
        expect_exit(child, 129, 30);
        ASSERT_TRUE(fs::exists(out));
        EXPECT_TRUE(contains(status_of(out), "interrupted by SIGHUP")) << status_of(out);
        EXPECT_TRUE(temporaries(dir.path()).empty());
    }
}

}  // namespace
}  // namespace nbody
