#pragma once
// The encounter editor's model (as in Galaxy Crash): the few numbers a person sets for a
// collision of two galaxies - mass ratio, pericentre, eccentricity, when the passage comes, each
// disk's orientation, N - applied to a scene description (scene_spec.hpp) whose galaxy models
// come from a preset, a shipped collision scene. The result is built by build_scene() and saved
// by save_scene_spec(), like any scene file: there is no second model builder.

#include <cstddef>
#include <string>

#include "nbody/sim/ic/orbit.hpp"
#include "nbody/sim/scene_spec.hpp"

namespace nbody {

struct EncounterSettings {
    double mass_ratio = 1.0;          // M2 / M1: the second galaxy's total mass over the first's
    double pericentre = 10.0;         // length units (kpc), of the point-mass orbit
    double eccentricity = 1.0;        // 1 parabolic, < 1 bound, > 1 hyperbolic
    bool start_by_time = false;       // true: the separation follows from time_to_pericentre
    double separation = 100.0;        // length units, at the start
    double time_to_pericentre = 30.0; // internal time units (9.78 Myr in galactic units)
    ic::DiskOrientation disk[2];      // each galaxy's TT72 inclination and argument (orbit.hpp)
    std::size_t bodies = 0;           // N of the whole scene
};

// A preset: a two-galaxy scene description in the form the editor edits (the second galaxy on
// an [orbit] about the first) and the settings that reproduce it.
struct EncounterPreset {
    SceneSpec spec;
    EncounterSettings settings;
};

// Reads a scene description of two galaxies. A second galaxy placed by position and velocity
// (the Cartwheel's intruder) is put on the equivalent Kepler orbit: the same relative position
// and velocity, the disks the same way round relative to it, and the camera turned with the
// scene, so the preset builds the same encounter seen the same way. Throws std::invalid_argument
// when the scene is not an encounter of two galaxies.
EncounterPreset encounter_preset(SceneSpec spec);

// The preset's description with `settings` applied: the second galaxy's masses scaled to the
// mass ratio (its lengths by the cube root of that factor, which keeps its mean density and
// internal times), the orbit, the disk orientations, N (scale_scene_spec). Bad values throw
// std::invalid_argument naming the field: "mass ratio must be > 0 (got -1)".
SceneSpec make_encounter(const EncounterPreset& preset, const EncounterSettings& settings);

// The starting separation whose point-mass orbit reaches pericentre after `time` (bisection on
// ic::kepler_initial_conditions). Throws std::invalid_argument when no separation does (time
// <= 0, or more than half the period of a bound orbit).
double separation_for_time(double total_mass, double pericentre, double eccentricity, double time);

// The same disk plane spinning the other way (TT72: inclination 180 - i, argument + 180).
ic::DiskOrientation reversed_spin(const ic::DiskOrientation& disk);
// Inclination above 90 degrees: the disk turns against the orbit.
inline bool is_retrograde(const ic::DiskOrientation& disk) { return disk.inclination_deg > 90.0; }

}  // namespace nbody
