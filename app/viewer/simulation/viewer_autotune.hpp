#pragma once
// The viewer's side of the kernel auto-tuner (app/autotune.hpp): the Auto-tune button, and the
// cached result for this GPU and N applied at start.

#include <functional>
#include <memory>
#include <mutex>
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

// What a running auto-tune has timed so far, for the window's spinner: written where it runs (the
// simulation thread), read by the frame loop.
class AutotuneProgressText {
  public:
    void set(std::string text) {
        const std::lock_guard lock(mutex_);
        text_ = std::move(text);
    }
    std::string get() const {
        const std::lock_guard lock(mutex_);
        return text_;
    }

  private:
    mutable std::mutex mutex_;
    std::string text_;
};

// How the window names a running auto-tune (SimulationDriver::activity()).
inline constexpr const char* kAutotuneWhat = "auto-tuning the kernel";

// Times the kernel configurations for the system in `sim` (the simulation does not advance: its
// state is restored), applies the fastest, pair modes included, and caches it for this GPU and N.
// It runs between two steps (on the simulation thread beside the frame loop, so that the window
// keeps drawing for the tens of seconds it takes), `progress` says what it has timed, and `done`
// gets the outcome on the frame loop's thread. Not on the CUDA backend: ok = false with the reason,
// at once. Errors come back as the message; the running simulation and its configuration are
// kept then.
void start_autotune(SimulationDriver& sim, const StepParams& params, std::shared_ptr<AutotuneProgressText> progress,
                    std::function<void(const ViewerAutotuneOutcome&)> done);

}  // namespace nbody::app
