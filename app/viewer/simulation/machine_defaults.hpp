#pragma once
// Defaults that fit the machine (issue 33, item 3): a galaxy scene in the viewer runs the tree code
// with the largest N whose steps fit a frame's budget on this machine, the cost of a step measured
// once at start-up on the scene itself and scaled as N log N.
// In a window without --bodies, or with --bodies auto (any run):
//   CPU: the scene's steps per frame in a fifth of a second (5 simulated frames per
//     second), a multiple of 1,024 between 8,192 and the scene's N, measured at 8,192 bodies.
//   GPU (the cuda backend): one step per frame (the measure) in 8 ms of GPU time (half
//     of a 60 frames/s frame; the drawing and the rest of the frame take the other half: 4.2 ms at
//     1M on the H200, run 99), a power of two from 8,192 to 16M, measured at 1M (CUDA events).

#include <cstddef>
#include <functional>
#include <optional>
#include <string>

#include "nbody/sim/backend.hpp"
#include "nbody/sim/state.hpp"

namespace nbody::app {

inline constexpr std::size_t kHostMinBodies = 8192;
inline constexpr double kHostSimulatedFramesPerSecond = 5.0;

inline constexpr double kGpuStepBudgetSeconds = 0.008;
inline constexpr std::size_t kGpuMinBodies = 8192;
inline constexpr std::size_t kGpuMaxBodies = std::size_t(1) << 24;  // 16M: the largest measured (H100, H200)
// Measured where the answer is on an H100 or H200: there the probe is the scene shown (no second
// build), and on other GPUs the N log N model is used over a factor of a few only. From 256K the
// model overestimates the GPU's 1M step by 30% (docs/TREE.md: 2.01 ms at 256K, 6.83 at 1M; N log N
// predicts 8.9), which would halve N: a small probe leaves the GPU idle part of the step.
inline constexpr std::size_t kGpuProbeBodies = std::size_t(1) << 20;

// A tree step costs about `seconds_per_n_log_n` x N log2 N seconds on this machine.
struct StepModel {
    double seconds_per_n_log_n = 0;
    double seconds(std::size_t bodies) const;
    // The model under which `bodies` bodies take `seconds` a step.
    static StepModel through(std::size_t bodies, double seconds);
};

// Seconds the next step of the loaded system takes: the host's wall clock around backend.step()
// (host_step_seconds), or the GPU's own time (CUDA events: its launches return at once).
using StepClock = std::function<double(Backend&, const StepParams&)>;
double host_step_seconds(Backend& backend, const StepParams& params);

// Times one step of `sample` on `backend` by `clock` (after a first one, which also builds what
// the backend caches and computes the starting accelerations); leaves `sample` loaded.
StepModel measure_step(Backend& backend, const State& sample, const StepParams& params,
                       const StepClock& clock = host_step_seconds);

// What N may be: the budget of one frame's steps, and the grid N is chosen on.
struct BodiesFit {
    double seconds_per_frame = 0;
    int steps_per_frame = 1;
    std::size_t min_bodies = 0, max_bodies = 0;
    bool powers_of_two = false;  // else multiples of 1,024
};

// The largest N on the grid, at most max_bodies, whose `steps_per_frame` steps take at most
// `seconds_per_frame` under `model`; min_bodies where none does.
std::size_t fit_bodies(const StepModel& model, const BodiesFit& fit);

// The CPU's rule: steps_per_frame steps in 1 / kHostSimulatedFramesPerSecond, a multiple of 1,024,
// never below kHostMinBodies (nor above the scene's N).
std::size_t fit_host_bodies(const StepModel& model, int steps_per_frame, std::size_t scene_bodies);
// The GPU's rule: steps_per_frame steps (1 by default) in kGpuStepBudgetSeconds, a power of two in
// kGpuMinBodies..kGpuMaxBodies.
std::size_t fit_gpu_bodies(const StepModel& model, int steps_per_frame);

// The rule the window's first scene was fitted by, kept for the scenes launched after it (the
// scene picker, Open, a dropped file, Apply N).
struct MachineFit {
    StepModel model;
    // The GPU's rule: the steps per frame of the first scene (one unless --steps-per-frame) for every
    // galaxy launched after it; the CPU's: none, each scene keeps its own and N is fitted to it.
    std::optional<int> steps_per_frame;
};

// N for a scene file launched in the window (on a GPU: `gpu`) that lists `listed_bodies` bodies
// (0: not known) and `listed_steps_per_frame`; nullopt: the file's own N.
//   CPU: any file above kHostMinBodies, by fit_host_bodies (kHostMinBodies without a fit).
//   GPU: galaxy scenes only, by fit_gpu_bodies at the fit's steps per frame; none without a fit
//     (N was asked for at start-up).
std::optional<std::size_t> fit_launched_bodies(const std::optional<MachineFit>& fit, bool gpu,
                                               std::size_t listed_bodies, int listed_steps_per_frame, bool galaxy);

// The steps per frame of the scene file at `path` (empty: the default scene), read without
// building it; 1 where there is no such key (particle files) or the file cannot be read.
int listed_steps_per_frame(const std::string& path);

// A galaxy: bodies labelled as disk (the scenes built from galaxy models).
bool is_galaxy_scene(const State& state);

}  // namespace nbody::app
