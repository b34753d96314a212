// Mass spectrum and primordial binaries for star clusters: see star_cluster.hpp.

#include "nbody/sim/ic/star_cluster.hpp"

#include <cmath>
#include <numbers>
#include <random>
#include <stdexcept>

namespace nbody::ic {
namespace {

// Integral of m^-alpha from a to b.
double power_integral(double a, double b, double alpha) {
    const double p = 1 - alpha;
    return (std::pow(b, p) - std::pow(a, p)) / p;
}
// Inverse: the m in [a, b] whose integral from a is s.
double power_inverse(double a, double s, double alpha) {
    const double p = 1 - alpha;
    return std::pow(std::pow(a, p) + p * s, 1 / p);
}

Vec3d random_unit(std::mt19937_64& rng) {
    std::uniform_real_distribution<double> u(-1, 1), phi(0, 2 * std::numbers::pi);
    const double z = u(rng), p = phi(rng), r = std::sqrt(1 - z * z);
    return {r * std::cos(p), r * std::sin(p), z};
}

}  // namespace

double kroupa_mass(double u, double lo, double hi) {
    const double brk = 0.5;
    // The two segments joined continuously: m^-1.3 below 0.5, 0.5 m^-2.3 above (equal at 0.5).
    const double a1 = lo < brk ? power_integral(lo, std::min(hi, brk), 1.3) : 0.0;
    const double a2 = hi > brk ? brk * power_integral(std::max(lo, brk), hi, 2.3) : 0.0;
    double s = u * (a1 + a2);
    if (s < a1) return power_inverse(lo, s, 1.3);
    return power_inverse(std::max(lo, brk), (s - a1) / brk, 2.3);
}

void dress_star_cluster(State& s, const StarClusterParams& p) {
    if (p.mass_function != "equal" && p.mass_function != "kroupa")
        throw std::invalid_argument("mass_function '" + p.mass_function + "' (supported: equal, kroupa)");
    if (!(p.min_mass > 0) || !(p.max_mass > p.min_mass)) throw std::invalid_argument("need 0 < min_mass < max_mass");
    if (!(p.binary_fraction >= 0 && p.binary_fraction <= 1)) throw std::invalid_argument("binary_fraction must be in [0, 1]");
    if (!(p.binary_sma_min > 0) || !(p.binary_sma_max >= p.binary_sma_min))
        throw std::invalid_argument("need 0 < binary_sma_min <= binary_sma_max");
    std::mt19937_64 rng(p.seed * 0x9E3779B97F4A7C15ull + 17);
    std::uniform_real_distribution<double> u01(0, 1);
    const std::size_t n = s.size();
    if (p.mass_function == "kroupa" && n > 0) {
        double total = 0, drawn = 0;
        std::vector<double> m(n);
        for (std::size_t i = 0; i < n; ++i) total += s.pos_mass[i].w;
        for (std::size_t i = 0; i < n; ++i) drawn += m[i] = kroupa_mass(u01(rng), p.min_mass, p.max_mass);
        for (std::size_t i = 0; i < n; ++i) s.pos_mass[i].w = float(m[i] * total / drawn);
    }
    const std::size_t pairs = std::size_t(std::floor(p.binary_fraction * double(n) / 2));
    for (std::size_t k = 0; k < pairs; ++k) {
        Vec4f& a = s.pos_mass[2 * k];
        Vec4f& b = s.pos_mass[2 * k + 1];
        const double m1 = a.w, m2 = b.w, mt = m1 + m2;
        const double sma = p.binary_sma_min * std::pow(p.binary_sma_max / p.binary_sma_min, u01(rng));
        const Vec3d r = random_unit(rng);
        Vec3d w = cross(r, random_unit(rng));
        w = w / norm(w);
        const Vec3d rel_x = sma * r, rel_v = std::sqrt(mt / sma) * w;  // circular, G = 1
        const Vec3d X = xyz(a), V = xyz(s.velocity[2 * k]);
        const Vec3d x1 = X + (m2 / mt) * rel_x, x2 = X - (m1 / mt) * rel_x;
        const Vec3d v1 = V + (m2 / mt) * rel_v, v2 = V - (m1 / mt) * rel_v;
        a = {float(x1.x), float(x1.y), float(x1.z), a.w};
        b = {float(x2.x), float(x2.y), float(x2.z), b.w};
        s.velocity[2 * k] = {float(v1.x), float(v1.y), float(v1.z), 0};
        s.velocity[2 * k + 1] = {float(v2.x), float(v2.y), float(v2.z), 0};
    }
}

}  // namespace nbody::ic
