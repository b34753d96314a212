#include "nbody/render/camera_path.hpp"

#include "nbody/sim/io/input_file.hpp"

#include <algorithm>
#include <array>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace nbody::render {

namespace {

[[noreturn]] void fail(const std::string& source, int line, const std::string& what) {
    throw std::runtime_error(source + (line > 0 ? ":" + std::to_string(line) : std::string()) + ": " + what);
}

// One whitespace-separated field as a finite number, or a message naming it.
double number(const std::string& field, const char* name, const std::string& source, int line) {
    const char* begin = field.c_str();
    char* end = nullptr;
    errno = 0;
    const double v = std::strtod(begin, &end);
    if (end == begin || *end != '\0')
        fail(source, line, std::string(name) + ": '" + field + "' is not a number");
    if (!std::isfinite(v) || errno == ERANGE) fail(source, line, std::string(name) + ": '" + field + "' is out of range");
    return v;
}

std::string shown(double v) {
    std::ostringstream os;
    os << v;
    return os.str();
}

// The six interpolated channels of a pose.
constexpr int kChannels = 6;
using Channels = std::array<double, kChannels>;

Channels channels(const CameraPose& p) {
    return {p.azimuth_deg, p.elevation_deg, std::log(p.distance), p.target.x, p.target.y, p.target.z};
}

CameraPose pose(const Channels& c) {
    CameraPose p;
    p.azimuth_deg = c[0];
    p.elevation_deg = std::clamp(c[1], -kCameraPathMaxElevation, kCameraPathMaxElevation);  // overshoot near a pole
    p.distance = std::exp(c[2]);
    p.target = {c[3], c[4], c[5]};
    return p;
}

}  // namespace

CameraPath CameraPath::parse(std::string_view text, const std::string& source) {
    static const char* kNames[] = {"frame", "azimuth_deg", "elevation_deg", "distance", "target_x", "target_y", "target_z"};
    CameraPath path;
    path.source_ = source;
    std::istringstream in{std::string(text)};
    std::string raw;
    glm::dvec3 target(0.0);
    for (int line = 1; std::getline(in, raw); ++line) {
        const std::string content = raw.substr(0, raw.find('#'));
        std::istringstream fields(content);
        std::vector<std::string> f;
        for (std::string w; fields >> w;) f.push_back(w);
        if (f.empty()) continue;
        if (f.size() != 4 && f.size() != 7)
            fail(source, line, "expected 4 or 7 numbers (frame azimuth_deg elevation_deg distance [target_x target_y "
                               "target_z]), got " + std::to_string(f.size()));
        double v[7];
        for (std::size_t i = 0; i < f.size(); ++i) v[i] = number(f[i], kNames[i], source, line);
        CameraKeyframe k;
        k.line = line;
        k.frame = v[0];
        if (k.frame < 0) fail(source, line, "frame must be >= 0 (got " + f[0] + ")");
        if (!path.keys_.empty() && !(k.frame > path.keys_.back().frame))
            fail(source, line, "frames must increase: " + f[0] + " follows " +
                                   shown(path.keys_.back().frame) + " (line " +
                                   std::to_string(path.keys_.back().line) + ")");
        if (std::abs(v[2]) > kCameraPathMaxElevation)
            fail(source, line, "elevation_deg must be within [-89, 89] (got " + f[2] + "): the camera's up is +z");
        if (!(v[3] > 0)) fail(source, line, "distance must be > 0 (got " + f[3] + ")");
        if (f.size() == 7) target = {v[4], v[5], v[6]};
        k.pose = CameraPose{target, v[1], v[2], v[3]};
        path.keys_.push_back(k);
    }
    if (path.keys_.empty())
        fail(source, 0, "no keyframes (each line: frame azimuth_deg elevation_deg distance [target_x target_y target_z])");
    return path;
}

CameraPath CameraPath::load(const std::string& file) {
    return parse(io::read_input_file(file, "camera path"), file);
}

CameraPose CameraPath::at(double frame) const {
    if (keys_.size() == 1 || frame <= keys_.front().frame) return keys_.front().pose;
    if (frame >= keys_.back().frame) return keys_.back().pose;
    // The segment [k, k + 1] holding `frame`.
    const auto after = std::upper_bound(keys_.begin(), keys_.end(), frame,
                                        [](double f, const CameraKeyframe& key) { return f < key.frame; });
    const std::size_t k = std::size_t(after - keys_.begin()) - 1;
    const std::size_t last = keys_.size() - 1;
    // Catmull-Rom tangent at keyframe j (per frame): the slope across its neighbours; zero at the ends.
    auto tangent = [&](std::size_t j) {
        Channels m{};
        if (j == 0 || j == last) return m;
        const Channels a = channels(keys_[j - 1].pose), b = channels(keys_[j + 1].pose);
        const double span = keys_[j + 1].frame - keys_[j - 1].frame;
        for (int c = 0; c < kChannels; ++c) m[c] = (b[c] - a[c]) / span;
        return m;
    };
    const double h = keys_[k + 1].frame - keys_[k].frame;
    const double s = (frame - keys_[k].frame) / h;
    const double s2 = s * s, s3 = s2 * s;
    const double h00 = 2 * s3 - 3 * s2 + 1, h10 = s3 - 2 * s2 + s, h01 = -2 * s3 + 3 * s2, h11 = s3 - s2;
    const Channels p0 = channels(keys_[k].pose), p1 = channels(keys_[k + 1].pose);
    const Channels m0 = tangent(k), m1 = tangent(k + 1);
    Channels out;
    for (int c = 0; c < kChannels; ++c) out[c] = h00 * p0[c] + h10 * h * m0[c] + h01 * p1[c] + h11 * h * m1[c];
    return pose(out);
}

}  // namespace nbody::render
