#pragma once
// Conserved quantities of the system, always computed in double from the host state.

#include "nbody/sim/state.hpp"
#include "nbody/sim/types.hpp"

namespace nbody {

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

double kinetic_energy(const State& state);
double potential_energy(const State& state, double softening);

}  // namespace nbody
