#include "viewer_autotune.hpp"

#include <chrono>
#include <cstdio>
#include <exception>
#include <utility>

#include "autotune.hpp"
#include "viewer_sim.hpp"

#ifdef NBODY_HAVE_CUDA
#include "nbody/sim/cuda_backend.hpp"
#endif

namespace nbody::app {

namespace {

#ifdef NBODY_HAVE_CUDA
// On the thread that steps `cuda`: the whole tuning, its lines on stderr and in `progress`.
ViewerAutotuneOutcome run_autotune(CudaBackend& cuda, const StepParams& params, std::size_t n,
                                   AutotuneProgressText& progress) {
    ViewerAutotuneOutcome out;
    const auto start = std::chrono::steady_clock::now();
    int timed = 0;
    const AutotuneResult r = autotune(cuda, params, [&](const std::string& line) {
        std::fprintf(stderr, "  auto-tune: %s\n", line.c_str());
        progress.set(std::to_string(++timed) + " configurations timed, the last " + line);
    });
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    out.ok = true;
    out.config = r.config;
    out.message = "auto-tuned in " + std::to_string(int(seconds + 0.5)) + " s over " +
                  std::to_string(r.configs_timed) + " configurations: " + r.config.to_string() + ", " +
                  std::to_string(r.ms_per_step).substr(0, 6) + " ms/step";
    try {
        store_cached_config(default_autotune_cache_path(), cuda.device_info().name, n, r);
    } catch (const std::exception& e) {
        out.message += " (not cached: " + std::string(e.what()) + ")";
    }
    return out;
}
#endif

}  // namespace

void start_autotune(SimulationDriver& sim, const StepParams& params, std::shared_ptr<AutotuneProgressText> progress,
                    std::function<void(const ViewerAutotuneOutcome&)> done) {
#ifdef NBODY_HAVE_CUDA
    if (sim.cuda() == nullptr) {
        done({false, std::nullopt, "auto-tune needs the cuda backend (this is " + std::string(sim.backend().name()) + ")"});
        return;
    }
    // The tuner saves and restores the backend's state: in the frame loop on the interop path the
    // newest positions are in a vertex buffer, so they go to the backend first.
    sim.hand_positions_to_backend();
    auto outcome = std::make_shared<ViewerAutotuneOutcome>();
    sim.between_steps(
        [params, progress, outcome, n = sim.size()](Backend& backend) {
            *outcome = run_autotune(dynamic_cast<CudaBackend&>(backend), params, n, *progress);
            return std::string();
        },
        [outcome, done = std::move(done)](const SimulationThread::Outcome& o) {
            if (!o.error.empty()) *outcome = {false, std::nullopt, "auto-tune failed: " + o.error};
            done(*outcome);
        },
        kAutotuneWhat);
#else
    (void)params;
    (void)progress;
    done({false, std::nullopt, "auto-tune needs the cuda backend (this build has no CUDA)"});
    (void)sim;
#endif
}

}  // namespace nbody::app
