#pragma once
// A keyframed camera path (`nbody record --camera path:FILE`): a few poses of the orbit camera
// at chosen frames, interpolated smoothly in between, so that a movie can fly round a collision.
//
// The file is plain text, one keyframe per line (docs/CAMERA-PATHS.md, example:
// assets/camera-paths/figure-eight-flyby.txt):
//
//   # frame  azimuth_deg  elevation_deg  distance  [target_x target_y target_z]
//   0        -90          70             11
//   120      0            30             7         0 0 0
//
// `#` starts a comment; blank lines are skipped. Frames are recorded frame numbers (0 is the
// first frame) and must increase. Azimuth is not wrapped: 0 to 360 turns once round. A line
// without a target keeps the previous keyframe's (the first: the origin). Distance in the
// scene's length unit.
//
// Interpolation: each of azimuth, elevation, log(distance) and the target's x, y, z is a cubic
// Hermite spline through the keyframes with Catmull-Rom tangents (central differences over the
// neighbouring keyframes, scaled for uneven spacing) and zero tangents at the first and last
// keyframe, so the camera starts and stops gently. The curve passes through every keyframe
// exactly and its first derivative is continuous; the view direction, a function of azimuth
// and elevation with z up, turns smoothly. log(distance) makes a zoom of 10x take as long in each
// of its halves as a zoom of 100x takes per tenfold. Before the first keyframe the camera holds
// the first pose, after the last the last one.

#include <glm/glm.hpp>
#include <string>
#include <string_view>
#include <vector>

namespace nbody::render {

struct CameraPose {
    glm::dvec3 target{0.0};
    double azimuth_deg = 0;
    double elevation_deg = 0;
    double distance = 1;
};

struct CameraKeyframe {
    double frame = 0;
    CameraPose pose;
    int line = 0;  // where it was read, for messages
};

class CameraPath {
  public:
    // Reads FILE; throws std::runtime_error "FILE:LINE: what is wrong" (or "FILE: ..." for an
    // unreadable or empty file).
    static CameraPath load(const std::string& path);
    // The same from text; `source` stands for the file in messages.
    static CameraPath parse(std::string_view text, const std::string& source);

    // The pose at `frame` (fractional frames allowed).
    CameraPose at(double frame) const;

    const std::vector<CameraKeyframe>& keyframes() const { return keys_; }
    double first_frame() const { return keys_.front().frame; }
    double last_frame() const { return keys_.back().frame; }
    const std::string& source() const { return source_; }

  private:
    std::vector<CameraKeyframe> keys_;  // at least one, frames increasing
    std::string source_;
};

// Elevations a keyframe may ask for: the orbit camera stops short of the poles.
inline constexpr double kCameraPathMaxElevation = 89.0;

}  // namespace nbody::render
