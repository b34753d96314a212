// What the tree tests of the CPU (tests/sim) and the GPU (tests/cuda) share: a tree gravity
// config, the forces a backend computes under it, and the exact direct sum to compare with.
#pragma once

#include <cstddef>
#include <cstdint>
#include <numeric>
#include <vector>

#include "nbody/sim/force_error.hpp"
#include "nbody/sim/gravity.hpp"
#include "nbody/sim/ic/plummer.hpp"

namespace nbody::test {

inline GravityConfig tree_config(double theta, int leaf = 16, int group = 64) {
    return {Gravity::Tree, TreeParams{theta, leaf, group}};
}

template <class Backend>
std::vector<Vec3d> forces(const State& s, const GravityConfig& g, double eps) {
    Backend backend;
    backend.load(s);
    backend.set_gravity(g);
    return backend.accelerations(eps);
}

// Every body's acceleration by the direct sum in double.
inline std::vector<Vec3d> exact(const State& s, double eps) {
    std::vector<std::size_t> all(s.size());
    std::iota(all.begin(), all.end(), std::size_t(0));
    return direct_accelerations(s, all, eps);
}

inline State plummer_sphere(std::size_t n, std::uint64_t seed = 3) {
    return ic::make_plummer({.bodies = n, .seed = seed});
}

}  // namespace nbody::test
