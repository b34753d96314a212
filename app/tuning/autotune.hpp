#pragma once
// Timing a backend's step, and the kernel auto-tuner built on it (used by `nbody bench` and the
// viewer's Auto-tune button). The tuner's results are cached per GPU name and N in a JSON file,
// so the next start can apply them without sweeping again.

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "nbody/sim/backend.hpp"
#include "nbody/sim/kernel_config.hpp"

#ifdef NBODY_HAVE_CUDA
#include "nbody/sim/cuda_backend.hpp"
#endif

namespace nbody::app {

struct TimingOptions {
    int warmup_steps = 1;       // untimed steps first (also sizes the batches when steps_per_repeat = 0)
    int repeats = 5;            // timed batches; the median is reported
    double min_repeat_ms = 20;  // with steps_per_repeat = 0: batches at least this long
    int steps_per_repeat = 0;   // 0: chosen from the warm-up so that a batch lasts min_repeat_ms
};

struct Timing {
    double ms_per_step = 0;      // median over the repeats
    double ms_per_step_min = 0;  // fastest repeat
    int steps_per_repeat = 0;
    std::vector<double> samples;  // ms per step of each repeat
};

// Steps the backend from its current state (time advances) and measures ms per step, the whole
// leapfrog step included. CUDA: events around each batch (GPU time, launch gaps included);
// host backends: steady_clock.
Timing time_backend(Backend& backend, const StepParams& params, const TimingOptions& options);

double median(std::vector<double> values);

#ifdef NBODY_HAVE_CUDA

struct AutotuneResult {
    KernelConfig config;
    double ms_per_step = 0;
    int configs_timed = 0;
    bool from_cache = false;
};

using AutotuneProgress = std::function<void(const std::string& line)>;

// Finds the fastest valid kernel config for the system loaded in `backend` and applies it.
// Coarse-to-fine: (threads_per_body x bodies_per_thread) at a middle unroll and block, then
// (unroll x block) around the best pair, then the three fastest re-timed with more repeats.
// About 60 configs, each a few batches of steps. The state is saved first and restored after,
// so the simulation does not advance; the backend must hold its own positions (not in interop).
AutotuneResult autotune(CudaBackend& backend, const StepParams& params, const AutotuneProgress& progress = {});

// $NBODY_AUTOTUNE_CACHE, else $XDG_CACHE_HOME/nbody/autotune.json, else ~/.cache/nbody/autotune.json.
std::string default_autotune_cache_path();
// The cached config for (gpu, bodies), if any. An unreadable or malformed cache file is ignored
// (nothing cached), with a warning on `warnings` when given.
std::optional<AutotuneResult> load_cached_config(const std::string& path, const std::string& gpu, std::size_t bodies,
                                                 std::string* warnings = nullptr);
// Adds or replaces the entry for (gpu, bodies); the file is rewritten whole (temp + rename).
// Throws std::runtime_error naming the path when it cannot be written.
void store_cached_config(const std::string& path, const std::string& gpu, std::size_t bodies,
                         const AutotuneResult& result);

#endif

}  // namespace nbody::app
