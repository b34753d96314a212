#include "nbody/sim/hermite/spatial_order.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "nbody/sim/tree/multipole.hpp"

namespace nbody::hermite {

MortonCube bounding_cube(std::span<const Point> points) {
    double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    for (const Point& p : points) {
        const double c[3] = {p.x, p.y, p.z};
        for (int a = 0; a < 3; ++a)
            if (std::isfinite(c[a])) lo[a] = std::min(lo[a], c[a]), hi[a] = std::max(hi[a], c[a]);
    }
    MortonCube cube;
    double side = 0;
    for (int a = 0; a < 3; ++a) {
        cube.lo[a] = lo[a] <= hi[a] ? lo[a] : 0.0;
        side = std::max(side, lo[a] <= hi[a] ? hi[a] - lo[a] : 0.0);
    }
    cube.scale = side > 0 ? kMortonCellsPerSide / (side * (1 + 1e-6)) : 0.0;
    return cube;
}

std::vector<std::uint32_t> morton_order(std::span<const Point> points, const MortonCube& cube) {
    const std::size_t n = points.size();
    std::vector<std::uint32_t> order(n), other(n), keys(n);
    std::iota(order.begin(), order.end(), 0u);
    auto cell = [&](double v, int a) -> std::uint64_t {
        const double u = (v - cube.lo[a]) * cube.scale;  // NaN fails both tests: cell 0
        return u > 0 ? std::uint64_t(std::min(u, double(kMortonCellsPerSide - 1))) : 0;
    };
    for (std::size_t i = 0; i < n; ++i)
        keys[i] = std::uint32_t(tree::morton_key(std::uint32_t(cell(points[i].x, 0)), std::uint32_t(cell(points[i].y, 1)),
                                                 std::uint32_t(cell(points[i].z, 2))));
    constexpr int kDigitBits = 15;  // 30-bit keys: two passes
    std::vector<std::uint32_t> start((1u << kDigitBits) + 1);
    for (int shift = 0; shift < 30; shift += kDigitBits) {
        std::fill(start.begin(), start.end(), 0u);
        auto digit = [&](std::uint32_t i) { return (keys[i] >> shift) & ((1u << kDigitBits) - 1); };
        for (std::uint32_t i : order) ++start[digit(i) + 1];
        std::partial_sum(start.begin(), start.end(), start.begin());
        for (std::uint32_t i : order) other[start[digit(i)]++] = i;
        order.swap(other);
    }
    return order;
}

std::vector<std::uint32_t> morton_order(std::span<const Point> points) { return morton_order(points, bounding_cube(points)); }

}  // namespace nbody::hermite
