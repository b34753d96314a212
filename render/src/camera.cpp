#include "nbody/render/camera.hpp"

#include <algorithm>
#include <cmath>
#include <glm/gtc/matrix_transform.hpp>
#include <utility>
#include <vector>

namespace nbody::render {

namespace {
constexpr float kMinDistance = 1e-3f;
constexpr float kMaxDistance = 1e7f;
// Elevation stops short of the poles, where the z-up view matrix would degenerate.
constexpr float kMaxElevation = 89.0f;
}  // namespace

void OrbitCamera::reset(const CameraSpec& spec) {
    home_ = spec;
    target_ = glm::vec3(spec.target.x, spec.target.y, spec.target.z);
    distance_ = std::clamp(static_cast<float>(spec.distance), kMinDistance, kMaxDistance);
    azimuth_deg_ = static_cast<float>(spec.azimuth_deg);
    elevation_deg_ = std::clamp(static_cast<float>(spec.elevation_deg), -kMaxElevation, kMaxElevation);
}

void OrbitCamera::set_pose(const glm::vec3& target, float azimuth_deg, float elevation_deg, float distance) {
    target_ = target;
    azimuth_deg_ = azimuth_deg;
    elevation_deg_ = std::clamp(elevation_deg, -kMaxElevation, kMaxElevation);
    distance_ = std::clamp(distance, kMinDistance, kMaxDistance);
}

void OrbitCamera::look_from(const glm::vec3& from) {
    const float len = glm::length(from);
    if (!(len > 0)) return;
    const glm::vec3 d = from / len;
    azimuth_deg_ = glm::degrees(std::atan2(d.y, d.x));
    elevation_deg_ = std::clamp(glm::degrees(std::asin(std::clamp(d.z, -1.0f, 1.0f))), -kMaxElevation, kMaxElevation);
}

void OrbitCamera::orbit(float dx, float dy) {
    azimuth_deg_ = std::fmod(azimuth_deg_ - 0.25f * dx, 360.0f);
    elevation_deg_ = std::clamp(elevation_deg_ + 0.25f * dy, -kMaxElevation, kMaxElevation);
}

void OrbitCamera::pan(float dx, float dy, float viewport_height) {
    if (viewport_height <= 0) return;
    // World units per pixel in the plane through the target.
    const float per_pixel = distance_ / focal_pixels(viewport_height);
    const glm::mat4 v = view();
    const glm::vec3 right(v[0][0], v[1][0], v[2][0]);
    const glm::vec3 up(v[0][1], v[1][1], v[2][1]);
    target_ += (-dx * right + dy * up) * per_pixel;
}

void OrbitCamera::zoom(float steps) {
    distance_ = std::clamp(distance_ * std::pow(0.88f, steps), kMinDistance, kMaxDistance);
}

void OrbitCamera::turn(float degrees) { azimuth_deg_ = std::fmod(azimuth_deg_ + degrees, 360.0f); }

glm::vec3 OrbitCamera::eye() const {
    const float az = glm::radians(azimuth_deg_);
    const float el = glm::radians(elevation_deg_);
    const glm::vec3 dir(std::cos(el) * std::cos(az), std::cos(el) * std::sin(az), std::sin(el));
    return target_ + distance_ * dir;
}

glm::mat4 OrbitCamera::view() const { return glm::lookAt(eye(), target_, glm::vec3(0, 0, 1)); }

glm::mat4 OrbitCamera::projection(float aspect) const {
    // Near and far follow the distance so that zooming never clips the system at either end;
    // nothing is depth-tested, so the depth precision this wastes costs nothing.
    const float near_plane = std::max(distance_ * 1e-3f, 1e-5f);
    const float far_plane = distance_ * 1e3f;
    return glm::perspective(glm::radians(fov_y_deg_), std::max(aspect, 1e-3f), near_plane, far_plane);
}

float OrbitCamera::focal_pixels(float height) const {
    return 0.5f * height / std::tan(0.5f * glm::radians(fov_y_deg_));
}

std::optional<glm::vec2> OrbitCamera::project_to_image(const glm::vec3& world, int width, int height) const {
    const glm::vec4 clip =
        projection(float(width) / float(std::max(height, 1))) * view() * glm::vec4(world, 1.0f);
    if (clip.w <= 0) return std::nullopt;
    const glm::vec3 ndc = glm::vec3(clip) / clip.w;
    return glm::vec2((ndc.x * 0.5f + 0.5f) * float(width), (0.5f - ndc.y * 0.5f) * float(height));
}

CameraSpec frame_camera(const State& state) {
    CameraSpec camera;
    double m = 0;
    Vec3d c;
    for (const auto& p : state.pos_mass) {
        m += p.w;
        c += xyz(p) * double(p.w);
    }
    if (!(m > 0)) return camera;
    c = c / m;
    std::vector<std::pair<double, double>> radius_mass;  // (distance from c, mass)
    radius_mass.reserve(state.size());
    for (const auto& p : state.pos_mass) radius_mass.emplace_back(norm(xyz(p) - c), p.w);
    std::sort(radius_mass.begin(), radius_mass.end());
    double enclosed = 0, r90 = 0;
    for (const auto& [r, w] : radius_mass) {
        enclosed += w;
        r90 = r;
        if (enclosed >= 0.9 * m) break;
    }
    // A 45-degree field of view shows a sphere of radius r whole from about 2.6 r.
    camera.distance = std::max(2.8 * r90, 1e-6);
    camera.azimuth_deg = 30.0;
    camera.elevation_deg = 30.0;
    camera.target = c;
    return camera;
}

namespace {

// The bodies a frame shows: all but the dark-matter halo (hidden by default), or all of them
// when there is nothing else.
std::vector<Vec4f> drawn_bodies(const State& state) {
    std::vector<Vec4f> drawn;
    drawn.reserve(state.size());
    for (std::size_t i = 0; i < state.size(); ++i)
        if (i >= state.component.size() || state.component[i] != Component::Halo) drawn.push_back(state.pos_mass[i]);
    return drawn.empty() ? state.pos_mass : drawn;
}

}  // namespace

CameraSpec fit_camera(CameraSpec spec, const State& state, double aspect, double fov_y_deg) {
    // Moving the camera along its line of sight changes only a body's depth, so in the camera's
    // frame each body says how far back the camera must be to see it: its depth in front of the
    // target plus its offset over the tangent of the half field of view, across or up.
    const OrbitCamera camera(spec);
    const glm::mat4 view = camera.view();
    const double tan_y = std::tan(0.5 * fov_y_deg * 3.14159265358979 / 180.0), tan_x = tan_y * aspect;
    std::vector<double> needed;
    for (const Vec4f& p : drawn_bodies(state)) {
        const glm::vec4 v = view * glm::vec4(p.x, p.y, p.z, 1.0f);
        const double in_front = double(v.z) + camera.distance();  // towards the camera from the target plane
        needed.push_back(in_front + std::max(std::abs(v.x) / tan_x, std::abs(v.y) / tan_y));
    }
    if (needed.empty()) return spec;
    // The 1% farthest out are outliers (escapers, the tip of a tail); 20% more keeps the galaxies
    // off the frame's edges.
    const auto p99 = needed.begin() + std::ptrdiff_t(0.99 * double(needed.size() - 1));
    std::nth_element(needed.begin(), p99, needed.end());
    spec.distance = std::max(spec.distance, 1.2 * *p99);
    return spec;
}

}  // namespace nbody::render
