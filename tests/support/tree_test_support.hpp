// What the tree tests of the CPU (tests/sim) and the GPU (tests/cuda) share: a tree gravity
// config, the forces a backend computes under it, and the exact direct sum to compare with.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <numeric>
#include <vector>

#include "nbody/sim/diagnostics.hpp"
#include "nbody/sim/force_error.hpp"
#include "nbody/sim/gravity.hpp"
#include "nbody/sim/ic/plummer.hpp"
#include "nbody/sim/time_steps.hpp"
#include "nbody/sim/tree/host_tree.hpp"

namespace nbody::test {

inline GravityConfig tree_config(double theta, int leaf = 16, int group = 64) {
    return {Gravity::Tree, TreeParams{theta, leaf, group, 0.0}};  // the angle alone
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

// Potentials are compared as vectors (phi, 0, 0): relative_force_errors then gives the relative
// error statistics of phi.
template <class Real>
std::vector<Vec3d> as_vectors(const std::vector<Real>& phi) {
    std::vector<Vec3d> v(phi.size());
    for (std::size_t i = 0; i < phi.size(); ++i) v[i] = {double(phi[i]), 0, 0};
    return v;
}

// Every body's potential -sum_{j != i} m_j / sqrt(r^2 + eps^2), in double. O(N^2), one thread.
inline std::vector<Vec3d> exact_potentials(const State& s, double eps) {
    std::vector<double> phi(s.size(), 0.0);
    for (std::size_t i = 0; i < s.size(); ++i)
        for (std::size_t j = i + 1; j < s.size(); ++j) {
            const Vec4f a = s.pos_mass[i], b = s.pos_mass[j];
            const double dx = double(b.x) - a.x, dy = double(b.y) - a.y, dz = double(b.z) - a.z;
            const double inv_r = 1.0 / std::sqrt(dx * dx + dy * dy + dz * dz + eps * eps);
            phi[i] -= b.w * inv_r, phi[j] -= a.w * inv_r;
        }
    return as_vectors(phi);
}

// The CPU tree's potentials (host_tree.hpp) in precision Real.
template <class Real>
std::vector<Real> tree_potentials_of(const State& s, const TreeParams& params, double eps) {
    std::vector<Real> x, y, z, m, phi(s.size());
    for (const Vec4f& p : s.pos_mass) x.push_back(p.x), y.push_back(p.y), z.push_back(p.z), m.push_back(p.w);
    tree::tree_potentials(x.data(), y.data(), z.data(), m.data(), s.size(), Real(eps) * Real(eps), params, phi.data());
    return phi;
}

// A run of `steps` steps of dt (dt_max under block steps) from `s` on `Backend` with the default
// tree, under the time steps `ts`: what the block-step tests of the CPU and the GPU compare.
struct TimeStepRun {
    State state;
    ForceWork work;
    std::vector<std::uint8_t> levels;
    double energy_error = 0;  // relative, from the double direct sum of diagnostics.hpp
};

template <class Backend>
TimeStepRun run_with_time_steps(const State& s, const StepParams& p, long steps, const TimeStepConfig& ts) {
    Backend b;
    b.load(s);
    b.set_gravity({Gravity::Tree, TreeParams{}});
    b.set_time_steps(ts);
    const double e0 = compute_diagnostics(s, p.softening).total;
    for (long k = 0; k < steps; ++k) b.step(p);
    TimeStepRun out;
    b.store(out.state);
    out.work = *b.force_work();
    out.levels = b.levels();
    out.energy_error = std::abs(compute_diagnostics(out.state, p.softening).total - e0) / std::abs(e0);
    return out;
}

}  // namespace nbody::test
