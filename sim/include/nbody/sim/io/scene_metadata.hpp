#pragma once
// What a snapshot keeps of the scene it was run from, so that `nbody view run.nbsnap` looks like
// that scene even when the scene file is gone: its description, units, camera, the galaxies'
// names and the viewer's colouring. (The name and the source file are the snapshot header's own
// fields; the per-body galaxy and component tags are its arrays.)
//
// Stored as string pairs in the snapshot's "META" section (snapshot.hpp), all keys under
// "scene.", numbers written with 17 significant digits so that they read back exactly:
//   scene.description                      text
//   scene.units.length, .velocity, .mass, .time   unit names as the UI shows them ("kpc",
//                                          "100 km/s", "2.325e9 Msun", "9.78 Myr")
//   scene.units.time_unit_myr              the time unit in Myr; 0: N-body units (no physical scale)
//   scene.camera.distance, .azimuth_deg, .elevation_deg   the scene's home camera (z up)
//   scene.camera.target                    "x y z"
//   scene.galaxy.<k>.name                  the name of galaxy label k (0-based)
//   scene.colour_by                        galaxy | component | speed | plain (written by the viewer)
// A reader ignores scene.* keys it does not know (a later writer's), so adding keys needs no new
// snapshot version. Snapshots written before these keys existed have none: has_scene_metadata
// says so and the caller falls back (the viewer looks for the scene file, then frames the bodies).

#include <map>
#include <string>

#include "nbody/sim/scene.hpp"

namespace nbody::io {

// Writes `scene`'s description, units, camera, galaxy names and colouring into `metadata`
// (replacing earlier scene.* keys; other keys are kept).
void put_scene_metadata(const Scene& scene, std::map<std::string, std::string>& metadata);

// Copies the scene.* keys of `from` into `to` (a run continued from a snapshot passes them on).
void copy_scene_metadata(const std::map<std::string, std::string>& from, std::map<std::string, std::string>& to);

// True when `metadata` holds a scene's units and camera (the keys put_scene_metadata writes).
bool has_scene_metadata(const std::map<std::string, std::string>& metadata);

// Sets in `scene` what `metadata` holds (description, units, camera, galaxy names, colouring) and
// leaves the rest. Returns has_scene_metadata(metadata). Throws std::runtime_error naming
// `source` and the key when a value is malformed (a number that is not one, a camera that is not
// finite or a distance <= 0, a colouring not in the list).
bool apply_scene_metadata(const std::map<std::string, std::string>& metadata, Scene& scene,
                          const std::string& source);

}  // namespace nbody::io
