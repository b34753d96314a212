#pragma once
// Helpers shared by the test executables.

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <future>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <sys/types.h>
#include <thread>
#include <vector>

#include "nbody/sim/state.hpp"

namespace nbody::test {

// A fresh folder under the system temp dir, removed with its contents when this goes away.
class TempDir {
public:
    TempDir();
    ~TempDir();
    TempDir(const TempDir&) = delete;
    TempDir& operator=(const TempDir&) = delete;
    const std::filesystem::path& path() const { return path_; }
    std::string file(const std::string& name) const { return (path_ / name).string(); }

private:
    std::filesystem::path path_;
};

struct CommandResult {
    int exit_code = -1;      // 128 + N when killed by signal N; 124 when it ran past its time limit
    std::string output;      // stdout and stderr together
    bool timed_out = false;  // killed at the time limit (the output then ends with a line saying so)
};

// How long a test lets one command run: $NBODY_TEST_COMMAND_TIMEOUT seconds where set (a slow
// machine), else 90 s: the slowest render test, several viewer runs, takes 8 s on llvmpipe on a
// busy 2-core machine; below CTest's per-test TIMEOUT (120 s for render), so that a hung child
// fails its own test with its output instead of the whole program being killed without a word.
double command_timeout_seconds();

// Runs a shell command line (stdin from /dev/null), capturing both output streams. A command
// still running after `timeout_s` is ended with its whole process group (SIGTERM, SIGKILL 5 s
// later): no test waits without bound for a child, nor for a grandchild that kept the pipe open.
CommandResult run_command(const std::string& command_line, double timeout_s = command_timeout_seconds());

// Starts `args` (args[0] an executable's path) with stdout and stderr into the file `log`, without
// waiting: for tests that signal a running process. Returns its pid, or -1 when it could not start.
pid_t spawn_logged(std::vector<std::string> args, const std::string& log);

// Waits for child `pid` at most `timeout_s`; past that sends SIGKILL and waits 10 s more. Returns
// the wait status, or nothing when the child could not be reaped even then (stuck in the kernel,
// e.g. in a GPU driver call): the test fails instead of hanging.
std::optional<int> wait_or_kill(pid_t pid, double timeout_s);

// Where the nbody executable and the source tree are: the environment variables NBODY_EXECUTABLE
// and NBODY_SOURCE_DIR when set (a build carried to another machine), else the paths CMake baked in.
std::string nbody_executable();
std::string source_dir();

// Runs the nbody executable under test with the given argument string (and time limit).
CommandResult run_nbody(const std::string& arguments, double timeout_s = command_timeout_seconds());

void write_text(const std::string& path, const std::string& text);
std::string read_text(const std::string& path);

// Max over bodies of |a - ref| / |ref| (Chamomile eq. 3).
double max_relative_error(const std::vector<Vec3d>& a, const std::vector<Vec3d>& reference);

// Every body's acceleration from the double-precision reference backend (the truth the other
// backends are tested against), Plummer softening `softening`.
std::vector<Vec3d> reference_accelerations(const State& state, double softening);

// Polls `ready` every millisecond for at most `limit`: no test waits for another thread without
// bound. False when it gave up.
template <class Ready>
bool wait_for(Ready ready, std::chrono::milliseconds limit = std::chrono::milliseconds(5000)) {
    const auto until = std::chrono::steady_clock::now() + limit;
    while (!ready()) {
        if (std::chrono::steady_clock::now() > until) return false;
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    return true;
}

// The value of `result` (a std::async of the call under test), waited for at most `limit`. Past that
// the call hangs, and its thread could not be joined: the test process ends at once, saying what
// still waited, so that a hang fails the test rather than stopping the suite.
template <class T>
T get_within(std::future<T>& result, std::chrono::seconds limit, const std::string& what) {
    if (result.wait_for(limit) != std::future_status::ready) {
        std::fprintf(stderr, "FAILED: %s still waited after %lld s\n", what.c_str(), static_cast<long long>(limit.count()));
        std::_Exit(1);
    }
    return result.get();
}

// The message of the std::runtime_error that `call` throws, or "no failure" when it returns.
template <class Call>
std::string runtime_error_of(const Call& call) {
    try {
        call();
        return "no failure";
    } catch (const std::runtime_error& e) {
        return e.what();
    }
}

// What a fake simulation did, in order, written by its thread and read by the test's.
class EventLog {
  public:
    void log(const std::string& event) {
        const std::lock_guard lock(mutex_);
        events_.push_back(event);
    }
    std::vector<std::string> events() const {
        const std::lock_guard lock(mutex_);
        return events_;
    }

  private:
    mutable std::mutex mutex_;
    std::vector<std::string> events_;
};

}  // namespace nbody::test
