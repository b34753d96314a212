#include "viewer_gravity.hpp"

#include <chrono>
#include <cstdio>
#include <exception>
#include <utility>
#include <vector>

#include "nbody/sim/direct_sum_backend.hpp"
#include "nbody/sim/force_error.hpp"
#if NBODY_HAVE_CUDA
#include "nbody/sim/cuda_backend.hpp"
#endif

namespace nbody::app {

void apply_gravity(SimulationDriver& sim, const GravityConfig& config, SimulationThread::Done done) {
    sim.between_steps(
        [config](Backend& backend) {
            backend.set_gravity(config);  // the running choice is kept when this throws
            return std::string();
        },
        std::move(done), "switching gravity to " + config.to_string());
}

namespace {

struct TreePhases {
    double build_ms = 0, moments_ms = 0, walk_ms = 0;
    std::size_t nodes = 0, bytes = 0;
    double body_terms = 0, cell_terms = 0;  // per body
};

TreePhases tree_phases(const Backend& backend) {
#if NBODY_HAVE_CUDA
    if (const auto* cuda = dynamic_cast<const CudaBackend*>(&backend)) {
        const CudaBackend::TreeTimes t = cuda->tree_times();
        return {t.build_ms, t.moments_ms, t.walk_ms, t.nodes, t.bytes, t.body_terms, t.cell_terms};
    }
#endif
    const tree::TreeStats* host = nullptr;
    if (const auto* cpu = dynamic_cast<const DirectSumBackend<float>*>(&backend)) host = &cpu->last_tree_stats();
    if (const auto* ref = dynamic_cast<const DirectSumBackend<double>*>(&backend)) host = &ref->last_tree_stats();
    if (host == nullptr) return {};
    const double n = double(std::max<std::size_t>(backend.size(), 1));
    return {host->build_ms, host->moments_ms,  host->walk_ms, host->nodes, 0, host->body_interactions / n,
            host->cell_interactions / n};
}

}  // namespace

std::string tree_timing_text(const SimulationDriver& sim) {
    return sim.beside() ? sim.description().text : tree_timing_text(sim.backend());
}

double tree_interactions(const Backend& backend) {
    if (backend.gravity().gravity != Gravity::Tree) return 0;
    const TreePhases t = tree_phases(backend);
    return (t.body_terms + t.cell_terms) * double(backend.size());
}

double tree_interactions(const SimulationDriver& sim) {
    return sim.beside() ? sim.description().interactions : tree_interactions(sim.backend());
}

std::string tree_timing_text(const Backend& backend) {
    if (backend.gravity().gravity != Gravity::Tree) return {};
    const TreePhases t = tree_phases(backend);
    if (t.nodes == 0) return {};
    char buf[240];
    const bool millions = t.nodes >= 1000000;
    int len = std::snprintf(buf, sizeof buf, "build %.2f ms, moments %.2f ms, walk %.2f ms; %.3g%s nodes", t.build_ms,
                            t.moments_ms, t.walk_ms, double(t.nodes) * (millions ? 1e-6 : 1e-3), millions ? "M" : "k");
    if (t.bytes > 0 && len > 0 && std::size_t(len) < sizeof buf)
        len += std::snprintf(buf + len, sizeof buf - std::size_t(len), ", %.0f MiB", double(t.bytes) / (1024.0 * 1024.0));
    if (t.body_terms + t.cell_terms > 0 && len > 0 && std::size_t(len) < sizeof buf)
        std::snprintf(buf + len, sizeof buf - std::size_t(len), "; list per body %.0f bodies + %.0f cells", t.body_terms,
                      t.cell_terms);
    return buf;
}

void estimate_force_error(SimulationDriver& sim, double softening, SimulationThread::Done done) {
    sim.hand_positions_to_backend();
    sim.between_steps([softening](Backend& backend) { return force_error_text(backend, softening); },
                      std::move(done), "estimating the force error");
}

std::string force_error_text(Backend& backend, double softening, std::size_t sample) {
    const auto start = std::chrono::steady_clock::now();
    State now;
    backend.store(now);
    const std::vector<std::size_t> which = sample_bodies(now.size(), sample, 1);
    const std::vector<Vec3d> reference = direct_accelerations(now, which, softening);
    const std::vector<Vec3d> all = backend.accelerations(softening);
    std::vector<Vec3d> sampled(which.size());
    for (std::size_t k = 0; k < which.size(); ++k) sampled[k] = all[which[k]];
    const ForceErrorStats e = relative_force_errors(sampled, reference);
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    char buf[160];
    std::snprintf(buf, sizeof buf, "%zu bodies: median %.1e, p99 %.1e, max %.1e (%.2f s)", e.count, e.median, e.p99,
                  e.max, seconds);
    return buf;
}

}  // namespace nbody::app
