#include "nbody/sim/ic/orbit.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numbers>
#include <stdexcept>
#include <string>
#include "message_format.hpp"

namespace nbody::ic {
namespace {

using message_format::short_number;
constexpr double kDeg = message_format::kDegree;

}  // namespace

RelativeOrbitState kepler_initial_conditions(double total_mass, const KeplerOrbit& orbit) {
    const double rp = orbit.pericentre, r0 = orbit.separation, e = orbit.eccentricity;
    if (!(total_mass > 0) || !std::isfinite(total_mass)) throw std::invalid_argument("orbit: total mass must be > 0");
    if (!(rp > 0) || !std::isfinite(rp)) throw std::invalid_argument("orbit: pericentre must be > 0 (got " + short_number(rp) + ")");
    if (!(e >= 0) || !std::isfinite(e)) throw std::invalid_argument("orbit: eccentricity must be >= 0 (got " + short_number(e) + ")");
    if (!std::isfinite(r0)) throw std::invalid_argument("orbit: separation must be finite");
    const double p = rp * (1.0 + e);  // semi-latus rectum
    const bool circular = e < 1e-12;
    if (circular) {
        if (std::abs(r0 - rp) > 1e-9 * rp)
            throw std::invalid_argument("orbit: a circular orbit (eccentricity 0) needs separation = pericentre (got " +
                                        short_number(r0) + " and " + short_number(rp) + ")");
    } else if (r0 < rp * (1.0 - 1e-12)) {
        throw std::invalid_argument("orbit: separation " + short_number(r0) + " is inside the pericentre " + short_number(rp));
    }
    if (!circular && e < 1.0) {
        const double apo = p / (1.0 - e);
        if (r0 > apo * (1.0 + 1e-12))
            throw std::invalid_argument("orbit: separation " + short_number(r0) + " is beyond the apocentre " + short_number(apo) +
                                        " of a bound orbit with eccentricity " + short_number(e));
    }
    // True anomaly of the approaching branch, nu in [-pi, 0].
    const double cos_nu = circular ? 1.0 : std::clamp((p / r0 - 1.0) / e, -1.0, 1.0);
    const double nu = -std::acos(cos_nu);
    const double vscale = std::sqrt(total_mass / p);
    RelativeOrbitState s;
    s.position = {r0 * std::cos(nu), r0 * std::sin(nu), 0.0};
    s.velocity = {-vscale * std::sin(nu), vscale * (e + std::cos(nu)), 0.0};

    if (circular) {
        s.time_to_pericentre = 0.0;
    } else if (std::abs(e - 1.0) < 1e-9) {
        const double D = std::tan(0.5 * nu);  // Barker's equation
        s.time_to_pericentre = -0.5 * std::sqrt(p * p * p / total_mass) * (D + D * D * D / 3.0);
    } else if (e < 1.0) {
        const double a = rp / (1.0 - e);
        const double E = 2.0 * std::atan(std::sqrt((1.0 - e) / (1.0 + e)) * std::tan(0.5 * nu));
        s.time_to_pericentre = -(E - e * std::sin(E)) / std::sqrt(total_mass / (a * a * a));
    } else {
        const double a = rp / (e - 1.0);
        const double H = 2.0 * std::atanh(std::sqrt((e - 1.0) / (e + 1.0)) * std::tan(0.5 * nu));
        s.time_to_pericentre = -(e * std::sinh(H) - H) / std::sqrt(total_mass / (a * a * a));
    }
    return s;
}

Mat3 operator*(const Mat3& a, const Mat3& b) {
    Mat3 c;
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) {
            double s = 0;
            for (int k = 0; k < 3; ++k) s += a.m[3 * i + k] * b.m[3 * k + j];
            c.m[3 * i + j] = s;
        }
    return c;
}

Mat3 rotation_about(const Vec3d& axis_in, double angle) {
    const Vec3d k = axis_in / norm(axis_in);
    const double c = std::cos(angle), s = std::sin(angle), t = 1.0 - c;
    Mat3 r;
    r.m = {t * k.x * k.x + c,       t * k.x * k.y - s * k.z, t * k.x * k.z + s * k.y,
           t * k.x * k.y + s * k.z, t * k.y * k.y + c,       t * k.y * k.z - s * k.x,
           t * k.x * k.z - s * k.y, t * k.y * k.z + s * k.x, t * k.z * k.z + c};
    return r;
}

Mat3 disk_rotation(const DiskOrientation& o) {
    const double w = o.argument_deg * kDeg;
    return rotation_about({std::cos(w), -std::sin(w), 0.0}, o.inclination_deg * kDeg);
}

Mat3 plane_rotation(const OrbitPlane& plane) {
    return rotation_about({0, 0, 1}, plane.node_deg * kDeg) * rotation_about({1, 0, 0}, plane.inclination_deg * kDeg);
}

void rotate(State& state, const Mat3& rot) {
    for (std::size_t i = 0; i < state.size(); ++i) {
        Vec4f& p = state.pos_mass[i];
        Vec4f& v = state.velocity[i];
        const Vec3d x = rot * xyz(p), u = rot * xyz(v);
        p = {float(x.x), float(x.y), float(x.z), p.w};
        v = {float(u.x), float(u.y), float(u.z), v.w};
    }
}

void centre_of_mass(const State& state, Vec3d& position, Vec3d& velocity) {
    position = {};
    velocity = {};
    double mass = 0;
    for (std::size_t i = 0; i < state.size(); ++i) {
        const double m = state.pos_mass[i].w;
        position += m * xyz(state.pos_mass[i]);
        velocity += m * xyz(state.velocity[i]);
        mass += m;
    }
    if (mass > 0) {
        position = position / mass;
        velocity = velocity / mass;
    }
}

State assemble_encounter(std::vector<EncounterMember> members) {
    if (members.empty()) throw std::invalid_argument("encounter: no galaxies");
    if (members.front().orbit) throw std::invalid_argument("encounter: the first galaxy cannot have an orbit (later ones orbit it)");
    const std::size_t n = members.size();
    std::vector<double> mass(n, 0.0);
    std::vector<Vec3d> offset(n), drift(n);

    for (std::size_t k = 0; k < n; ++k) {
        EncounterMember& g = members[k];
        if (g.body.empty()) throw std::invalid_argument("encounter: galaxy " + std::to_string(k) + " has no particles");
        // Re-centre: the contract says bodies come centred, but a caller's hand-made body may not.
        Vec3d c, cv;
        centre_of_mass(g.body, c, cv);
        for (std::size_t i = 0; i < g.body.size(); ++i) {
            Vec4f& p = g.body.pos_mass[i];
            Vec4f& v = g.body.velocity[i];
            p = {float(p.x - c.x), float(p.y - c.y), float(p.z - c.z), p.w};
            v = {float(v.x - cv.x), float(v.y - cv.y), float(v.z - cv.z), v.w};
            mass[k] += p.w;
        }
        Mat3 frame;  // identity: the scene frame
        if (g.orbit) frame = plane_rotation(g.plane);
        else if (k == 0 && n > 1 && members[1].orbit) frame = plane_rotation(members[1].plane);
        rotate(g.body, frame * disk_rotation(g.orientation));
    }

    // Place members in turn, keeping the centre of mass of those placed so far where it was.
    double group_mass = 0;
    Vec3d group_com, group_vel;
    for (std::size_t k = 0; k < n; ++k) {
        const EncounterMember& g = members[k];
        if (g.orbit) {
            const Mat3 frame = plane_rotation(g.plane);
            const RelativeOrbitState rel = kepler_initial_conditions(group_mass + mass[k], *g.orbit);
            const Vec3d r = frame * rel.position, v = frame * rel.velocity;
            const double f = mass[k] / (group_mass + mass[k]);
            for (std::size_t j = 0; j < k; ++j) {
                offset[j] -= f * r;
                drift[j] -= f * v;
            }
            offset[k] = group_com + (1.0 - f) * r;
            drift[k] = group_vel + (1.0 - f) * v;
        } else {
            offset[k] = g.position;
            drift[k] = g.velocity;
        }
        group_mass += mass[k];
        group_com = {};
        group_vel = {};
        for (std::size_t j = 0; j <= k; ++j) {
            group_com += mass[j] * offset[j];
            group_vel += mass[j] * drift[j];
        }
        group_com = group_com / group_mass;
        group_vel = group_vel / group_mass;
    }

    State out;
    std::size_t total = 0;
    for (const auto& g : members) total += g.body.size();
    out.pos_mass.reserve(total);
    out.velocity.reserve(total);
    out.galaxy.reserve(total);
    out.component.reserve(total);
    for (std::size_t k = 0; k < n; ++k) {
        const State& b = members[k].body;
        const Vec3d x0 = offset[k] - group_com, v0 = drift[k] - group_vel;  // centre-of-mass frame
        for (std::size_t i = 0; i < b.size(); ++i) {
            const Vec4f& p = b.pos_mass[i];
            const Vec4f& v = b.velocity[i];
            out.pos_mass.push_back({float(p.x + x0.x), float(p.y + x0.y), float(p.z + x0.z), p.w});
            out.velocity.push_back({float(v.x + v0.x), float(v.y + v0.y), float(v.z + v0.z), 0.0f});
            out.galaxy.push_back(std::uint16_t(k));
            out.component.push_back(b.component.empty() ? Component::Unspecified : b.component[i]);
        }
    }
    return out;
}

}  // namespace nbody::ic
