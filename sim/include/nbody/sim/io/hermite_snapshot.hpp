#pragma once
// A Hermite run in a snapshot (.nbsnap, io/snapshot.hpp): its parameters in META, and where every
// body is at one time, its block-step state (a, jerk, potential, level; for the 6th order also snap
// and crackle) as extra arrays beside the double state F64S, so that the run resumes exactly.
// `nbody run` and the viewer write and read it through these functions, in the same words.

#include <map>
#include <optional>
#include <string>

#include "nbody/sim/hermite/integrator.hpp"
#include "nbody/sim/io/snapshot.hpp"

namespace nbody::io {

// The integrator that wrote a resumable block-step state ("hermite4" | "hermite6"; absent: none).
inline constexpr const char* kHermiteIntegratorKey = "nbody.integrator";

struct SavedHermiteParams {
    std::optional<double> eta, dt_max;
    std::string eta_of = "hermite4";  // the integrator `eta` was chosen for (another order's is not used)
    bool from_hermite_run = false;    // written by a Hermite run (put_hermite_run), not by leapfrog's
};

// h's eta and dt_max into `snap`.
void put_hermite_params(const hermite::HermiteIntegrator& h, Snapshot& snap);
// h's block-step state into `snap`, whose precise state (snap.precise) the caller sets to h's bodies
// at h.time(). Throws std::logic_error unless h is synchronised (only then does a state resume).
void put_hermite_state(const hermite::HermiteIntegrator& h, Snapshot& snap);

// From a snapshot's metadata (Snapshot::metadata, or read_snapshot_metadata without the bodies).
// Throws std::runtime_error naming `source`, the key and the value for an eta or dt_max that is
// not a number > 0 or an unknown integrator (the snapshot readers already call it, so a metadata
// map they returned never throws here).
SavedHermiteParams saved_hermite_params(const std::map<std::string, std::string>& metadata,
                                        const std::string& source = "the snapshot");

// The reader's check of a Hermite run in `snap` (called by decode_snapshot): its parameters as
// above, and for a resumable state every array present with N finite values and every block
// level a whole number from 0 to HermiteParams::max_level. Throws std::runtime_error naming
// `source`, the array, the body and the value.
void check_hermite_sections(const Snapshot& snap, const std::string& source);

// The block-step state that resumes a run of `order` from `snap`: none where the snapshot holds no
// such state or one of the other order (`note`, if given, then says what happens instead). Throws
// std::runtime_error naming `path` and the array for a state with an array missing or short.
std::optional<hermite::Bodies> saved_hermite_state(const Snapshot& snap, const std::string& path, int order,
                                                   std::string* note = nullptr);

}  // namespace nbody::io
