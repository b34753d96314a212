#pragma once
// How far an approximate force is from the exact one: the relative error |a - a_ref| / |a_ref|
// per body and its median, 99th percentile and maximum (the figures docs/TREE.md reports for the
// tree code), with the exact reference summed in double for all bodies or a sample of them.

#include <cstddef>
#include <cstdint>
#include <vector>

#include "nbody/sim/state.hpp"
#include "nbody/sim/types.hpp"

namespace nbody {

struct ForceErrorStats {
    std::size_t count = 0;  // bodies compared
    double median = 0, p99 = 0, max = 0;
};

// Relative error statistics of `a` against `reference` (same size). A body whose reference force
// is exactly 0 is compared by absolute error. NaN anywhere counts as an infinite error.
ForceErrorStats relative_force_errors(const std::vector<Vec3d>& a, const std::vector<Vec3d>& reference);

// `count` distinct body indices of [0, n), drawn with `seed`, in increasing order (all of them
// when count >= n).
std::vector<std::size_t> sample_bodies(std::size_t n, std::size_t count, std::uint64_t seed);

// Direct-sum accelerations in double of the bodies `which` (indices into state), from every
// body of `state` (a body does not pull itself), Plummer softening eps. Threaded; O(|which| N).
std::vector<Vec3d> direct_accelerations(const State& state, const std::vector<std::size_t>& which, double softening);

}  // namespace nbody
