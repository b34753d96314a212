#pragma once
// A scene: initial conditions plus the settings a run of them needs. Built-in scenes and the
// TOML files in scenes/ both produce one.

#include <cstddef>
#include <optional>
#include <string>

#include "nbody/sim/backend.hpp"
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
};

// The default galaxy collision shown when the viewer starts with no scene. `bodies` scales it.
Scene default_scene(std::optional<std::size_t> bodies = std::nullopt);

// Two Plummer spheres on a collision course: the simplest collision, always available.
Scene two_plummer_collision(std::size_t bodies, std::uint64_t seed = 42);

}  // namespace nbody
