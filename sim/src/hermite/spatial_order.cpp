#include "nbody/sim/hermite/spatial_order.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "nbody/sim/tree/multipole.hpp"

namespace nbody::hermite {

std::vector<std::uint32_t> morton_order(std::span<const Point> points) {
    const std::size_t n = points.size();
    std::vector<std::uint32_t> order(n);
    std::iota(order.begin(), order.end(), 0u);
    if (n < 2) return order;
    double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    for (const Point& p : points) {
        const double c[3] = {p.x, p.y, p.z};
        for (int a = 0; a < 3; ++a)
            if (std::isfinite(c[a])) lo[a] = std::min(lo[a], c[a]), hi[a] = std::max(hi[a], c[a]);
    }
    double side = 0;
    for (int a = 0; a < 3; ++a) side = std::max(side, hi[a] > lo[a] ? hi[a] - lo[a] : 0.0);
    if (!(side > 0)) return order;  // one place (or nothing finite): any order is as good
    const double scale = double(tree::kKeyCells) / (side * (1 + 1e-6));
    std::vector<std::uint64_t> keys(n);
    for (std::size_t i = 0; i < n; ++i) {
        const Point& p = points[i];
        auto cell = [&](double v, int a) { return std::isnan(v) ? 0u : tree::grid_cell((v - lo[a]) * scale); };
        keys[i] = tree::morton_key(cell(p.x, 0), cell(p.y, 1), cell(p.z, 2));
    }
    std::stable_sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) { return keys[a] < keys[b]; });
    return order;
}

}  // namespace nbody::hermite
