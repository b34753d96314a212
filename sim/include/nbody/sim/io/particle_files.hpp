#pragma once
// One entry point for particle files, chosen by extension (case-insensitive):
//   .csv                  CSV (nbody/sim/csv.hpp)
//   .tipsy, .std, .bin    TIPSY binary (nbody/sim/io/tipsy.hpp; written big-endian, padded header)
//   .nbsnap               our snapshot (nbody/sim/io/snapshot.hpp)
// Writing a .nbsnap through write_particles stores default run parameters; to save a running
// simulation, call write_snapshot with its StepParams instead.

#include <string>
#include <string_view>

#include "nbody/sim/state.hpp"

namespace nbody::io {

enum class ParticleFormat { Csv, Tipsy, Snapshot };

// Throws std::runtime_error naming the path and listing the supported extensions.
ParticleFormat particle_format_for(const std::string& path);
std::string_view to_string(ParticleFormat format);

// Errors are the format readers' (std::runtime_error naming the file and the problem).
State read_particles(const std::string& path);

// Whole or not at all (temporary file renamed into place).
void write_particles(const std::string& path, const State& state);

}  // namespace nbody::io
