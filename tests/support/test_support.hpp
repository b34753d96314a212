#pragma once
// Helpers shared by the test executables.

#include <filesystem>
#include <string>
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
    int exit_code = -1;
    std::string output;  // stdout and stderr together
};

// Runs a shell command line, capturing both output streams.
CommandResult run_command(const std::string& command_line);

// Where the nbody executable and the source tree are: the environment variables NBODY_EXECUTABLE
// and NBODY_SOURCE_DIR when set (a build carried to another machine), else the paths CMake baked in.
std::string nbody_executable();
std::string source_dir();

// Runs the nbody executable under test with the given argument string.
CommandResult run_nbody(const std::string& arguments);

void write_text(const std::string& path, const std::string& text);
std::string read_text(const std::string& path);

// Max over bodies of |a - ref| / |ref| (Chamomile eq. 3).
double max_relative_error(const std::vector<Vec3d>& a, const std::vector<Vec3d>& reference);

// Every body's acceleration from the double-precision reference backend (the truth the other
// backends are tested against), Plummer softening `softening`.
std::vector<Vec3d> reference_accelerations(const State& state, double softening);

}  // namespace nbody::test
