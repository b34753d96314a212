#include "orbit_preview.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>

#include "nbody/sim/ic/orbit.hpp"

namespace nbody::app {

OrbitPreview orbit_preview(double m1, double m2, const EncounterSettings& s, int points) {
    const double total = m1 + m2, e = s.eccentricity, rp = s.pericentre;
    OrbitPreview preview;
    preview.start_separation =
        s.start_by_time ? separation_for_time(total, rp, e, s.time_to_pericentre) : s.separation;
    // Validates the orbit as building it would (and says why not).
    (void)ic::kepler_initial_conditions(total, {rp, preview.start_separation, e});
    // The conic r(f) = p / (1 + e cos f), from the start's true anomaly f0 < 0 (approaching):
    // to -f0 when unbound, once round when bound.
    const double p = rp * (1 + e);
    const double f0 = e > 0 ? -std::acos(std::clamp((p / preview.start_separation - 1) / e, -1.0, 1.0)) : -std::numbers::pi / 2;
    const double span = e < 1 ? 2 * std::numbers::pi : -2 * f0;
    for (int k = 0; k <= points; ++k) {
        const double f = f0 + span * k / points;
        const double r = p / (1 + e * std::cos(f));
        const Vec3d relative{r * std::cos(f), r * std::sin(f), 0};  // secondary minus primary
        preview.primary.push_back(relative * (-m2 / total));
        preview.secondary.push_back(relative * (m1 / total));
    }
    return preview;
}

}  // namespace nbody::app
