#pragma once
// Writing the state a run reached, in any particle format, as `nbody run` does and the Python
// module's Simulation.save does: one writer, so a file from either continues the run the same way.
//   .nbsnap  the state, the run parameters, the scene's presentation metadata and the double state
//            (and, for a synchronised Hermite run, the integrator's block-step state): it resumes
//            exactly
//   .csv     17 significant digits where there is a double state, 9 otherwise
//   TIPSY    floats
// Whole or not at all (nbody::write_file_atomically underneath).

#include <map>
#include <optional>
#include <string>

#include "nbody/sim/backend.hpp"
#include "nbody/sim/io/snapshot.hpp"
#include "nbody/sim/state.hpp"

namespace nbody::hermite {
class HermiteIntegrator;
}

namespace nbody::io {

// Where a run's state came from: what a snapshot records beside the particles.
struct RunOrigin {
    StepParams params;
    int steps_per_frame = 1;
    std::string name, source;
    std::map<std::string, std::string> scene_metadata;  // units, camera, ... (io/scene_metadata.hpp)
    std::optional<RunEnergy> energy0;  // the run's first energy: a snapshot keeps it (version 3)
};

// A leapfrog run's state. `status` (e.g. "interrupted ... at step K") marks a state that is not
// the run's planned end: a snapshot's metadata or a CSV's first `#` line says so.
void write_run_state(const std::string& path, const RunOrigin& origin, const State& state,
                     const std::optional<PreciseState>& precise, const std::string& status = "");

// A Hermite run's state, predicted to its current time: CSV x,y,z,vx,vy,vz,m with 17 significant
// digits; a snapshot with the integrator's parameters and, when synchronised, its block-step
// state. `labels` gives the galaxy and component of each body (its floats are not used).
void write_hermite_state(const std::string& path, const RunOrigin& origin, const State& labels,
                         const hermite::HermiteIntegrator& h, const std::string& status = "");

}  // namespace nbody::io
