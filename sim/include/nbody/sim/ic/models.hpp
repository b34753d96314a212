#pragma once
// Small models besides galaxies: the uniform random cube of the RV770 paper, a single point
// mass, and the periodic few-body choreographies the figure-eight scenes put galaxies on.

#include <cstddef>
#include <cstdint>
#include <vector>

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

// One particle of mass `mass` at rest at the origin (a black hole, or a point-mass galaxy).
State make_point_mass(double mass);

struct ChoreographyBody {
    Vec3d position;
    Vec3d velocity;
};

struct Choreography {
    std::vector<ChoreographyBody> bodies;  // unit masses, G = 1, centre of mass at rest at the origin
    double period = 0.0;
};

// Planar periodic orbits on which equal masses chase each other along one figure-eight curve,
// in the x-y plane:
//   3 bodies: Chenciner & Montgomery (2000), the values of Simo (2002); period 6.3259.
//   4 bodies: an (asymmetric) figure-eight choreography we computed by minimising the action
//             over Fourier-series choreographies (Simo's method); period 2 pi. It returns to its
//             start within 1e-3 after one period and is unstable over a few periods, which a
//             scene of extended galaxies does not see.
// Throws std::invalid_argument for other counts.
Choreography figure_eight_choreography(int bodies);

}  // namespace nbody::ic
