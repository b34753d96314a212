#pragma once
// The Kernel panel's gravity solver (docs/TREE.md): switching between the all-pairs kernel and the
// tree code while the simulation runs, the tree's own timings, and what theta buys: the running
// solver's force error against a double direct sum on a random sample of bodies.

#include <cstddef>
#include <string>

#include "nbody/sim/gravity.hpp"
#include "viewer_sim.hpp"

namespace nbody::app {

// Applies `config` to the running backend between two steps; positions and velocities are kept.
// `done` gets why it was refused as its error (tree tunables beyond the backend's limits, a
// precision mode the tree lacks).
void apply_gravity(SimulationDriver& sim, const GravityConfig& config, SimulationThread::Done done);

// "build 0.29 ms, moments 0.22 ms, walk 35.0 ms; 2.1M nodes, 320 MiB" for the newest tree pass,
// "" under direct gravity or before the first pass. Beside the frame loop: as the simulation
// thread read it after its newest step (the backend's own is read there, by tree_timing_text(Backend)).
std::string tree_timing_text(const SimulationDriver& sim);
std::string tree_timing_text(const Backend& backend);

// The interactions the newest tree pass computed: every body's list of bodies and cells, summed
// (the CPU tree's TreeStats, the GPU tree's tree_times()); 0 under direct gravity or before a pass.
double tree_interactions(const SimulationDriver& sim);
double tree_interactions(const Backend& backend);

// The running solver's accelerations at the current positions against the direct sum in double
// for `sample` random bodies: "256 bodies: median 1.1e-04, p99 2.0e-03, max 4.9e-03 (0.21 s)".
// Costs one extra force pass plus sample x N double interactions on the host (a fraction of a
// second at 1M bodies), so it runs when asked, not every frame.
// It runs between two steps; its text goes to `done`.
void estimate_force_error(SimulationDriver& sim, double softening, SimulationThread::Done done);
std::string force_error_text(Backend& backend, double softening, std::size_t sample = 256);

}  // namespace nbody::app
