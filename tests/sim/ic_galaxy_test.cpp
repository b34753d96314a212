// Galaxy models: the sampled particles follow the model (profiles, Toomre Q, dispersions), the
// model's circular speed is the one the particles' own softened forces give, and bad parameters
// are refused.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numbers>
#include <stdexcept>
#include <vector>

#include "nbody/sim/ic/galaxy.hpp"
#include "nbody/sim/ic/orbit.hpp"

namespace nbody {
namespace {


// A Milky-Way-like galaxy (kpc, 100 km/s): the isolated-disk scene's model.
ic::GalaxyParams milky_way(std::size_t disk, std::size_t bulge, std::size_t halo, double eps = 0.1) {
    ic::GalaxyParams p;
    p.disk = {.mass = 21.5, .bodies = disk, .scale_length = 2.6, .scale_height = 0.3, .max_radius = 0, .toomre_q = 1.5};
    p.bulge = {.mass = 4.3, .bodies = bulge, .scale_radius = 0.6, .max_radius = 0};
    p.halo = {.mass = 200.0, .bodies = halo, .scale_radius = 20.0, .max_radius = 80.0};
    p.softening = eps;
    p.seed = 11;
    return p;
}

struct Annulus {
    double sigma_r2 = 0, mean_vphi = 0, z2 = 0, mass = 0;
    int count = 0;
};

Annulus measure(const State& s, double r_lo, double r_hi) {
    Annulus a;
    double vphi = 0;
    for (std::size_t i = 0; i < s.size(); ++i) {
        if (s.component[i] != Component::Disk) continue;
        const Vec4f& p = s.pos_mass[i];
        const Vec4f& v = s.velocity[i];
        const double R = std::hypot(p.x, p.y);
        if (R < r_lo || R >= r_hi) continue;
        const double c = p.x / R, sn = p.y / R;
        const double vr = v.x * c + v.y * sn;
        a.sigma_r2 += vr * vr;
        vphi += -v.x * sn + v.y * c;
        a.z2 += double(p.z) * p.z;
        a.mass += p.w;
        ++a.count;
    }
    a.sigma_r2 /= a.count;
    a.mean_vphi = vphi / a.count;
    a.z2 /= a.count;
    return a;
}

TEST(IcGalaxy, LabelsCountsMassesAndRest) {
    const State s = ic::make_galaxy(milky_way(3000, 700, 2000));
    ASSERT_EQ(s.size(), 5700u);
    std::size_t n[5] = {};
    double m[5] = {};
    for (std::size_t i = 0; i < s.size(); ++i) {
        n[int(s.component[i])]++;
        m[int(s.component[i])] += s.pos_mass[i].w;
        EXPECT_EQ(s.galaxy[i], 0);
    }
    EXPECT_EQ(n[int(Component::Disk)], 3000u);
    EXPECT_EQ(n[int(Component::Bulge)], 700u);
    EXPECT_EQ(n[int(Component::Halo)], 2000u);
    EXPECT_NEAR(m[int(Component::Disk)], 21.5, 1e-3);
    EXPECT_NEAR(m[int(Component::Halo)], 200.0, 1e-2);
    Vec3d c, v;
    ic::centre_of_mass(s, c, v);
    EXPECT_LT(norm(c), 1e-4);
    EXPECT_LT(norm(v), 1e-5);
    EXPECT_NO_THROW(s.validate());
}

TEST(IcGalaxy, SameSeedSameParticles) {
    const State a = ic::make_galaxy(milky_way(500, 100, 400)), b = ic::make_galaxy(milky_way(500, 100, 400));
    ASSERT_EQ(a.size(), b.size());
    for (std::size_t i = 0; i < a.size(); ++i) {
        ASSERT_EQ(a.pos_mass[i].x, b.pos_mass[i].x);
        ASSERT_EQ(a.velocity[i].z, b.velocity[i].z);
    }
    ic::GalaxyParams other = milky_way(500, 100, 400);
    other.seed = 12;
    EXPECT_NE(ic::make_galaxy(other).pos_mass[0].x, a.pos_mass[0].x);
}

TEST(IcGalaxy, DiskFollowsTheModel) {
    const ic::GalaxyParams p = milky_way(60000, 100, 100);
    const ic::GalaxyModel model(p);
    const State s = model.sample();
    // Exponential disk: half the mass within 1.678 Rd (cut at 8 Rd keeps 99.7%).
    EXPECT_NEAR(ic::half_mass_radius(s, Component::Disk) / 2.6, 1.678, 0.04);
    // sech^2(z / z0): <z^2> = (pi^2 / 12) z0^2.
    const Annulus all = measure(s, 0.0, 100.0);
    EXPECT_NEAR(std::sqrt(all.z2), 0.3 * std::numbers::pi / std::sqrt(12.0), 0.01);
    // Toomre Q = 1.5 wherever sigma_R is set by Q (outside the inner ~0.6 Rd where it is held).
    for (double R : {2.5, 4.0, 6.0, 8.0}) {
        const Annulus a = measure(s, 0.9 * R, 1.1 * R);
        const double sigma = a.mass / (std::numbers::pi * (1.21 - 0.81) * R * R);
        const double q = std::sqrt(a.sigma_r2) * model.kappa(R) / (3.36 * sigma);
        EXPECT_NEAR(q, 1.5, 0.15) << "R = " << R << " (" << a.count << " particles)";
        EXPECT_NEAR(model.toomre_q(R), 1.5, 1e-3);
        EXPECT_NEAR(a.mean_vphi, model.mean_vphi(R), 0.05 * model.circular_velocity(R)) << "R = " << R;
        // Asymmetric drift: the mean rotation lags the circular speed.
        EXPECT_LT(model.mean_vphi(R), model.circular_velocity(R));
        EXPECT_NEAR(model.sigma_phi(R) / model.sigma_R(R), model.kappa(R) / (2 * model.omega(R)), 1e-9);
    }
    // A rotation curve of a Milky-Way-like galaxy: 2.5 to 2.7 (250 to 270 km/s) from 4 to 10 kpc.
    for (double R : {4.0, 6.0, 8.0, 10.0}) {
        EXPECT_GT(model.circular_velocity(R), 2.4);
        EXPECT_LT(model.circular_velocity(R), 2.8);
    }
}

TEST(IcGalaxy, CircularSpeedMatchesTheParticlesSoftenedForces) {
    // The model's vc^2 (thin disk + thickness + softening, spheres softened shell by shell) against
    // the radial pull of the sampled particles, in the midplane, averaged over 128 azimuths and
    // four independently drawn galaxies of 60,000 (one draw alone scatters by ~3%).
    const double eps = 0.1;
    const double radii[] = {0.8, 2.0, 4.0, 8.0};
    double ratio[4] = {};
    for (std::uint64_t seed = 1; seed <= 4; ++seed) {
        ic::GalaxyParams p = milky_way(20000, 10000, 30000, eps);
        p.seed = seed;
        const ic::GalaxyModel model(p);
        const State s = model.sample();
        for (int r = 0; r < 4; ++r) {
            const double R = radii[r];
            double pull = 0;
            for (int k = 0; k < 128; ++k) {
                const double phi = 2 * std::numbers::pi * (k + 0.5) / 128, c = std::cos(phi), sn = std::sin(phi);
                for (std::size_t j = 0; j < s.size(); ++j) {
                    const Vec4f& q = s.pos_mass[j];
                    const double dx = q.x - R * c, dy = q.y - R * sn, dz = q.z;
                    const double r2 = dx * dx + dy * dy + dz * dz + eps * eps;
                    pull += q.w * (dx * c + dy * sn) / (r2 * std::sqrt(r2));
                }
            }
            ratio[r] += (-pull / 128 * R) / std::pow(model.circular_velocity(R), 2) / 4;
        }
    }
    for (int r = 0; r < 4; ++r) EXPECT_NEAR(ratio[r], 1.0, 0.02) << "R = " << radii[r];
}

TEST(IcGalaxy, HernquistSphereVelocitiesMatchTheJeansDispersion) {
    // A lone Hernquist sphere (a = 1, M = 1, cut far out): the dispersion of velocities drawn from
    // the Eddington distribution function against Hernquist's (1990) closed form.
    ic::GalaxyParams p;
    p.bulge = {.mass = 1.0, .bodies = 100000, .scale_radius = 1.0, .max_radius = 1000.0};
    const ic::GalaxyModel model(p);
    const State s = model.sample();
    auto analytic = [](double x) {
        return (12 * x * std::pow(1 + x, 3) * std::log((1 + x) / x) - x / (1 + x) * (25 + 52 * x + 42 * x * x + 12 * x * x * x)) / 12;
    };
    for (double r : {0.2, 0.5, 1.0, 2.0, 4.0}) {
        double v2 = 0;
        int n = 0;
        for (std::size_t i = 0; i < s.size(); ++i) {
            const double ri = norm(xyz(s.pos_mass[i]));
            if (ri < 0.9 * r || ri > 1.1 * r) continue;
            v2 += dot(xyz(s.velocity[i]), xyz(s.velocity[i])) / 3;
            ++n;
        }
        EXPECT_NEAR(v2 / n / analytic(r), 1.0, 0.06) << "r = " << r << " (" << n << " particles)";
        EXPECT_NEAR(std::pow(model.bulge_dispersion(r), 2) / analytic(r), 1.0, 0.01) << "r = " << r;
    }
    // Hernquist half-mass radius (1 + sqrt 2) a, slightly less for the lowered profile.
    EXPECT_NEAR(ic::half_mass_radius(s, Component::Bulge), 1 + std::sqrt(2.0), 0.1);
}

TEST(IcGalaxy, BadParametersAreRefusedWithTheField) {
    auto message = [](const ic::GalaxyParams& p) {
        try {
            ic::validate(p);
        } catch (const std::invalid_argument& e) {
            return std::string(e.what());
        }
        return std::string("(no error)");
    };
    ic::GalaxyParams p = milky_way(100, 10, 100);
    p.disk.mass = -1;
    EXPECT_NE(message(p).find("disk: mass"), std::string::npos) << message(p);
    p = milky_way(100, 10, 100);
    p.halo.scale_radius = 0;
    EXPECT_NE(message(p).find("halo: scale_radius"), std::string::npos) << message(p);
    p = milky_way(100, 0, 100);
    EXPECT_NE(message(p).find("bulge: has mass but no bodies"), std::string::npos) << message(p);
    p = milky_way(100, 10, 100);
    p.disk.toomre_q = 0;
    EXPECT_NE(message(p).find("toomre_q"), std::string::npos) << message(p);
    EXPECT_THROW(ic::GalaxyModel(ic::GalaxyParams{}), std::invalid_argument);
}

}  // namespace
}  // namespace nbody
