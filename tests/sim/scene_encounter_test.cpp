// The default scene (Milky Way - Andromeda) is built to grow tidal tails: each disk is cold and
// held up by rotation, at the file's N and at the CPU viewer's 8,192, and the passage is prograde
// and close enough to reach the disks (Toomre & Toomre 1972). Measured on the particles alone
// (no model functions), so a generator or scene change that loses any of this fails here.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <iostream>
#include <numbers>
#include <string>
#include <vector>

#include "nbody/sim/scene.hpp"

namespace nbody {
namespace {

const std::string kDefaultScene = std::string(NBODY_SOURCE_DIR) + "/scenes/milky-way-andromeda.toml";

struct Galaxy {
    Vec3d centre, drift, spin;  // centre of mass, its velocity, unit angular momentum of the disk
    double mass = 0;
    double scale_length = 0;    // from the disk particles: <R> = 2 Rd for an exponential disk
    double r90 = 0;             // radius holding 90% of the disk's particles
    std::vector<std::size_t> disk, all;
};

std::vector<Galaxy> split_galaxies(const State& s) {
    std::vector<Galaxy> g;
    for (std::size_t i = 0; i < s.size(); ++i) {
        if (s.galaxy[i] >= g.size()) g.resize(s.galaxy[i] + 1);
        Galaxy& k = g[s.galaxy[i]];
        k.all.push_back(i);
        if (s.component[i] == Component::Disk) k.disk.push_back(i);
        const double m = s.pos_mass[i].w;
        k.centre += m * xyz(s.pos_mass[i]);
        k.drift += m * xyz(s.velocity[i]);
        k.mass += m;
    }
    for (Galaxy& k : g) {
        k.centre = k.centre / k.mass;
        k.drift = k.drift / k.mass;
        Vec3d l;
        for (std::size_t i : k.disk) l += cross(xyz(s.pos_mass[i]) - k.centre, xyz(s.velocity[i]) - k.drift);
        k.spin = l / norm(l);
        std::vector<double> radii;
        for (std::size_t i : k.disk) {
            const Vec3d r = xyz(s.pos_mass[i]) - k.centre;
            radii.push_back(norm(r - dot(r, k.spin) * k.spin));
        }
        double sum = 0;
        for (double R : radii) sum += R;
        k.scale_length = sum / double(radii.size()) / 2;
        std::sort(radii.begin(), radii.end());
        k.r90 = radii[std::size_t(0.9 * double(radii.size()))];
    }
    return g;
}

struct Ring {
    double mean_vphi = 0, sigma_r = 0, vc = 0;  // vc = sqrt(G M(<R) / R), every component of the galaxy
    int count = 0;
};

// Disk particles with cylindrical radius within 15% of R, in the disk's own frame.
Ring measure_ring(const State& s, const Galaxy& g, double R) {
    Ring ring;
    double vphi = 0, vr2 = 0, vr = 0;
    for (std::size_t i : g.disk) {
        const Vec3d r = xyz(s.pos_mass[i]) - g.centre, v = xyz(s.velocity[i]) - g.drift;
        const Vec3d in_plane = r - dot(r, g.spin) * g.spin;
        const double Ri = norm(in_plane);
        if (std::abs(Ri - R) > 0.15 * R) continue;
        const Vec3d e_r = in_plane / Ri, e_phi = cross(g.spin, e_r);
        vphi += dot(v, e_phi);
        vr += dot(v, e_r);
        vr2 += dot(v, e_r) * dot(v, e_r);
        ++ring.count;
    }
    double enclosed = 0;
    for (std::size_t i : g.all)
        if (norm(xyz(s.pos_mass[i]) - g.centre) < R) enclosed += s.pos_mass[i].w;
    ring.mean_vphi = vphi / ring.count;
    ring.sigma_r = std::sqrt(std::max(vr2 / ring.count - (vr / ring.count) * (vr / ring.count), 0.0));
    ring.vc = std::sqrt(enclosed / R);
    return ring;
}

TEST(SceneEncounter, DefaultSceneDisksAreColdAndRotating) {
    for (std::size_t n : {std::size_t(8192), std::size_t(0)}) {  // 0: the file's N
        const Scene scene = n ? load_scene(kDefaultScene, n) : load_scene(kDefaultScene);
        const std::vector<Galaxy> galaxies = split_galaxies(scene.state);
        ASSERT_EQ(galaxies.size(), 2u);
        for (std::size_t k = 0; k < galaxies.size(); ++k) {
            const Galaxy& g = galaxies[k];
            // Enough disk particles for a tail to read on screen at the CPU viewer's N too.
            EXPECT_GT(g.disk.size(), 2500u) << "galaxy " << k << " at N = " << scene.state.size();
            for (double x : {1.0, 2.0, 3.0}) {
                const Ring ring = measure_ring(scene.state, g, x * g.scale_length);
                SCOPED_TRACE("galaxy " + std::to_string(k) + ", N = " + std::to_string(scene.state.size()) + ", R = " +
                             std::to_string(x) + " Rd (" + std::to_string(ring.count) + " disk particles)");
                std::cout << "[ measured ] N = " << scene.state.size() << " galaxy " << k << " R = " << x * g.scale_length
                          << " kpc: <v_phi> = " << 100 * ring.mean_vphi << " km/s, vc(M(<R)) = " << 100 * ring.vc
                          << " km/s, sigma_R = " << 100 * ring.sigma_r << " km/s\n";
                // Rotation support: the mean rotation is the circular speed less a small
                // asymmetric drift (and the flattened disk pulls a little harder than the
                // sphere of the same enclosed mass, which the spherical vc here ignores).
                EXPECT_GT(ring.mean_vphi, 0.85 * ring.vc);
                EXPECT_LT(ring.mean_vphi, 1.12 * ring.vc);
                // Cold: random motions well below rotation (Q = 1.5 gives 0.15-0.3 vc here).
                EXPECT_LT(ring.sigma_r, 0.35 * ring.vc);
            }
        }
    }
}

TEST(SceneEncounter, DefaultScenePassageIsProgradeAndReachesTheDisks) {
    const Scene scene = load_scene(kDefaultScene, 8192);
    const std::vector<Galaxy> g = split_galaxies(scene.state);
    ASSERT_EQ(g.size(), 2u);
    // Relative Kepler orbit of the two centres of mass (point masses: the real passage is a
    // little wider, the halos being extended).
    const Vec3d r = g[1].centre - g[0].centre, v = g[1].drift - g[0].drift;
    const double m = g[0].mass + g[1].mass;
    const Vec3d h = cross(r, v);
    const double energy = 0.5 * dot(v, v) - m / norm(r);
    const double ecc = std::sqrt(std::max(1.0 + 2.0 * energy * dot(h, h) / (m * m), 0.0));
    const double pericentre = dot(h, h) / (m * (1.0 + ecc));
    const Vec3d orbit_axis = h / norm(h);
    std::cout << "[ measured ] pericentre " << pericentre << " kpc, e = " << ecc << "; disks' r90 " << g[0].r90 << " and "
              << g[1].r90 << " kpc; spin . orbit axis " << dot(g[0].spin, orbit_axis) << ", " << dot(g[1].spin, orbit_axis) << "\n";
    // Prograde: each disk spins within 45 degrees of the orbital angular momentum (a retrograde
    // or polar disk grows no tail).
    for (const Galaxy& k : g) EXPECT_GT(dot(k.spin, orbit_axis), std::cos(45.0 * std::numbers::pi / 180));
    // Close: the pericentre lies inside the larger disk's 90% radius and within twice the smaller's.
    const double big = std::max(g[0].r90, g[1].r90), small = std::min(g[0].r90, g[1].r90);
    EXPECT_LT(pericentre, big);
    EXPECT_LT(pericentre, 2 * small);
    EXPECT_LT(ecc, 1.05);  // near-parabolic or bound: a slow passage
}

}  // namespace
}  // namespace nbody
