#pragma once
// Small models besides galaxies: the uniform random cube of the RV770 paper and a single point
// mass. (The figure-eight scenes' galaxies are Plummer spheres placed by the scene file.)

#include <cstddef>
#include <cstdint>

#include "nbody/sim/state.hpp"
#include "nbody/sim/types.hpp"

namespace nbody::ic {

struct UniformCubeParams {
    std::size_t bodies = 1000;
    double mass = 1.0;
    double side = 2.0;           // edge length; the cube is centred on the origin
    // 2T / |W| of the drawn velocities (each component uniform in [-v, v]), against the
    // potential energy of a continuous uniform cube, W = -0.941156 M^2 / side. 0: start at rest.
    double virial_ratio = 0.0;
    std::uint64_t seed = 1;
};

State make_uniform_cube(const UniformCubeParams& params);

// Potential energy of a homogeneous cube of mass M and edge L (G = 1): -0.941156 M^2 / L.
double uniform_cube_potential_energy(double mass, double side);

// Scales the velocities relative to the centre-of-mass velocity so that the system satisfies the
// virial theorem of Plummer-softened gravity, 2T = sum_{i<j} m_i m_j r_ij^2 / (r_ij^2 + eps^2)^(3/2)
// (the softened -sum r.F, smaller than |W|). A Plummer sphere sampled for Newtonian gravity but run
// with eps comparable to its scale radius is too hot by this factor and would expand by half.
// O(N^2) up to 6,000 bodies, beyond that estimated from 6,000 drawn at random (1% noise).
void virialize_softened(State& state, double softening, std::uint64_t seed = 1);

// One particle of mass `mass` at rest at the origin (a black hole, or a point-mass galaxy).
State make_point_mass(double mass);

}  // namespace nbody::ic
