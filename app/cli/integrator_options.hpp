#pragma once
// --integrator leapfrog|hermite4|hermite6 and the options that belong to one of them, shared by run, view
// and record: one set of names, help texts and checks, so the three commands refuse the same
// mistakes in the same words.

#include <CLI/CLI.hpp>
#include <initializer_list>
#include <optional>
#include <string>

namespace nbody::app {

enum class Integrator { Leapfrog, Hermite4, Hermite6 };

// "leapfrog" | "hermite4" | "hermite6"; throws std::invalid_argument listing them.
Integrator parse_integrator(const std::string& name);
const char* to_string(Integrator integrator);
inline bool is_hermite(Integrator integrator) { return integrator != Integrator::Leapfrog; }
inline int hermite_order(Integrator integrator) { return integrator == Integrator::Hermite6 ? 6 : 4; }

struct IntegratorOptions {
    std::optional<std::string> integrator;  // none: the scene's ([scene] integrator), else leapfrog
    std::optional<double> t_end, eta, dt_max;
};

// Registers --integrator, --eta, --dt-max and --t-end (with `t_end_help`, which differs by command).
void add_integrator_options(CLI::App& cmd, IntegratorOptions& options, const char* t_end_help);

// An option that only leapfrog uses, and whether it was given (e.g. {"--dt", dt.has_value()}).
struct LeapfrogOnly {
    const char* name;
    bool given;
    const char* instead = nullptr;  // what the Hermite integrators take instead (none: their block steps)
};

// The integrator a file asks for: a scene file's [scene] integrator, or the Hermite integrator that
// wrote a snapshot (.nbsnap); empty for any other file (leapfrog). Throws for a file that cannot be read.
std::string integrator_of_file(const std::string& path);

// The integrator to use: --integrator, else `scene_integrator` (a scene file's [scene] integrator;
// empty: leapfrog). Throws std::invalid_argument for an unknown name, an --eta or --dt-max that
// is not a positive number or is given to leapfrog, and any of `leapfrog_only` given to a Hermite integrator.
// `block_leapfrog`: leapfrog runs block time steps (--timesteps block), whose accuracy parameter is
// --eta too.
Integrator resolve_integrator(const IntegratorOptions& options, const std::string& scene_integrator,
                              std::initializer_list<LeapfrogOnly> leapfrog_only = {}, bool block_leapfrog = false);

// Leapfrog: the whole steps of `dt` from `t_start` that reach `t_end`. Throws
// std::invalid_argument naming --t-end and --dt when t_end is before the start or the count is
// beyond long long.
long long steps_to_reach(double t_end, double t_start, double dt);
// Hermite: refuses a --t-end more than 2^53 steps of `dt_max` away (naming both), where a
// double's time stops advancing.
void check_block_steps_to_reach(double t_end, double t_start, double dt_max);

}  // namespace nbody::app
