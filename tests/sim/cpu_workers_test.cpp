// The CPU backends' pool workers give their cores away on request (issue 33: a viewer stopping
// without waiting for a long step drops them to nice 19 so that its last frame and PNG are written
// within the second). Run in a child process of its own (a re-executed test binary): the
// workers' lower priority lasts for the rest of the process.

#include <gtest/gtest.h>
#include <sys/resource.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>

#include "nbody/sim/cpu_workers.hpp"

namespace nbody {
namespace {

namespace fs = std::filesystem;

std::string first_line(const fs::path& path) {
    std::ifstream in(path);
    std::string line;
    std::getline(in, line);
    return line;
}

// The nice value of thread `task` of this process (/proc/self/task/TID/stat, field 19).
int nice_of(const fs::path& task) {
    std::string stat = first_line(task / "stat");
    stat = stat.substr(stat.rfind(')') + 2);  // after the command name, which may hold spaces
    std::istringstream fields(stat);
    std::string field;
    for (int k = 3; k <= 19; ++k) fields >> field;
    return std::stoi(field);
}

// How many pool workers there are and how many run at nice 19.
std::pair<int, int> workers_lowered() {
    int workers = 0, lowered = 0;
    for (const auto& task : fs::directory_iterator("/proc/self/task")) {
        if (first_line(task.path() / "comm") != "nbody-pool") continue;
        ++workers;
        lowered += nice_of(task.path()) == 19;
    }
    return {workers, lowered};
}

// In the child: every worker (those that already run and those that start after the call) at nice
// 19 within two seconds, the calling thread left as it was.
[[noreturn]] void lower_and_check() {
    const int before = getpriority(PRIO_PROCESS, 0);
    lower_cpu_worker_priority();
    const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(2);
    std::pair<int, int> seen = workers_lowered();
    while ((seen.first == 0 || seen.second < seen.first) && std::chrono::steady_clock::now() < until) {
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
        seen = workers_lowered();
    }
    const bool workers_ok = std::thread::hardware_concurrency() < 2 || (seen.first > 0 && seen.second == seen.first);
    std::exit(workers_ok && getpriority(PRIO_PROCESS, 0) == before ? 0 : 1);
}

TEST(CpuWorkers, LoweringTheirPriorityLeavesTheCallerAlone) {
    GTEST_FLAG_SET(death_test_style, "threadsafe");
    EXPECT_EXIT(lower_and_check(), testing::ExitedWithCode(0), "");
}

}  // namespace
}  // namespace nbody
