#pragma once
// Our own snapshot format (.nbsnap): everything needed to continue a run bit for bit.
//
// Version 1, all fields little-endian:
//   offset  size
//   0       8     magic 89 4E 42 53 0D 0A 1A 0A ("\x89NBS\r\n\x1a\n": the high byte and the
//                 CR LF / ^Z pair catch text-mode transfers, as PNG's signature does)
//   8       4     u32 format version (1)
//   12      8     u64 N, number of bodies (> 0)
//   20      8     f64 simulation time
//   28      8     f64 dt
//   36      8     f64 softening
//   44      4     i32 steps per frame
//   48      4     u32 length of the scene name, then that many UTF-8 bytes
//   ..      4     u32 length of the scene source (file), then its bytes
//   ..   16 N     pos_mass: f32 x, y, z, m per body
//   ..   16 N     velocity: f32 vx, vy, vz, w per body
//   ..    2 N     u16 galaxy per body
//   ..    1 N     u8 component per body (0 unspecified, 1 disk, 2 bulge, 3 halo, 4 star)
//   ..      8     u64 FNV-1a 64 checksum of every byte before it
//
// Floats are stored as their bits, so a restored state is the saved state exactly; a backend
// loaded from it steps exactly as the one that saved it (it keeps no other state).

#include <string>
#include <string_view>

#include "nbody/sim/backend.hpp"
#include "nbody/sim/state.hpp"

namespace nbody::io {

inline constexpr std::uint32_t kSnapshotVersion = 1;

struct Snapshot {
    State state;                 // particles, labels and time
    StepParams params;           // dt and softening of the run
    int steps_per_frame = 1;
    std::string scene_name;      // for the UI; may be empty
    std::string scene_source;
};

// Whole or not at all: through a temporary file renamed into place. Throws std::invalid_argument
// for an invalid state and std::runtime_error when writing fails.
void write_snapshot(const std::string& path, const Snapshot& snapshot);
std::string encode_snapshot(const Snapshot& snapshot);

// Throws std::runtime_error naming the file and the problem: wrong magic (not a snapshot),
// unsupported version, truncation (with the byte offset), checksum mismatch (stored and computed
// values), an invalid body (unknown component, negative mass). Nothing is returned half-read.
Snapshot read_snapshot(const std::string& path);
Snapshot decode_snapshot(std::string_view bytes, const std::string& source_name);

}  // namespace nbody::io
