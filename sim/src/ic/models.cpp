#include "nbody/sim/ic/models.hpp"

#include <cmath>
#include <stdexcept>
#include <string>

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

State make_point_mass(double mass) {
    if (!(mass > 0) || !std::isfinite(mass)) throw std::invalid_argument("point mass: mass must be > 0");
    State s;
    s.resize(1);
    s.pos_mass[0].w = float(mass);
    s.component[0] = Component::Unspecified;
    return s;
}

}  // namespace nbody::ic
