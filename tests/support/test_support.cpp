#include "test_support.hpp"

#include <algorithm>
#include <array>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <fcntl.h>
#include <fstream>
#include <poll.h>
#include <random>
#include <spawn.h>
#include <sstream>
#include <stdexcept>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

extern char** environ;

#include "nbody/sim/direct_sum_backend.hpp"

namespace nbody::test {

namespace {
// Line-buffered stdout even into a pipe (CTest, `| tee log`): a test's name (gtest flushes it)
// and all it prints reach the reader as they happen, so a test that hangs shows where it is.
const bool kStdoutLineBuffered = (std::setvbuf(stdout, nullptr, _IOLBF, 0), true);
}  // namespace

TempDir::TempDir() {
    std::random_device rd;
    const auto base = std::filesystem::temp_directory_path();
    for (int attempt = 0; attempt < 100; ++attempt) {
        path_ = base / ("nbody-test-" + std::to_string(rd()));
        if (std::filesystem::create_directory(path_)) return;
    }
    throw std::runtime_error("cannot create a temporary directory");
}

TempDir::~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
}

double command_timeout_seconds() {
    if (const char* env = std::getenv("NBODY_TEST_COMMAND_TIMEOUT"); env && *env) {
        char* end = nullptr;
        const double s = std::strtod(env, &end);
        if (end && *end == '\0' && s > 0) return s;
    }
    return 90.0;
}

namespace {

using Clock = std::chrono::steady_clock;

double seconds_left(Clock::time_point deadline) {
    return std::chrono::duration<double>(deadline - Clock::now()).count();
}

// Reaps `pid` if it has exited by `deadline`.
std::optional<int> reap_by(pid_t pid, Clock::time_point deadline) {
    for (;;) {
        int status = 0;
        const pid_t r = ::waitpid(pid, &status, WNOHANG);
        if (r == pid) return status;
        if (r < 0 && errno != EINTR) return std::nullopt;  // not our child (already reaped)
        if (Clock::now() >= deadline) return std::nullopt;
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
}

}  // namespace

std::optional<int> wait_or_kill(pid_t pid, double timeout_s) {
    const auto deadline = Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(timeout_s));
    if (auto status = reap_by(pid, deadline)) return status;
    ::kill(pid, SIGKILL);
    return reap_by(pid, Clock::now() + std::chrono::seconds(10));
}

CommandResult run_command(const std::string& command_line, double timeout_s) {
    CommandResult result;
    int fds[2];
    if (::pipe2(fds, O_CLOEXEC) != 0) throw std::runtime_error("pipe failed for: " + command_line);
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_adddup2(&actions, fds[1], 1);
    posix_spawn_file_actions_adddup2(&actions, fds[1], 2);
    posix_spawnattr_t attr;
    posix_spawnattr_init(&attr);
    posix_spawnattr_setpgroup(&attr, 0);  // its own group: a timeout ends the shell and all it started
    posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP);
    const char* argv[] = {"/bin/sh", "-c", command_line.c_str(), nullptr};
    pid_t pid = -1;
    const int rc = ::posix_spawn(&pid, "/bin/sh", &actions, &attr, const_cast<char* const*>(argv), environ);
    posix_spawn_file_actions_destroy(&actions);
    posix_spawnattr_destroy(&attr);
    ::close(fds[1]);
    if (rc != 0) {
        ::close(fds[0]);
        throw std::runtime_error("cannot start /bin/sh for: " + command_line);
    }

    const auto deadline = Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(timeout_s));
    std::array<char, 4096> buffer;
    for (;;) {
        const double left = seconds_left(deadline);
        if (left <= 0) {
            result.timed_out = true;
            break;
        }
        pollfd p{fds[0], POLLIN, 0};
        const int ready = ::poll(&p, 1, int(std::min(left, 1.0) * 1000) + 1);
        if (ready < 0 && errno == EINTR) continue;
        if (ready <= 0) continue;
        const ssize_t got = ::read(fds[0], buffer.data(), buffer.size());
        if (got < 0 && errno == EINTR) continue;
        if (got <= 0) break;  // end of output: every writer closed the pipe
        result.output.append(buffer.data(), std::size_t(got));
    }
    ::close(fds[0]);
    // The output ended, but the shell may still run (a child that closed its output): the same deadline.
    std::optional<int> status = result.timed_out ? std::nullopt : reap_by(pid, deadline);
    if (!status) {
        result.timed_out = true;
        ::kill(-pid, SIGTERM);
        status = reap_by(pid, Clock::now() + std::chrono::seconds(5));
        ::kill(-pid, SIGKILL);  // and whatever the shell had started
        if (!status) status = reap_by(pid, Clock::now() + std::chrono::seconds(10));
    }
    if (result.timed_out) {
        result.exit_code = 124;
        result.output += "\n[test harness: killed after " + std::to_string(int(timeout_s)) + " s: " + command_line + "]\n";
        return result;
    }
    const int st = *status;
    result.exit_code = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + (WIFSIGNALED(st) ? WTERMSIG(st) : 0);
    return result;
}

pid_t spawn_logged(std::vector<std::string> args, const std::string& log) {
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, 1, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    posix_spawn_file_actions_adddup2(&actions, 1, 2);
    pid_t pid = -1;
    const int rc = ::posix_spawn(&pid, argv[0], &actions, nullptr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    return rc == 0 ? pid : -1;
}

std::string nbody_executable() {
    const char* env = std::getenv("NBODY_EXECUTABLE");
    return env && *env ? env : NBODY_EXECUTABLE;
}

std::string source_dir() {
    const char* env = std::getenv("NBODY_SOURCE_DIR");
    return env && *env ? env : NBODY_SOURCE_DIR;
}

CommandResult run_nbody(const std::string& arguments, double timeout_s) {
    return run_command("'" + nbody_executable() + "' " + arguments, timeout_s);
}

void write_text(const std::string& path, const std::string& text) {
    std::ofstream out(path, std::ios::binary);
    out << text;
    if (!out) throw std::runtime_error("cannot write " + path);
}

std::string read_text(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw std::runtime_error("cannot read " + path);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

double max_relative_error(const std::vector<Vec3d>& a, const std::vector<Vec3d>& reference) {
    if (a.size() != reference.size()) throw std::invalid_argument("max_relative_error: size mismatch");
    double worst = 0;
    for (std::size_t i = 0; i < a.size(); ++i) {
        const double ref = norm(reference[i]);
        const double err = norm(a[i] - reference[i]) / (ref > 0 ? ref : 1.0);
        if (!(err <= worst)) worst = err;  // NaN propagates as the worst
    }
    return worst;
}

std::vector<Vec3d> reference_accelerations(const State& state, double softening) {
    ReferenceBackend ref;
    ref.load(state);
    return ref.accelerations(softening);
}

}  // namespace nbody::test
