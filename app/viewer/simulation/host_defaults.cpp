#include "host_defaults.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <exception>
#include <filesystem>

#include "nbody/sim/scene.hpp"
#include "nbody/sim/scene_spec.hpp"

namespace nbody::app {

double HostStepModel::seconds(std::size_t bodies) const {
    const double n = double(std::max<std::size_t>(bodies, 2));
    return seconds_per_n_log_n * n * std::log2(n);
}

HostStepModel measure_host_step(Backend& backend, const State& sample, const StepParams& params) {
    backend.load(sample);
    backend.step(params, 1);  // the first also computes the starting accelerations
    const auto start = std::chrono::steady_clock::now();
    backend.step(params, 1);
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    backend.load(sample);
    const double n = double(std::max<std::size_t>(sample.size(), 2));
    return {seconds / (n * std::log2(n))};
}

std::size_t fit_host_bodies(const HostStepModel& model, int steps_per_frame, std::size_t scene_bodies) {
    constexpr std::size_t kGrain = 1024;
    const std::size_t floor_n = std::min(kHostMinBodies, scene_bodies);
    const double budget = 1.0 / kHostSimulatedFramesPerSecond / double(std::max(steps_per_frame, 1));
    std::size_t best = floor_n;
    for (std::size_t n = kGrain; n <= scene_bodies; n += kGrain)
        if (n > best && model.seconds(n) <= budget) best = n;
    return best;
}

int listed_steps_per_frame(const std::string& path) {
    namespace fs = std::filesystem;
    std::string file = path;
    if (file.empty())
        for (const std::string& dir : scene_directories())
            if (std::error_code ec; fs::is_regular_file(fs::path(dir) / kDefaultSceneFile, ec)) {
                file = (fs::path(dir) / kDefaultSceneFile).string();
                break;
            }
    if (fs::path(file).extension() != ".toml") return 1;
    try {
        return std::max(read_scene_spec(file).steps_per_frame, 1);
    } catch (const std::exception&) {
        return 1;  // the picker says why the file cannot be used; the cap needs no more
    }
}

bool is_galaxy_scene(const State& state) {
    return std::any_of(state.component.begin(), state.component.end(), [](Component c) { return c == Component::Disk; });
}

}  // namespace nbody::app
