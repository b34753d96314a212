#include "nbody/sim/io/scene_metadata.hpp"

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace nbody::io {
namespace {

constexpr const char* kPrefix = "scene.";
constexpr const char* kColourings[] = {"galaxy", "component", "speed", "plain", "mass"};
// Optional (snapshots before issue 33 lack it): solar masses per mass unit, for colouring by mass.
constexpr const char* kMassUnitKey = "scene.units.mass_unit_msun";

std::string g17(double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.17g", v);
    return buf;
}

[[noreturn]] void bad(const std::string& source, const std::string& key, const std::string& value,
                      const std::string& why) {
    throw std::runtime_error(source + ": snapshot metadata '" + key + "' = '" + value.substr(0, 60) + "': " + why);
}

// The whole value as one finite number.
double number(const std::map<std::string, std::string>& m, const std::string& key, const std::string& source) {
    const std::string& text = m.at(key);
    errno = 0;
    char* end = nullptr;
    const double v = std::strtod(text.c_str(), &end);
    if (text.empty() || end != text.c_str() + text.size() || errno == ERANGE || !std::isfinite(v))
        bad(source, key, text, "not a finite number");
    return v;
}

Vec3d vector3(const std::map<std::string, std::string>& m, const std::string& key, const std::string& source) {
    const std::string& text = m.at(key);
    std::istringstream in(text);
    double c[3];
    std::string rest;
    if (!(in >> c[0] >> c[1] >> c[2]) || (in >> rest) || !std::isfinite(c[0]) || !std::isfinite(c[1]) ||
        !std::isfinite(c[2]))
        bad(source, key, text, "not three finite numbers \"x y z\"");
    return {c[0], c[1], c[2]};
}

const std::vector<std::string>& required_keys() {
    static const std::vector<std::string> keys{
        "scene.units.length",          "scene.units.velocity", "scene.units.mass",
        "scene.units.time",            "scene.units.time_unit_myr", "scene.camera.distance",
        "scene.camera.azimuth_deg",    "scene.camera.elevation_deg", "scene.camera.target"};
    return keys;
}

}  // namespace

void put_scene_metadata(const Scene& scene, std::map<std::string, std::string>& metadata) {
    for (auto it = metadata.begin(); it != metadata.end();)
        it = it->first.rfind(kPrefix, 0) == 0 ? metadata.erase(it) : std::next(it);
    if (!scene.description.empty()) metadata["scene.description"] = scene.description;
    metadata["scene.units.length"] = scene.units.length;
    metadata["scene.units.velocity"] = scene.units.velocity;
    metadata["scene.units.mass"] = scene.units.mass;
    metadata["scene.units.time"] = scene.units.time;
    metadata["scene.units.time_unit_myr"] = g17(scene.units.time_unit_myr);
    metadata[kMassUnitKey] = g17(scene.units.mass_unit_msun);
    metadata["scene.camera.distance"] = g17(scene.camera.distance);
    metadata["scene.camera.azimuth_deg"] = g17(scene.camera.azimuth_deg);
    metadata["scene.camera.elevation_deg"] = g17(scene.camera.elevation_deg);
    const Vec3d& t = scene.camera.target;
    metadata["scene.camera.target"] = g17(t.x) + " " + g17(t.y) + " " + g17(t.z);
    for (std::size_t k = 0; k < scene.galaxy_names.size(); ++k)
        metadata["scene.galaxy." + std::to_string(k) + ".name"] = scene.galaxy_names[k];
    if (!scene.colour_by.empty()) metadata["scene.colour_by"] = scene.colour_by;
}

void copy_scene_metadata(const std::map<std::string, std::string>& from, std::map<std::string, std::string>& to) {
    for (const auto& [key, value] : from)
        if (key.rfind(kPrefix, 0) == 0) to[key] = value;
}

bool has_scene_metadata(const std::map<std::string, std::string>& metadata) {
    for (const std::string& key : required_keys())
        if (!metadata.count(key)) return false;
    return true;
}

bool apply_scene_metadata(const std::map<std::string, std::string>& m, Scene& scene, const std::string& source) {
    // Everything is read and checked before `scene` is touched: a bad value changes nothing.
    std::string colour_by = scene.colour_by;
    if (const auto it = m.find("scene.colour_by"); it != m.end()) {
        bool known = false;
        for (const char* c : kColourings) known |= it->second == c;
        if (!known) bad(source, it->first, it->second, "not one of galaxy, component, speed, plain, mass");
        colour_by = it->second;
    }
    std::vector<std::string> names;
    for (std::size_t k = 0;; ++k) {  // consecutive labels from 0; a gap ends the list
        const auto it = m.find("scene.galaxy." + std::to_string(k) + ".name");
        if (it == m.end()) break;
        names.push_back(it->second);
    }
    const bool complete = has_scene_metadata(m);
    UnitSystem u = scene.units;
    CameraSpec c = scene.camera;
    if (complete) {
        u.length = m.at("scene.units.length");
        u.velocity = m.at("scene.units.velocity");
        u.mass = m.at("scene.units.mass");
        u.time = m.at("scene.units.time");
        u.time_unit_myr = number(m, "scene.units.time_unit_myr", source);
        if (u.time_unit_myr < 0)
            bad(source, "scene.units.time_unit_myr", m.at("scene.units.time_unit_myr"), "must be >= 0");
        u.mass_unit_msun = m.count(kMassUnitKey) ? number(m, kMassUnitKey, source) : u.time_unit_myr > 0 ? 2.325e9 : 0.0;
        if (u.mass_unit_msun < 0) bad(source, kMassUnitKey, m.at(kMassUnitKey), "must be >= 0");
        c.distance = number(m, "scene.camera.distance", source);
        if (!(c.distance > 0)) bad(source, "scene.camera.distance", m.at("scene.camera.distance"), "must be > 0");
        c.azimuth_deg = number(m, "scene.camera.azimuth_deg", source);
        c.elevation_deg = number(m, "scene.camera.elevation_deg", source);
        c.target = vector3(m, "scene.camera.target", source);
    }
    scene.colour_by = std::move(colour_by);
    if (!names.empty()) scene.galaxy_names = std::move(names);
    if (const auto it = m.find("scene.description"); it != m.end()) scene.description = it->second;
    scene.units = std::move(u);
    scene.camera = c;
    return complete;
}

}  // namespace nbody::io
