#include "nbody/sim/io/body_check.hpp"

#include <cmath>
#include <stdexcept>

#include "ic/message_format.hpp"

namespace nbody::io {
namespace {

using message_format::short_number;

[[noreturn]] void fail_body(const std::string& source, std::size_t i, const std::string& problem) {
    throw std::runtime_error(source + ": body " + std::to_string(i) + " has " + problem);
}

}  // namespace

void check_body_count(std::uint64_t n, const std::string& source, const std::string& key) {
    if (n >= 1 && n <= kMaxBodies) return;
    throw std::runtime_error(source + ": " + key + " = " + std::to_string(n) + " is outside 1 to " +
                             std::to_string(kMaxBodies) + " (the number of bodies nbody supports, 2^30)");
}

std::optional<std::string> body_problem(const double position[3], const double velocity[3], double mass) {
    static const char* const kPos[3] = {"x", "y", "z"};
    static const char* const kVel[3] = {"vx", "vy", "vz"};
    for (int c = 0; c < 3; ++c)
        if (!std::isfinite(position[c])) return "a non-finite position (" + std::string(kPos[c]) + " = " + short_number(position[c]) + ")";
    for (int c = 0; c < 3; ++c)
        if (!std::isfinite(velocity[c])) return "a non-finite velocity (" + std::string(kVel[c]) + " = " + short_number(velocity[c]) + ")";
    if (!std::isfinite(mass)) return "a non-finite mass (m = " + short_number(mass) + ")";
    if (mass < 0) return "negative mass m = " + short_number(mass) + " (masses must be >= 0)";
    return std::nullopt;
}

void check_bodies(const State& s, const std::string& source) {
    const std::size_t n = s.size();
    check_body_count(n, source, "the number of bodies");
    if (s.velocity.size() != n || s.galaxy.size() != n || s.component.size() != n)
        throw std::runtime_error(source + ": per-body arrays differ in length (" + std::to_string(n) + " positions, " +
                                 std::to_string(s.velocity.size()) + " velocities)");
    for (std::size_t i = 0; i < n; ++i) {
        const Vec4f& p = s.pos_mass[i];
        const Vec4f& v = s.velocity[i];
        const double x[3] = {p.x, p.y, p.z}, u[3] = {v.x, v.y, v.z};
        if (auto problem = body_problem(x, u, p.w)) fail_body(source, i, *problem);
    }
}

void check_bodies(const PreciseState& s, const std::string& source) {
    const std::size_t n = s.size();
    check_body_count(n, source, "the number of bodies");
    if (s.velocity.size() != n || s.mass.size() != n)
        throw std::runtime_error(source + ": double-precision arrays differ in length (" + std::to_string(n) +
                                 " positions, " + std::to_string(s.velocity.size()) + " velocities, " +
                                 std::to_string(s.mass.size()) + " masses)");
    for (std::size_t i = 0; i < n; ++i) {
        const double x[3] = {s.position[i].x, s.position[i].y, s.position[i].z};
        const double u[3] = {s.velocity[i].x, s.velocity[i].y, s.velocity[i].z};
        if (auto problem = body_problem(x, u, s.mass[i])) fail_body(source, i, *problem);
    }
}

}  // namespace nbody::io
