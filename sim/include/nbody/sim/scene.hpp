#pragma once
// A scene: initial conditions plus the settings a run of them needs. Built-in scenes and the
// TOML files in scenes/ both produce one.

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "nbody/sim/backend.hpp"
#include "nbody/sim/hermite/integrator.hpp"
#include "nbody/sim/io/snapshot.hpp"
#include "nbody/sim/state.hpp"

namespace nbody {

struct CameraSpec {
    double distance = 60.0;      // from the target, in length units
    double azimuth_deg = 30.0;   // around the z axis
    double elevation_deg = 25.0; // above the x-y plane
    Vec3d target;                // what the camera looks at
};

struct UnitSystem {
    // G = 1 internally. The defaults are the galactic system: 1 kpc, 100 km/s, so the mass unit is
    // 2.325e9 solar masses and the time unit 9.78 Myr.
    std::string length = "kpc";
    std::string velocity = "100 km/s";
    std::string mass = "2.325e9 Msun";
    std::string time = "9.78 Myr";
    double time_unit_myr = 9.778;
    // Solar masses per mass unit: 0 where unknown (N-body units; a Kroupa cluster's scene sets it,
    // ic/stellar.hpp).
    double mass_unit_msun = 2.325e9;
};

// The integrator a scene is meant for ([scene] integrator, eta, dt_max; docs/SCENES.md): what
// `view`, `record` and `run` use when --integrator is not given.
struct SceneIntegrator {
    std::string name = "leapfrog";  // "leapfrog" (shared step dt), "hermite4" or "hermite6" (block steps)
    std::optional<double> eta, dt_max;  // Hermite only; none: the command's defaults
    // Hermite only: model time each viewer frame advances (none: steps_per_frame x dt).
    std::optional<double> time_per_frame;
};

struct Scene {
    std::string name;
    std::string description;
    std::string source;  // file it came from, or "built-in"
    State state;
    StepParams params;
    int steps_per_frame = 1;
    CameraSpec camera;
    UnitSystem units;
    int trails = 0;  // trail points the viewer draws per body at start ([scene] trails); 0: none
    // Presentation a snapshot carries for the viewer (io/scene_metadata.hpp): the name of galaxy
    // label k (from [[galaxy]] name; the colour legend shows it), and the colouring the viewer
    // had when it saved ("galaxy", "component", "speed", "plain"; empty: the viewer's own choice).
    std::vector<std::string> galaxy_names;
    std::string colour_by;
    SceneIntegrator integrator;
    // A particle file's or snapshot's state in double (a CSV's values, a snapshot's F64S; `state`
    // holds them rounded), and a snapshot's block-step state of a synchronised Hermite run of order
    // `hermite_state_order` (io/hermite_snapshot.hpp): a Hermite run in the viewer starts from
    // these, so that it continues the saved run exactly.
    std::optional<PreciseState> precise;
    std::optional<hermite::Bodies> hermite_state;
    int hermite_state_order = 0;
    // A snapshot's energy of the first state of the run it continues (io/snapshot.hpp, "ENR0").
    std::optional<io::RunEnergy> energy0;
};

// The default galaxy collision shown when the viewer starts with no scene: the Milky Way -
// Andromeda scene file from the first scene directory that has it, else the built-in two Plummer
// spheres. `bodies` scales it.
Scene default_scene(std::optional<std::size_t> bodies = std::nullopt);
inline constexpr const char* kDefaultSceneFile = "milky-way-andromeda.toml";

// Where scene files are looked for, in order: $NBODY_SCENES_DIR, scenes/ next to the executable,
// scenes/ in the source tree. Only folders that exist are returned.
std::vector<std::string> scene_directories();

// Two Plummer spheres on a collision course: the simplest collision, always available.
Scene two_plummer_collision(std::size_t bodies, std::uint64_t seed = 42);

// Scene files (scenes/*.toml; the format is in docs/SCENES.md; implemented in
// sim/src/ic/scene_file.cpp).
//
// Loads a scene file. `bodies` scales the scene to that many bodies, every component keeping its
// share and its mass (so particle masses change, the physics does not). Strict: an unknown key, a
// wrong type, a missing field, a negative mass, N = 0, an impossible orbit each throw
// std::runtime_error naming the file, the key and (where it has one) the line; nothing is
// returned half-built.
Scene load_scene(const std::string& path, std::optional<std::size_t> bodies = std::nullopt);

// The same from text in memory; `source_name` stands for the file in messages and Scene::source.
Scene load_scene_from_string(std::string_view toml_text, const std::string& source_name,
                             std::optional<std::size_t> bodies = std::nullopt);

// The integrator a scene file asks for, read without generating its bodies (cheap); throws as
// load_scene does for a bad file.
SceneIntegrator read_scene_integrator(const std::string& path);

// One entry of the viewer's scene picker. Files that fail to parse are listed with `error` set
// (and the rest empty), so the picker can show why a scene is unavailable.
struct SceneEntry {
    std::string path;
    std::string name;
    std::string description;
    std::size_t bodies = 0;
    std::string integrator;  // [scene] integrator: "leapfrog", "hermite4" or "hermite6"
    bool galaxy = false;     // a galaxy with a disk: the viewer fits its N to the machine
    std::string error;
};

// The *.toml files directly in `directory`, sorted by file name, each parsed and checked but not
// generated (cheap). Throws std::runtime_error when the folder cannot be read.
std::vector<SceneEntry> list_scenes(const std::string& directory);

}  // namespace nbody
