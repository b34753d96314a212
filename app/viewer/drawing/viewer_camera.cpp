// Camera presets (orbit plane, edge-on, a disk face-on or edge-on) and following a galaxy.

#include "viewer_camera.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>

#include "viewer.hpp"

namespace nbody::app {

GalaxyFrame galaxy_frame(const State& s, int k) {
    GalaxyFrame f;
    double m = 0;
    Vec3d x, v;
    auto in_galaxy = [&](std::size_t i) { return (i < s.galaxy.size() ? int(s.galaxy[i]) : 0) == k; };
    for (std::size_t i = 0; i < s.size(); ++i) {
        if (!in_galaxy(i)) continue;
        const double w = s.pos_mass[i].w;
        m += w;
        x += xyz(s.pos_mass[i]) * w;
        v += xyz(s.velocity[i]) * w;
    }
    if (!(m > 0)) return f;
    f.found = true;
    f.centre = x / m;
    f.velocity = v / m;
    bool has_disk = false;
    for (std::size_t i = 0; i < s.size() && !has_disk; ++i)
        has_disk = in_galaxy(i) && i < s.component.size() && s.component[i] == Component::Disk;
    for (std::size_t i = 0; i < s.size(); ++i) {
        if (!in_galaxy(i) || (has_disk && s.component[i] != Component::Disk)) continue;
        f.spin += cross(xyz(s.pos_mass[i]) - f.centre, xyz(s.velocity[i]) - f.velocity) * double(s.pos_mass[i].w);
    }
    return f;
}

int count_galaxies(const State& s) {
    int n = 1;
    for (const auto g : s.galaxy) n = std::max(n, int(g) + 1);
    return n;
}

unsigned component_bits(const State& s) {
    unsigned bits = 0;
    for (const Component c : s.component) bits |= 1u << unsigned(c);
    return bits;
}

namespace {
glm::vec3 to_glm(const Vec3d& v) { return {float(v.x), float(v.y), float(v.z)}; }
}  // namespace

void Viewer::apply_camera_preset(CameraPreset preset) {
    const float az = glm::radians(camera_.azimuth_deg());
    switch (preset) {
        case CameraPreset::OrbitalPlane:
            camera_.look_from({0.0f, 0.0f, 1.0f});
            return;
        case CameraPreset::EdgeOn:
            camera_.look_from({std::cos(az), std::sin(az), 0.0f});
            return;
        case CameraPreset::FaceOnDisk:
        case CameraPreset::EdgeOnDisk: {
            const GalaxyFrame f = galaxy_frame(sim_.snapshot(), params_.camera.preset_galaxy);
            if (!f.found || !(norm(f.spin) > 0)) {
                say("no disk to look at in galaxy " + std::to_string(params_.camera.preset_galaxy + 1), true);
                return;
            }
            const glm::vec3 n = glm::normalize(to_glm(f.spin));
            camera_.set_target(to_glm(f.centre));
            if (preset == CameraPreset::FaceOnDisk) {
                camera_.look_from(n);
            } else {
                // Any direction in the disk's plane; the one nearest the current view.
                const glm::vec3 eye = camera_.eye() - camera_.target();
                glm::vec3 side = eye - n * glm::dot(eye, n);
                if (glm::length(side) < 1e-6f * glm::length(eye)) side = glm::cross(n, glm::vec3(0, 0, 1));
                camera_.look_from(side);
            }
            return;
        }
    }
}

void Viewer::aim_camera() {
    if (params_.camera.follow_galaxy >= 0) {
        const double wall = std::chrono::duration<double>(Clock::now().time_since_epoch()).count();
        if (galaxy_track_.galaxy != params_.camera.follow_galaxy || wall - galaxy_track_.wall > 0.25) {
            galaxy_track_.galaxy = params_.camera.follow_galaxy;
            galaxy_track_.frame = galaxy_frame(sim_.snapshot(), galaxy_track_.galaxy);
            galaxy_track_.time = sim_.time();
            galaxy_track_.wall = wall;
        }
        if (galaxy_track_.frame.found) camera_.set_target(galaxy_track_.at(sim_.time()));
        return;
    }
    galaxy_track_.galaxy = -1;
    if (params_.camera.follow_centre_of_mass) camera_.set_target(com_.at(sim_.time()));
}

}  // namespace nbody::app
