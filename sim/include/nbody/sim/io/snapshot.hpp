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
//
// Version 2 (what this build writes; it still reads version 1) is version 1 with version field 2
// and, between the per-body arrays and the checksum, a list of self-describing sections:
//   ..      4     u32 section count
//   per section:
//   ..      4     tag, 4 ASCII bytes
//   ..      8     u64 payload length L in bytes (the reader skips a tag it does not know by it)
//   ..      L     payload
// Sections of this version, each optional:
//   "F64S"  the state in double precision (at most one): N x (f64 x, y, z), then N x (f64 vx, vy,
//           vz), then N x f64 m; L = 56 N. Written by backends that integrate in double
//           (reference; cuda in ds and fp64): loading it restores them exactly. The floats above
//           hold the same values rounded. The time is the header's f64.
//   "META"  string key/value pairs (at most one): u32 count, then per pair u32 key length, key
//           bytes, u32 value length, value bytes (UTF-8; keys non-empty, unique, < 64 KiB).
//           What a scene knows beyond the bodies (units, camera, galaxy names, colouring: the
//           "scene.*" keys of io/scene_metadata.hpp), and run status (kStatusKey).
//   "XARR"  one named array of f64 (one section per array): u32 name length, name bytes, u64
//           count, count x f64. Per-body integrator state (e.g. Hermite's per-body time, time
//           step, acc, jerk); the array's user checks its length.
// The checksum covers every byte before it, sections included.
//
// Version 3 is version 2 with one more section kind; a snapshot without it is still written as
// version 2, so older builds keep reading what they can use:
//   "ENR0"  the energy of the run's first state (at most one): f64 E0, f64 t0 (the model time of
//           that state), u32 length + bytes of how it was summed ("exact", "tree": energy_source.hpp;
//           "hermite": every pair from the double state). A run continued from this snapshot
//           measures its energy drift from E0, not from the state it was loaded from.

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "nbody/sim/backend.hpp"
#include "nbody/sim/state.hpp"

namespace nbody::io {

// Written when the snapshot has an E0 ("ENR0"), else version 2; versions 1 to 3 are read.
inline constexpr std::uint32_t kSnapshotVersion = 3;

// The energy of the first state of a run continued through snapshots ("ENR0").
struct RunEnergy {
    double energy = 0;   // E0
    double time = 0;     // the model time of the state it was summed for
    std::string source;  // "exact", "tree" or "hermite": a drift compares like with like
};
// RunEnergy::source of a Hermite run: every pair summed from the double state.
inline constexpr const char* kHermiteEnergySource = "hermite";

// Metadata key saying what state a snapshot holds when it is not simply the end of a run, e.g.
// "last finite state: step 1200 of 5000; body 17 became non-finite at step 1201". Absent normally.
inline constexpr const char* kStatusKey = "nbody.status";

struct Snapshot {
    State state;                 // particles, labels and time
    StepParams params;           // dt and softening of the run
    int steps_per_frame = 1;
    std::string scene_name;      // for the UI; may be empty
    std::string scene_source;
    // Version 2 sections; empty ones are not written.
    std::optional<PreciseState> precise;                  // "F64S": the double state, if the backend has one
    std::map<std::string, std::string> metadata;          // "META"
    std::map<std::string, std::vector<double>> extra;     // "XARR", one per entry
    std::optional<RunEnergy> energy0;                     // "ENR0" (version 3)
};

// Whole or not at all: through a temporary file renamed into place. Throws std::invalid_argument
// for an invalid state and std::runtime_error when writing fails.
void write_snapshot(const std::string& path, const Snapshot& snapshot);
std::string encode_snapshot(const Snapshot& snapshot);

// Throws std::runtime_error naming the file and the problem: wrong magic (not a snapshot),
// unsupported version, truncation (with the byte offset), checksum mismatch (stored and computed
// values), an invalid body (unknown component, negative mass), a malformed section (tag and
// offset). Nothing is returned half-read. Unknown section tags are skipped.
Snapshot read_snapshot(const std::string& path);
// The "META" section alone (empty for version 1 or none), seeking past the bodies and the other
// sections: for a decision before the whole file is loaded (which integrator wrote it) at the cost
// of a few reads, not of the file. The checksum is not verified (read_snapshot does); throws
// std::runtime_error for a file that is not a readable snapshot.
std::map<std::string, std::string> read_snapshot_metadata(const std::string& path);
Snapshot decode_snapshot(std::string_view bytes, const std::string& source_name);

}  // namespace nbody::io
