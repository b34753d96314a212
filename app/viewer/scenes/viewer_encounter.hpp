#pragma once
// The Encounter panel (as in Galaxy Crash): set up a collision of two galaxies - mass ratio,
// pericentre, eccentricity, when the passage comes, each disk's inclination, argument and spin,
// N - starting from a shipped collision scene; Launch builds it in the viewer, Save writes it as a
// scene file. The panel edits EncounterParams (plain data); the Viewer acts on its one-shot
// requests (viewer_encounter.cpp). The model behind it is sim's (nbody/sim/encounter_spec.hpp):
// settings applied to a scene description, built by the code that builds scene files.

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "nbody/sim/encounter_spec.hpp"
#include "viewer_scenes.hpp"

namespace nbody::app {

// A shipped scene the editor can start from (one of two galaxies).
struct EncounterPresetChoice {
    std::string label;  // the scene's name
    std::string path;
};

// The scenes among `scenes` that are encounters of two galaxies (parsed, not built: cheap).
std::vector<EncounterPresetChoice> list_encounter_presets(const std::vector<SceneChoice>& scenes);

// The Scene path the viewer shows for a launched encounter (no file behind it).
inline constexpr const char* kEncounterScenePath = "(encounter editor)";

struct EncounterParams {
    std::vector<EncounterPresetChoice> presets;
    int preset = -1;                       // the preset loaded (index into presets); -1: none yet
    std::optional<EncounterPreset> loaded; // its galaxy models and the settings it came with
    EncounterSettings settings;            // what the panel shows and edits
    std::size_t max_bodies = 0;            // the CPU viewer's cap on N; 0: none (CUDA)
    std::string backend;                   // its name, for the note about the cap
    std::string save_path = "my-encounter.toml";
    bool confirm_overwrite = false;        // Save found the file there: ask before replacing it
    std::string status;                    // the last Launch/Save/preset outcome
    bool status_is_error = false;

    // One-shot requests, acted on by the Viewer at the start of the next frame.
    std::optional<int> load_preset;
    bool launch = false;
    bool save = false;
    bool overwrite = false;  // with save: replacing the existing file was confirmed
};

void draw_encounter_panel(EncounterParams& encounter, bool* open);

// The scene at `path` (make_scene), or `launched` (the Encounter editor's) at kEncounterScenePath.
// Reads nothing else, so that it may run on another thread while the viewer draws.
Scene scene_at(const std::string& path, std::optional<std::size_t> bodies, const std::optional<SceneSpec>& launched);

}  // namespace nbody::app
