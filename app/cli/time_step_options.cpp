#include "time_step_options.hpp"

#include <cstdio>
#include <stdexcept>

#include "run_options.hpp"

namespace nbody::app {

void add_time_step_options(CLI::App& cmd, TimeStepOptions& o, bool with_eta) {
    cmd.add_option("--timesteps", o.timesteps,
                   "shared (every body every --dt, the default) or block: each body its own step --dt / 2^k, "
                   "k = 0..--max-level, from dt_i = eta sqrt(softening / |a_i|), forces only for the bodies whose "
                   "step ends (--gravity tree on the cpu, reference and cuda backends, one GPU; docs/TREE.md)")
        ->capture_default_str();
    if (with_eta)
        cmd.add_option("--eta", o.eta,
                       "--timesteps block: the accuracy parameter eta (default " + shortest_number(kDefaultBlockEta) +
                           ")");
    cmd.add_option("--max-level", o.max_level,
                   "--timesteps block: finest level k, step --dt / 2^k, 0..30 (default " +
                       std::to_string(kDefaultMaxLevel) + ")");
}

TimeStepConfig TimeStepOptions::config(const GravityConfig& gravity) const {
    TimeStepConfig c;
    c.mode = parse_time_steps(timesteps);
    if (c.mode == TimeSteps::Shared) {
        if (eta || max_level) throw std::invalid_argument("--eta and --max-level belong to --timesteps block");
        return c;
    }
    if (gravity.gravity != Gravity::Tree)
        throw std::invalid_argument("--timesteps block runs with --gravity tree (the cpu, reference and cuda backends); "
                                    "direct gravity has shared steps, or block steps with --integrator hermite4");
    if (eta) c.eta = *eta;
    if (max_level) c.max_level = *max_level;
    if (std::string reason = check_time_step_config(c); !reason.empty())
        throw std::invalid_argument("--timesteps block: " + reason);
    return c;
}

std::string describe_force_work(const Backend& backend, long long steps) {
    const std::optional<ForceWork> w = backend.force_work();
    if (!w || steps <= 0) return {};
    char text[320];
    std::snprintf(text, sizeof text,
                  "time steps %s: force evaluations %.4g (%.3g per body per step, the first pass included) in %llu "
                  "passes; tree terms %.4g body + %.4g cell",
                  backend.time_steps().to_string().c_str(), double(w->evaluations), double(w->evaluations) / double(backend.size()) / double(steps),
                  (unsigned long long)w->passes, w->body_terms, w->cell_terms);
    std::string out = text;
    if (backend.time_steps().mode != TimeSteps::Block) return out;
    out += "\nlevels at the last step's start (bodies at dt / 2^k, k = 0, 1, ...):";
    for (std::uint64_t count : w->level_counts) out += " " + std::to_string(count);
    if (w->clamped > 0) out += "; " + std::to_string(w->clamped) + " choices held at --max-level (wanted finer)";
    return out;
}

}  // namespace nbody::app
