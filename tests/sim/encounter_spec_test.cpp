// The encounter editor's model (encounter_spec.hpp): the orbit set up from (mass ratio,
// pericentre, e) reaches the requested pericentre, at the requested time; bad values are named;
// an edited encounter written as a scene file builds the same bodies; the Cartwheel preset (its
// intruder placed by position/velocity) is the same encounter in orbit form.

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <numbers>
#include <string>

#include "nbody/sim/encounter_spec.hpp"

namespace nbody {
namespace {

const std::string kScenes = std::string(NBODY_SOURCE_DIR) + "/scenes";

EncounterPreset preset(const char* file) { return encounter_preset(read_scene_spec(kScenes + "/" + file)); }

struct Pair {
    double m[2] = {0, 0};
    Vec3d x[2], v[2];
    Vec3d spin0;  // galaxy 0's disk angular momentum about its centre
};

// Each galaxy's mass, centre of mass and its velocity, from the built particles.
Pair pair_of(const State& s) {
    Pair p;
    for (std::size_t i = 0; i < s.size(); ++i) {
        const int k = s.galaxy[i];
        const double w = s.pos_mass[i].w;
        p.m[k] += w;
        p.x[k] += w * xyz(s.pos_mass[i]);
        p.v[k] += w * xyz(s.velocity[i]);
    }
    for (int k = 0; k < 2; ++k) {
        p.x[k] = p.x[k] / p.m[k];
        p.v[k] = p.v[k] / p.m[k];
    }
    for (std::size_t i = 0; i < s.size(); ++i)
        if (s.galaxy[i] == 0 && s.component[i] == Component::Disk)
            p.spin0 += double(s.pos_mass[i].w) * cross(xyz(s.pos_mass[i]) - p.x[0], xyz(s.velocity[i]) - p.v[0]);
    return p;
}

// Two point masses integrated with leapfrog (kick-drift-kick) until they separate again:
// the closest approach and when it happens.
struct Approach {
    double distance = 1e300, time = 0;
};
Approach closest_approach(double mass, Vec3d r, Vec3d v, double dt, double t_max) {
    Approach a;
    auto accel = [&](const Vec3d& x) { return -mass / std::pow(dot(x, x), 1.5) * x; };
    Vec3d acc = accel(r);
    for (double t = 0; t < t_max; t += dt) {
        const double d = norm(r);
        if (d < a.distance) a = {d, t};
        v += 0.5 * dt * acc;
        r += dt * v;
        acc = accel(r);
        v += 0.5 * dt * acc;
    }
    return a;
}

TEST(EncounterSpec, TheOrbitReachesTheRequestedPericentreAtTheRequestedTime) {
    const EncounterPreset base = preset("milky-way-andromeda.toml");
    struct Case {
        double q, rp, e, t_or_sep;
        bool by_time;
    };
    for (const Case c : {Case{0.5, 12.0, 0.7, 40.0, true}, Case{1.0, 8.0, 1.0, 30.0, true},
                         Case{0.25, 20.0, 1.5, 150.0, false}, Case{3.0, 5.0, 0.95, 100.0, false}}) {
        SCOPED_TRACE("q " + std::to_string(c.q) + " rp " + std::to_string(c.rp) + " e " + std::to_string(c.e));
        EncounterSettings s = base.settings;
        s.mass_ratio = c.q;
        s.pericentre = c.rp;
        s.eccentricity = c.e;
        s.start_by_time = c.by_time;
        (c.by_time ? s.time_to_pericentre : s.separation) = c.t_or_sep;
        s.bodies = 2000;
        const SceneSpec spec = make_encounter(base, s);
        ASSERT_EQ(spec.bodies, 2000u);
        const Pair p = pair_of(build_scene(spec).state);
        EXPECT_NEAR(p.m[1] / p.m[0], c.q, 1e-5 * c.q);
        const double mass = p.m[0] + p.m[1];
        const Vec3d r = p.x[1] - p.x[0], v = p.v[1] - p.v[0];
        // Analytically: the Kepler orbit of these two point masses.
        const Vec3d h = cross(r, v);
        const double e = norm(cross(v, h) / mass - r / norm(r));
        EXPECT_NEAR(e, c.e, 1e-4);
        EXPECT_NEAR(dot(h, h) / (mass * (1 + e)), c.rp, 1e-4 * c.rp);
        EXPECT_LT(dot(r, v), 0);  // approaching
        if (!c.by_time) {
            EXPECT_NEAR(norm(r), c.t_or_sep, 1e-5 * c.t_or_sep);
        }
        // And by integrating them.
        const double t_expected = c.by_time ? c.t_or_sep
                                            : ic::kepler_initial_conditions(mass, *spec.galaxies[1].orbit).time_to_pericentre;
        const Approach a = closest_approach(mass, r, v, t_expected * 2e-5, 1.5 * t_expected);
        EXPECT_NEAR(a.distance, c.rp, 1e-3 * c.rp);
        EXPECT_NEAR(a.time, t_expected, 1e-3 * t_expected);
    }
}

TEST(EncounterSpec, BadValuesAreNamedErrors) {
    const EncounterPreset base = preset("antennae.toml");
    auto message = [&](auto change) {
        EncounterSettings s = base.settings;
        change(s);
        try {
            make_encounter(base, s);
        } catch (const std::invalid_argument& e) {
            return std::string(e.what());
        }
        return std::string("(no error)");
    };
    EXPECT_EQ(message([](EncounterSettings& s) { s.eccentricity = -0.1; }),
              "eccentricity must be >= 0 (got -0.1; 1 parabolic, < 1 bound, > 1 hyperbolic)");
    EXPECT_EQ(message([](EncounterSettings& s) { s.pericentre = 0; }), "pericentre must be > 0 (got 0)");
    EXPECT_EQ(message([](EncounterSettings& s) { s.pericentre = -3; }), "pericentre must be > 0 (got -3)");
    EXPECT_EQ(message([](EncounterSettings& s) { s.mass_ratio = 0; }), "mass ratio must be > 0 (got 0)");
    EXPECT_EQ(message([](EncounterSettings& s) { s.mass_ratio = -2; }), "mass ratio must be > 0 (got -2)");
    EXPECT_NE(message([](EncounterSettings& s) { s.separation = 4; }).find("separation 4 is inside the pericentre 8"),
              std::string::npos);
    EXPECT_NE(message([](EncounterSettings& s) { s.eccentricity = 0.5, s.separation = 100; }).find("beyond the apocentre"),
              std::string::npos);
    EXPECT_NE(message([](EncounterSettings& s) {
                  s.eccentricity = 0.5, s.start_by_time = true, s.time_to_pericentre = 1e6;
              }).find("more than half the period"),
              std::string::npos);
    EXPECT_NE(message([](EncounterSettings& s) { s.start_by_time = true, s.time_to_pericentre = 0; })
                  .find("time to pericentre must be > 0"),
              std::string::npos);
    EXPECT_NE(message([](EncounterSettings& s) { s.disk[1].inclination_deg = 200; }).find("galaxy 2 inclination"),
              std::string::npos);
    EXPECT_NE(message([](EncounterSettings& s) { s.bodies = 3; }).find("particle count must be at least 6"),
              std::string::npos);
    EXPECT_EQ(message([](EncounterSettings&) {}), "(no error)");
}

TEST(EncounterSpec, AnEditedEncounterSavedAsASceneFileBuildsTheSameBodies) {
    const EncounterPreset base = preset("milky-way-andromeda.toml");
    EncounterSettings s = base.settings;
    s.mass_ratio = 0.4;
    s.pericentre = 11.5;
    s.eccentricity = 1.2;
    s.start_by_time = true;
    s.time_to_pericentre = 37.5;
    s.disk[1] = reversed_spin(s.disk[1]);
    s.bodies = 1500;
    const SceneSpec spec = make_encounter(base, s);
    const SceneSpec back = parse_scene_spec(scene_spec_to_toml(spec), "edited.toml");
    const State a = build_scene(spec).state, b = build_scene(back).state;
    ASSERT_EQ(a.size(), b.size());
    EXPECT_EQ(0, std::memcmp(a.pos_mass.data(), b.pos_mass.data(), a.size() * sizeof(a.pos_mass[0])));
    EXPECT_EQ(0, std::memcmp(a.velocity.data(), b.velocity.data(), a.size() * sizeof(a.velocity[0])));
    EXPECT_EQ(a.galaxy, b.galaxy);
    EXPECT_EQ(a.component, b.component);
    // Read back into the editor, the file gives the settings it was made from.
    const EncounterPreset again = encounter_preset(back);
    EXPECT_NEAR(again.settings.mass_ratio, 0.4, 1e-12);
    EXPECT_EQ(again.settings.pericentre, 11.5);
    EXPECT_EQ(again.settings.eccentricity, 1.2);
    EXPECT_NEAR(again.settings.time_to_pericentre, 37.5, 1e-9);
    EXPECT_EQ(again.settings.disk[1].inclination_deg, s.disk[1].inclination_deg);
}

TEST(EncounterSpec, ThePresetOfEachOrbitSceneIsTheSceneItself) {
    for (const char* file : {"antennae.toml", "milky-way-andromeda.toml"}) {
        SCOPED_TRACE(file);
        SceneSpec spec = read_scene_spec(kScenes + "/" + file);
        scale_scene_spec(spec, 1000);
        const EncounterPreset p = encounter_preset(spec);
        const SceneSpec same = make_encounter(p, p.settings);
        const State a = build_scene(spec).state, b = build_scene(same).state;
        ASSERT_EQ(a.size(), b.size());
        EXPECT_EQ(0, std::memcmp(a.pos_mass.data(), b.pos_mass.data(), a.size() * sizeof(a.pos_mass[0])));
        EXPECT_EQ(0, std::memcmp(a.velocity.data(), b.velocity.data(), a.size() * sizeof(a.velocity[0])));
        EXPECT_EQ(same.camera.distance, spec.camera.distance);
    }
}

TEST(EncounterSpec, TheCartwheelPresetIsTheSameEncounterInOrbitForm) {
    SceneSpec file = read_scene_spec(kScenes + "/cartwheel.toml");
    scale_scene_spec(file, 3000);
    const EncounterPreset p = encounter_preset(file);
    ASSERT_TRUE(p.spec.galaxies[1].orbit.has_value());
    const Pair a = pair_of(build_scene(file).state);
    const Pair b = pair_of(build_scene(make_encounter(p, p.settings)).state);
    const Vec3d ra = a.x[1] - a.x[0], va = a.v[1] - a.v[0], rb = b.x[1] - b.x[0], vb = b.v[1] - b.v[0];
    // The same relative motion up to a rotation of the whole scene: lengths and angles agree.
    EXPECT_NEAR(norm(rb), norm(ra), 1e-4 * norm(ra));
    EXPECT_NEAR(norm(vb), norm(va), 1e-4 * norm(va));
    EXPECT_NEAR(dot(rb, vb), dot(ra, va), 1e-4 * norm(ra) * norm(va));
    EXPECT_NEAR(b.m[1] / b.m[0], a.m[1] / a.m[0], 1e-6);
    // The target disk's spin makes the same angles with the relative position and velocity
    // (the intruder falls along its axis in both), measured on the particles.
    const Vec3d sa = a.spin0 / norm(a.spin0), sb = b.spin0 / norm(b.spin0);
    EXPECT_NEAR(dot(sb, rb / norm(rb)), dot(sa, ra / norm(ra)), 0.02);
    EXPECT_NEAR(dot(sb, vb / norm(vb)), dot(sa, va / norm(va)), 0.02);
    // The camera was turned with the scene: it still looks down the target's spin.
    const double az = p.spec.camera.azimuth_deg * std::numbers::pi / 180, el = p.spec.camera.elevation_deg * std::numbers::pi / 180;
    const Vec3d eye{std::cos(el) * std::cos(az), std::cos(el) * std::sin(az), std::sin(el)};
    const double az0 = file.camera.azimuth_deg * std::numbers::pi / 180, el0 = file.camera.elevation_deg * std::numbers::pi / 180;
    const Vec3d eye0{std::cos(el0) * std::cos(az0), std::cos(el0) * std::sin(az0), std::sin(el0)};
    EXPECT_NEAR(dot(eye, sb), dot(eye0, sa), 0.02);
}

TEST(EncounterSpec, ReversedSpinTurnsTheDiskTheOtherWayInTheSamePlane) {
    for (const ic::DiskOrientation d : {ic::DiskOrientation{15, -30}, ic::DiskOrientation{60, 120},
                                        ic::DiskOrientation{90, 0}, ic::DiskOrientation{0, 0}}) {
        const ic::DiskOrientation r = reversed_spin(d);
        const Vec3d s = ic::disk_rotation(d) * Vec3d{0, 0, 1}, t = ic::disk_rotation(r) * Vec3d{0, 0, 1};
        EXPECT_NEAR(norm(s + t), 0.0, 1e-12);
        EXPECT_EQ(is_retrograde(r), d.inclination_deg < 90);
        const ic::DiskOrientation back = reversed_spin(r);
        EXPECT_NEAR(back.inclination_deg, d.inclination_deg, 1e-12);
        EXPECT_NEAR(std::remainder(back.argument_deg - d.argument_deg, 360.0), 0.0, 1e-12);
    }
}

TEST(EncounterSpec, SeparationForTimeInvertsKeplersEquation) {
    for (const double e : {0.3, 0.9, 1.0, 2.0})
        for (const double t : {1.0, 10.0, 40.0}) {
            double sep = 0;
            try {
                sep = separation_for_time(200.0, 10.0, e, t);
            } catch (const std::invalid_argument&) {
                continue;  // longer than half a bound period: checked by the errors test
            }
            EXPECT_NEAR(ic::kepler_initial_conditions(200.0, {10.0, sep, e}).time_to_pericentre, t, 1e-9 * t);
        }
}

}  // namespace
}  // namespace nbody
