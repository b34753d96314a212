#pragma once
// `nbody run --integrator hermite4|hermite6`: the 4th- or 6th-order Hermite block-step integrator in double
// (sim/include/nbody/sim/hermite/integrator.hpp) from a scene, particle file or snapshot to a model
// time, with the state in double end to end (CSV read and written with 17 significant digits,
// snapshots that resume the block-step run exactly).

#include <optional>
#include <string>
#include <vector>

#include "nbody/sim/memory_check.hpp"

namespace nbody::app {

struct HermiteRunOptions {
    std::string input, scene, output;
    std::optional<long long> bodies;
    std::optional<double> t_end;      // required
    std::optional<double> softening;  // default: the scene's or snapshot's, else 0
    int order = 4;                    // 4 (hermite4) or 6 (hermite6)
    std::optional<double> eta;        // default: a Hermite snapshot's or the scene's, else hermite::default_eta(order)
    std::optional<double> dt_max;     // default: a Hermite snapshot's or the scene's, else 0.125
    std::string backend = "auto";     // reference | cpu -> the cpu engine; cuda; auto
    std::vector<int> gpus;            // --gpus: two or more split the j-particles over them (Sapporo)
    std::string precision = "ds";     // cuda engine: ds | fp64
    // The cuda engine's kernel (hermite::EngineConfig; none: its defaults). The 6th order's snap
    // kernel has one shape, so hermite6 refuses these.
    std::optional<int> block, unroll, bodies_per_thread, j_split;
    double progress_seconds = 2.0;
    bool profile = false;            // print the block steps' time by phase (HermiteIntegrator::profile_report)
    double max_energy_error = 1e-2;  // a larger relative energy error is reported as a warning
};

int run_hermite(const HermiteRunOptions& options);

// What a Hermite run of `order` holds per body on --backend `backend` (for check_memory_for).
Workload hermite_workload(const std::string& backend, int order);

}  // namespace nbody::app
