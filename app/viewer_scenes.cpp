#include "viewer_scenes.hpp"

#include <algorithm>
#include <filesystem>

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
    return path.empty() ? default_scene(bodies) : load_scene(path, bodies);
}

}  // namespace nbody::app
