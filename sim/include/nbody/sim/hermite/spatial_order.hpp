#pragma once
// Bodies in the order of a Morton curve over their bounding cube, so that bodies near in the order
// are near in space. The cuda engine keeps its j-particles and i-batches in this order: the ds force
// kernel's warps and tiles then cover small boxes, and a tile far from a warp's bodies for their
// distance from the origin skips the low parts of the positions (docs/HERMITE.md, version 4).

#include <cstdint>
#include <span>
#include <vector>

namespace nbody::hermite {

struct Point {
    double x, y, z;
};

// order[s] = the index of the body in place s. Stable (equal keys keep their order); NaN coordinates
// take cell 0. Empty input, empty order.
std::vector<std::uint32_t> morton_order(std::span<const Point> points);

}  // namespace nbody::hermite
