#pragma once
// A child nbody process for the signal tests (issue 34): spawned in a process group of its own, so
// that a test can signal the group as `timeout`, job schedulers and a closed terminal do; stdout
// and stderr go to a log file (or stderr to a pipe the test can close, as a terminal that went
// away); every wait is bounded, and a child that outlives its test is killed (SIGKILL) and reaped.

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "nbody/sim/io/snapshot.hpp"
#include "test_support.hpp"

extern char** environ;

namespace nbody::test {

struct ChildOptions {
    bool stderr_to_pipe = false;  // stderr to a pipe (close_stderr_pipe() makes its writes fail), not the log
    // SIGINT, SIGTERM and SIGHUP blocked when the program starts, so that one sent in its first
    // milliseconds, before its handlers can be in place however slowly it starts, is pending:
    // the program must unblock it once it handles it, and then honour it.
    bool stop_signals_blocked = false;
};

class NbodyChild {
  public:
    using Clock = std::chrono::steady_clock;

    NbodyChild(std::vector<std::string> args, std::string log, ChildOptions options = {}) : log_(std::move(log)) {
        const bool stderr_to_pipe = options.stderr_to_pipe;
        args.insert(args.begin(), nbody_executable());
        std::vector<char*> argv;
        for (auto& a : args) argv.push_back(a.data());
        argv.push_back(nullptr);
        int pipe_fds[2] = {-1, -1};
        if (stderr_to_pipe && ::pipe(pipe_fds) != 0) return;
        posix_spawn_file_actions_t actions;
        posix_spawn_file_actions_init(&actions);
        posix_spawn_file_actions_addopen(&actions, 1, log_.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (stderr_to_pipe) {
            posix_spawn_file_actions_adddup2(&actions, pipe_fds[1], 2);
            posix_spawn_file_actions_addclose(&actions, pipe_fds[0]);
            posix_spawn_file_actions_addclose(&actions, pipe_fds[1]);
        } else {
            posix_spawn_file_actions_adddup2(&actions, 1, 2);
        }
        posix_spawnattr_t attributes;
        posix_spawnattr_init(&attributes);
        sigset_t stops;
        sigemptyset(&stops);
        for (int stop : {SIGINT, SIGTERM, SIGHUP}) sigaddset(&stops, stop);
        // Default actions whatever this process inherited (a test run in the background of a
        // script ignores SIGINT); the mask as asked.
        posix_spawnattr_setsigdefault(&attributes, &stops);
        sigset_t mask;
        sigemptyset(&mask);
        if (options.stop_signals_blocked) mask = stops;
        posix_spawnattr_setsigmask(&attributes, &mask);
        posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK);
        posix_spawnattr_setpgroup(&attributes, 0);  // a group of its own, led by the child
        start_ = Clock::now();
        if (::posix_spawn(&pid_, argv[0], &actions, &attributes, argv.data(), environ) != 0) pid_ = -1;
        posix_spawnattr_destroy(&attributes);
        posix_spawn_file_actions_destroy(&actions);
        if (stderr_to_pipe) {
            ::close(pipe_fds[1]);
            stderr_pipe_ = pipe_fds[0];
        }
    }
    ~NbodyChild() {
        close_stderr_pipe();
        if (pid_ > 0 && !reaped_) {
            ::kill(pid_, SIGKILL);
            ::waitpid(pid_, nullptr, 0);
        }
    }
    NbodyChild(const NbodyChild&) = delete;
    NbodyChild& operator=(const NbodyChild&) = delete;

    bool started() const { return pid_ > 0; }
    double seconds_since_start() const { return std::chrono::duration<double>(Clock::now() - start_).count(); }

    // True once the child catches SIGINT (SigCgt in /proc/PID/status): its handlers are in place.
    bool catches_sigint() const {
        const std::string status = read_text("/proc/" + std::to_string(pid_) + "/status");
        const std::size_t at = status.find("SigCgt:");
        return at != std::string::npos &&
               (std::stoull(status.substr(at + 7), nullptr, 16) & (1ull << (SIGINT - 1))) != 0;
    }

    void signal(int sig) const { ::kill(pid_, sig); }
    void signal_group(int sig) const { ::kill(-pid_, sig); }  // the child leads its group

    // Waits up to `seconds` for the log to contain `text` (false: it did not, or the child ended).
    bool wait_for_log(const std::string& text, double seconds) {
        const auto t0 = Clock::now();
        while (std::chrono::duration<double>(Clock::now() - t0).count() < seconds) {
            if (log().find(text) != std::string::npos) return true;
            if (exited()) return log().find(text) != std::string::npos;
            std::this_thread::sleep_for(std::chrono::milliseconds(10));
        }
        return false;
    }

    // The wait status once the child ends within `seconds`; nothing if it did not (it is then killed).
    std::optional<int> wait(double seconds) {
        const auto t0 = Clock::now();
        while (std::chrono::duration<double>(Clock::now() - t0).count() < seconds) {
            if (exited()) return status_;
            std::this_thread::sleep_for(std::chrono::milliseconds(5));
        }
        ::kill(pid_, SIGKILL);
        ::waitpid(pid_, nullptr, 0);
        reaped_ = true;
        return std::nullopt;
    }

    bool exited() {
        if (reaped_) return true;
        if (::waitpid(pid_, &status_, WNOHANG) == pid_) reaped_ = true;
        return reaped_;
    }

    std::string log() const { return read_text(log_); }

    // A terminal that went away: the child's writes to stderr fail from now on (EPIPE).
    void close_stderr_pipe() {
        if (stderr_pipe_ >= 0) ::close(stderr_pipe_);
        stderr_pipe_ = -1;
    }

  private:
    std::string log_;
    pid_t pid_ = -1;
    int stderr_pipe_ = -1;
    int status_ = 0;
    bool reaped_ = false;
    Clock::time_point start_;
};

// "exit 130" / "killed by signal 2": for failure messages.
inline std::string describe_status(int status) {
    if (WIFEXITED(status)) return "exit " + std::to_string(WEXITSTATUS(status));
    if (WIFSIGNALED(status)) return "killed by signal " + std::to_string(WTERMSIG(status));
    return "status " + std::to_string(status);
}

// Expects the child to end by exiting with `code` within `seconds`; returns its log.
inline std::string expect_exit(NbodyChild& child, int code, double seconds) {
    const std::optional<int> status = child.wait(seconds);
    const std::string text = child.log();
    EXPECT_TRUE(status.has_value()) << "did not end within " << seconds << " s:\n" << text;
    if (status)
        EXPECT_TRUE(WIFEXITED(*status) && WEXITSTATUS(*status) == code)
            << describe_status(*status) << ", expected exit " << code << ":\n"
            << text;
    return text;
}

// The status a snapshot was written with ("interrupted by ... at step ..."), "" for a normal end.
inline std::string snapshot_status(const std::string& path) {
    const io::Snapshot snap = io::read_snapshot(path);
    const auto it = snap.metadata.find(io::kStatusKey);
    return it == snap.metadata.end() ? std::string() : it->second;
}

}  // namespace nbody::test
