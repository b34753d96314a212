#include "nbody/sim/diagnostics.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <mutex>
#include <stdexcept>
#include <string>
#include <vector>

#include "nbody/sim/hermite/energy.hpp"
#include "nbody/sim/hermite/force_engine.hpp"
#include "nbody/sim/hermite/integrator.hpp"

#include "thread_pool.hpp"

namespace nbody {

double kinetic_energy(const State& state) {
    double t = 0;
    for (std::size_t i = 0; i < state.size(); ++i) {
        const Vec4f& v = state.velocity[i];
        t += 0.5 * double(state.pos_mass[i].w) * (double(v.x) * v.x + double(v.y) * v.y + double(v.z) * v.z);
    }
    return t;
}

namespace {

// Polls `stop` between rows (a row at N = 10^6 is milliseconds); the first that says so ends
// every worker's loop.
std::optional<double> potential_on_host_or_stop(const State& state, double softening, const StopCheck& stop) {
    const std::size_t n = state.size();
    const double eps2 = softening * softening;
    // Rows are unequal in length (triangle), so hand the pool interleaved rows: row i and n-1-i.
    std::mutex mutex;
    double total = 0;
    std::atomic<bool> stopped{false};
    shared_thread_pool().parallel_for((n + 1) / 2, [&](std::size_t begin, std::size_t end) {
        double local = 0;
        auto row = [&](std::size_t i) {
            const Vec4f pi = state.pos_mass[i];
            double sum = 0;
            for (std::size_t j = i + 1; j < n; ++j) {
                const Vec4f pj = state.pos_mass[j];
                const double dx = double(pj.x) - pi.x, dy = double(pj.y) - pi.y, dz = double(pj.z) - pi.z;
                sum += double(pj.w) / std::sqrt(dx * dx + dy * dy + dz * dz + eps2);
            }
            local -= double(pi.w) * sum;
        };
        for (std::size_t k = begin; k < end; ++k) {
            if (stop && (stopped.load(std::memory_order_relaxed) || stop())) {
                stopped = true;
                return;
            }
            row(k);
            if (n - 1 - k != k) row(n - 1 - k);
        }
        std::lock_guard lock(mutex);
        total += local;
    });
    if (stopped) return std::nullopt;
    return total;
}

}  // namespace

double potential_energy_on_host(const State& state, double softening) {
    return *potential_on_host_or_stop(state, softening, {});
}

bool potential_on_gpu(std::size_t n) { return n >= kGpuPotentialFrom && hermite::cuda_engine_usable(); }

namespace {

// Every body is both a j-particle (the source, at t = 0, so the prediction is the identity) and an
// i-particle with the same id, which the engine skips: pot_i = -sum_{j != i} m_j / r_ij. `mass(i)`
// and `position(i)` (a Vec3d) give body i of n.
template <class Mass, class Position>
std::optional<double> potential_on_gpu_or_stop(std::size_t n, const Mass& mass, const Position& position, double softening,
                                               const StopCheck& stop) {
    std::string why_not;
    if (!hermite::cuda_engine_usable(&why_not)) throw std::runtime_error("potential on the GPU: " + why_not);
    hermite::EngineConfig config;
    config.precision = "fp64";
    const auto engine = hermite::make_force_engine(hermite::EngineKind::Cuda, config);
    engine->reserve(n);
    for (std::size_t i = 0; i < n; ++i) {
        hermite::JParticle j;
        j.id = int(i);
        j.mass = mass(i);
        j.x = position(i);
        engine->set_j(i, j);
    }
    // i-particles in chunks: bounded host memory, each chunk a full-GPU launch.
    constexpr std::size_t kChunk = std::size_t(1) << 16;
    std::vector<hermite::IParticle> in;
    std::vector<hermite::IForce> out;
    double total = 0;
    for (std::size_t begin = 0; begin < n; begin += kChunk) {
        if (stop && stop()) return std::nullopt;
        const std::size_t count = std::min(kChunk, n - begin);
        in.resize(count);
        out.resize(count);
        for (std::size_t k = 0; k < count; ++k) {
            in[k].id = int(begin + k);
            in[k].x = position(begin + k);
        }
        engine->compute(0.0, n, in, softening * softening, out);
        for (std::size_t k = 0; k < count; ++k) total += mass(begin + k) * out[k].pot;
    }
    return 0.5 * total;
}

std::optional<double> potential_on_gpu_or_stop(const State& state, double softening, const StopCheck& stop) {
    return potential_on_gpu_or_stop(
        state.size(), [&](std::size_t i) { return double(state.pos_mass[i].w); },
        [&](std::size_t i) {
            const Vec4f& p = state.pos_mass[i];
            return Vec3d{p.x, p.y, p.z};
        },
        softening, stop);
}

}  // namespace

double potential_energy_on_gpu(const State& state, double softening) {
    return *potential_on_gpu_or_stop(state, softening, {});
}

std::optional<double> potential_energy_on_gpu_or_stop(const std::vector<double>& mass, const std::vector<Vec3d>& x,
                                                      double softening, const StopCheck& stop) {
    if (x.size() != mass.size()) throw std::invalid_argument("potential on the GPU: array sizes differ");
    return potential_on_gpu_or_stop(
        mass.size(), [&](std::size_t i) { return mass[i]; }, [&](std::size_t i) { return x[i]; }, softening, stop);
}

bool hermite_energy_on_gpu(std::string_view engine, std::size_t n) { return engine == "cuda" && n >= kGpuPotentialFrom; }

std::optional<double> hermite_energy_or_stop(std::string_view engine, const std::vector<double>& mass,
                                             const std::vector<Vec3d>& x, const std::vector<Vec3d>& v,
                                             double softening, const StopCheck& stop) {
    if (!hermite_energy_on_gpu(engine, mass.size())) return hermite::total_energy(mass, x, v, softening, stop);
    const std::optional<double> potential = potential_energy_on_gpu_or_stop(mass, x, softening, stop);
    if (!potential) return std::nullopt;
    double kinetic = 0;
    for (std::size_t i = 0; i < mass.size(); ++i) kinetic += 0.5 * mass[i] * dot(v[i], v[i]);
    return kinetic + *potential;
}

std::optional<double> hermite_energy_or_stop(hermite::HermiteIntegrator& h, const StopCheck& stop) {
    std::vector<Vec3d> x, v;
    h.predicted(x, v);
    return hermite_energy_or_stop(h.engine().name(), h.bodies().mass, x, v, h.params().softening, stop);
}

std::optional<double> potential_energy_or_stop(const State& state, double softening, const StopCheck& stop) {
    return potential_on_gpu(state.size()) ? potential_on_gpu_or_stop(state, softening, stop)
                                          : potential_on_host_or_stop(state, softening, stop);
}

double potential_energy(const State& state, double softening) {
    return *potential_energy_or_stop(state, softening, {});
}

Diagnostics compute_diagnostics(const State& state, double softening) {
    return *compute_diagnostics_or_stop(state, softening, {});
}

std::optional<Diagnostics> compute_diagnostics_or_stop(const State& state, double softening, const StopCheck& stop) {
    const std::optional<double> potential = potential_energy_or_stop(state, softening, stop);
    if (!potential) return std::nullopt;
    return diagnostics_with_potential(state, *potential);
}

Diagnostics diagnostics_with_potential(const State& state, double potential) {
    Diagnostics d;
    for (std::size_t i = 0; i < state.size(); ++i) {
        const Vec4f& p = state.pos_mass[i];
        const Vec4f& v = state.velocity[i];
        const double m = p.w;
        const Vec3d x{p.x, p.y, p.z}, u{v.x, v.y, v.z};
        d.mass += m;
        d.momentum += m * u;
        d.angular_momentum += m * cross(x, u);
        d.centre_of_mass += m * x;
    }
    if (d.mass > 0) {
        d.centre_of_mass = d.centre_of_mass / d.mass;
        d.centre_of_mass_velocity = d.momentum / d.mass;
    }
    d.kinetic = kinetic_energy(state);
    d.potential = potential;
    d.total = d.kinetic + d.potential;
    d.virial_ratio = d.potential != 0 ? 2.0 * d.kinetic / std::abs(d.potential) : 0.0;
    return d;
}

}  // namespace nbody
