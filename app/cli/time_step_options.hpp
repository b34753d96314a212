#pragma once
// --timesteps shared|block and --max-level, shared by run and bench (--eta comes with run's
// integrator options, and bench registers its own): one wording for the choice and its refusals.

#include <CLI/CLI.hpp>
#include <optional>
#include <string>

#include "nbody/sim/backend.hpp"

namespace nbody::app {

struct TimeStepOptions {
    std::string timesteps = "shared";
    std::optional<double> eta;  // block steps' accuracy parameter
    std::optional<int> max_level;

    bool block() const { return timesteps == "block"; }
    // The configuration asked for; throws std::invalid_argument for an unknown mode, --eta or
    // --max-level with shared steps, a value out of range, and block steps under direct gravity.
    TimeStepConfig config(const GravityConfig& gravity) const;
};

// Registers --timesteps and --max-level; with `with_eta`, --eta as well.
void add_time_step_options(CLI::App& cmd, TimeStepOptions& options, bool with_eta);

// "time steps block eta=0.2 max-level=8: force evaluations 1.2e+06 (18.8 per body per step) in 96
// passes; ..." and, for block steps, the bodies per level: a run's report;
// empty where the backend does not count them.
std::string describe_force_work(const Backend& backend, long long steps);

}  // namespace nbody::app
