#pragma once
// CSV particle files: a header row naming the columns, x,y,z,vx,vy,vz,m required (any order,
// extra columns ignored), one particle per row. Written with 9 significant digits, enough for a
// float to round-trip exactly.

#include <iosfwd>
#include <string>

#include "nbody/sim/state.hpp"

namespace nbody {

// Throws std::runtime_error naming the file, the line and the problem (missing column,
// non-numeric value, wrong field count, negative mass, no particles).
State read_csv(const std::string& path);
State read_csv(std::istream& in, const std::string& source_name);

// Writes through a temporary file renamed into place, so a failed write leaves no partial file.
void write_csv(const std::string& path, const State& state);
void write_csv(std::ostream& out, const State& state);

}  // namespace nbody
