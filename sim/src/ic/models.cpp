#include "nbody/sim/ic/models.hpp"

#include <cmath>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "random.hpp"

namespace nbody::ic {

double uniform_cube_potential_energy(double mass, double side) {
    // Half the mean inverse distance of two uniform points in a unit cube (1.882312, a classic
    // six-dimensional integral; Monte Carlo with 2e8 pairs gives 0.94114 for the half).
    return -0.941156 * mass * mass / side;
}

State make_uniform_cube(const UniformCubeParams& p) {
    if (p.bodies == 0) throw std::invalid_argument("cube: bodies must be > 0");
    if (!(p.mass > 0) || !std::isfinite(p.mass)) throw std::invalid_argument("cube: mass must be > 0");
    if (!(p.side > 0) || !std::isfinite(p.side)) throw std::invalid_argument("cube: side must be > 0");
    if (!(p.virial_ratio >= 0) || !std::isfinite(p.virial_ratio)) throw std::invalid_argument("cube: virial_ratio must be >= 0");
    // T = M <v^2> / 2 = M v^2 / 2 for components uniform in [-v, v]; 2T/|W| = Q gives v.
    const double vmax = std::sqrt(p.virial_ratio * std::abs(uniform_cube_potential_energy(p.mass, p.side)) / p.mass);
    detail::Rng rng(detail::mix_seed(p.seed, 7));
    State s;
    s.resize(p.bodies);
    const float m = float(p.mass / double(p.bodies));
    const double h = 0.5 * p.side;
    Vec3d vsum;
    for (std::size_t i = 0; i < p.bodies; ++i) {
        s.pos_mass[i] = {float(rng.uniform(-h, h)), float(rng.uniform(-h, h)), float(rng.uniform(-h, h)), m};
        const Vec3d v{rng.uniform(-vmax, vmax), rng.uniform(-vmax, vmax), rng.uniform(-vmax, vmax)};
        s.velocity[i] = {float(v.x), float(v.y), float(v.z), 0.0f};
        vsum += v;
        s.component[i] = Component::Star;
    }
    // Zero net momentum, so the cube does not drift out of view; positions stay as drawn
    // (re-centring them would push particles past the cube's faces).
    const Vec3d dv = vsum / double(p.bodies);
    for (auto& v : s.velocity) v = {float(v.x - dv.x), float(v.y - dv.y), float(v.z - dv.z), 0.0f};
    return s;
}

void virialize_softened(State& s, double eps, std::uint64_t seed) {
    const std::size_t n = s.size();
    if (n < 2) return;
    constexpr std::size_t kSample = 6000;
    std::vector<std::size_t> pick(n);
    for (std::size_t i = 0; i < n; ++i) pick[i] = i;
    double weight = 1.0;
    if (n > kSample) {
        detail::Rng rng(detail::mix_seed(seed, 11));
        for (std::size_t i = 0; i < kSample; ++i) std::swap(pick[i], pick[i + std::size_t(rng.uniform() * double(n - i))]);
        pick.resize(kSample);
        weight = (double(n) * double(n - 1)) / (double(kSample) * double(kSample - 1));
    }
    const double e2 = eps * eps;
    double virial = 0.0;  // sum_{i<j} m_i m_j r^2 / (r^2 + eps^2)^1.5
    for (std::size_t a = 0; a < pick.size(); ++a) {
        const Vec4f& p = s.pos_mass[pick[a]];
        for (std::size_t b = a + 1; b < pick.size(); ++b) {
            const Vec4f& q = s.pos_mass[pick[b]];
            const double dx = double(p.x) - q.x, dy = double(p.y) - q.y, dz = double(p.z) - q.z;
            const double r2 = dx * dx + dy * dy + dz * dz;
            virial += double(p.w) * q.w * r2 / std::pow(r2 + e2, 1.5);
        }
    }
    virial *= weight;
    Vec3d mv;
    double mass = 0.0;
    for (std::size_t i = 0; i < n; ++i) {
        mv += double(s.pos_mass[i].w) * xyz(s.velocity[i]);
        mass += s.pos_mass[i].w;
    }
    const Vec3d vcm = mv / mass;
    double kinetic2 = 0.0;  // 2T in the centre-of-mass frame
    for (std::size_t i = 0; i < n; ++i) {
        const Vec3d u = xyz(s.velocity[i]) - vcm;
        kinetic2 += double(s.pos_mass[i].w) * dot(u, u);
    }
    if (!(kinetic2 > 0) || !(virial > 0)) return;
    const double f = std::sqrt(virial / kinetic2);
    for (auto& v : s.velocity) {
        const Vec3d u = vcm + f * (xyz(v) - vcm);
        v = {float(u.x), float(u.y), float(u.z), v.w};
    }
}

State make_point_mass(double mass) {
    if (!(mass > 0) || !std::isfinite(mass)) throw std::invalid_argument("point mass: mass must be > 0");
    State s;
    s.resize(1);
    s.pos_mass[0].w = float(mass);
    s.component[0] = Component::Unspecified;
    return s;
}

}  // namespace nbody::ic
