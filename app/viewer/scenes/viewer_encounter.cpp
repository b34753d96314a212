// The viewer's side of the Encounter panel: the presets, Launch (build the edited encounter and
// run it, or keep the running system and say why not), Save (a scene file, never over an
// existing one unless confirmed).

#include "viewer_encounter.hpp"

#include <filesystem>
#include <utility>

#include "viewer.hpp"

namespace nbody::app {

std::vector<EncounterPresetChoice> list_encounter_presets(const std::vector<SceneChoice>& scenes) {
    std::vector<EncounterPresetChoice> presets;
    for (const SceneChoice& c : scenes) {
        if (c.path.empty() || !c.error.empty() || std::filesystem::path(c.path).extension() != ".toml") continue;
        try {
            const EncounterPreset p = encounter_preset(read_scene_spec(c.path));
            presets.push_back({p.spec.name, c.path});
        } catch (const std::exception&) {
            // Not an encounter of two galaxies (a cluster, a cube, a single disk): no preset.
        }
    }
    return presets;
}

void Viewer::init_encounter_editor(bool open) {
    EncounterParams& e = params_.encounter;
    e.presets = list_encounter_presets(scenes_);
    if (sim_.backend().name() != "cuda") {
        e.max_bodies = kHostViewerBodies;
        e.backend = sim_.backend().name();
    }
    // Start from the scene on screen when it is one of the presets, else from the default scene.
    const std::string shown = scene_path_.empty() ? kDefaultSceneFile : std::filesystem::path(scene_path_).filename().string();
    for (int i = 0; i < int(e.presets.size()); ++i)
        if (std::filesystem::path(e.presets[std::size_t(i)].path).filename() == shown) e.load_preset = i;
    if (!e.load_preset && !e.presets.empty()) e.load_preset = 0;
    visible_.encounter = open;
}

void Viewer::act_on_encounter() {
    EncounterParams& e = params_.encounter;
    if (const std::optional<int> k = std::exchange(e.load_preset, std::nullopt)) {
        const std::string& path = e.presets.at(std::size_t(*k)).path;
        try {
            EncounterPreset p = encounter_preset(read_scene_spec(path));
            e.settings = p.settings;
            if (e.max_bodies > 0 && e.settings.bodies > e.max_bodies) e.settings.bodies = e.max_bodies;
            e.loaded = std::move(p);
            e.preset = *k;
            e.status.clear();
        } catch (const std::exception& error) {
            e.status = std::string("preset not loaded: ") + error.what();
            e.status_is_error = true;
        }
    }
    if (std::exchange(e.launch, false) && e.loaded) {
        try {
            SceneSpec spec = make_encounter(*e.loaded, e.settings);
            Scene scene = build_scene(spec);
            install_system(std::move(scene), kEncounterScenePath, true, false);
            launched_encounter_ = std::move(spec);
            e.status = "launched: " + std::to_string(sim_.size()) + " bodies";
            e.status_is_error = false;
            say("encounter launched (" + std::to_string(sim_.size()) + " bodies)", false);
        } catch (const std::exception& error) {
            e.status = std::string("not launched (the simulation goes on): ") + error.what();
            e.status_is_error = true;
            say(e.status, true);
        }
    }
    if (std::exchange(e.save, false) && e.loaded) {
        const bool overwrite = std::exchange(e.overwrite, false);
        try {
            save_scene_spec(make_encounter(*e.loaded, e.settings), e.save_path, overwrite);
            e.confirm_overwrite = false;
            e.status = "saved " + e.save_path + " (open it with nbody view --scene " + e.save_path + ")";
            e.status_is_error = false;
            say("encounter saved to " + e.save_path, false);
        } catch (const FileExistsError& error) {
            e.confirm_overwrite = true;
            e.status = error.what();
            e.status_is_error = true;
        } catch (const std::exception& error) {
            e.confirm_overwrite = false;
            e.status = std::string("not saved: ") + error.what();
            e.status_is_error = true;
        }
    }
}

Scene scene_at(const std::string& path, std::optional<std::size_t> bodies, const std::optional<SceneSpec>& launched) {
    if (path != kEncounterScenePath || !launched) return make_scene(path, bodies);
    SceneSpec spec = *launched;
    if (bodies) scale_scene_spec(spec, *bodies);
    return build_scene(spec);
}

}  // namespace nbody::app
