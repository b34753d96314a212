#pragma once
// Plummer sphere sampled as Aarseth, Henon & Wielen (1974): radii from the inverted cumulative
// mass, speeds by von Neumann rejection from the isotropic distribution function, then shifted to
// the centre-of-mass frame. Virial equilibrium in G = 1 units.

#include <cstddef>
#include <cstdint>

#include "nbody/sim/state.hpp"

namespace nbody::ic {

struct PlummerParams {
    std::size_t bodies = 1024;
    double total_mass = 1.0;
    double scale_radius = 1.0;  // Plummer a; half-mass radius is about 1.305 a
    double max_radius = 0.0;    // truncate samples beyond this radius (0: 10 a, which keeps 99% of the mass)
    std::uint64_t seed = 1;
};

State make_plummer(const PlummerParams& params);

// Shifts every particle by `offset` in position and `velocity` in velocity.
void translate(State& state, const Vec3d& offset, const Vec3d& velocity);

// Appends `b` to `a`, giving b's particles galaxy index `galaxy`.
void append(State& a, const State& b, std::uint16_t galaxy);

}  // namespace nbody::ic
