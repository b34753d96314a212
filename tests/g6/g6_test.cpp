// libg6.so: the GRAPE-6 calls' semantics on the cpu engine, and the example driver
// (g6/examples/g6_hermite.c) against the built-in Hermite integrator.

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "g6lib.h"
#include "nbody/sim/hermite/integrator.hpp"
#include "nbody/sim/ic/plummer.hpp"
#include "test_support.hpp"

namespace nbody {
namespace {

using hermite::EngineKind;

struct G6Cpu : ::testing::Test {
    void SetUp() override {
        setenv("G6_ENGINE", "cpu", 1);
        ASSERT_EQ(g6_open(0), 0);
    }
    void TearDown() override { g6_close(0); }
};

void set_j(int address, int index, double t, double m, Vec3d x, Vec3d v = {}, Vec3d a2 = {}, Vec3d j6 = {}) {
    double k18[3] = {0, 0, 0}, jj[3] = {j6.x, j6.y, j6.z}, aa[3] = {a2.x, a2.y, a2.z}, vv[3] = {v.x, v.y, v.z},
           xx[3] = {x.x, x.y, x.z};
    ASSERT_EQ(g6_set_j_particle(0, address, index, t, 0.125, m, k18, jj, aa, vv, xx), 0);
}

TEST_F(G6Cpu, ForcesJerkPotentialAndNearestNeighbour) {
    EXPECT_EQ(g6_npipes(), 256);
    EXPECT_EQ(g6_set_tunit(51), 0);
    EXPECT_EQ(g6_set_xunit(51), 0);
    // j-particles on the x axis at 0, 1, 3 with masses 1, 2, 4 and ids 7, 8, 9.
    set_j(0, 7, 0, 1, {0, 0, 0});
    set_j(1, 8, 0, 2, {1, 0, 0});
    set_j(2, 9, 0, 4, {3, 0, 0});
    ASSERT_EQ(g6_set_ti(0, 0.0), 0);
    int index[2] = {8, 100};  // the first is j-particle 8 itself: it must not feel itself
    double xi[2][3] = {{1, 0, 0}, {0, 2, 0}}, vi[2][3] = {{0, 0, 0}, {0, 0, 1}};
    double aold[2][3] = {}, jold[2][3] = {}, pold[2] = {}, h2[2] = {0, 0};
    double acc[2][3], jerk[2][3], pot[2];
    int inn[2];
    g6calc_firsthalf(0, 3, 2, index, xi, vi, aold, jold, pold, 0.0, h2);
    ASSERT_EQ(g6calc_lasthalf2(0, 3, 2, index, xi, vi, 0.0, h2, acc, jerk, pot, inn), 0);
    EXPECT_DOUBLE_EQ(acc[0][0], -1.0 + 4.0 / 4);  // from id 7 (m 1, r 1) and id 9 (m 4, r 2)
    EXPECT_DOUBLE_EQ(pot[0], -1.0 - 4.0 / 2);
    EXPECT_EQ(inn[0], 7);  // ids 7 (r 1) and 9 (r 2): the nearest is 7
    EXPECT_EQ(inn[1], 7);  // from (0, 2): r^2 = 4 to id 7, 5 to id 8, 13 to id 9
    // the i-particle at (0, 2) moving along z: jerk = sum m (v_ij / r^3 - 3 (r.v) r / r^5), r.v = 0
    double jz = 0;
    const double xs[3] = {0, 1, 3}, ms[3] = {1, 2, 4};
    for (int k = 0; k < 3; ++k) {
        const double r2 = xs[k] * xs[k] + 4;
        jz += ms[k] * (-1.0) / (r2 * std::sqrt(r2));
    }
    EXPECT_NEAR(jerk[1][2], jz, 1e-15);
}

TEST_F(G6Cpu, PredictsJParticlesToTi) {
    // One j-particle at x = 0 at t = 1 with v = 1, a/2 = 0.5, j/6 = 1/6; at ti = 2 it is at
    // x = 1 + 0.5 + 1/6 and moves with v = 1 + 1 + 0.5.
    set_j(0, 1, 1.0, 1.0, {0, 0, 0}, {1, 0, 0}, {0.5, 0, 0}, {1.0 / 6, 0, 0});
    g6_set_ti(0, 2.0);
    int index[1] = {2};
    double xi[1][3] = {{0, 0, 0}}, vi[1][3] = {{0, 0, 0}}, h2[1] = {0}, acc[1][3], jerk[1][3], pot[1];
    g6calc_firsthalf(0, 1, 1, index, xi, vi, nullptr, nullptr, nullptr, 0.0, h2);
    ASSERT_EQ(g6calc_lasthalf(0, 1, 1, index, xi, vi, 0.0, h2, acc, jerk, pot), 0);
    const double x = 1 + 0.5 + 1.0 / 6, v = 2.5;
    EXPECT_NEAR(acc[0][0], 1 / (x * x), 1e-14);
    EXPECT_NEAR(jerk[0][0], v / (x * x * x) - 3 * x * v * x / std::pow(x, 5), 1e-14);
}

TEST_F(G6Cpu, NeighbourListsAndTheFortranNames) {
    for (int k = 0; k < 5; ++k) set_j(k, 10 + k, 0, 1, {double(k), 0, 0});
    int id = 0, nj = 5, ni = 1, index[1] = {12};
    double ti = 0, eps2 = 0.01;
    g6_set_ti_(&id, &ti);
    double xi[1][3] = {{2, 0, 0}}, vi[1][3] = {{0, 0, 0}}, h2[1] = {1.1}, acc[1][3], jerk[1][3], pot[1];
    g6calc_firsthalf_(&id, &nj, &ni, index, xi, vi, nullptr, nullptr, nullptr, &eps2, h2);
    ASSERT_EQ(g6calc_lasthalf_(&id, &nj, &ni, index, xi, vi, &eps2, h2, acc, jerk, pot), 0);
    EXPECT_NEAR(acc[0][0], 0.0, 1e-15);  // symmetric
    ASSERT_EQ(g6_read_neighbour_list_(&id), 0);
    int list[8], count = 0, pipe = 0, max = 8;
    ASSERT_EQ(g6_get_neighbour_list_(&id, &pipe, &max, &count, list), 0);
    ASSERT_EQ(count, 2);  // ids 11 and 13 (r^2 = 1 < 1.1); itself excluded
    EXPECT_EQ(list[0] + list[1], 24);
    max = 1;
    EXPECT_NE(g6_get_neighbour_list_(&id, &pipe, &max, &count, list), 0);  // too short a buffer
    pipe = 3;
    EXPECT_NE(g6_get_neighbour_list(0, 3, 8, &count, list), 0);  // no such pipe
    EXPECT_NE(g6_set_ti(5, 0.0), 0);  // cluster 5 is not open
}

// ---- jp buffer and resets ----
// Here they only check the cluster is open (docs/GRAPE6.md), but GRAPE-6 codes call them around
// every j-particle update and after errors, so they must not lose writes, the j-memory or ti.

constexpr int kJ = 4, kI = 2;

// Moving j-particles predicted to ti = 0.5, so the forces depend on every stored field and on ti.
void set_bodies(int cluster, bool fortran) {
    double ti = 0.5;
    ASSERT_EQ(fortran ? g6_set_ti_(&cluster, &ti) : g6_set_ti(cluster, ti), 0);
    for (int k = 0; k < kJ; ++k) {
        int address = k, index = 20 + k;
        double tj = 0, dtj = 0.125, m = 1.0 + k, k18[3] = {}, j6[3] = {0.01 * k, 0, -0.02},
               a2[3] = {0, 0.1 * k, 0}, v[3] = {0.3, -0.2 * k, 0.1}, x[3] = {double(k), 0.5 * k * k, 1.0 - k};
        ASSERT_EQ(fortran ? g6_set_j_particle_(&cluster, &address, &index, &tj, &dtj, &m, k18, j6, a2, v, x)
                          : g6_set_j_particle(cluster, address, index, tj, dtj, m, k18, j6, a2, v, x),
                  0);
    }
}

std::vector<double> forces(int cluster) {
    int index[kI] = {21, 100};
    double xi[kI][3] = {{1.2, 0.4, 0.1}, {-1, 2, 0.5}}, vi[kI][3] = {{0, 0.1, 0}, {0.2, 0, -0.1}}, h2[kI] = {};
    double acc[kI][3] = {}, jerk[kI][3] = {}, pot[kI] = {};
    g6calc_firsthalf(cluster, kJ, kI, index, xi, vi, nullptr, nullptr, nullptr, 0.01, h2);
    EXPECT_EQ(g6calc_lasthalf(cluster, kJ, kI, index, xi, vi, 0.01, h2, acc, jerk, pot), 0);
    std::vector<double> f;
    for (int i = 0; i < kI; ++i) f.insert(f.end(), {acc[i][0], acc[i][1], acc[i][2], jerk[i][0], jerk[i][1], jerk[i][2], pot[i]});
    return f;
}

TEST_F(G6Cpu, JpBufferFlushGivesTheSameForcesAsDirectSets) {
    set_bodies(0, false);
    const auto direct = forces(0);
    ASSERT_EQ(g6_open(1), 0);
    EXPECT_EQ(g6_initialize_jp_buffer(1, 2), 0);  // smaller than the writes: GRAPE-6 would send packets on the way
    set_bodies(1, false);
    EXPECT_EQ(g6_flush_jp_buffer(1), 0);
    EXPECT_EQ(forces(1), direct);
    g6_close(1);
}

TEST_F(G6Cpu, ResetsKeepTheJParticlesAndTi) {
    set_bodies(0, false);
    const auto before = forces(0);
    EXPECT_EQ(g6_reset(0), 0);
    EXPECT_EQ(g6_reset_fofpga(0), 0);
    EXPECT_EQ(forces(0), before);  // nothing re-sent
}

TEST_F(G6Cpu, FortranJpBufferAndResetNamesBehaveAsTheCNames) {
    set_bodies(0, false);
    const auto c_names = forces(0);
    int id = 1, size = 2;
    ASSERT_EQ(g6_open_(&id), 0);
    EXPECT_EQ(g6_initialize_jp_buffer_(&id, &size), 0);
    set_bodies(1, true);
    EXPECT_EQ(g6_flush_jp_buffer_(&id), 0);
    EXPECT_EQ(forces(1), c_names);
    EXPECT_EQ(g6_reset_(&id), 0);
    EXPECT_EQ(g6_reset_fofpga_(&id), 0);
    EXPECT_EQ(forces(1), c_names);
    g6_close_(&id);
}

TEST_F(G6Cpu, JpBufferAndResetCallsFailForAClusterThatIsNotOpen) {
    int id = 5, size = 16;
    EXPECT_NE(g6_initialize_jp_buffer(id, size), 0);
    EXPECT_NE(g6_flush_jp_buffer(id), 0);
    EXPECT_NE(g6_reset(id), 0);
    EXPECT_NE(g6_reset_fofpga(id), 0);
    EXPECT_NE(g6_initialize_jp_buffer_(&id, &size), 0);
    EXPECT_NE(g6_flush_jp_buffer_(&id), 0);
    EXPECT_NE(g6_reset_(&id), 0);
    EXPECT_NE(g6_reset_fofpga_(&id), 0);
}

// ---- the example driver against the built-in integrator ----

struct Bodies {
    std::vector<double> m;
    std::vector<Vec3d> x, v;
};

Bodies read_output(const std::string& text) {
    Bodies b;
    std::istringstream in(text);
    std::string line;
    std::getline(in, line);  // header
    while (std::getline(in, line)) {
        double x, y, z, vx, vy, vz, m;
        if (std::sscanf(line.c_str(), "%lf,%lf,%lf,%lf,%lf,%lf,%lf", &x, &y, &z, &vx, &vy, &vz, &m) != 7) continue;
        b.x.push_back({x, y, z});
        b.v.push_back({vx, vy, vz});
        b.m.push_back(m);
    }
    return b;
}

// The example driver: $G6_HERMITE_EXECUTABLE where set (a build run on another machine), else the
// one this build made.
std::string g6_hermite_executable() {
    const char* env = std::getenv("G6_HERMITE_EXECUTABLE");
    return env && *env ? env : G6_HERMITE_EXECUTABLE;
}

void compare_driver(const Bodies& in, double t_end, double eta, double eps) {
    test::TempDir dir;
    std::ostringstream csv;
    csv << "x,y,z,vx,vy,vz,m\n";
    char buf[256];
    for (std::size_t i = 0; i < in.m.size(); ++i) {
        std::snprintf(buf, sizeof buf, "%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g\n", in.x[i].x, in.x[i].y, in.x[i].z,
                      in.v[i].x, in.v[i].y, in.v[i].z, in.m[i]);
        csv << buf;
    }
    test::write_text(dir.file("in.csv"), csv.str());
    std::snprintf(buf, sizeof buf, " %.17g %.17g %.17g 0.125 > ", t_end, eta, eps);
    const auto r = test::run_command("G6_ENGINE=cpu " + g6_hermite_executable() + " " + dir.file("in.csv") +
                                     buf + dir.file("out.csv"));
    ASSERT_EQ(r.exit_code, 0) << r.output;
    const Bodies out = read_output(test::read_text(dir.file("out.csv")));
    ASSERT_EQ(out.m.size(), in.m.size());

    hermite::HermiteIntegrator h(hermite::make_force_engine(EngineKind::Cpu), {.eta = eta, .softening = eps});
    h.start(in.m, in.x, in.v, 0);
    h.evolve(t_end);
    double dx = 0, moved = 0;
    for (std::size_t i = 0; i < in.m.size(); ++i) {
        dx = std::max(dx, norm(out.x[i] - h.bodies().x[i]) + norm(out.v[i] - h.bodies().v[i]));
        moved = std::max(moved, norm(out.x[i] - in.x[i]));
    }
    std::printf("%zu bodies to t = %g: driver vs built-in max |dx| + |dv| = %.3e (bodies moved up to %.3g); %s\n",
                in.m.size(), t_end, dx, moved, r.output.c_str());
    EXPECT_GT(moved, 1e-3);
    EXPECT_EQ(dx, 0.0);  // same scheme, same arithmetic: the same trajectories bit for bit
}

TEST(G6Driver, SameTrajectoriesAsTheBuiltInIntegratorPlummer) {
    const State st = ic::make_plummer({.bodies = 300, .seed = 5});  // > 256 pipes: the driver chunks
    Bodies b;
    for (std::size_t i = 0; i < st.size(); ++i) {
        b.m.push_back(st.pos_mass[i].w);
        b.x.push_back(xyz(st.pos_mass[i]));
        b.v.push_back(xyz(st.velocity[i]));
    }
    compare_driver(b, 0.3, 0.02, 0.01);
}

TEST(G6Driver, SameTrajectoriesAsTheBuiltInIntegratorFigureEight) {
    const double x1 = 0.97000435971594168, y1 = -0.24308750704796772, vx3 = -0.93240735167616107,
                 vy3 = -0.86473148506090602;
    Bodies b{{1, 1, 1},
             {{x1, y1, 0}, {-x1, -y1, 0}, {0, 0, 0}},
             {{-vx3 / 2, -vy3 / 2, 0}, {-vx3 / 2, -vy3 / 2, 0}, {vx3, vy3, 0}}};
    compare_driver(b, 2.3, 0.01, 0.0);  // softening 0; 2.3 is no multiple of dt_max: the final synchronising step too
}

}  // namespace
}  // namespace nbody
