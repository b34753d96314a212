#pragma once
// The Encounter panel's preview of the two orbits (as Galaxy Crash shows them, issue 33 item 4):
// the paths of the two galaxies' centres as point masses on the edited Kepler orbit, in the orbit
// plane and the centre-of-mass frame. Pure: the panel draws it, tests check it.

#include <vector>

#include "nbody/sim/encounter_spec.hpp"

namespace nbody::app {

struct OrbitPreview {
    // Orbit-plane (x, y) points from the start: pericentre on +x, orbital motion counter-clockwise
    // (ic/orbit.hpp's frame). Unbound orbits run from the start through pericentre out to the
    // starting separation again; bound ones go once round the whole ellipse.
    std::vector<Vec3d> primary, secondary;
    double start_separation = 0;
};

// `m1`, `m2`: the galaxies' masses. Throws std::invalid_argument as the orbit's own builder does
// (a separation past apocentre, a time no separation reaches).
OrbitPreview orbit_preview(double m1, double m2, const EncounterSettings& settings, int points = 160);

}  // namespace nbody::app
