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

// Every host backend is refused for the precision modes with the same hint (the reference backend
// fell through to the CUDA path and its error before).
TEST(AccuracyBackend, EveryHostBackendWithoutTheTreeSaysWhatItCanMeasureInstead) {
    for (const std::string backend : {"cpu", "reference"}) {
        SCOPED_TRACE(backend);
        const CommandResult r = run_nbody("accuracy --backend " + backend + " --bodies 2K", 60);
        EXPECT_NE(r.exit_code, 0) << r.output;
        EXPECT_NE(r.output.find("--backend " + backend + ": without --gravity tree"), std::string::npos)
            << r.output;
        EXPECT_NE(r.output.find("nbody accuracy --gravity tree --backend cpu"), std::string::npos)
            << r.output;
    }
}

// `accuracy --help` says which options serve which measurement, and what each defaults to there.
TEST(AccuracyBackend, TheHelpSaysWhatRunsWhere) {
    const CommandResult r = run_nbody("accuracy --help", 30);
    ASSERT_EQ(r.exit_code, 0) << r.output;
    for (const char* text :
         {"(needs the cuda backend)", "the one measured without a GPU", "(tree: default 64K)",
          "Tree: cpu | reference | cuda | auto; the precision modes run on cuda (or auto) only",
          "Direct: Plummer softening epsilon", "the tree uses its scene's", "Direct: modes to measure"})
        EXPECT_NE(r.output.find(text), std::string::npos) << text << "\n" << r.output;
}

}  // namespace
}  // namespace nbody::test
