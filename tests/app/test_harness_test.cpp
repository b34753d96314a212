// The test harness's own limits (tests/support/test_support.hpp), checked here because this is the
// quickest test program: a child that does not end, or a grandchild that keeps the output pipe
// open, is ended at the limit and reported, so that no test waits without bound (issue 34).

#include <gtest/gtest.h>

#include <chrono>
#include <csignal>
#include <sys/wait.h>
#include <unistd.h>

#include "test_support.hpp"

namespace nbody {
namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

TEST(TestHarness, ACommandThatOutlivesItsLimitIsKilledWithWhatItPrinted) {
    const auto t0 = Clock::now();
    const auto r = test::run_command("echo started; sleep 30; echo never", 1.0);
    EXPECT_LT(seconds_since(t0), 10.0);
    EXPECT_TRUE(r.timed_out);
    EXPECT_EQ(r.exit_code, 124);
    EXPECT_NE(r.output.find("started"), std::string::npos) << r.output;
    EXPECT_EQ(r.output.find("never\n"), std::string::npos) << r.output;  // the harness line names it: "never]"
    EXPECT_NE(r.output.find("[test harness: killed after 1 s"), std::string::npos) << r.output;
}

// The shell ends at once, but the background sleep it started holds the pipe: reading to the end
// of the output would wait 30 s. The limit ends it with the shell's process group.
TEST(TestHarness, AGrandchildHoldingTheOutputOpenIsEndedToo) {
    const auto t0 = Clock::now();
    const auto r = test::run_command("sleep 30 & echo parent done", 1.0);
    EXPECT_LT(seconds_since(t0), 10.0);
    EXPECT_TRUE(r.timed_out);
    EXPECT_NE(r.output.find("parent done"), std::string::npos) << r.output;
}

TEST(TestHarness, ACommandWithinItsLimitKeepsItsExitCodeAndOutput) {
    const auto r = test::run_command("echo out; echo err >&2; exit 3", 30.0);
    EXPECT_FALSE(r.timed_out);
    EXPECT_EQ(r.exit_code, 3);
    EXPECT_EQ(r.output, "out\nerr\n");
    EXPECT_EQ(test::run_command("kill -TERM $$", 30.0).exit_code, 128 + SIGTERM);
}

TEST(TestHarness, WaitOrKillEndsAChildThatDoesNotExit) {
    const pid_t pid = ::fork();
    if (pid == 0) {
        ::execl("/bin/sleep", "sleep", "30", static_cast<char*>(nullptr));
        ::_exit(127);
    }
    ASSERT_GT(pid, 0);
    const auto t0 = Clock::now();
    const std::optional<int> status = test::wait_or_kill(pid, 0.5);
    EXPECT_LT(seconds_since(t0), 10.0);
    ASSERT_TRUE(status.has_value());
    EXPECT_TRUE(WIFSIGNALED(*status) && WTERMSIG(*status) == SIGKILL);
}

}  // namespace
}  // namespace nbody
