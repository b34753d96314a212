// Encounter orbits: point masses placed by kepler_initial_conditions / assemble_encounter reach the
// requested pericentre at the predicted time, and disks are oriented per Toomre & Toomre (1972).

#include <gtest/gtest.h>

#include <cmath>
#include <iostream>
#include <memory>
#include <numbers>
#include <stdexcept>

#include "nbody/sim/backend.hpp"
#include "nbody/sim/ic/galaxy.hpp"
#include "nbody/sim/ic/models.hpp"
#include "nbody/sim/ic/orbit.hpp"

namespace nbody {
namespace {

struct Passage {
    double min_separation = 1e300;
    double time_of_min = 0;
};

// Two point masses of masses m1, m2 on the given orbit, integrated in double with the reference
// backend (no softening) until well past pericentre.
Passage fly(double m1, double m2, const ic::KeplerOrbit& orbit, double dt, double t_end) {
    std::vector<ic::EncounterMember> members(2);
    members[0].body = ic::make_point_mass(m1);
    members[1].body = ic::make_point_mass(m2);
    members[1].orbit = orbit;
    members[1].plane = {.inclination_deg = 35.0, .node_deg = 20.0};  // any plane: a rotation
    const State s0 = ic::assemble_encounter(std::move(members));
    auto backend = make_backend(BackendKind::Reference, std::cout);
    backend->load(s0);
    const StepParams params{.dt = dt, .softening = 0.0};
    Passage p;
    State s = s0;
    for (double t = 0; t < t_end; t += dt) {
        backend->step(params, 1);
        backend->store(s);
        const double r = norm(xyz(s.pos_mass[1]) - xyz(s.pos_mass[0]));
        if (r < p.min_separation) p = {r, s.time};
    }
    return p;
}

TEST(IcOrbit, ParabolicPointMassesReachTheRequestedPericentre) {
    const ic::KeplerOrbit orbit{.pericentre = 1.0, .separation = 20.0, .eccentricity = 1.0};
    const double t_peri = ic::kepler_initial_conditions(4.0, orbit).time_to_pericentre;
    const Passage p = fly(1.0, 3.0, orbit, 2e-3, t_peri + 5.0);
    std::cout << "[ measured ] parabolic: pericentre " << p.min_separation << " (asked 1.0, error "
              << 100 * std::abs(p.min_separation - 1.0) << "%), at t = " << p.time_of_min << " (predicted " << t_peri << ")\n";
    EXPECT_NEAR(p.min_separation, 1.0, 0.02);
    EXPECT_NEAR(p.time_of_min, t_peri, 0.01 * t_peri);
}

TEST(IcOrbit, BoundAndHyperbolicOrbitsReachTheirPericentres) {
    for (double e : {0.5, 2.0}) {
        const ic::KeplerOrbit orbit{.pericentre = 2.0, .separation = 5.0, .eccentricity = e};
        const double t_peri = ic::kepler_initial_conditions(2.0, orbit).time_to_pericentre;
        const Passage p = fly(1.0, 1.0, orbit, 2e-3, t_peri + 2.0);
        EXPECT_NEAR(p.min_separation, 2.0, 0.04) << "e = " << e;
        EXPECT_NEAR(p.time_of_min, t_peri, 0.01 * t_peri) << "e = " << e;
    }
}

TEST(IcOrbit, InitialConditionsObeyKepler) {
    const double M = 7.0;
    const ic::KeplerOrbit orbit{.pericentre = 3.0, .separation = 30.0, .eccentricity = 1.0};
    const auto s = ic::kepler_initial_conditions(M, orbit);
    EXPECT_NEAR(norm(s.position), 30.0, 1e-9);
    EXPECT_NEAR(0.5 * dot(s.velocity, s.velocity) - M / 30.0, 0.0, 1e-12);  // parabolic: E = 0
    const Vec3d h = cross(s.position, s.velocity);
    EXPECT_NEAR(h.z, std::sqrt(M * 2 * 3.0), 1e-9);  // h^2 = G M p, p = 2 r_p; +z
    EXPECT_LT(dot(s.position, s.velocity), 0.0);     // approaching
}

TEST(IcOrbit, ImpossibleOrbitsAreRefused) {
    EXPECT_THROW(ic::kepler_initial_conditions(1.0, {.pericentre = 5.0, .separation = 2.0}), std::invalid_argument);
    EXPECT_THROW(ic::kepler_initial_conditions(1.0, {.pericentre = 1.0, .separation = 10.0, .eccentricity = 0.5}),
                 std::invalid_argument);  // past the apocentre 3
    EXPECT_THROW(ic::kepler_initial_conditions(1.0, {.pericentre = 0.0, .separation = 2.0}), std::invalid_argument);
    EXPECT_THROW(ic::kepler_initial_conditions(-1.0, {.pericentre = 1.0, .separation = 2.0}), std::invalid_argument);
}

// Spin axis of a disk galaxy: its disk particles' angular momentum direction.
Vec3d spin(const State& s, std::uint16_t galaxy) {
    Vec3d c, v, l;
    State g;
    for (std::size_t i = 0; i < s.size(); ++i)
        if (s.galaxy[i] == galaxy && s.component[i] == Component::Disk) {
            g.pos_mass.push_back(s.pos_mass[i]);
            g.velocity.push_back(s.velocity[i]);
        }
    ic::centre_of_mass(g, c, v);
    for (std::size_t i = 0; i < g.size(); ++i)
        l += double(g.pos_mass[i].w) * cross(xyz(g.pos_mass[i]) - c, xyz(g.velocity[i]) - v);
    return l / norm(l);
}

TEST(IcOrbit, ToomreToomreOrientation) {
    ic::GalaxyParams disk;
    disk.disk = {.mass = 1.0, .bodies = 400, .scale_length = 1.0, .scale_height = 0.05, .max_radius = 0, .toomre_q = 1.2};
    disk.halo = {.mass = 4.0, .bodies = 10, .scale_radius = 2.0, .max_radius = 0};
    auto encounter = [&](double i1, double w1, double i2, double w2) {
        std::vector<ic::EncounterMember> m(2);
        m[0].body = ic::make_galaxy(disk);
        m[0].orientation = {i1, w1};
        m[1].body = ic::make_galaxy(disk);
        m[1].orientation = {i2, w2};
        m[1].orbit = ic::KeplerOrbit{.pericentre = 5.0, .separation = 40.0};
        return ic::assemble_encounter(std::move(m));
    };
    // i = 0: both spins along the orbital angular momentum (+z); i = 180: against it.
    State s = encounter(0, 0, 180, 0);
    EXPECT_NEAR(spin(s, 0).z, 1.0, 0.02);
    EXPECT_NEAR(spin(s, 1).z, -1.0, 0.02);
    // i = 90, omega = 0: the node line is the pericentre direction (+x), so the spin turns from
    // +z about x into the orbit plane, perpendicular to the pericentre direction.
    s = encounter(90, 0, 90, 90);
    EXPECT_NEAR(spin(s, 0).y, -1.0, 0.02);
    // omega = 90: node line 90 degrees before pericentre, along -y; the spin goes to -x.
    EXPECT_NEAR(spin(s, 1).x, -1.0, 0.02);
    // Total momentum zero and centre of mass at the origin.
    Vec3d c, v;
    ic::centre_of_mass(s, c, v);
    EXPECT_LT(norm(c), 1e-4);
    EXPECT_LT(norm(v), 1e-5);
    // Galaxy indices label each member.
    EXPECT_EQ(s.galaxy.front(), 0);
    EXPECT_EQ(s.galaxy.back(), 1);
}

}  // namespace
}  // namespace nbody
