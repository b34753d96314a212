#include "nbody/sim/scene.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>

#include "nbody/sim/ic/plummer.hpp"

namespace nbody {

Scene two_plummer_collision(std::size_t bodies, std::uint64_t seed) {
    // Two 1.2e11 Msun spheres (50 mass units each), scale radius 3 kpc, 40 kpc apart and falling
    // together on a parabolic orbit with a 6 kpc impact parameter: they merge in about 1 Gyr.
    const std::size_t n1 = bodies / 2, n2 = bodies - n1;
    const double m1 = 50.0 * double(n1) / double(bodies) * 2.0, m2 = 50.0 * double(n2) / double(bodies) * 2.0;
    Scene scene;
    scene.name = "Two Plummer spheres";
    scene.description = "Two equal Plummer spheres on a parabolic collision course (built in)";
    scene.source = "built-in";
    if (n1 > 0) {
        State a = ic::make_plummer({.bodies = n1, .total_mass = m1, .scale_radius = 3.0, .seed = seed});
        ic::append(scene.state, a, 0);
    }
    State b = ic::make_plummer({.bodies = n2, .total_mass = m2, .scale_radius = 3.0, .seed = seed + 1});
    ic::append(scene.state, b, n1 > 0 ? 1 : 0);
    const double separation = 40.0, impact = 6.0;
    const double v_rel = std::sqrt(2.0 * (m1 + m2) / std::hypot(separation, impact));
    // Place each sphere so that the centre of mass stays at rest at the origin.
    const double f1 = m2 / (m1 + m2), f2 = m1 / (m1 + m2);
    State& s = scene.state;
    for (std::size_t i = 0; i < s.size(); ++i) {
        const bool is_first = i < n1;
        const double f = is_first ? -f1 : f2;
        Vec4f& p = s.pos_mass[i];
        Vec4f& v = s.velocity[i];
        p.x = float(p.x + f * separation);
        p.y = float(p.y + f * impact);
        v.x = float(v.x - f * v_rel);
    }
    scene.params = {.dt = 0.01, .softening = 0.1};
    scene.steps_per_frame = 1;
    scene.camera = {.distance = 90.0, .azimuth_deg = 30.0, .elevation_deg = 35.0, .target = {}};
    return scene;
}

std::vector<std::string> scene_directories() {
    namespace fs = std::filesystem;
    std::vector<fs::path> candidates;
    if (const char* env = std::getenv("NBODY_SCENES_DIR"); env && *env) candidates.emplace_back(env);
    std::error_code ec;
    if (const fs::path exe = fs::read_symlink("/proc/self/exe", ec); !ec)
        candidates.push_back(exe.parent_path() / "scenes");
    candidates.push_back(fs::path(NBODY_SOURCE_DIR) / "scenes");
    std::vector<std::string> found;
    for (const fs::path& dir : candidates) {
        const std::string path = dir.lexically_normal().string();
        if (fs::is_directory(dir, ec) && std::find(found.begin(), found.end(), path) == found.end())
            found.push_back(path);
    }
    return found;
}

Scene default_scene(std::optional<std::size_t> bodies) {
    namespace fs = std::filesystem;
    for (const std::string& dir : scene_directories()) {
        const fs::path file = fs::path(dir) / kDefaultSceneFile;
        std::error_code ec;
        if (fs::is_regular_file(file, ec)) return load_scene(file.string(), bodies);
    }
    return two_plummer_collision(bodies.value_or(16384));
}

}  // namespace nbody
