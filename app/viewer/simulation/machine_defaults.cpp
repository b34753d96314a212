#include "machine_defaults.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <exception>
#include <filesystem>

#include "nbody/sim/scene.hpp"
#include "nbody/sim/scene_spec.hpp"

namespace nbody::app {

namespace {

double n_log_n(std::size_t bodies) {
    const double n = double(std::max<std::size_t>(bodies, 2));
    return n * std::log2(n);
}

}  // namespace

double StepModel::seconds(std::size_t bodies) const { return seconds_per_n_log_n * n_log_n(bodies); }

StepModel StepModel::through(std::size_t bodies, double seconds) { return {seconds / n_log_n(bodies)}; }

double host_step_seconds(Backend& backend, const StepParams& params) {
    const auto start = std::chrono::steady_clock::now();
    backend.step(params, 1);
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

StepModel measure_step(Backend& backend, const State& sample, const StepParams& params, const StepClock& clock) {
    backend.load(sample);
    backend.step(params, 1);  // the first also computes the starting accelerations
    const double seconds = clock(backend, params);
    backend.load(sample);
    return StepModel::through(sample.size(), seconds);
}

std::size_t fit_bodies(const StepModel& model, const BodiesFit& fit) {
    constexpr std::size_t kGrain = 1024;
    const double budget = fit.seconds_per_frame / double(std::max(fit.steps_per_frame, 1));
    std::size_t best = fit.min_bodies;
    // The grid from its first point up; model.seconds grows with N, so the first miss ends it.
    for (std::size_t n = fit.powers_of_two ? 1 : kGrain; n <= fit.max_bodies && model.seconds(n) <= budget;
         n = fit.powers_of_two ? 2 * n : n + kGrain)
        best = std::max(best, n);
    return std::min(best, fit.max_bodies);
}

std::size_t fit_host_bodies(const StepModel& model, int steps_per_frame, std::size_t scene_bodies) {
    return fit_bodies(model, {1.0 / kHostSimulatedFramesPerSecond, steps_per_frame,
                              std::min(kHostMinBodies, scene_bodies), scene_bodies, false});
}

std::size_t fit_gpu_bodies(const StepModel& model, int steps_per_frame) {
    return fit_bodies(model, {kGpuStepBudgetSeconds, steps_per_frame, kGpuMinBodies, kGpuMaxBodies, true});
}

std::optional<std::size_t> fit_launched_bodies(const std::optional<MachineFit>& fit, bool gpu,
                                               std::size_t listed_bodies, int listed_steps_per_frame, bool galaxy) {
    if (gpu) {
        if (!fit || !galaxy) return std::nullopt;
        return fit_gpu_bodies(fit->model, fit->steps_per_frame.value_or(listed_steps_per_frame));
    }
    if (listed_bodies <= kHostMinBodies) return std::nullopt;
    return fit ? fit_host_bodies(fit->model, listed_steps_per_frame, listed_bodies) : kHostMinBodies;
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
