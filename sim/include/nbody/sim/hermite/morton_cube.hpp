#pragma once
// The keys of the Hermite engines' spatial order (spatial_order.hpp), as the host and the GPU
// (cuda/hermite/spatial_order.cu) both compute them: the same doubles, cube and cells, so that the
// GPU's order is the host's bit for bit. C++17 without std::span: nvcc compiles the .cu files as C++17.

#include <cmath>
#include <cstdint>

#include "nbody/sim/tree/multipole.hpp"  // morton_key, NBODY_TREE_HD (__host__ __device__ under nvcc)

namespace nbody::hermite {

// The cube the keys are cut on: cell = (coordinate - lo) * scale, 1024 cells a side (30-bit keys:
// cells far smaller than the 128-256 bodies of a warp or tile, even at 10^9 bodies).
struct MortonCube {
    double lo[3] = {0, 0, 0};
    double scale = 0;  // 0: every body in one cell
};
inline constexpr int kMortonCellsPerSide = 1024;
inline constexpr int kMortonKeyBits = 30;

// The box of the finite coordinates, axis by axis (an axis with none: lo > hi). Min and max are
// exact, so any order of merging gives the same box.
struct MortonBox {
    double lo[3], hi[3];
};
NBODY_TREE_HD MortonBox empty_morton_box() {
    return {{INFINITY, INFINITY, INFINITY}, {-INFINITY, -INFINITY, -INFINITY}};
}
NBODY_TREE_HD MortonBox merged(MortonBox a, const MortonBox& b) {
    for (int k = 0; k < 3; ++k) {
        a.lo[k] = b.lo[k] < a.lo[k] ? b.lo[k] : a.lo[k];
        a.hi[k] = b.hi[k] > a.hi[k] ? b.hi[k] : a.hi[k];
    }
    return a;
}
// The box of one point: its finite coordinates.
NBODY_TREE_HD MortonBox morton_box_of(double x, double y, double z) {
    MortonBox b = empty_morton_box();
    const double c[3] = {x, y, z};
    for (int k = 0; k < 3; ++k)
        if (std::isfinite(c[k])) b.lo[k] = b.hi[k] = c[k];
    return b;
}

// The cube of a box: its low corner (0 on an empty axis) and its largest side, a little larger so
// that no coordinate lands on the top face.
NBODY_TREE_HD MortonCube morton_cube_of(const MortonBox& b) {
    MortonCube cube;
    double side = 0;
    for (int k = 0; k < 3; ++k) {
        const bool any = b.lo[k] <= b.hi[k];
        cube.lo[k] = any ? b.lo[k] : 0.0;
        const double extent = any ? b.hi[k] - b.lo[k] : 0.0;
        side = extent > side ? extent : side;
    }
    cube.scale = side > 0 ? kMortonCellsPerSide / (side * (1 + 1e-6)) : 0.0;
    return cube;
}

// The 30-bit key of a point in `cube`: coordinates outside it go to its faces, NaN to cell 0.
NBODY_TREE_HD std::uint32_t morton_key_in(const MortonCube& cube, double x, double y, double z) {
    const double c[3] = {x, y, z};
    std::uint32_t cell[3];
    for (int k = 0; k < 3; ++k) {
        const double u = (c[k] - cube.lo[k]) * cube.scale;  // NaN fails both tests: cell 0
        const double top = double(kMortonCellsPerSide - 1);
        cell[k] = u > 0 ? std::uint32_t(u < top ? u : top) : 0u;
    }
    return std::uint32_t(tree::morton_key(cell[0], cell[1], cell[2]));
}

}  // namespace nbody::hermite
