#include "nbody/sim/ic/plummer.hpp"

#include <cmath>
#include <numbers>
#include <random>
#include <stdexcept>

namespace nbody::ic {
namespace {

Vec3d random_direction(std::mt19937_64& rng) {
    std::uniform_real_distribution<double> u(-1.0, 1.0), phi(0.0, 2.0 * std::numbers::pi);
    const double cos_t = u(rng), sin_t = std::sqrt(1.0 - cos_t * cos_t), p = phi(rng);
    return {sin_t * std::cos(p), sin_t * std::sin(p), cos_t};
}

}  // namespace

State make_plummer(const PlummerParams& params) {
    if (params.bodies == 0) throw std::invalid_argument("Plummer sphere: bodies must be > 0");
    if (!(params.total_mass > 0)) throw std::invalid_argument("Plummer sphere: total mass must be > 0");
    if (!(params.scale_radius > 0)) throw std::invalid_argument("Plummer sphere: scale radius must be > 0");
    const double a = params.scale_radius, mass = params.total_mass;
    const double r_max = params.max_radius > 0 ? params.max_radius : 10.0 * a;
    std::mt19937_64 rng(params.seed);
    std::uniform_real_distribution<double> unit(0.0, 1.0);

    State state;
    state.resize(params.bodies);
    const float m = static_cast<float>(mass / double(params.bodies));
    Vec3d com, com_v;
    for (std::size_t i = 0; i < params.bodies; ++i) {
        // Radius from the inverted cumulative mass M(r)/M = r^3 / (r^2 + a^2)^{3/2}.
        double r;
        do {
            const double x = unit(rng);
            r = (x > 0) ? a / std::sqrt(std::pow(x, -2.0 / 3.0) - 1.0) : r_max + 1;
        } while (!(r <= r_max));
        // Speed as a fraction q of the local escape speed: g(q) = q^2 (1 - q^2)^{7/2}, below 0.1.
        double q, g;
        do {
            q = unit(rng);
            g = 0.1 * unit(rng);
        } while (g > q * q * std::pow(1.0 - q * q, 3.5));
        const double v_escape = std::sqrt(2.0 * mass / a) * std::pow(1.0 + r * r / (a * a), -0.25);
        const Vec3d x = r * random_direction(rng), v = q * v_escape * random_direction(rng);
        state.pos_mass[i] = {float(x.x), float(x.y), float(x.z), m};
        state.velocity[i] = {float(v.x), float(v.y), float(v.z), 0.0f};
        com += x;
        com_v += v;
    }
    const double inv_n = 1.0 / double(params.bodies);
    translate(state, -1.0 * com * inv_n, -1.0 * com_v * inv_n);
    return state;
}

void translate(State& state, const Vec3d& offset, const Vec3d& velocity) {
    for (std::size_t i = 0; i < state.size(); ++i) {
        Vec4f& p = state.pos_mass[i];
        Vec4f& v = state.velocity[i];
        p.x = float(p.x + offset.x), p.y = float(p.y + offset.y), p.z = float(p.z + offset.z);
        v.x = float(v.x + velocity.x), v.y = float(v.y + velocity.y), v.z = float(v.z + velocity.z);
    }
}

void append(State& a, const State& b, std::uint16_t galaxy) {
    a.pos_mass.insert(a.pos_mass.end(), b.pos_mass.begin(), b.pos_mass.end());
    a.velocity.insert(a.velocity.end(), b.velocity.begin(), b.velocity.end());
    a.component.insert(a.component.end(), b.component.begin(), b.component.end());
    a.galaxy.insert(a.galaxy.end(), b.size(), galaxy);
}

}  // namespace nbody::ic
