#pragma once
// One entry point for particle files, chosen by extension (case-insensitive):
//   .csv                  CSV (nbody/sim/csv.hpp)
//   .tipsy, .std, .bin    TIPSY binary (nbody/sim/io/tipsy.hpp; written big-endian, padded header)
//   .nbsnap               our snapshot (nbody/sim/io/snapshot.hpp)
// Writing a .nbsnap through write_particles stores default run parameters; to save a running
// simulation, call write_snapshot with its StepParams instead.

#include <optional>
#include <string>
#include <string_view>

#include "nbody/sim/state.hpp"

namespace nbody::io {

enum class ParticleFormat { Csv, Tipsy, Snapshot };

// Throws std::runtime_error naming the path and listing the supported extensions.
ParticleFormat particle_format_for(const std::string& path);
std::string_view to_string(ParticleFormat format);

// Errors are the format readers' (std::runtime_error naming the file and the problem); a folder
// is refused as such. With `precise`, it gets the double state the file holds: a CSV's values in
// double when they have more digits than floats, a snapshot's double state; TIPSY has none.
State read_particles(const std::string& path, std::optional<PreciseState>* precise = nullptr);

// Whole or not at all (temporary file renamed into place). With `precise` (the double state of
// a reference or cuda ds/fp64 run), a CSV gets 17 significant digits and a snapshot the double
// state; TIPSY stores floats.
void write_particles(const std::string& path, const State& state, const PreciseState* precise = nullptr);

}  // namespace nbody::io
