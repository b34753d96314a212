// The encounter editor's model: settings <-> a two-galaxy scene description. See
// nbody/sim/encounter_spec.hpp.

#include "nbody/sim/encounter_spec.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numbers>
#include <stdexcept>
#include <string>
#include "message_format.hpp"

namespace nbody {
namespace {

using message_format::short_number;
constexpr double kDeg = message_format::kDegree;

double wrap_degrees(double a) {  // to (-180, 180]
    a = std::fmod(a, 360.0);
    if (a > 180.0) a -= 360.0;
    if (a <= -180.0) a += 360.0;
    return a;
}

Vec3d unit(const Vec3d& v) { return v / norm(v); }

// TT72 angles of the disk whose spin is the unit vector `s` in the orbit frame: disk_rotation
// turns +z to s = (-sin i sin w, -sin i cos w, cos i).
ic::DiskOrientation orientation_of_spin(const Vec3d& s) {
    ic::DiskOrientation o;
    o.inclination_deg = std::acos(std::clamp(s.z, -1.0, 1.0)) / kDeg;
    const double in_plane = std::hypot(s.x, s.y);
    o.argument_deg = in_plane > 1e-12 ? std::atan2(-s.x, -s.y) / kDeg : 0.0;
    return o;
}

ic::Mat3 transpose(const ic::Mat3& a) {
    ic::Mat3 t;
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) t.m[3 * i + j] = a.m[3 * j + i];
    return t;
}

// Camera as a direction from its target (render::OrbitCamera's azimuth/elevation convention).
Vec3d camera_direction(const CameraSpec& c) {
    const double az = c.azimuth_deg * kDeg, el = c.elevation_deg * kDeg;
    return {std::cos(el) * std::cos(az), std::cos(el) * std::sin(az), std::sin(el)};
}

void set_camera_direction(CameraSpec& c, const Vec3d& d) {
    c.azimuth_deg = std::atan2(d.y, d.x) / kDeg;
    c.elevation_deg = std::asin(std::clamp(d.z, -1.0, 1.0)) / kDeg;
}

// The second galaxy placed by position/velocity -> the same relative motion as a Kepler orbit.
// The orbit frame (pericentre on +x, angular momentum on +z) is B = [x y z] in the file's scene
// frame; the editor's scene puts it at P = plane_rotation(plane), with the plane chosen so that
// the angular momentum points the same way. The whole scene is then the file's turned by
// R = P B^T: the disks' spins (given in the scene frame) and the camera are turned with it.
void to_orbit_form(SceneSpec& spec) {
    GalaxySpec& a = spec.galaxies[0];
    GalaxySpec& b = spec.galaxies[1];
    const double mass = galaxy_mass(a) + galaxy_mass(b);
    const Vec3d r = b.position - a.position, v = b.velocity - a.velocity;
    const Vec3d h = cross(r, v);
    if (!(norm(h) > 1e-12 * norm(r) * norm(v)))
        throw std::invalid_argument("the second galaxy moves straight at (or away from) the first: a radial orbit "
                                    "has no orbital plane for the editor to use");
    if (dot(r, v) >= 0) throw std::invalid_argument("the galaxies are moving apart: the editor sets up approaches");
    const Vec3d z = unit(h);
    const Vec3d ecc = cross(v, h) / mass - unit(r);
    const double e = norm(ecc);
    const Vec3d x = e > 1e-9 ? ecc / e : unit(r);
    const Vec3d y = cross(z, x);
    ic::KeplerOrbit orbit;
    orbit.eccentricity = e > 1e-9 ? e : 0.0;
    orbit.pericentre = dot(h, h) / (mass * (1.0 + orbit.eccentricity));
    orbit.separation = norm(r);
    ic::OrbitPlane plane;
    plane.inclination_deg = std::acos(std::clamp(z.z, -1.0, 1.0)) / kDeg;
    plane.node_deg = std::hypot(z.x, z.y) > 1e-12 ? std::atan2(z.x, -z.y) / kDeg : 0.0;

    ic::Mat3 basis;  // orbit frame -> the file's scene frame (columns x, y, z)
    basis.m = {x.x, y.x, z.x, x.y, y.y, z.y, x.z, y.z, z.z};
    const ic::Mat3 to_orbit = transpose(basis);
    const ic::Mat3 turn = ic::plane_rotation(plane) * to_orbit;
    for (GalaxySpec* g : {&a, &b}) {
        const Vec3d spin_scene = ic::disk_rotation(g->orientation) * Vec3d{0, 0, 1};
        g->orientation = orientation_of_spin(to_orbit * spin_scene);
        g->position = g->velocity = Vec3d{};
    }
    b.orbit = orbit;
    b.plane = plane;
    set_camera_direction(spec.camera, turn * camera_direction(spec.camera));
    spec.camera.target = turn * spec.camera.target;
}

void scale_galaxy(GalaxySpec& g, double factor) {
    const double length = std::cbrt(factor);
    for (ComponentSpec& c : g.components) {
        c.mass *= factor;
        if (c.kind == ComponentKind::Point) continue;
        c.scale *= length;
        c.height *= length;
        c.max_radius *= length;
    }
}

void require(bool ok, const std::string& what) {
    if (!ok) throw std::invalid_argument(what);
}

}  // namespace

ic::DiskOrientation reversed_spin(const ic::DiskOrientation& d) {
    return {180.0 - d.inclination_deg, wrap_degrees(d.argument_deg + 180.0)};
}

double separation_for_time(double mass, double pericentre, double e, double time) {
    require(std::isfinite(time) && time > 0, "time to pericentre must be > 0 (got " + short_number(time) + ")");
    auto time_from = [&](double r0) { return ic::kepler_initial_conditions(mass, {pericentre, r0, e}).time_to_pericentre; };
    require(e > 0, "time to pericentre: a circular orbit (eccentricity 0) is always at pericentre; give e > 0");
    double lo = pericentre, hi = 2 * pericentre;
    if (e < 1.0) {
        hi = pericentre * (1 + e) / (1 - e);  // apocentre
        const double half_period = time_from(hi);
        require(time < half_period * (1 - 1e-9),
                "time to pericentre " + short_number(time) + " is more than half the period (" + short_number(half_period) +
                    ") of a bound orbit with eccentricity " + short_number(e) + ": start earlier, or raise e");
    } else {
        while (time_from(hi) < time) {
            lo = hi;
            hi *= 2;
            require(hi < 1e12 * pericentre, "time to pericentre " + short_number(time) + " is too long for this orbit");
        }
    }
    for (int i = 0; i < 200 && hi - lo > 1e-14 * hi; ++i) {
        const double mid = 0.5 * (lo + hi);
        (time_from(mid) < time ? lo : hi) = mid;
    }
    return 0.5 * (lo + hi);
}

EncounterPreset encounter_preset(SceneSpec spec) {
    require(spec.galaxies.size() == 2, spec.name + ": the encounter editor needs a scene of two galaxies (this one has " +
                                           std::to_string(spec.galaxies.size()) + ")");
    if (!spec.galaxies[1].orbit) to_orbit_form(spec);
    EncounterPreset p;
    const GalaxySpec& a = spec.galaxies[0];
    const GalaxySpec& b = spec.galaxies[1];
    EncounterSettings& s = p.settings;
    s.mass_ratio = galaxy_mass(b) / galaxy_mass(a);
    s.pericentre = b.orbit->pericentre;
    s.eccentricity = b.orbit->eccentricity;
    s.separation = b.orbit->separation;
    s.time_to_pericentre =
        ic::kepler_initial_conditions(galaxy_mass(a) + galaxy_mass(b), *b.orbit).time_to_pericentre;
    s.disk[0] = a.orientation;
    s.disk[1] = b.orientation;
    s.bodies = spec.bodies;
    p.spec = std::move(spec);
    return p;
}

SceneSpec make_encounter(const EncounterPreset& preset, const EncounterSettings& s) {
    require(std::isfinite(s.mass_ratio) && s.mass_ratio > 0, "mass ratio must be > 0 (got " + short_number(s.mass_ratio) + ")");
    require(std::isfinite(s.pericentre) && s.pericentre > 0, "pericentre must be > 0 (got " + short_number(s.pericentre) + ")");
    require(std::isfinite(s.eccentricity) && s.eccentricity >= 0,
            "eccentricity must be >= 0 (got " + short_number(s.eccentricity) + "; 1 parabolic, < 1 bound, > 1 hyperbolic)");
    for (int k = 0; k < 2; ++k) {
        const ic::DiskOrientation& d = s.disk[k];
        require(d.inclination_deg >= 0 && d.inclination_deg <= 180,
                "galaxy " + std::to_string(k + 1) + " inclination must be within [0, 180] degrees (got " +
                    short_number(d.inclination_deg) + ")");
        require(std::isfinite(d.argument_deg), "galaxy " + std::to_string(k + 1) + " argument must be finite");
    }
    SceneSpec spec = preset.spec;
    std::size_t components = 0;
    for (const GalaxySpec& g : spec.galaxies) components += g.components.size();
    require(s.bodies >= components, "particle count must be at least " + std::to_string(components) +
                                        " (one per component; got " + std::to_string(s.bodies) + ")");
    scale_galaxy(spec.galaxies[1], s.mass_ratio / preset.settings.mass_ratio);
    const double mass = galaxy_mass(spec.galaxies[0]) + galaxy_mass(spec.galaxies[1]);
    ic::KeplerOrbit& orbit = *spec.galaxies[1].orbit;
    orbit.pericentre = s.pericentre;
    orbit.eccentricity = s.eccentricity;
    if (s.start_by_time) {
        orbit.separation = separation_for_time(mass, s.pericentre, s.eccentricity, s.time_to_pericentre);
    } else {
        require(std::isfinite(s.separation) && s.separation > 0,
                "separation must be > 0 (got " + short_number(s.separation) + ")");
        orbit.separation = s.separation;
    }
    ic::kepler_initial_conditions(mass, orbit);  // separation inside pericentre, beyond apocentre: named there
    spec.galaxies[0].orientation = s.disk[0];
    spec.galaxies[1].orientation = s.disk[1];
    // The preset's camera frames its galaxies at its separation: farther back when they start
    // farther apart, closer (down to 0.6 of it, which still shows the tails) when nearer.
    spec.camera.distance *= std::clamp(orbit.separation / preset.settings.separation, 0.6, 4.0);
    spec.name = preset.spec.name + " (edited)";
    const std::string length = spec.units.time_unit_myr > 0 ? " kpc" : "";
    spec.description = "Encounter editor, from " + preset.spec.name + ": mass ratio " + short_number(s.mass_ratio) +
                       ", pericentre " + short_number(s.pericentre) + length + ", e = " + short_number(s.eccentricity) +
                       ", starting " + short_number(orbit.separation) + length + " apart";
    if (s.bodies != spec.bodies) scale_scene_spec(spec, s.bodies);
    return spec;
}

}  // namespace nbody
