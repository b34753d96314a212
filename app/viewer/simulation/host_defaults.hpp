#pragma once
// Defaults that fit the machine on the CPU (issue 33, item 3): a galaxy scene in the window runs
// the tree code, with the largest N whose steps for one frame take about a fifth of a second
// here (5 simulated frames per second at the scene's steps per frame), 8,192 bodies at least.
// The cost of a step is measured once, at start-up, on the scene itself at kHostMinBodies.

#include <cstddef>
#include <string>

#include "nbody/sim/backend.hpp"
#include "nbody/sim/state.hpp"

namespace nbody::app {

inline constexpr std::size_t kHostMinBodies = 8192;
inline constexpr double kHostSimulatedFramesPerSecond = 5.0;

// A tree step costs about `seconds_per_n_log_n` x N log2 N seconds on this machine.
struct HostStepModel {
    double seconds_per_n_log_n = 0;
    double seconds(std::size_t bodies) const;
};

// Times one step of `sample` on `backend` (after a first one, which also builds what the
// backend caches); leaves `sample` loaded.
HostStepModel measure_host_step(Backend& backend, const State& sample, const StepParams& params);

// The largest N, a multiple of 1,024, at most `scene_bodies`, whose `steps_per_frame` steps take
// at most 1 / kHostSimulatedFramesPerSecond; never below kHostMinBodies (nor above the scene's N).
std::size_t fit_host_bodies(const HostStepModel& model, int steps_per_frame, std::size_t scene_bodies);

// The steps per frame of the scene file at `path` (empty: the default scene), read without
// building it; 1 where there is no such key (particle files) or the file cannot be read.
int listed_steps_per_frame(const std::string& path);

// A galaxy: bodies labelled as disk (the scenes built from galaxy models).
bool is_galaxy_scene(const State& state);

}  // namespace nbody::app
