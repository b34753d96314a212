// The Encounter panel's preview of the two orbits (issue 33 item 4): the galaxy centres' paths as
// point masses on the edited Kepler orbit, as the scene will be built.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "nbody/sim/ic/orbit.hpp"
#include "orbit_preview.hpp"

namespace nbody::app {
namespace {

std::vector<double> separations(const OrbitPreview& p) {
    std::vector<double> d;
    for (std::size_t i = 0; i < p.primary.size(); ++i) d.push_back(norm(p.secondary[i] - p.primary[i]));
    return d;
}

EncounterSettings parabolic() {
    EncounterSettings s;
    s.pericentre = 15;
    s.eccentricity = 1.0;
    s.separation = 130;
    return s;
}

TEST(OrbitPreview, RunsFromTheStartThroughPericentreAndOutAgain) {
    const OrbitPreview p = orbit_preview(4.0, 5.0, parabolic(), 2000);
    const std::vector<double> d = separations(p);
    EXPECT_NEAR(d.front(), 130.0, 1e-9);
    EXPECT_NEAR(d.back(), 130.0, 1e-9);
    EXPECT_NEAR(*std::min_element(d.begin(), d.end()), 15.0, 0.01) << "the closest approach is the pericentre";
}

TEST(OrbitPreview, StartsWhereTheSceneBuilderPutsTheSecondGalaxy) {
    const EncounterSettings s = parabolic();
    const OrbitPreview p = orbit_preview(4.0, 5.0, s);
    const ic::RelativeOrbitState start = ic::kepler_initial_conditions(9.0, {s.pericentre, s.separation, s.eccentricity});
    const Vec3d relative = p.secondary.front() - p.primary.front();
    EXPECT_NEAR(relative.x, start.position.x, 1e-9);
    EXPECT_NEAR(relative.y, start.position.y, 1e-9);
    // Then it moves the way the builder's velocity points.
    const Vec3d next = p.secondary[1] - p.primary[1];
    EXPECT_GT((next.x - relative.x) * start.velocity.x + (next.y - relative.y) * start.velocity.y, 0.0);
}

TEST(OrbitPreview, TheCentreOfMassStaysPutAndTheHeavierGalaxyMovesLess) {
    const OrbitPreview p = orbit_preview(1.0, 3.0, parabolic());
    for (std::size_t i = 0; i < p.primary.size(); ++i) {
        const Vec3d com = p.primary[i] * 1.0 + p.secondary[i] * 3.0;
        EXPECT_NEAR(norm(com), 0.0, 1e-9);
        EXPECT_NEAR(norm(p.primary[i]), 3.0 * norm(p.secondary[i]), 1e-9);
    }
}

TEST(OrbitPreview, ABoundOrbitIsDrawnOnceRoundToItsApocentre) {
    EncounterSettings s = parabolic();
    s.eccentricity = 0.5;  // apocentre 45
    s.separation = 30;
    const std::vector<double> d = separations(orbit_preview(1.0, 1.0, s, 2000));
    EXPECT_NEAR(d.front(), 30.0, 1e-9);
    EXPECT_NEAR(d.back(), 30.0, 1e-9);
    EXPECT_NEAR(*std::max_element(d.begin(), d.end()), 45.0, 0.01);
    EXPECT_NEAR(*std::min_element(d.begin(), d.end()), 15.0, 0.01);
}

TEST(OrbitPreview, StartingByTimeStartsAtTheSeparationThatTimeGives) {
    EncounterSettings s = parabolic();
    s.start_by_time = true;
    s.time_to_pericentre = 30;
    const OrbitPreview p = orbit_preview(4.0, 5.0, s);
    EXPECT_NEAR(p.start_separation, separation_for_time(9.0, 15.0, 1.0, 30.0), 1e-9);
    EXPECT_NEAR(separations(p).front(), p.start_separation, 1e-9);
}

TEST(OrbitPreview, AnImpossibleOrbitSaysWhy) {
    EncounterSettings s = parabolic();
    s.eccentricity = 0.5;
    s.separation = 100;  // past the apocentre, 45
    EXPECT_THROW(orbit_preview(1.0, 1.0, s), std::invalid_argument);
}

}  // namespace
}  // namespace nbody::app
