// Plummer spheres: the lead's sampler (Aarseth, Henon & Wielen 1974) and the scene file's sphere
// start in virial equilibrium.

#include <gtest/gtest.h>

#include <cmath>
#include <iostream>
#include <string>

#include "nbody/sim/diagnostics.hpp"
#include "nbody/sim/ic/models.hpp"
#include "nbody/sim/ic/plummer.hpp"
#include "nbody/sim/scene.hpp"

namespace nbody {
namespace {

TEST(IcPlummer, VirialRatioNearOneAt8192Bodies) {
    const State s = ic::make_plummer({.bodies = 8192, .total_mass = 1.0, .scale_radius = 1.0, .seed = 17});
    // A softening far below the mean spacing (~0.1 in the core) leaves W essentially Newtonian.
    const Diagnostics d = compute_diagnostics(s, 1e-4);
    std::cout << "[ measured ] Plummer N = 8192: 2T/|W| = " << d.virial_ratio << "\n";
    EXPECT_NEAR(d.virial_ratio, 1.0, 0.05) << "2T/|W| = " << d.virial_ratio;
    EXPECT_NEAR(d.mass, 1.0, 1e-5);
}

TEST(IcPlummer, SceneFileSphereIsVirialisedForItsSoftening) {
    const Scene scene = load_scene(std::string(NBODY_SOURCE_DIR) + "/scenes/plummer.toml", 8192);
    ASSERT_EQ(scene.state.size(), 8192u);
    const Diagnostics d = compute_diagnostics(scene.state, scene.params.softening);
    EXPECT_NEAR(d.virial_ratio, 1.0, 0.05) << "2T/|W| = " << d.virial_ratio;
    EXPECT_LT(norm(d.centre_of_mass_velocity), 1e-5);
}

TEST(IcPlummer, SoftenedVirialScalingCoolsAnOversoftenedSphere) {
    State s = ic::make_plummer({.bodies = 3000, .total_mass = 1.0, .scale_radius = 0.1, .seed = 3});
    const double eps = 0.1;  // as large as the scale radius: the Newtonian velocities are too hot
    const double before = kinetic_energy(s);
    ic::virialize_softened(s, eps);
    const double after = kinetic_energy(s);
    EXPECT_LT(after, 0.8 * before);
    // 2T now equals the softened virial sum_{i<j} m m r^2 / (r^2 + eps^2)^1.5, computed here afresh.
    double virial = 0;
    for (std::size_t i = 0; i < s.size(); ++i)
        for (std::size_t j = i + 1; j < s.size(); ++j) {
            const Vec3d d = xyz(s.pos_mass[i]) - xyz(s.pos_mass[j]);
            const double r2 = dot(d, d);
            virial += double(s.pos_mass[i].w) * s.pos_mass[j].w * r2 / std::pow(r2 + eps * eps, 1.5);
        }
    EXPECT_NEAR(2 * after / virial, 1.0, 1e-3);
}

}  // namespace
}  // namespace nbody
