// --gpus on run and bench: a value that cannot be honoured (0, not a number, more GPUs than the
// machine has, any --gpus in a build without NCCL, several GPUs for a host backend) is refused
// before any work, with the value named, and nothing is written.

#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "test_support.hpp"

namespace nbody::test {
namespace {

std::string scene() { return "'" + source_dir() + "/scenes/plummer.toml'"; }

void expect_refused(const CommandResult& r, const std::string& message, const std::string& output_path) {
    EXPECT_NE(r.exit_code, 0) << r.output;
    EXPECT_NE(r.output.find(message), std::string::npos) << r.output;
    EXPECT_EQ(r.output.find("terminate called"), std::string::npos) << r.output;
    EXPECT_FALSE(std::filesystem::exists(output_path)) << output_path << " was written";
}

struct Refusal {
    std::string command;  // run or bench, with --out/--json added below
    std::string gpus;
    std::string message;  // what the error must say
};

TEST(GpusOption, RefusedBeforeAnyWorkWithTheValueNamed) {
    // 0 and "two" are refused in every build. 2 and 9: without NCCL the build says so; with NCCL
    // and fewer GPUs, the machine's count; with two GPUs, that several GPUs step the cuda backend.
    const std::string run = "run --backend cpu --steps 1 --bodies 64 --scene " + scene();
    const std::string bench = "bench --backend cpu --bodies 1K";
    const Refusal cases[] = {
        {run, "0", "--gpus 0: give 1 or more GPUs, or 'all'"},
        {bench, "two", "--gpus two: give a whole number of GPUs or 'all'"},
        {run, "2", "--gpus 2: "},
        {bench, "9", "--gpus 9: "},
    };
    for (const Refusal& c : cases) {
        TempDir dir;
        const bool is_run = c.command.rfind("run", 0) == 0;
        const std::string out = dir.file(is_run ? "out.csv" : "bench.json");
        const std::string flag = is_run ? " --out '" : " --json '";
        expect_refused(run_nbody(c.command + " --gpus " + c.gpus + flag + out + "'"), c.message, out);
    }
}

}  // namespace
}  // namespace nbody::test
