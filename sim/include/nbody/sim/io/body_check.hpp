#pragma once
// The one input validator for bodies, shared by every reader (CSV, TIPSY, snapshot, scene), libg6
// and the Python module: counts within what nbody supports, finite positions and velocities,
// masses finite and >= 0 (massless test particles are allowed; a scene's point mass needs > 0,
// which the scene reader checks itself). Messages name the source, the body (or row) and the
// field with its value: "s.nbsnap: invalid snapshot: body 12 has a non-finite velocity (vy = inf)".

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

#include "nbody/sim/state.hpp"

namespace nbody::io {

// The kernels index bodies with int; 2^30 is the cuda backend's own limit and --bodies's range.
inline constexpr std::uint64_t kMaxBodies = std::uint64_t(1) << 30;

// Throws std::runtime_error "SOURCE: KEY = VALUE is outside 1 to 1073741824 (...)" unless
// 1 <= n <= kMaxBodies. `key` names where the count came from ("scene.bodies", "nbodies").
void check_body_count(std::uint64_t n, const std::string& source, const std::string& key);

// What is wrong with one body, or nullopt: "a non-finite position (x = nan)", "a non-finite
// velocity (vy = inf)", "a non-finite mass (m = inf)", "negative mass m = -1 (masses must be >= 0)".
std::optional<std::string> body_problem(const double position[3], const double velocity[3], double mass);

// Throws std::runtime_error "SOURCE: body I has PROBLEM" for the first bad body, or for a count
// outside 1..kMaxBodies or arrays of different lengths.
void check_bodies(const State& state, const std::string& source);
void check_bodies(const PreciseState& state, const std::string& source);

}  // namespace nbody::io
