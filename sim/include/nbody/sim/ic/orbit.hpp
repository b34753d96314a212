#pragma once
// Encounters: galaxies placed on Keplerian orbits, each disk oriented in the convention of
// Toomre & Toomre (1972, ApJ 178, 623), everything in the centre-of-mass frame. G = 1.
//
// Orbit frame: the relative orbit lies in the x-y plane, the orbital angular momentum points
// along +z and pericentre lies on +x. The galaxies start approaching, before pericentre.
//
// Disk orientation (TT72, as used by Barnes 1988): the inclination i is the angle between the
// disk's spin and the orbital angular momentum (0: prograde in the orbit plane, 180: retrograde,
// 90: polar); the argument omega is the angle, in the orbit plane and in the sense of the orbital
// motion, from the line of nodes to pericentre. A disk is built spinning about +z and turned by i
// about the node line n = (cos omega, -sin omega, 0).

#include <array>
#include <cstdint>
#include <optional>
#include <vector>

#include "nbody/sim/state.hpp"
#include "nbody/sim/types.hpp"

namespace nbody::ic {

struct KeplerOrbit {
    double pericentre = 1.0;    // r_p > 0
    double separation = 10.0;   // starting separation, >= r_p (and <= apocentre when e < 1)
    double eccentricity = 1.0;  // 1 parabolic (the default), < 1 bound, > 1 hyperbolic
};

struct RelativeOrbitState {
    Vec3d position;              // secondary minus primary, in the orbit frame
    Vec3d velocity;
    double time_to_pericentre;   // Kepler's equation (Barker's for e = 1)
};

// Throws std::invalid_argument naming the problem (r_p <= 0, separation below pericentre or past
// apocentre, e < 0, non-positive mass).
RelativeOrbitState kepler_initial_conditions(double total_mass, const KeplerOrbit& orbit);

// Row-major 3x3 rotation.
struct Mat3 {
    std::array<double, 9> m{1, 0, 0, 0, 1, 0, 0, 0, 1};
    Vec3d operator*(const Vec3d& v) const {
        return {m[0] * v.x + m[1] * v.y + m[2] * v.z, m[3] * v.x + m[4] * v.y + m[5] * v.z,
                m[6] * v.x + m[7] * v.y + m[8] * v.z};
    }
    friend Mat3 operator*(const Mat3& a, const Mat3& b);
};

// Rotation by `angle_rad` about the unit vector `axis` (Rodrigues).
Mat3 rotation_about(const Vec3d& axis, double angle_rad);

struct DiskOrientation {
    double inclination_deg = 0.0;
    double argument_deg = 0.0;
};

// Takes a disk built spinning about +z to the TT72 orientation within its orbit frame.
Mat3 disk_rotation(const DiskOrientation& orientation);

// Orientation of an orbit frame within the scene: its plane tilted by `inclination_deg` about
// the scene's x axis, then turned by `node_deg` about the scene's z axis. Zero: the scene's x-y plane.
struct OrbitPlane {
    double inclination_deg = 0.0;
    double node_deg = 0.0;
};
Mat3 plane_rotation(const OrbitPlane& plane);

// Rotates positions and velocities about the origin.
void rotate(State& state, const Mat3& rotation);

// One galaxy of an encounter: its particles centred at rest at the origin (disk spinning about
// +z) and where it goes.
struct EncounterMember {
    State body;
    DiskOrientation orientation;  // relative to its orbit frame (to the scene frame when placed explicitly)
    // Members after the first may orbit the centre of mass of the members before them, the group
    // taken as a point mass (a hierarchical set-up; exact for two galaxies).
    std::optional<KeplerOrbit> orbit;
    OrbitPlane plane;             // orientation of that orbit in the scene
    // Without an orbit: position and velocity in the scene frame (before the final shift to the
    // centre-of-mass frame).
    Vec3d position, velocity;
};

// Rotates, places and concatenates the members, giving member k galaxy index k, and moves the
// result to the centre-of-mass frame. The first member's disk is oriented relative to the
// second member's orbit when the second has one (TT72 specify both disks against the one
// relative orbit). Throws std::invalid_argument when the first member has an orbit or a member
// has no particles.
State assemble_encounter(std::vector<EncounterMember> members);

// Mass-weighted centre of mass and its velocity.
void centre_of_mass(const State& state, Vec3d& position, Vec3d& velocity);

}  // namespace nbody::ic
