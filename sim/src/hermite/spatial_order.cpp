#include "nbody/sim/hermite/spatial_order.hpp"

#include <algorithm>
#include <numeric>

namespace nbody::hermite {

MortonCube bounding_cube(std::span<const Point> points) {
    MortonBox box = empty_morton_box();
    for (const Point& p : points) box = merged(box, morton_box_of(p.x, p.y, p.z));
    return morton_cube_of(box);
}

std::vector<std::uint32_t> morton_order(std::span<const Point> points, const MortonCube& cube) {
    const std::size_t n = points.size();
    std::vector<std::uint32_t> order(n), other(n), keys(n);
    std::iota(order.begin(), order.end(), 0u);
    for (std::size_t i = 0; i < n; ++i) keys[i] = morton_key_in(cube, points[i].x, points[i].y, points[i].z);
    constexpr int kDigitBits = kMortonKeyBits / 2;  // two passes
    std::vector<std::uint32_t> start((1u << kDigitBits) + 1);
    for (int shift = 0; shift < kMortonKeyBits; shift += kDigitBits) {
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
