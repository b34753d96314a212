#include "viewer_scenes.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <iostream>
#include <optional>
#include <stdexcept>

#include "nbody/render/camera.hpp"
#include "nbody/sim/io/hermite_snapshot.hpp"
#include "nbody/sim/io/particle_files.hpp"
#include "nbody/sim/io/scene_metadata.hpp"
#include "nbody/sim/io/snapshot.hpp"
#include "integrator_options.hpp"

namespace fs = std::filesystem;

namespace nbody::app {

std::vector<SceneChoice> list_scene_choices() {
    std::error_code ec;
    const std::vector<std::string> dirs = scene_directories();

    std::vector<SceneChoice> choices{{"Default scene", "", "", ""}};
    std::vector<std::string> seen;
    for (const auto& top : dirs) {
        if (!fs::is_directory(top, ec)) continue;
        // The folder and its subfolders one level down (scenes/few-body/), files named relative to it.
        std::vector<fs::path> folders{top};
        std::vector<fs::path> sub;
        for (fs::directory_iterator it(top, ec), end; !ec && it != end; it.increment(ec))
            if (it->is_directory(ec)) sub.push_back(it->path());
        std::sort(sub.begin(), sub.end());
        folders.insert(folders.end(), sub.begin(), sub.end());
        for (const fs::path& dir : folders) {
            std::vector<SceneEntry> entries;
            try {
                entries = list_scenes(dir.string());
            } catch (const std::exception&) {
                continue;  // an unreadable folder hides its scenes; the built-in one remains
            }
            for (const auto& e : entries) {
                const std::string file = fs::path(e.path).lexically_relative(top).string();
                if (std::find(seen.begin(), seen.end(), file) != seen.end()) continue;
                seen.push_back(file);
                std::string label = e.name.empty() ? fs::path(e.path).stem().string() : e.name;
                if (e.bodies > 0)
                    label += " (" + std::to_string(e.bodies) + (e.integrator.rfind("hermite", 0) == 0 ? ", " + e.integrator : std::string()) + ")";
                choices.push_back({label, e.path, e.description, e.error, e.bodies, e.galaxy});
            }
        }
    }
    // "Default scene" is the first kDefaultSceneFile listed (default_scene() reads the same one):
    // its N and kind, so that the picker fits it to the machine as it fits that file.
    const auto file = std::find_if(choices.begin() + 1, choices.end(), [](const SceneChoice& c) {
        return fs::path(c.path).filename() == kDefaultSceneFile;
    });
    if (file != choices.end()) choices.front().bodies = file->bodies, choices.front().galaxy = file->galaxy;
    return choices;
}

namespace {

// A particle file has no units, time step or camera: N-body units, a camera that frames it, and
// dt and softening from its size (1/200 of a crossing time at the half-mass radius; a softening
// of a fiftieth of that radius over N^(1/3), about the mean spacing's scale).
Scene particles_scene(const std::string& path, State state) {
    Scene scene;
    scene.name = fs::path(path).filename().string();
    scene.description = "particles from " + path;
    scene.source = path;
    scene.camera = render::frame_camera(state);
    scene.units = UnitSystem{"N-body length", "N-body velocity", "N-body mass", "N-body time", 0.0, 0.0};
    double m = 0;
    for (const auto& p : state.pos_mass) m += p.w;
    const double r = std::max(scene.camera.distance / 2.8 * 0.6, 1e-6);  // about the half-mass radius
    const double n = double(std::max<std::size_t>(state.size(), 1));
    scene.params.softening = 0.5 * r / std::cbrt(n);
    scene.params.dt = m > 0 ? 0.005 * std::sqrt(r * r * r / m) : 1e-3;
    scene.steps_per_frame = 1;
    scene.state = std::move(state);
    return scene;
}

// The scene file a snapshot was run from (its recorded source), for the camera and units that
// only the scene knows: as recorded, next to the snapshot, or in the scene folders. Built at a
// small N: only its header is wanted. Nothing when the source is not a scene file or is gone.
std::optional<Scene> source_scene(const std::string& snapshot_path, const std::string& source) {
    const fs::path recorded(source);
    if (recorded.extension() != ".toml") return std::nullopt;
    std::vector<fs::path> candidates{recorded, fs::path(snapshot_path).parent_path() / recorded.filename()};
    for (const std::string& dir : scene_directories()) candidates.push_back(fs::path(dir) / recorded.filename());
    for (const fs::path& c : candidates) {
        std::error_code ec;
        if (!fs::is_regular_file(c, ec)) continue;
        try {
            Scene scene = load_scene(c.string(), 4096);
            scene.source = c.string();
            return scene;
        } catch (const std::exception&) {
            // A file of that name that is not this scene any more: try the next place.
        }
    }
    return std::nullopt;
}

}  // namespace

void take_snapshot_run(const io::Snapshot& snap, const std::string& path, Scene& scene) {
    scene.precise = snap.precise;
    scene.energy0 = snap.energy0;
    scene.hermite_state.reset();
    scene.hermite_state_order = 0;
    const io::SavedHermiteParams saved = io::saved_hermite_params(snap.metadata);
    if (!saved.from_hermite_run) return;
    scene.integrator = {};
    scene.integrator.name = saved.eta_of;
    scene.integrator.eta = saved.eta;
    scene.integrator.dt_max = saved.dt_max;
    const int order = hermite_order(parse_integrator(saved.eta_of));
    scene.hermite_state = io::saved_hermite_state(snap, path, order);
    if (scene.hermite_state) scene.hermite_state_order = order;
}

std::string not_a_readable_file(const std::string& path) {
    std::error_code ec;
    const fs::file_status st = fs::status(path, ec);
    if (ec && ec != std::errc::no_such_file_or_directory) return "cannot be examined: " + ec.message();
    switch (st.type()) {
        case fs::file_type::regular: return {};
        case fs::file_type::not_found: return "does not exist";
        case fs::file_type::directory: return "is a folder, not a file";
        case fs::file_type::fifo: return "is a FIFO (named pipe), not a file: reading it would wait for a writer";
        case fs::file_type::character:
        case fs::file_type::block: return "is a device, not a file";
        case fs::file_type::socket: return "is a socket, not a file";
        default: return "is not a regular file";
    }
}

void validate_scene(const Scene& scene, const std::string& path) {
    const std::string where = path.empty() ? std::string("the default scene") : path;
    const auto refuse = [&](const std::string& why) { throw std::invalid_argument(where + ": " + why); };
    const std::size_t n = scene.state.size();
    try {
        scene.state.validate();
        if (scene.precise) scene.precise->validate(n);
    } catch (const std::invalid_argument& e) {
        refuse(e.what());
    }
    if (!(scene.params.dt > 0) || !std::isfinite(scene.params.dt))
        refuse("dt = " + std::to_string(scene.params.dt) + " (the time step must be finite and > 0)");
    if (!(scene.params.softening >= 0) || !std::isfinite(scene.params.softening))
        refuse("softening = " + std::to_string(scene.params.softening) + " (must be finite and >= 0)");
    if (!scene.hermite_state) return;
    const hermite::Bodies& h = *scene.hermite_state;
    if (h.size() != n || h.x.size() != n || h.v.size() != n || h.a.size() != n || h.jerk.size() != n ||
        h.pot.size() != n || h.t.size() != n || h.level.size() != n)
        refuse("the saved Hermite state does not hold " + std::to_string(n) + " bodies");
    const int max_level = hermite::HermiteParams{}.max_level;
    for (std::size_t i = 0; i < n; ++i) {
        if (h.level[i] < 0 || h.level[i] > max_level)
            refuse("body " + std::to_string(i) + " has Hermite block level " + std::to_string(h.level[i]) +
                   ", outside the levels 0.." + std::to_string(max_level) + " a Hermite run uses");
        if (h.t[i] != h.t[0])
            refuse("the saved Hermite state is not synchronised (body " + std::to_string(i) + " is at another time)");
        for (const Vec3d& d : {h.a[i], h.jerk[i]})
            if (!std::isfinite(d.x) || !std::isfinite(d.y) || !std::isfinite(d.z))
                refuse("body " + std::to_string(i) + " has a non-finite acceleration or jerk in the saved Hermite state");
    }
}

namespace {

std::string lower_extension(const std::string& path) {
    std::string ext = fs::path(path).extension().string();
    for (char& c : ext) c = char(std::tolower(static_cast<unsigned char>(c)));
    return ext;
}

}  // namespace

bool scales_to_any_n(const std::string& path) { return path.empty() || lower_extension(path) == ".toml"; }

Scene make_scene(const std::string& path, std::optional<std::size_t> bodies) {
    if (path.empty()) return default_scene(bodies);
    if (const std::string why = not_a_readable_file(path); !why.empty()) throw std::runtime_error(path + ": " + why);
    const std::string ext = lower_extension(path);
    if (scales_to_any_n(path)) return load_scene(path, bodies);
    // A particle file or a saved simulation: exactly as it was (scaling it would not be the same run).
    io::ParticleFormat format;
    try {
        format = io::particle_format_for(path);
    } catch (const std::exception&) {
        throw std::runtime_error(path + ": unknown file type '" + ext +
                                 "' (a scene is a .toml scene file, or particles: .csv, .tipsy/.std/.bin, .nbsnap)");
    }
    if (bodies) throw std::invalid_argument("--bodies cannot rescale a particle file or snapshot (" + path + ")");
    if (format != io::ParticleFormat::Snapshot) {
        std::optional<PreciseState> precise;
        Scene scene = particles_scene(path, io::read_particles(path, &precise));
        scene.precise = std::move(precise);
        return scene;
    }
    io::Snapshot snap = io::read_snapshot(path);
    Scene scene = particles_scene(path, snap.state);
    take_snapshot_run(snap, path, scene);
    if (!snap.scene_name.empty()) scene.name = snap.scene_name;
    if (!snap.scene_source.empty()) scene.source = snap.scene_source;  // a snapshot of it names the scene again
    scene.params = snap.params;
    scene.steps_per_frame = snap.steps_per_frame;
    // The snapshot's own record of its scene first; a snapshot written before it kept one (or by a
    // run from a particle file) has only the scene file's name to go on.
    const bool recorded = io::apply_scene_metadata(snap.metadata, scene, path);
    scene.description = "snapshot " + path;
    if (recorded) {
        if (const auto d = snap.metadata.find("scene.description"); d != snap.metadata.end() && !d->second.empty())
            scene.description += ": " + d->second;
        const bool physical = scene.units.time_unit_myr > 0;
        std::cerr << "nbody: " << path << ": camera and units of the scene it was run from, " << scene.name << " ("
                  << (snap.scene_source.empty() ? "no file" : snap.scene_source) << "), as stored in the snapshot: "
                  << (physical ? scene.units.length + ", " + scene.units.time : std::string("N-body units")) << "\n";
    } else if (const std::optional<Scene> from = source_scene(path, snap.scene_source)) {
        scene.camera = from->camera;
        scene.units = from->units;
        scene.galaxy_names = from->galaxy_names;
        scene.description = "snapshot " + path + " of " + from->name;
        std::cerr << "nbody: " << path << ": camera and units of the scene it was run from, " << from->source << "\n";
    }
    return scene;
}

}  // namespace nbody::app
