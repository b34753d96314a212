// Star-cluster initial conditions: the Kroupa mass spectrum and primordial binaries, and the
// scene files that use them.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "nbody/sim/ic/star_cluster.hpp"
#include "nbody/sim/scene.hpp"
#include "test_support.hpp"

namespace nbody {
namespace {

TEST(StarCluster, KroupaMassesSpanTheRangeWithTheRightMedian) {
    std::vector<double> m;
    for (int k = 0; k < 20001; ++k) m.push_back(ic::kroupa_mass((k + 0.5) / 20001.0, 0.08, 100));
    std::sort(m.begin(), m.end());
    EXPECT_GE(m.front(), 0.08);
    EXPECT_LE(m.back(), 100.0);
    // Kroupa (2001) between 0.08 and 100 Msun: the median star is ~0.2-0.3 Msun, the mean ~0.6.
    EXPECT_GT(m[10000], 0.15);
    EXPECT_LT(m[10000], 0.4);
    double mean = 0;
    for (double x : m) mean += x / double(m.size());
    EXPECT_GT(mean, 0.4);
    EXPECT_LT(mean, 0.9);
}

TEST(StarCluster, KroupaSceneKeepsTheTotalMass) {
    const Scene s = load_scene(test::source_dir() + "/scenes/star-cluster-kroupa.toml", 2048);
    double total = 0, lo = 1e30, hi = 0;
    for (const auto& p : s.state.pos_mass) {
        total += p.w;
        lo = std::min(lo, double(p.w));
        hi = std::max(hi, double(p.w));
    }
    EXPECT_NEAR(total, 1.0, 1e-4);
    EXPECT_GT(hi / lo, 50.0);  // a spectrum, not equal masses
}

TEST(StarCluster, BinariesAreBoundPairs) {
    const Scene s = load_scene(test::source_dir() + "/scenes/star-cluster-binaries.toml", 1000);
    // 20 % of 1,000 bodies: 100 pairs, (0, 1) ... (198, 199), each within 0.01 and bound.
    for (std::size_t k = 0; k < 100; ++k) {
        const Vec3d dx = xyz(s.state.pos_mass[2 * k]) - xyz(s.state.pos_mass[2 * k + 1]);
        const Vec3d dv = xyz(s.state.velocity[2 * k]) - xyz(s.state.velocity[2 * k + 1]);
        const double m = s.state.pos_mass[2 * k].w + s.state.pos_mass[2 * k + 1].w;
        EXPECT_LE(norm(dx), 0.0101) << k;
        EXPECT_LT(0.5 * dot(dv, dv) - m / norm(dx), 0.0) << k;
    }
    const Vec3d far = xyz(s.state.pos_mass[500]) - xyz(s.state.pos_mass[501]);
    EXPECT_GT(norm(far), 0.01);  // beyond the pairs, ordinary cluster stars
}

TEST(StarCluster, BadParametersAreNamed) {
    State s;
    s.resize(4);
    EXPECT_THROW(ic::dress_star_cluster(s, {.mass_function = "salpeter"}), std::invalid_argument);
    EXPECT_THROW(ic::dress_star_cluster(s, {.binary_fraction = 2}), std::invalid_argument);
}

}  // namespace
}  // namespace nbody
