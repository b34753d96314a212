#pragma once
// A scene description: what a scene file says, checked, before any particle exists. Scene files
// are parsed into one (sim/src/ic/scene_file.cpp), the viewer's encounter editor edits one, and
// both are built into particles by build_scene() and written back by scene_spec_to_toml()
// (sim/src/ic/scene_writer.cpp). The format is in docs/SCENES.md.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "nbody/sim/ic/orbit.hpp"
#include "nbody/sim/ic/star_cluster.hpp"
#include "nbody/sim/scene.hpp"

namespace nbody {

enum class ComponentKind { Disk, Bulge, Halo, Plummer, Cube, Point };

struct ComponentSpec {
    ComponentKind kind = ComponentKind::Disk;
    std::string key;              // "galaxy[1].disk", for messages
    double mass = 0;
    std::size_t bodies = 0;
    double scale = 1;             // disk scale_length, sphere scale_radius, cube side
    double height = 0.1;          // disk scale_height
    double max_radius = 0;        // 0: the model's default
    double toomre_q = 1.5;
    double virial_ratio = 0;      // cube
    ic::StarClusterParams cluster;  // plummer: mass spectrum and binaries (ic/star_cluster.hpp)
};

struct GalaxySpec {
    std::string name;
    std::string key;              // "galaxy[1]"
    std::vector<ComponentSpec> components;
    ic::DiskOrientation orientation;
    std::optional<ic::KeplerOrbit> orbit;
    ic::OrbitPlane plane;
    Vec3d position, velocity;
    std::optional<std::uint64_t> seed;
};

struct SceneSpec {
    std::string source;
    std::string name, description;
    std::size_t bodies = 0;
    UnitSystem units;
    StepParams params;
    int steps_per_frame = 1;
    SceneIntegrator integrator;
    std::uint64_t seed = 1;
    // Scaled below its N, a halo's share of the bodies is multiplied by this (then renormalised):
    // fewer, heavier dark-matter particles leave more bodies to the disks, whose tails are what
    // one looks at. 1: every component keeps its share.
    double reduced_halo_share = 1.0;
    int trails = 0;  // trail points per body the viewer starts with (0: none)
    CameraSpec camera;
    std::vector<GalaxySpec> galaxies;
};

// The total mass of a galaxy's components.
double galaxy_mass(const GalaxySpec& galaxy);
// A galaxy with a disk: what the viewer fits to the machine (app/viewer/simulation/machine_defaults.hpp).
bool has_disk(const SceneSpec& spec);

// Parses and checks scene-file text (nothing is generated); `source_name` stands for the file
// in messages. Throws std::runtime_error naming the file, line and key.
SceneSpec parse_scene_spec(std::string_view toml_text, const std::string& source_name);
// The same from a file.
SceneSpec read_scene_spec(const std::string& path);
// Scales to `bodies` (docs/SCENES.md, "--bodies N"); throws when N is below one per component.
void scale_scene_spec(SceneSpec& spec, std::size_t bodies);
// Generates the particles. Throws std::runtime_error naming the source and the galaxy.
Scene build_scene(const SceneSpec& spec);

// The scene file that parses back to `spec` field for field (so build_scene gives the same
// bodies, bit for bit). Numbers are written in their shortest exact form.
std::string scene_spec_to_toml(const SceneSpec& spec);

// Thrown by save_scene_spec when the file exists and overwriting was not asked for.
struct FileExistsError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// Writes scene_spec_to_toml(spec) to `path` whole (write_file_atomically). Refuses an existing
// file (FileExistsError) unless `overwrite`.
void save_scene_spec(const SceneSpec& spec, const std::string& path, bool overwrite);

}  // namespace nbody
