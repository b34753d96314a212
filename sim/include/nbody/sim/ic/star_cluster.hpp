#pragma once
// Star-cluster dressing for a sampled sphere: a stellar mass spectrum (Kroupa 2001) and
// primordial binaries. Scene files reach it through [galaxy.plummer] mass_function and
// binary_fraction (scenes/star-cluster-*.toml).

#include <cstdint>
#include <string>

#include "nbody/sim/state.hpp"

namespace nbody::ic {

struct StarClusterParams {
    std::string mass_function = "equal";  // equal | kroupa
    double min_mass = 0.08, max_mass = 100;  // solar masses, for kroupa; rescaled to the total
    double binary_fraction = 0;           // fraction of bodies in binaries (pairs), 0..1
    double binary_sma_min = 1e-4, binary_sma_max = 1e-2;  // semi-major axes, log-uniform (model units)
    std::uint64_t seed = 1;
};

// Draws masses (keeping the total) and turns pairs of bodies into circular binaries about the
// first one's position and velocity (random orientation). Throws std::invalid_argument naming a
// bad parameter.
void dress_star_cluster(State& state, const StarClusterParams& params);

// One mass from Kroupa's (2001) broken power law dN/dm ~ m^-1.3 (m < 0.5), m^-2.3 (m >= 0.5),
// for u uniform in [0, 1).
double kroupa_mass(double u, double min_mass, double max_mass);

}  // namespace nbody::ic
