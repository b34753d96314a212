#include <gtest/gtest.h>

#include <cmath>

#include "nbody/sim/diagnostics.hpp"
#include "nbody/sim/ic/plummer.hpp"

namespace nbody {
namespace {

TEST(Diagnostics, TwoBodyValuesMatchHandComputation) {
    State s;
    s.resize(2);
    s.pos_mass[0] = {1, 0, 0, 2};
    s.pos_mass[1] = {-1, 0, 0, 1};
    s.velocity[0] = {0, 1, 0, 0};
    s.velocity[1] = {0, 0, 3, 0};
    const Diagnostics d = compute_diagnostics(s, 0.5);
    EXPECT_DOUBLE_EQ(d.kinetic, 0.5 * 2 * 1 + 0.5 * 1 * 9);
    EXPECT_NEAR(d.potential, -2.0 / std::sqrt(4.0 + 0.25), 1e-15);
    EXPECT_DOUBLE_EQ(d.mass, 3);
    EXPECT_DOUBLE_EQ(d.momentum.y, 2);
    EXPECT_DOUBLE_EQ(d.momentum.z, 3);
    EXPECT_NEAR(d.centre_of_mass.x, 1.0 / 3.0, 1e-15);
    // L = sum m x cross v: body 0 gives 2*(1,0,0)x(0,1,0) = (0,0,2); body 1 gives (-1,0,0)x(0,0,3) = (0,3,0)
    EXPECT_DOUBLE_EQ(d.angular_momentum.z, 2);
    EXPECT_DOUBLE_EQ(d.angular_momentum.y, 3);
    EXPECT_NEAR(d.virial_ratio, 2 * d.kinetic / std::abs(d.potential), 1e-15);
}

TEST(Diagnostics, PlummerSphereIsNearVirialEquilibrium) {
    const State s = ic::make_plummer({.bodies = 4096, .seed = 5});
    const Diagnostics d = compute_diagnostics(s, 0.0);
    EXPECT_NEAR(d.virial_ratio, 1.0, 0.08);
    EXPECT_NEAR(d.mass, 1.0, 1e-5);
    EXPECT_LT(norm(d.momentum), 1e-5);
}

// A Hermite run's energy (before and after it, N^2 pairs) goes to the GPU on a cuda run from
// kGpuPotentialFrom bodies: on the host a 512K run sat silent for the whole 100 s limit of device
// run 108 before its first block (2.7e11 pair terms on at most 16 threads), and a 16M run would take
// hours; the cpu engine's runs and small runs keep the host's sum.
TEST(Diagnostics, HermiteRunEnergyOnTheGpuForCudaRunsOfManyBodies) {
    for (const std::size_t n : {std::size_t(524288), std::size_t(16777216), std::size_t(131072), kGpuPotentialFrom})
        EXPECT_TRUE(hermite_energy_on_gpu("cuda", n)) << n;
    EXPECT_FALSE(hermite_energy_on_gpu("cuda", kGpuPotentialFrom - 1));
    EXPECT_FALSE(hermite_energy_on_gpu("cuda", 4096));
    for (const std::size_t n : {std::size_t(524288), std::size_t(16777216), std::size_t(16)})
        EXPECT_FALSE(hermite_energy_on_gpu("cpu", n)) << n;
}

}  // namespace
}  // namespace nbody
