#pragma once
// The total energy of a double state (kinetic + softened potential, every pair), as the Hermite
// integrator reports it: for callers holding a copy of the state, such as the viewer's worker
// thread, which must not touch the running integrator.

#include <functional>
#include <optional>
#include <vector>

#include "nbody/sim/types.hpp"

namespace nbody::hermite {

// O(N^2) over the host's threads; none when `stop` says so between rows.
std::optional<double> total_energy(const std::vector<double>& mass, const std::vector<Vec3d>& x,
                                   const std::vector<Vec3d>& v, double softening,
                                   const std::function<bool()>& stop = {});

}  // namespace nbody::hermite
