// Issue 34: the memory estimate covers every workload (Hermite, the tree, a force pass), the
// process's own limits, and a std::bad_alloc that escapes it still says what was being done.

#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <new>
#include <stdexcept>
#include <string>

#include "nbody/sim/memory_check.hpp"

namespace nbody {
namespace {

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

TEST(MemoryEstimate, EachWorkloadAddsWhatItHolds) {
    const MemoryNeed leapfrog = memory_need(Workload{"cpu"});
    Workload tree{"cpu"};
    tree.gravity = Gravity::Tree;
    Workload forces{"cpu"};
    forces.force_pass = true;
    Workload hermite{"cpu"};
    hermite.hermite_order = 4;
    EXPECT_GT(memory_need(tree).host_per_body, leapfrog.host_per_body);
    EXPECT_TRUE(contains(memory_need(tree).host_detail, "tree arrays")) << memory_need(tree).host_detail;
    EXPECT_EQ(memory_need(forces).host_per_body, leapfrog.host_per_body + 24);
    // The Hermite integrator keeps x, v, a, jerk, snap, crackle in double and more: far above leapfrog's.
    EXPECT_GT(memory_need(hermite).host_per_body, 3 * leapfrog.host_per_body);
    EXPECT_TRUE(contains(memory_need(hermite).host_detail, "integrator state")) << memory_need(hermite).host_detail;
    Workload hermite_gpu = hermite;
    hermite_gpu.backend = "cuda";
    EXPECT_GT(memory_need(hermite_gpu).device_per_body, 0u);
    // The old form is the leapfrog workload.
    EXPECT_EQ(memory_need("reference", Precision::Fp32).host_per_body, memory_need(Workload{"reference"}).host_per_body);
}

TEST(MemoryEstimate, RefusalNamesTheLimitThatBinds) {
    const auto host = host_memory();
    ASSERT_TRUE(host.has_value());
    Workload hermite{"cpu"};
    hermite.hermite_order = 6;
    const std::uint64_t too_many = host->bytes / memory_need(hermite).host_per_body + 1000;
    if (too_many > (1ull << 30)) GTEST_SKIP() << "this machine holds 2^30 Hermite bodies";
    try {
        check_memory_for(too_many, hermite);
        FAIL() << "no refusal for " << too_many << " bodies";
    } catch (const std::runtime_error& e) {
        EXPECT_TRUE(contains(e.what(), "N = " + std::to_string(too_many) + " needs about")) << e.what();
        EXPECT_TRUE(contains(e.what(), "are available; use fewer bodies (the limit that binds: ")) << e.what();
    }
    EXPECT_GT(check_memory_for(1000, hermite), 1000u * 100);  // the estimate comes back for MemoryActivity
}

// In a child, so that the limit does not bind the test process: RLIMIT_AS lowers what is available,
// and the message says which limit it was.
TEST(MemoryEstimate, TheAddressSpaceLimitLowersWhatIsAvailable) {
    const pid_t pid = ::fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
        const rlimit limit{512ull << 20, 512ull << 20};
        if (::setrlimit(RLIMIT_AS, &limit) != 0) ::_exit(3);
        const auto host = host_memory();
        ::_exit(host && host->bytes < (512ull << 20) && host->limit == "ulimit -v (RLIMIT_AS)" ? 0 : 1);
    }
    int status = 0;
    ASSERT_EQ(::waitpid(pid, &status, 0), pid);
    ASSERT_TRUE(WIFEXITED(status));
    EXPECT_EQ(WEXITSTATUS(status), 0) << "3: setrlimit failed; 1: the limit was not taken as the available memory";
}

TEST(MemoryEstimate, ABadAllocSaysWhatWasBeingDone) {
    try {
        const MemoryActivity outer("running the outer thing", 10, 100);
        const MemoryActivity inner("building the scene", 2000000000, 270ull << 30);
        throw std::bad_alloc();
    } catch (const std::bad_alloc&) {
        const std::string message = out_of_memory_message();
        EXPECT_TRUE(contains(message, "out of memory while building the scene (N = 2000000000, about 270.0 GiB"))
            << message;
        EXPECT_FALSE(contains(message, "bad_alloc")) << message;
    }
    // A scope left normally forgets what failed inside it, once handled.
    {
        const MemoryActivity done("a finished step", 5, 5);
    }
    EXPECT_FALSE(contains(out_of_memory_message(), "building the scene")) << out_of_memory_message();
    EXPECT_TRUE(contains(out_of_memory_message(), "out of memory")) << out_of_memory_message();
}

// The viewer's worker threads and panels report a caught exception with error_text: its own text,
// or for a bad_alloc what was being done, never the class name.
TEST(MemoryEstimate, ErrorTextSaysWhatRanOutOfMemoryNotTheClassName) {
    const std::string oom = error_text(std::bad_alloc(), "opening big.nbsnap");
    EXPECT_EQ(oom, "out of memory while opening big.nbsnap; use fewer bodies or free memory");
    EXPECT_EQ(error_text(std::runtime_error("s.toml:3: bad key"), "opening s.toml"), "s.toml:3: bad key");
}

}  // namespace
}  // namespace nbody
