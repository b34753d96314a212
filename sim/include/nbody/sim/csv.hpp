#pragma once
// CSV particle files: a header row naming the columns, x,y,z,vx,vy,vz,m required (any order,
// extra columns ignored, no column twice), one particle per row; a UTF-8 byte order mark, blank
// lines and '#' lines are skipped; fields may be quoted ("x", "1.5"); a number may start with '+';
// one below the smallest double (1e-400) reads as 0 (the nearest double), one above it (1e999) is
// an error, and so is one beyond float's range (the state is kept in float). The one CSV reader of
// the project: leapfrog and Hermite runs, the viewer, libg6 and Python all read through it. Written with 9 significant digits, enough for a float to round-trip exactly, or with
// 17 from a double state (reference backend, cuda ds/fp64), enough for a double; values are read
// in double, so such a file restores the double state.

#include <iosfwd>
#include <optional>
#include <string>
#include <string_view>

#include "nbody/sim/state.hpp"

namespace nbody {

// Throws std::runtime_error naming the file, the line and the problem (missing or repeated
// column, non-numeric value (cut to 40 characters), a value beyond float's range, wrong field
// count, negative or non-finite mass, a galaxy/component label that is not a whole number in
// range, no particles, a path that is not a regular file). With `precise`, it gets the values in double
// when any of them has more digits than a float holds (else it is left empty).
State read_csv(const std::string& path, std::optional<PreciseState>* precise = nullptr);
// Every row in double (`values`) beside the floats and labels (`state`): for integrators that keep
// a double state (hermite4/6). `beyond_float`: some value has digits a float does not hold.
struct CsvContents {
    State state;
    PreciseState values;
    bool beyond_float = false;
};
CsvContents read_csv_file(const std::string& path);  // regular files only (io/input_file.hpp)
CsvContents read_csv_text(std::string_view text, const std::string& source_name);
State read_csv(std::istream& in, const std::string& source_name, std::optional<PreciseState>* precise = nullptr);

// Writes through a temporary file renamed into place, so a failed write leaves no partial file.
// With `precise` (same N), its values are written with 17 significant digits. A non-empty
// `comment` goes first as a '#' line (e.g. "last finite state: ..."); readers skip it.
void write_csv(const std::string& path, const State& state, const PreciseState* precise = nullptr,
               const std::string& comment = "");
void write_csv(std::ostream& out, const State& state, const PreciseState* precise = nullptr,
               const std::string& comment = "");

}  // namespace nbody
