#pragma once
// Camera helpers that need the particles: a galaxy's centre of mass (to follow it) and its
// disk's spin axis (to look at the disk face-on or edge-on).

#include <glm/vec3.hpp>

#include "nbody/sim/state.hpp"

namespace nbody::app {

struct GalaxyFrame {
    Vec3d centre, velocity;  // centre of mass and its velocity
    Vec3d spin;              // the disk's angular momentum (all of the galaxy's if it has no disk)
    bool found = false;      // the galaxy has bodies
};

// Galaxy `k`'s centre of mass and disk spin, from a host copy of the state.
GalaxyFrame galaxy_frame(const State& state, int k);

// Distinct galaxy labels (the largest label + 1; 1 when unlabelled).
int count_galaxies(const State& state);
// The components present: bit c set when some body is Component c (the component legend's entries).
unsigned component_bits(const State& state);

// The followed galaxy's position, extrapolated from its last measurement (a few times a second)
// with its velocity; galaxies accelerate, so the refreshes keep it honest.
struct GalaxyTrack {
    int galaxy = -1;
    GalaxyFrame frame;
    double time = 0;     // model time of `frame`
    double wall = -1e9;  // seconds (steady clock) when it was measured
    glm::vec3 at(double t) const {
        const Vec3d p = frame.centre + frame.velocity * (t - time);
        return {float(p.x), float(p.y), float(p.z)};
    }
};

}  // namespace nbody::app
