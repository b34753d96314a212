#pragma once
// The Simulation panel's integrator controls (leapfrog | hermite4) and, while hermite4 runs, its
// block-step figures: model time, the bodies on each block level, force evaluations per block.
// Like the other panels they edit SimulationParams and raise Requests; the viewer acts on them.

#include "ui_panels.hpp"

namespace nbody::app {

// The integrator combo, and for hermite4 eta and dt_max (applied when an edit ends: each change
// restarts the block steps from the state on screen, one force evaluation on every body).
void draw_integrator_choice(SimulationParams& sim, Requests& requests);
// hermite4's playback control in place of steps/frame: model time per frame.
void draw_time_per_frame(SimulationParams& sim, const PanelContext& ctx);
// The block-step section under the playback buttons (hermite4 and hermite6).
void draw_hermite_section(const SimulationParams& sim, const PanelContext& ctx);
// The panel's one energy line (issue 33): dE/|E0| from the double state where it is double
// (Hermite), else from the energy monitor (floats), E0 being the run's first state.
void draw_energy_error(const PanelContext& ctx);

}  // namespace nbody::app
