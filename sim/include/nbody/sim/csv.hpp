#pragma once
// CSV particle files: a header row naming the columns, x,y,z,vx,vy,vz,m required (any order,
// extra columns ignored, no column twice), one particle per row; a UTF-8 byte order mark is
// skipped. Written with 9 significant digits, enough for a float to round-trip exactly, or with
// 17 from a double state (reference backend, cuda ds/fp64), enough for a double; values are read
// in double, so such a file restores the double state.

#include <iosfwd>
#include <optional>
#include <string>

#include "nbody/sim/state.hpp"

namespace nbody {

// Throws std::runtime_error naming the file, the line and the problem (missing or repeated
// column, non-numeric value (cut to 40 characters), a value beyond float's range, wrong field
// count, negative mass, no particles, a folder). With `precise`, it gets the values in double
// when any of them has more digits than a float holds (else it is left empty).
State read_csv(const std::string& path, std::optional<PreciseState>* precise = nullptr);
State read_csv(std::istream& in, const std::string& source_name, std::optional<PreciseState>* precise = nullptr);

// Writes through a temporary file renamed into place, so a failed write leaves no partial file.
// With `precise` (same N), its values are written with 17 significant digits. A non-empty
// `comment` goes first as a '#' line (e.g. "last finite state: ..."); readers skip it.
void write_csv(const std::string& path, const State& state, const PreciseState* precise = nullptr,
               const std::string& comment = "");
void write_csv(std::ostream& out, const State& state, const PreciseState* precise = nullptr,
               const std::string& comment = "");

}  // namespace nbody
