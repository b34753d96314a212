#pragma once
// The Simulation panel's integrator controls (leapfrog | hermite4) and, while hermite4 runs, its
// block-step figures: model time, the bodies on each block level, force evaluations per block.
// Like the other panels they edit SimulationParams and raise Requests; the viewer acts on them.

#include <optional>
#include <string>

#include "ui_panels.hpp"

namespace nbody::app {

// The integrator combo, and for hermite4 eta and dt_max (applied when an edit ends: each change
// restarts the block steps from the state on screen, one force evaluation on every body).
void draw_integrator_choice(SimulationParams& sim, Requests& requests);
// hermite4's playback control in place of steps/frame: model time per frame.
void draw_time_per_frame(SimulationParams& sim, const PanelContext& ctx);
// The block-step section under the energy line and the radii (hermite4 and hermite6), in a
// collapsing header "Block steps" (folded on a display shorter than 1080p).
void draw_hermite_section(const SimulationParams& sim, const PanelContext& ctx);
// The panel's one energy line (issue 33): dE/|E0| from the double state where it is double
// (Hermite), else from the energy monitor (floats), E0 being the run's first state; two lines,
// the value and when it was summed.
void draw_energy_error(const PanelContext& ctx, bool automatic);

// That line as text (the panel's, and a scripted run's report): `value` "dE/|E0| = +1.234e-07
// (double)", `when` "at t = 0.54 (N-body units), summed 2.1 s ago"; before the first sum
// "dE/|E0| = (not computed yet)" and what is under way, or, where nothing sums it by itself
// (`automatic` false: N above the automatic sums' limit, or "every 3 s" off), how to get it.
struct EnergyLine {
    std::optional<double> error;
    std::string value, when;
    bool hermite = false, tree = false;  // summed from Hermite's double state; the tree's potential
};
EnergyLine energy_line(const SimulationDriver& sim, const EnergyMonitor& energy, const UnitSystem& units,
                       bool automatic);

}  // namespace nbody::app
