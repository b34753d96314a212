#pragma once
// Where the viewer's scenes come from: the built-in collision and the TOML files in scenes/.

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "nbody/sim/io/snapshot.hpp"
#include "nbody/sim/scene.hpp"

namespace nbody::app {

struct SceneChoice {
    std::string label;  // shown in the picker
    std::string path;   // empty: the built-in collision
    std::string description;
    std::string error;  // why the file cannot be used (the picker shows it, disabled)
    std::size_t bodies = 0;  // N the file states (0: not known)
    bool galaxy = false;     // a galaxy with a disk (SceneEntry::galaxy)
};

// The built-in scene first, then scenes/*.toml and one folder down (scenes/few-body/*.toml) next to
// the executable and in the source tree (a file found in both is listed once, the executable's
// copy winning). A folder that cannot be read is skipped.
std::vector<SceneChoice> list_scene_choices();

// Builds the scene at `path` (empty: built-in; .toml: a scene file; .csv, .tipsy/.std/.bin,
// .nbsnap: particles, framed by render::frame_camera, in N-body units) with `bodies` particles when given. Throws
// std::runtime_error naming the file and the problem; a path that is not a regular file is refused
// before it is opened (not_a_readable_file).
Scene make_scene(const std::string& path, std::optional<std::size_t> bodies);

// The built-in scene or a scene file (.toml), which make_scene builds at any N; a particle file or
// a snapshot holds the bodies it holds.
bool scales_to_any_n(const std::string& path);

// Why the viewer will not read `path`, from std::filesystem::status alone: it does not exist, or it
// is not a regular file. Opening a FIFO blocks until something writes into it (the frame loop would
// freeze), and a device or socket can stream without end. Empty when the file can be read.
std::string not_a_readable_file(const std::string& path);

// What the viewer checks of a scene read from `path` before it replaces the running one, beyond
// what the readers check: every body finite with a mass >= 0, the double state and a saved Hermite
// run's block-step state of N bodies, that state synchronised and on levels 0..max_level of the
// viewer's Hermite run, dt > 0 and softening >= 0. Throws std::invalid_argument naming `path`.
void validate_scene(const Scene& scene, const std::string& path);

// From a snapshot into `scene`: its double state and, where a Hermite run wrote it, that integrator
// with its eta and dt_max and (when it was synchronised) its block-step state, so that the viewer
// continues the run exactly. Throws std::runtime_error naming `path` for a Hermite state with an
// array missing.
void take_snapshot_run(const io::Snapshot& snap, const std::string& path, Scene& scene);

}  // namespace nbody::app
