// An isolated disk galaxy (Toomre Q = 1.5) stays in equilibrium: the half-mass radius of its disk
// particles moves by less than 10% over one rotation period at that radius, with a few thousand
// bodies on the CPU backend. This is the test that the disk, bulge and halo are set up in
// equilibrium with each other and with the softened forces.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <iostream>
#include <numbers>
#include <string>

#include "nbody/sim/backend.hpp"
#include "nbody/sim/ic/galaxy.hpp"
#include "nbody/sim/ic/orbit.hpp"
#include "nbody/sim/scene.hpp"

namespace nbody {
namespace {

double disk_half_mass_radius(const State& s) {
    State disk;
    for (std::size_t i = 0; i < s.size(); ++i)
        if (s.component[i] == Component::Disk) {
            disk.pos_mass.push_back(s.pos_mass[i]);
            disk.velocity.push_back(s.velocity[i]);
            disk.component.push_back(Component::Disk);
        }
    Vec3d c, v;
    ic::centre_of_mass(disk, c, v);
    return ic::half_mass_radius(disk, Component::Disk, c);
}

TEST(IcIsolatedDisk, HalfMassRadiusHoldsOverOneRotation) {
    Scene scene = load_scene(std::string(NBODY_SOURCE_DIR) + "/scenes/isolated-disk.toml", 4000);
    // Twice the scene's step: 90 steps per orbit at 0.5 kpc, still ample for leapfrog, and half the time.
    scene.params.dt = 0.02;
    const double r0 = disk_half_mass_radius(scene.state);
    // Rotation period at r0 from the disk particles' own mean rotation speed there.
    double vphi = 0;
    int n = 0;
    for (std::size_t i = 0; i < scene.state.size(); ++i) {
        const Vec4f& p = scene.state.pos_mass[i];
        const double R = std::hypot(p.x, p.y);
        if (scene.state.component[i] != Component::Disk || std::abs(R - r0) > 0.1 * r0) continue;
        const Vec4f& v = scene.state.velocity[i];
        vphi += (p.x * v.y - p.y * v.x) / R;
        ++n;
    }
    ASSERT_GT(n, 50);
    const double period = 2 * std::numbers::pi * r0 / (vphi / n);
    const int steps = int(std::ceil(period / scene.params.dt));

    auto backend = make_backend(BackendKind::Cpu, std::cout);
    backend->load(scene.state);
    State s = scene.state;
    double worst = 0;
    for (int done = 0; done < steps; done += 50) {
        backend->step(scene.params, std::min(50, steps - done));
        backend->store(s);
        worst = std::max(worst, std::abs(disk_half_mass_radius(s) / r0 - 1.0));
    }
    const double r1 = disk_half_mass_radius(s);
    std::cout << "[ measured ] disk half-mass radius " << r0 << " -> " << r1 << " after one rotation (" << period
              << " time units, " << steps << " steps): drift " << 100 * (r1 / r0 - 1) << "%, largest excursion "
              << 100 * worst << "%\n";
    EXPECT_NEAR(r1 / r0, 1.0, 0.10);
    EXPECT_LT(worst, 0.10);
}

}  // namespace
}  // namespace nbody
