#include "viewer_autotune.hpp"

#include <chrono>
#include <cstdio>
#include <exception>

#include "autotune.hpp"
#include "viewer_sim.hpp"

#ifdef NBODY_HAVE_CUDA
#include "nbody/sim/cuda_backend.hpp"
#endif

namespace nbody::app {

ViewerAutotuneOutcome autotune_viewer(SimulationDriver& sim, const StepParams& params) {
    ViewerAutotuneOutcome out;
#ifdef NBODY_HAVE_CUDA
    CudaBackend* cuda = sim.cuda();
    if (cuda == nullptr) {
        out.message = "auto-tune needs the cuda backend (this is " + std::string(sim.backend().name()) + ")";
        return out;
    }
    try {
        // The tuner saves and restores the backend's state; on the interop path the newest
        // positions are in a vertex buffer, so bring them into the backend first (and beside the
        // loop, snapshot() pauses the simulation's thread: the backend is then this thread's).
        (void)sim.snapshot();
        const auto start = std::chrono::steady_clock::now();
        const AutotuneResult r = autotune(*cuda, params, [](const std::string& line) {
            std::fprintf(stderr, "  auto-tune: %s\n", line.c_str());
        });
        const double seconds =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        out.ok = true;
        out.config = r.config;
        out.message = "auto-tuned in " + std::to_string(int(seconds + 0.5)) + " s over " +
                      std::to_string(r.configs_timed) + " configurations: " + r.config.to_string() + ", " +
                      std::to_string(r.ms_per_step).substr(0, 6) + " ms/step";
        try {
            store_cached_config(default_autotune_cache_path(), cuda->device_info().name, sim.size(), r);
        } catch (const std::exception& e) {
            out.message += " (not cached: " + std::string(e.what()) + ")";
        }
    } catch (const std::exception& e) {
        out.message = std::string("auto-tune failed: ") + e.what();
    }
#else
    (void)sim;
    (void)params;
    out.message = "auto-tune needs the cuda backend (this build has no CUDA)";
#endif
    return out;
}

}  // namespace nbody::app
