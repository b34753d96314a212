#pragma once
// Bodies in the order of a Morton curve, so that bodies near in the order are near in space. The
// cuda engine keeps its j-particles in this order and sorts large i-batches to match: the ds force
// kernel's warps and tiles then cover small boxes, and a tile far from a warp's bodies for their
// distance from the origin skips the low parts of the positions (docs/HERMITE.md, version 4).

#include <cstdint>
#include <span>
#include <vector>

#include "nbody/sim/hermite/morton_cube.hpp"  // MortonCube, the keys (shared with the GPU)

namespace nbody::hermite {

struct Point {
    double x, y, z;
};

// The bounding cube of the finite coordinates (a little larger, so that none lands on the top face).
MortonCube bounding_cube(std::span<const Point> points);

// order[s] = the index of the body in place s, by key in `cube` (coordinates outside it go to its
// faces, NaN to cell 0). Stable: bodies of one cell keep their order. Two passes of a radix sort.
std::vector<std::uint32_t> morton_order(std::span<const Point> points, const MortonCube& cube);
// In the points' own bounding cube.
std::vector<std::uint32_t> morton_order(std::span<const Point> points);

}  // namespace nbody::hermite
