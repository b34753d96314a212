// Issue 33, on the simulation side: a star cluster's Lagrangian and core radii, trail points
// spaced in model time, and the main-sequence temperatures that colour stars by mass.

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "nbody/sim/cluster_profile.hpp"
#include "nbody/sim/ic/plummer.hpp"
#include "nbody/sim/ic/stellar.hpp"
#include "nbody/sim/scene.hpp"
#include "nbody/sim/trail_sampler.hpp"
#include "test_support.hpp"

namespace nbody {
namespace {

// A Plummer sphere's radius enclosing mass fraction f: a (f^(-2/3) - 1)^(-1/2).
double plummer_radius(double f) { return 1.0 / std::sqrt(std::pow(f, -2.0 / 3.0) - 1.0); }

TEST(ClusterProfile, PlummerSphereHasItsLagrangianAndCoreRadii) {
    const State s = ic::make_plummer({.bodies = 20000, .total_mass = 1.0, .scale_radius = 1.0, .max_radius = 200.0, .seed = 3});
    const ClusterProfile p = measure_cluster(s);
    EXPECT_NEAR(p.r10, plummer_radius(0.1), 0.05 * plummer_radius(0.1));
    EXPECT_NEAR(p.r50, plummer_radius(0.5), 0.04 * plummer_radius(0.5));
    EXPECT_NEAR(p.r90, plummer_radius(0.9), 0.08 * plummer_radius(0.9));
    // King's core radius of a Plummer sphere: rho0 = 3/(4 pi), sigma^2 = 1/6, so a / sqrt(2).
    EXPECT_NEAR(p.core, std::sqrt(0.5), 0.12 * std::sqrt(0.5));
    // A cluster twice as large: every radius doubles.
    State big = s;
    for (Vec4f& b : big.pos_mass) b = {2 * b.x, 2 * b.y, 2 * b.z, b.w};
    for (Vec4f& v : big.velocity) v = {v.x / std::sqrt(2.0f), v.y / std::sqrt(2.0f), v.z / std::sqrt(2.0f), 0};
    const ClusterProfile q = measure_cluster(big);
    EXPECT_NEAR(q.r50, 2 * p.r50, 1e-5 * p.r50);
    EXPECT_NEAR(q.core, 2 * p.core, 1e-4 * p.core);
}

TEST(ClusterProfile, HistoryMeasuresByModelTimeAndKeepsItsSpan) {
    State s = ic::make_plummer({.bodies = 200, .seed = 1});
    ClusterHistory history(8);
    history.set_interval(0.25);
    int measured = 0;
    for (int step = 0; step <= 100; ++step) {  // dt = 1/32: a measurement every 8 steps
        s.time = step / 32.0;
        measured += history.observe(s);
    }
    EXPECT_EQ(history.samples().front().time, 0.0);
    EXPECT_LE(history.samples().size(), 8u) << "thinned to its capacity";
    EXPECT_GE(history.samples().back().time, 2.75) << "the newest measurement is kept";
    EXPECT_GT(measured, 8);
    history.clear();
    EXPECT_TRUE(history.samples().empty());
}

TEST(TrailSampler, PointsAreSpacedInModelTimeWhateverTheStepsPerCall) {
    TrailSampler sampler;
    sampler.set_interval(4.0 / 128);
    const std::vector<Vec4f> one{{1, 2, 3, 1}};
    for (int step = 0; step <= 40; ++step) sampler.record(step / 128.0, one);  // dt = 1/128
    const std::vector<TrailPoint> points = sampler.take();
    ASSERT_EQ(points.size(), 11u);
    for (std::size_t k = 0; k < points.size(); ++k) EXPECT_EQ(points[k].time, 4.0 * double(k) / 128) << k;
    EXPECT_TRUE(sampler.take().empty()) << "taken once";
    // A step that overshoots a sample time does not shift the ones after it.
    sampler.set_interval(0.05);
    sampler.restart();
    for (double t : {0.0, 0.03, 0.06, 0.09, 0.12, 0.16}) sampler.record(t, one);
    std::vector<double> times;
    for (const TrailPoint& p : sampler.take()) times.push_back(p.time);
    EXPECT_EQ(times, (std::vector<double>{0.0, 0.06, 0.12, 0.16}));  // the first state at or past 0.05, 0.10, 0.15
    sampler.set_interval(0);
    EXPECT_FALSE(sampler.record(1.0, one));

    // Points nobody takes are held to a bound: the newest, oldest dropped first.
    sampler.set_interval(1.0 / 128);
    for (int step = 0; step < 1000; ++step) sampler.record(step / 128.0, one);
    const std::vector<TrailPoint> held = sampler.take();
    ASSERT_EQ(held.size(), TrailSampler::kMaxHeld);
    EXPECT_EQ(held.back().time, 999 / 128.0);
    const std::vector<Vec4f> many(std::size_t(1) << 20);  // 16 MiB a point: 4 held
    for (int step = 1000; step < 1010; ++step) sampler.record(step / 128.0, many);
    EXPECT_EQ(sampler.take().size(), TrailSampler::kMaxHeldBytes / (many.size() * sizeof(Vec4f)));
}

TEST(StellarColours, MainSequenceTemperatureRisesWithMass) {
    EXPECT_NEAR(ic::main_sequence_temperature(1.0), 5800, 1);
    EXPECT_NEAR(ic::main_sequence_temperature(0.08), 2700, 1);
    EXPECT_EQ(ic::main_sequence_temperature(0.01), 2700);  // clamped
    EXPECT_EQ(ic::main_sequence_temperature(500.0), 45000);
    double last = 0;
    for (double m = 0.08; m < 100; m *= 1.1) {
        const double t = ic::main_sequence_temperature(m);
        EXPECT_GT(t, last) << m;
        last = t;
    }
}

TEST(StellarColours, KroupaClusterKnowsItsMassUnit) {
    // The mean of the Kroupa spectrum from 0.08 to 100 solar masses (Kroupa 2001: about 0.6 with
    // the 0.5 break, m^-1.3 below and m^-2.3 above).
    const double mean = ic::kroupa_mean_mass(0.08, 100.0);
    EXPECT_GT(mean, 0.3);
    EXPECT_LT(mean, 0.8);
    const Scene kroupa = load_scene(test::source_dir() + "/scenes/star-cluster-kroupa.toml");
    EXPECT_NEAR(kroupa.units.mass_unit_msun, 4096 * mean, 1e-9 * 4096 * mean);
    double drawn = 0;  // the stars' own masses in solar masses: near the spectrum's mean
    for (const Vec4f& p : kroupa.state.pos_mass) drawn += p.w * ic::solar_masses_per_unit(kroupa.units, kroupa.state);
    EXPECT_NEAR(drawn / 4096, mean, 0.15 * mean);
    // An equal-mass cluster: every star one solar mass.
    const Scene plummer = load_scene(test::source_dir() + "/scenes/plummer.toml", 1000);
    EXPECT_EQ(plummer.units.mass_unit_msun, 0.0);
    EXPECT_NEAR(plummer.state.pos_mass[0].w * ic::solar_masses_per_unit(plummer.units, plummer.state), 1.0, 1e-6);
}

}  // namespace
}  // namespace nbody
