#pragma once
// The viewer's side of the kernel auto-tuner (app/autotune.hpp): the Auto-tune button, and the
// cached result for this GPU and N applied at start.

#include <optional>
#include <string>

#include "nbody/sim/backend.hpp"
#include "nbody/sim/kernel_config.hpp"

namespace nbody::app {

class SimulationDriver;

struct ViewerAutotuneOutcome {
    bool ok = false;
    std::optional<KernelConfig> config;  // applied to the backend when ok
    std::string message;                 // for the panel and the log
};

// Times the kernel configurations for the system in `sim` (the simulation does not advance: its
// state is restored), applies the fastest, pair modes included, and caches it for this GPU and N.
// Not on the CUDA backend: ok = false with the reason. Errors come back as the message; the
// running simulation and its configuration are kept then.
ViewerAutotuneOutcome autotune_viewer(SimulationDriver& sim, const StepParams& params);

}  // namespace nbody::app
