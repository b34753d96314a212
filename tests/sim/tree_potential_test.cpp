// The potential from the tree walk (host_tree.hpp tree_potentials, Backend::tree_potential_energy)
// against the double direct sum, and the choice of where a run's energy comes from
// (energy_source.hpp).

#include <gtest/gtest.h>

#include <cmath>
#include <optional>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "nbody/sim/diagnostics.hpp"
#include "nbody/sim/direct_sum_backend.hpp"
#include "nbody/sim/energy_source.hpp"
#include "nbody/sim/force_error.hpp"
#include "nbody/sim/gravity.hpp"
#include "nbody/sim/tree/host_tree.hpp"
#include "tree_test_support.hpp"

namespace nbody {
namespace {

using test::as_vectors;
using test::exact_potentials;
using test::tree_potentials_of;

// The bound: at theta 0.5 on a Plummer sphere the median relative error of the potential
// stays within the force error's bound (median 2e-4, TreeAccuracy.DefaultThetaMeetsTheIssueTarget).
TEST(TreePotential, MatchesTheDirectSumOnAPlummerSphere) {
    const State s = test::plummer_sphere(16384, 5);
    const double eps = 0.01;
    const auto phi = as_vectors(tree_potentials_of<float>(s, TreeParams{}, eps));
    const ForceErrorStats e = relative_force_errors(phi, exact_potentials(s, eps));
    std::printf("potential error at theta 0.5, N = 16384: median %.3g, p99 %.3g, max %.3g\n", e.median, e.p99, e.max);
    EXPECT_LE(e.median, 2e-4);
    EXPECT_LE(e.p99, 2e-3);
    EXPECT_GT(e.max, 0.0);  // an approximation: the cells are used
}

TEST(TreePotential, ErrorFallsAsThetaFalls) {
    const State s = test::plummer_sphere(4096, 8);
    const auto ref = exact_potentials(s, 0.01);
    double previous = 1;
    for (double theta : {0.9, 0.5, 0.25}) {
        const ForceErrorStats e =
            relative_force_errors(as_vectors(tree_potentials_of<double>(s, TreeParams{theta, 16, 64, 0.0}, 0.01)), ref);
        SCOPED_TRACE(theta);
        EXPECT_LT(e.median, previous);
        previous = e.median;
    }
}

// theta -> 0 opens every cell: the direct sum, each body without its own term, to double rounding.
TEST(TreePotential, ThetaToZeroIsTheDirectSumInDouble) {
    const State s = test::plummer_sphere(3000, 2);
    const double eps = 0.01;
    const auto phi = as_vectors(tree_potentials_of<double>(s, TreeParams{1e-6, 8, 32}, eps));
    EXPECT_LT(relative_force_errors(phi, exact_potentials(s, eps)).max, 1e-12);
    double w = 0;
    for (std::size_t i = 0; i < s.size(); ++i) w += 0.5 * s.pos_mass[i].w * phi[i].x;
    EXPECT_NEAR(w / potential_energy_on_host(s, eps), 1.0, 1e-12);
}

// Pairs of coincident bodies with a tiny softening: each pair's -m^2 / eps is real and dominates
// the energy, each body's own -m / eps must not be there. Subtracting the self term after the sum
// would leave float rounding of 1/eps = 1e6 behind; the walk skips it instead.
TEST(TreePotential, CoincidentBodiesCountEachOtherButNotThemselves) {
    std::mt19937_64 rng(5);
    std::uniform_real_distribution<double> u(-1, 1);
    State s;
    s.resize(2000);
    for (std::size_t k = 0; k < 2000; k += 2) {
        const Vec4f p{float(u(rng)), float(u(rng)), float(u(rng)), 1.0f};
        s.pos_mass[k] = p, s.pos_mass[k + 1] = p;
    }
    const double eps = 1e-6;
    const auto phi = as_vectors(tree_potentials_of<float>(s, TreeParams{0.5, 4, 16, 0.0}, eps));
    const ForceErrorStats e = relative_force_errors(phi, exact_potentials(s, eps));
    EXPECT_LT(e.max, 1e-5);
}

TEST(TreePotential, OneBodyHasNoPotentialAndTwoSeeEachOther) {
    State one;
    one.resize(1);
    one.pos_mass[0] = {1, 2, 3, 5};
    EXPECT_EQ(tree_potentials_of<float>(one, TreeParams{}, 0.1)[0], 0.0f);
    State two;
    two.resize(2);
    two.pos_mass[0] = {0, 0, 0, 2}, two.pos_mass[1] = {1, 0, 0, 3};
    const auto phi = tree_potentials_of<double>(two, TreeParams{}, 0.0);
    EXPECT_DOUBLE_EQ(phi[0], -3.0);
    EXPECT_DOUBLE_EQ(phi[1], -2.0);
}

TEST(TreePotential, NonFiniteBodiesAreRefusedByName) {
    State s = test::plummer_sphere(100, 1);
    s.pos_mass[42].y = std::nanf("");
    try {
        (void)tree_potentials_of<float>(s, TreeParams{}, 0.01);
        FAIL() << "NaN position accepted";
    } catch (const std::invalid_argument& e) {
        EXPECT_NE(std::string(e.what()).find("body 42"), std::string::npos) << e.what();
    }
}

// The backends answer with their own tree (in their precision), and only under --gravity tree.
TEST(TreePotential, BackendsGiveTheEnergyOfTheirTree) {
    const State s = test::plummer_sphere(8192, 4);
    const double eps = 0.01, exact = potential_energy_on_host(s, eps);
    CpuBackend cpu;
    cpu.load(s);
    EXPECT_FALSE(cpu.tree_potential_energy(eps).has_value());
    cpu.set_gravity(test::tree_config(0.5));
    const std::optional<double> w = cpu.tree_potential_energy(eps);
    ASSERT_TRUE(w.has_value());
    EXPECT_NE(*w, exact);
    EXPECT_NEAR(*w / exact, 1.0, 1e-4);
    ReferenceBackend reference;
    reference.load(s);
    reference.set_gravity(test::tree_config(0.5));
    EXPECT_NEAR(*reference.tree_potential_energy(eps) / *w, 1.0, 1e-5);
}

TEST(EnergySource, TreeRunsDefaultToTheTreeAndDirectRunsToTheExactSum) {
    const GravityConfig direct, tree = test::tree_config(0.5);
    EXPECT_EQ(choose_energy_source(std::nullopt, tree), EnergySource::Tree);
    EXPECT_EQ(choose_energy_source(std::nullopt, direct), EnergySource::Exact);
    EXPECT_EQ(choose_energy_source(EnergySource::Exact, tree), EnergySource::Exact);
    EXPECT_THROW(choose_energy_source(EnergySource::Tree, direct), std::invalid_argument);
    EXPECT_EQ(parse_energy_source("tree"), EnergySource::Tree);
    EXPECT_EQ(parse_energy_source("exact"), EnergySource::Exact);
    try {
        parse_energy_source("fast");
        FAIL() << "'fast' accepted";
    } catch (const std::invalid_argument& e) {
        EXPECT_NE(std::string(e.what()).find("'fast'"), std::string::npos) << e.what();
    }
    EXPECT_EQ(energy_cost_notice(100000, EnergySource::Tree), "");
    EXPECT_NE(energy_cost_notice(100000, EnergySource::Exact).find("pairs"), std::string::npos);
    EXPECT_EQ(energy_cost_notice(1000, EnergySource::Exact), "");
}

// The diagnostics of a tree source differ from the exact ones only in the potential.
TEST(EnergySource, DiagnosticsTakeThePotentialFromTheChosenSource) {
    const State s = test::plummer_sphere(4096, 6);
    CpuBackend cpu;
    cpu.load(s);
    cpu.set_gravity(test::tree_config(0.5));
    const Diagnostics exact = compute_diagnostics(s, 0.01, cpu, EnergySource::Exact);
    const Diagnostics tree = compute_diagnostics(s, 0.01, cpu, EnergySource::Tree);
    EXPECT_EQ(exact.total, compute_diagnostics(s, 0.01).total);
    EXPECT_EQ(tree.kinetic, exact.kinetic);
    // The first call walked for the accelerations too, this one for the potential alone: the same
    // terms summed in another order.
    EXPECT_NEAR(tree.potential / *cpu.tree_potential_energy(0.01), 1.0, 1e-6);
    EXPECT_NE(tree.potential, exact.potential);
    EXPECT_EQ(tree.total, tree.kinetic + tree.potential);
    // The viewer's worker has only a host copy: the same CPU tree walk, from the State's floats.
    const Diagnostics host = compute_diagnostics(s, 0.01, test::tree_config(0.5), EnergySource::Tree);
    EXPECT_EQ(host.potential, *cpu.tree_potential_energy(0.01));
    EXPECT_EQ(compute_diagnostics(s, 0.01, GravityConfig{}, EnergySource::Exact).total, exact.total);
    cpu.set_gravity({});
    EXPECT_THROW(compute_diagnostics(s, 0.01, cpu, EnergySource::Tree), std::logic_error);
}

}  // namespace
}  // namespace nbody

namespace nbody {
namespace {

// The energy at the start of a run comes with the first accelerations (one walk for both): they
// must be the force pass's to the bit, or --energy would change the trajectory.
TEST(TreePotential, OneWalkForBothGivesTheForcePassesAccelerationsBitForBit) {
    const State s = test::plummer_sphere(6000, 9);
    for (double eps : {0.01, 0.0}) {
        SCOPED_TRACE(eps);
        CpuBackend force_only, both;
        force_only.load(s), both.load(s);
        force_only.set_gravity(test::tree_config(0.5)), both.set_gravity(test::tree_config(0.5));
        const double w = *both.tree_potential_energy(eps);  // before any force pass: one walk for both
        const auto a = force_only.accelerations(eps), b = both.accelerations(eps);
        for (std::size_t i = 0; i < s.size(); ++i) ASSERT_TRUE(a[i].x == b[i].x && a[i].y == b[i].y && a[i].z == b[i].z) << i;
        // and the potential is the potential walk's (the same terms, 1/r shared).
        EXPECT_NEAR(w / *both.tree_potential_energy(eps), 1.0, 1e-6);
    }
}

}  // namespace
}  // namespace nbody
