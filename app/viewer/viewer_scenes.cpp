#include "viewer_scenes.hpp"

#include <algorithm>
#include <filesystem>
#include <stdexcept>

#include "nbody/sim/io/particle_files.hpp"
#include "nbody/sim/io/snapshot.hpp"

namespace fs = std::filesystem;

namespace nbody::app {

std::vector<SceneChoice> list_scene_choices() {
    std::error_code ec;
    const std::vector<std::string> dirs = scene_directories();

    std::vector<SceneChoice> choices{{"Default collision", "", "", ""}};
    std::vector<std::string> seen;
    for (const auto& dir : dirs) {
        if (!fs::is_directory(dir, ec)) continue;
        std::vector<SceneEntry> entries;
        try {
            entries = list_scenes(dir);
        } catch (const std::exception&) {
            continue;  // an unreadable folder hides its scenes; the built-in one remains
        }
        for (const auto& e : entries) {
            const std::string file = fs::path(e.path).filename().string();
            if (std::find(seen.begin(), seen.end(), file) != seen.end()) continue;
            seen.push_back(file);
            std::string label = e.name.empty() ? fs::path(e.path).stem().string() : e.name;
            if (e.bodies > 0) label += " (" + std::to_string(e.bodies) + ")";
            choices.push_back({label, e.path, e.description, e.error});
        }
    }
    return choices;
}

Scene make_scene(const std::string& path, std::optional<std::size_t> bodies) {
    if (path.empty()) return default_scene(bodies);
    if (fs::path(path).extension() != ".nbsnap") return load_scene(path, bodies);
    // A saved simulation: exactly as it was (scaling it would not be the same run).
    if (bodies) throw std::invalid_argument("--bodies cannot rescale a snapshot (" + path + ")");
    io::Snapshot snap = io::read_snapshot(path);
    Scene scene;
    scene.name = snap.scene_name.empty() ? fs::path(path).stem().string() : snap.scene_name;
    scene.description = "snapshot " + path;
    scene.source = path;
    scene.state = std::move(snap.state);
    scene.params = snap.params;
    scene.steps_per_frame = snap.steps_per_frame;
    return scene;
}

}  // namespace nbody::app
