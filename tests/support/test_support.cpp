#include "test_support.hpp"

#include <array>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <random>
#include <sstream>
#include <stdexcept>
#include <sys/wait.h>

#include "nbody/sim/direct_sum_backend.hpp"

namespace nbody::test {

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

CommandResult run_command(const std::string& command_line) {
    CommandResult result;
    FILE* pipe = ::popen((command_line + " 2>&1").c_str(), "r");
    if (!pipe) throw std::runtime_error("popen failed for: " + command_line);
    std::array<char, 4096> buffer;
    std::size_t got;
    while ((got = std::fread(buffer.data(), 1, buffer.size(), pipe)) > 0) result.output.append(buffer.data(), got);
    const int status = ::pclose(pipe);
    result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
    return result;
}

std::string nbody_executable() {
    const char* env = std::getenv("NBODY_EXECUTABLE");
    return env && *env ? env : NBODY_EXECUTABLE;
}

std::string source_dir() {
    const char* env = std::getenv("NBODY_SOURCE_DIR");
    return env && *env ? env : NBODY_SOURCE_DIR;
}

CommandResult run_nbody(const std::string& arguments) {
    return run_command("'" + nbody_executable() + "' " + arguments);
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
