#include "nbody/sim/time_steps.hpp"

#include <cmath>
#include <cstdio>
#include <stdexcept>

#include "nbody/sim/backend.hpp"

namespace nbody {

std::string_view to_string(TimeSteps mode) { return mode == TimeSteps::Block ? "block" : "shared"; }

TimeSteps parse_time_steps(std::string_view text) {
    if (text == "shared") return TimeSteps::Shared;
    if (text == "block") return TimeSteps::Block;
    throw std::invalid_argument("unknown --timesteps '" + std::string(text) + "'; supported: shared, block");
}

std::string TimeStepConfig::to_string() const {
    if (mode == TimeSteps::Shared) return "shared";
    char buf[80];
    std::snprintf(buf, sizeof buf, "block eta=%g max-level=%d", eta, max_level);
    return buf;
}

std::string check_time_step_config(const TimeStepConfig& c) {
    char buf[120];
    if (!(c.eta > 0) || !std::isfinite(c.eta)) {
        std::snprintf(buf, sizeof buf, "eta must be a number > 0 (got %g)", c.eta);
        return buf;
    }
    if (c.max_level < 0 || c.max_level > kMaxMaxLevel)
        return "max level " + std::to_string(c.max_level) + " is outside 0.." + std::to_string(kMaxMaxLevel);
    return {};
}

void check_block_steps_can_run(Gravity gravity, double softening) {
    if (gravity != Gravity::Tree)
        throw std::invalid_argument("block time steps run with the tree code (--gravity tree); under direct "
                                    "gravity use --timesteps shared, or --integrator hermite4 for block steps");
    if (!(softening > 0))
        throw std::invalid_argument("block time steps choose dt_i = eta sqrt(softening / |a_i|): they need a "
                                    "softening > 0");
}

void Backend::set_time_steps(const TimeStepConfig& config) {
    if (config.mode != TimeSteps::Shared)
        throw std::invalid_argument("the " + std::string(name()) + " backend has shared time steps only (--timesteps "
                                    "block runs on the cpu, reference and cuda backends with --gravity tree)");
}

}  // namespace nbody
