#include "nbody/sim/force_error.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <random>
#include <stdexcept>

#include "thread_pool.hpp"

namespace nbody {

ForceErrorStats relative_force_errors(const std::vector<Vec3d>& a, const std::vector<Vec3d>& reference) {
    if (a.size() != reference.size()) throw std::invalid_argument("relative_force_errors: size mismatch");
    std::vector<double> err(a.size());
    for (std::size_t i = 0; i < a.size(); ++i) {
        const double ref = norm(reference[i]);
        const double e = norm(a[i] - reference[i]) / (ref > 0 ? ref : 1.0);
        err[i] = std::isnan(e) ? std::numeric_limits<double>::infinity() : e;
    }
    ForceErrorStats s;
    s.count = err.size();
    if (err.empty()) return s;
    std::sort(err.begin(), err.end());
    // Nearest rank: the smallest error that at least q of the bodies do not exceed.
    auto quantile = [&](double q) {
        const auto rank = static_cast<std::size_t>(std::ceil(q * double(err.size())));
        return err[std::clamp<std::size_t>(rank, 1, err.size()) - 1];
    };
    s.median = quantile(0.5);
    s.p99 = quantile(0.99);
    s.max = err.back();
    return s;
}

std::vector<std::size_t> sample_bodies(std::size_t n, std::size_t count, std::uint64_t seed) {
    std::vector<std::size_t> all(n);
    std::iota(all.begin(), all.end(), std::size_t(0));
    if (count >= n) return all;
    std::mt19937_64 rng(seed);
    // Partial Fisher-Yates: the first `count` entries become a uniform sample without repeats.
    for (std::size_t i = 0; i < count; ++i) {
        std::uniform_int_distribution<std::size_t> pick(i, n - 1);
        std::swap(all[i], all[pick(rng)]);
    }
    all.resize(count);
    std::sort(all.begin(), all.end());
    return all;
}

std::vector<Vec3d> direct_accelerations(const State& state, const std::vector<std::size_t>& which, double softening) {
    const std::size_t n = state.size();
    std::vector<double> x(n), y(n), z(n), m(n);
    for (std::size_t j = 0; j < n; ++j) {
        const Vec4f& p = state.pos_mass[j];
        x[j] = p.x, y[j] = p.y, z[j] = p.z, m[j] = p.w;
    }
    for (std::size_t i : which)
        if (i >= n) throw std::invalid_argument("direct_accelerations: body index out of range");
    const double eps2 = softening * softening;
    std::vector<Vec3d> out(which.size());
    shared_thread_pool().parallel_for(which.size(), [&](std::size_t begin, std::size_t end) {
        for (std::size_t k = begin; k < end; ++k) {
            const std::size_t i = which[k];
            double ax = 0, ay = 0, az = 0;
            for (std::size_t j = 0; j < n; ++j) {
                if (j == i) continue;
                const double dx = x[j] - x[i], dy = y[j] - y[i], dz = z[j] - z[i];
                const double r2 = dx * dx + dy * dy + dz * dz + eps2;
                if (!(r2 > 0)) continue;
                const double inv_r = 1.0 / std::sqrt(r2);
                const double s = m[j] * inv_r * inv_r * inv_r;
                ax += dx * s, ay += dy * s, az += dz * s;
            }
            out[k] = {ax, ay, az};
        }
    });
    return out;
}

}  // namespace nbody
