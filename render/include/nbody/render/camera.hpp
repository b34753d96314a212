#pragma once
// An orbit camera around a target point, z up (scenes put galactic disks in the x-y plane):
// drag to orbit, drag with the right button to pan, wheel to zoom. Sizes in pixels are converted
// with the framebuffer size, so the same drag moves the view equally on HiDPI displays.

#include <glm/glm.hpp>
#include <optional>

#include "nbody/sim/scene.hpp"

namespace nbody::render {

class OrbitCamera {
  public:
    OrbitCamera() = default;
    explicit OrbitCamera(const CameraSpec& spec) { reset(spec); }

    void reset(const CameraSpec& spec);
    const CameraSpec& home() const { return home_; }

    // Drag by (dx, dy) cursor units (logical pixels): 0.25 degrees each.
    void orbit(float dx, float dy);
    // Moves the target so that the point under the cursor follows it; `viewport_height` in the
    // same pixels as dx, dy.
    void pan(float dx, float dy, float viewport_height);
    // Wheel: each step scales the distance by 0.88 (inwards for positive steps).
    void zoom(float steps);
    // Moves the camera `degrees` round the vertical axis through the target (positive:
    // counter-clockwise seen from above), e.g. a turntable movie.
    void turn(float degrees);

    void set_target(const glm::vec3& target) { target_ = target; }
    // Places the camera (a camera path's pose); home() is kept, so brightness compensation for
    // zoom still refers to the scene's camera. Elevation and distance are clamped as for a drag.
    void set_pose(const glm::vec3& target, float azimuth_deg, float elevation_deg, float distance);
    // Looks at the target from direction `from` (any length; the elevation is clamped short of
    // the poles), keeping the distance.
    void look_from(const glm::vec3& from);
    const glm::vec3& target() const { return target_; }
    float distance() const { return distance_; }
    float azimuth_deg() const { return azimuth_deg_; }
    float elevation_deg() const { return elevation_deg_; }
    float fov_y_deg() const { return fov_y_deg_; }
    void set_fov_y_deg(float fov) { fov_y_deg_ = glm::clamp(fov, 5.0f, 120.0f); }

    glm::vec3 eye() const;
    glm::mat4 view() const;
    glm::mat4 projection(float aspect) const;
    // Pixels per unit length at unit distance for a viewport `height` pixels tall: a sphere of
    // radius r at distance d covers r * focal_pixels / d pixels.
    float focal_pixels(float height) const;

    // Window position of `world` in a width x height image, x to the right and y DOWN from the
    // top-left corner (image row order), or nothing when the point is behind the camera.
    std::optional<glm::vec2> project_to_image(const glm::vec3& world, int width, int height) const;

  private:
    CameraSpec home_;
    glm::vec3 target_{0.0f};
    float distance_ = 60.0f;
    float azimuth_deg_ = 30.0f;
    float elevation_deg_ = 25.0f;
    float fov_y_deg_ = 45.0f;
};

// A camera that frames `state`: aimed at its centre of mass, far enough back to show the sphere
// holding 90% of its mass, looking down at 30 degrees (particle files in the viewer, the Python
// module's renders of a system without a scene camera).
CameraSpec frame_camera(const State& state);

// `spec` moved back (never closer) along its line of sight until 99% of the bodies drawn (halo
// particles left out) are inside a frame `aspect` wide per unit height with a vertical field of
// view `fov_y_deg`. The 1% left out are the outliers (escapers, a tail's tip) that would otherwise
// shrink the galaxies to dots. Angles and target are kept: a scene's chosen view stays, only
// farther when it cut a galaxy off.
CameraSpec fit_camera(CameraSpec spec, const State& state, double aspect = 16.0 / 9.0, double fov_y_deg = 45.0);

}  // namespace nbody::render
