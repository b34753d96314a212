// Issue 33 item 10: `accuracy --backend cpu` without --gravity tree says what it can measure on the
// CPU instead of a CUDA error, and writes nothing; the tree's measurement it points to runs there.

#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "test_support.hpp"

namespace nbody::test {
namespace {

TEST(AccuracyBackend, CpuWithoutTheTreeSaysWhatItCanMeasureInstead) {
    const std::string json = (std::filesystem::temp_directory_path() / "nbody-accuracy-cpu-refused.json").string();
    std::filesystem::remove(json);
    const CommandResult r = run_nbody("accuracy --backend cpu --bodies 2K --json '" + json + "'", 60);
    EXPECT_NE(r.exit_code, 0) << r.output;
    EXPECT_NE(r.output.find("nbody accuracy --gravity tree --backend cpu"), std::string::npos) << r.output;
    EXPECT_EQ(r.output.find("CUDA error"), std::string::npos) << r.output;
    EXPECT_EQ(r.output.find("cudaError"), std::string::npos) << r.output;
    EXPECT_FALSE(std::filesystem::exists(json)) << json << " was written";

    const CommandResult tree = run_nbody("accuracy --gravity tree --backend cpu --bodies 1K", 120);
    EXPECT_EQ(tree.exit_code, 0) << tree.output;
}

}  // namespace
}  // namespace nbody::test
