#pragma once
// Conserved quantities of the system, always computed in double from the host state.

#include <functional>
#include <optional>
#include <string_view>
#include <vector>

#include "nbody/sim/state.hpp"
#include "nbody/sim/types.hpp"

namespace nbody {

namespace hermite {
class HermiteIntegrator;
}

struct Diagnostics {
    double kinetic = 0;
    double potential = 0;  // softened: -sum_{i<j} m_i m_j / sqrt(r^2 + eps^2)
    double total = 0;
    double virial_ratio = 0;  // 2T / |W|; 1 in equilibrium
    double mass = 0;
    Vec3d momentum;
    Vec3d angular_momentum;
    Vec3d centre_of_mass;
    Vec3d centre_of_mass_velocity;
};

// O(N^2) for the potential, spread over the hardware threads.
Diagnostics compute_diagnostics(const State& state, double softening);
// The same with the potential energy given (e.g. from the tree walk, energy_source.hpp): O(N).
Diagnostics diagnostics_with_potential(const State& state, double potential);

// Polled between rows (host) or chunks of 65,536 bodies (GPU) of a long sum: true asks it to give
// up, so that a Ctrl-C is honoured within a second even at N = 10^6. sim/ knows nothing of
// signals: the caller says what "stop" means.
using StopCheck = std::function<bool()>;
// As above, or nothing when `stop` said so part-way.
std::optional<Diagnostics> compute_diagnostics_or_stop(const State& state, double softening, const StopCheck& stop);

double kinetic_energy(const State& state);
// On the GPU from kGpuPotentialFrom bodies when one is usable (potential_on_gpu()), else on the host.
double potential_energy(const State& state, double softening);

// The N^2/2 pairs of the potential: threaded on the host (5e9 pairs took 171 s on a busy 2-core
// machine), or on the GPU with the Hermite engine's fp64 kernel (seconds at 1M bodies).
inline constexpr std::size_t kGpuPotentialFrom = 100000;
bool potential_on_gpu(std::size_t n);
double potential_energy_on_host(const State& state, double softening);
// Throws std::runtime_error when no GPU is usable.
double potential_energy_on_gpu(const State& state, double softening);
// Either of them, nothing when `stop` said so part-way.
std::optional<double> potential_energy_or_stop(const State& state, double softening, const StopCheck& stop);

// The potential energy of bodies at double positions (a Hermite run's state) on the GPU, with the
// Hermite engine's fp64 kernel in double throughout; nothing when `stop` said so part-way. Throws
// std::runtime_error when no GPU is usable.
std::optional<double> potential_energy_on_gpu_or_stop(const std::vector<double>& mass, const std::vector<Vec3d>& x,
                                                      double softening, const StopCheck& stop);
// Where `nbody run --integrator hermite4|hermite6` sums the potential of its energy before and after
// the run: on the GPU (potential_energy_on_gpu_or_stop) where the run's force engine is "cuda" and
// it has kGpuPotentialFrom bodies or more, else on the host (HermiteIntegrator::energy). On the host
// the N^2 sum is the run's longest silence at large N: at 512K bodies, 2.7e11 pair terms on at most
// 16 threads took ~35 s on a four-H100 machine (run 95) and longer than the 100 s limit before any
// block on a two-H100 one (run 108, which looked like a hang), twice a run.
bool hermite_energy_on_gpu(std::string_view engine, std::size_t n);
// A Hermite run's energy at double positions and velocities, its potential where the rule above
// says (the kinetic energy on the host either way); nothing when `stop` said so part-way. `run`'s
// energies and the viewer's (the run's first, and its energy line) are this one sum.
std::optional<double> hermite_energy_or_stop(std::string_view engine, const std::vector<double>& mass,
                                             const std::vector<Vec3d>& x, const std::vector<Vec3d>& v,
                                             double softening, const StopCheck& stop);
// The same for a run at its block time, every body predicted to it (its engine picks the sum).
std::optional<double> hermite_energy_or_stop(hermite::HermiteIntegrator& h, const StopCheck& stop);

}  // namespace nbody
