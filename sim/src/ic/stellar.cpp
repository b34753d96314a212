// Main-sequence temperatures: see stellar.hpp.

#include "nbody/sim/ic/stellar.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <utility>

#include "nbody/sim/scene.hpp"

namespace nbody::ic {
namespace {

// (mass / Msun, Teff / K) on the zero-age main sequence (Pecaut & Mamajek 2013's table, rounded).
constexpr std::array<std::pair<double, double>, 13> kMainSequence{{{0.08, 2700},
                                                                   {0.2, 3200},
                                                                   {0.5, 3800},
                                                                   {0.8, 5000},
                                                                   {1.0, 5800},
                                                                   {1.5, 7000},
                                                                   {2.0, 8900},
                                                                   {3.0, 11500},
                                                                   {5.0, 15500},
                                                                   {10.0, 24000},
                                                                   {20.0, 33000},
                                                                   {60.0, 42000},
                                                                   {100.0, 45000}}};

// Integral of m * m^-alpha (mass) and of m^-alpha (number) from a to b.
double power_moment(double a, double b, double alpha, int moment) {
    const double p = 1 + moment - alpha;
    return (std::pow(b, p) - std::pow(a, p)) / p;
}

}  // namespace

double main_sequence_temperature(double m) {
    const auto& t = kMainSequence;
    if (!(m > t.front().first)) return t.front().second;
    if (m >= t.back().first) return t.back().second;
    const auto hi = std::find_if(t.begin(), t.end(), [m](const auto& row) { return row.first > m; });
    const auto lo = hi - 1;
    const double f = std::log(m / lo->first) / std::log(hi->first / lo->first);
    return lo->second * std::pow(hi->second / lo->second, f);
}

double kroupa_mean_mass(double lo, double hi) {
    const double brk = 0.5;  // m^-1.3 below, 0.5 m^-2.3 above: the sampler's (star_cluster.cpp)
    double mass = 0, number = 0;
    if (lo < brk) {
        mass += power_moment(lo, std::min(hi, brk), 1.3, 1);
        number += power_moment(lo, std::min(hi, brk), 1.3, 0);
    }
    if (hi > brk) {
        mass += brk * power_moment(std::max(lo, brk), hi, 2.3, 1);
        number += brk * power_moment(std::max(lo, brk), hi, 2.3, 0);
    }
    return number > 0 ? mass / number : lo;
}

double solar_masses_per_unit(const UnitSystem& units, const State& state) {
    if (units.mass_unit_msun > 0) return units.mass_unit_msun;
    double total = 0;
    for (const Vec4f& p : state.pos_mass) total += p.w;
    return total > 0 ? double(state.size()) / total : 1.0;
}

}  // namespace nbody::ic
