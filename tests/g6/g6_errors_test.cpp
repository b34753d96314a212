// libg6's errors (issue 34): each bad argument a GRAPE-6 or Sapporo program could pass returns its
// code from g6lib.h with one line on stderr naming the call and the value (once per kind), and
// never a success with NaN forces, a crash or an exception.

#include <gtest/gtest.h>

#include <climits>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <string>

#include "g6lib.h"
#include "nbody/sim/hermite/force_engine.hpp"

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// Messages are once per call and kind while a cluster is open: each test opens cluster 0 afresh,
// so what it prints does not depend on the tests before it.
struct G6Errors : ::testing::Test {
    void SetUp() override {
        setenv("G6_ENGINE", "cpu", 1);
        ASSERT_EQ(g6_open(0), G6_OK);
    }
    void TearDown() override { g6_close(0); }

    // Three j-particles of mass 1 on the x axis at 0, 1, 2, ids 0, 1, 2.
    static void set_three() {
        for (int k = 0; k < 3; ++k) {
            double zero[3] = {0, 0, 0}, x[3] = {double(k), 0, 0};
            ASSERT_EQ(g6_set_j_particle(0, k, k, 0.0, 0.125, 1.0, zero, zero, zero, zero, x), G6_OK);
        }
        ASSERT_EQ(g6_set_ti(0, 0.0), G6_OK);
    }

    // One i-particle (index 10) at `x`, forces from nj j-particles with eps2: the code of
    // g6calc_lasthalf, the acceleration in acc_out.
    static int force(double x0, int nj, double eps2, double* acc_out = nullptr) {
        int index[1] = {10};
        double xi[1][3] = {{x0, 0.5, 0}}, vi[1][3] = {{0, 0, 0}}, h2[1] = {0};
        double acc[1][3] = {{-7, -7, -7}}, jerk[1][3], pot[1];
        g6calc_firsthalf(0, nj, 1, index, xi, vi, nullptr, nullptr, nullptr, eps2, h2);
        const int code = g6calc_lasthalf(0, nj, 1, index, xi, vi, eps2, h2, acc, jerk, pot);
        if (acc_out) *acc_out = acc[0][0];
        return code;
    }
};

TEST_F(G6Errors, ANaNPositionIsAValueErrorNamedOnceNotNaNForces) {
    set_three();
    testing::internal::CaptureStderr();
    double acc = 0;
    EXPECT_EQ(force(kNaN, 3, 0.01, &acc), G6_ERROR_VALUE);
    EXPECT_EQ(acc, -7) << "nothing is handed over from a calculation that did not run";
    EXPECT_EQ(force(kNaN, 3, 0.01), G6_ERROR_VALUE);  // again: the same code, no second line
    const std::string err = testing::internal::GetCapturedStderr();
    EXPECT_NE(err.find("libg6: g6calc_firsthalf: xi[0][0] = nan (index 10) is not finite (1 of 1 i-particles)"),
              std::string::npos)
        << err;
    EXPECT_NE(err.find("returns 2 (G6_ERROR_VALUE)"), std::string::npos) << err;
    EXPECT_EQ(err.find("xi", err.find("\n")), std::string::npos) << "printed twice:\n" << err;
    // The cluster is not spoiled: the next good call computes.
    EXPECT_EQ(force(0.5, 3, 0.01, &acc), G6_OK);
    EXPECT_TRUE(std::isfinite(acc));
}

TEST_F(G6Errors, ANaNTiIsRefusedAndNoForceIsComputedUntilAFiniteOne) {
    set_three();
    testing::internal::CaptureStderr();
    EXPECT_EQ(g6_set_ti(0, kNaN), G6_ERROR_VALUE);
    EXPECT_EQ(force(0.5, 3, 0.01), G6_ERROR_VALUE) << "the old ti would give forces at another time";
    const std::string err = testing::internal::GetCapturedStderr();
    EXPECT_NE(err.find("libg6: g6_set_ti: ti = nan is not finite"), std::string::npos) << err;
    EXPECT_NE(err.find("g6calc_firsthalf: no valid ti: g6_set_ti was given ti = nan"), std::string::npos) << err;
    int id = 0;
    double inf = std::numeric_limits<double>::infinity();
    EXPECT_EQ(g6_set_ti_(&id, &inf), G6_ERROR_VALUE);  // the Fortran name as well
    EXPECT_EQ(g6_set_ti(0, 0.0), G6_OK);
    EXPECT_EQ(force(0.5, 3, 0.01), G6_OK);
}

TEST_F(G6Errors, ANegativeOrNaNSofteningIsAValueError) {
    set_three();
    testing::internal::CaptureStderr();
    EXPECT_EQ(force(0.5, 3, -1.0), G6_ERROR_VALUE);
    EXPECT_EQ(force(0.5, 3, kNaN), G6_ERROR_VALUE);
    const std::string err = testing::internal::GetCapturedStderr();
    EXPECT_NE(err.find("eps2 = -1 (the softening squared must be finite and >= 0)"), std::string::npos) << err;
    EXPECT_EQ(force(0.5, 3, 0.0), G6_OK);
}

TEST_F(G6Errors, NjPastTheJParticlesSetIsARangeError) {
    set_three();
    testing::internal::CaptureStderr();
    EXPECT_EQ(force(0.5, 4, 0.01), G6_ERROR_RANGE);
    EXPECT_EQ(force(0.5, -1, 0.01), G6_ERROR_RANGE);
    // A gap: address 5 set, 3 and 4 not. nj = 6 would reach the unset ones (zeros in the engine's
    // memory, which the engine's growth had made room for).
    double zero[3] = {0, 0, 0}, x[3] = {5, 0, 0};
    ASSERT_EQ(g6_set_j_particle(0, 5, 5, 0.0, 0.125, 1.0, zero, zero, zero, zero, x), G6_OK);
    EXPECT_EQ(force(0.5, 6, 0.01), G6_ERROR_RANGE);
    const std::string err = testing::internal::GetCapturedStderr();
    EXPECT_NE(err.find("libg6: g6calc_firsthalf: nj = 4 but j-particles are set at addresses 0..2"), std::string::npos)
        << err;
    EXPECT_EQ(force(0.5, 3, 0.01), G6_OK);
}

TEST_F(G6Errors, AHugeAddressIsARangeErrorNotBadAlloc) {
    testing::internal::CaptureStderr();
    double zero[3] = {0, 0, 0};
    EXPECT_EQ(g6_set_j_particle(0, INT_MAX, 1, 0.0, 0.125, 1.0, zero, zero, zero, zero, zero), G6_ERROR_RANGE);
    EXPECT_EQ(g6_set_j_particle(0, -3, 1, 0.0, 0.125, 1.0, zero, zero, zero, zero, zero), G6_ERROR_RANGE);
    const std::string err = testing::internal::GetCapturedStderr();
    EXPECT_NE(err.find("libg6: g6_set_j_particle: address 2147483647 outside 0..16777215"), std::string::npos) << err;
    EXPECT_EQ(err.find("bad_alloc"), std::string::npos) << err;
    // The memory was not grown: nothing is set.
    EXPECT_EQ(force(0.5, 1, 0.01), G6_ERROR_RANGE);
}

TEST_F(G6Errors, ANaNJParticleIsRefusedAndItsAddressCountsAsUnset) {
    set_three();
    testing::internal::CaptureStderr();
    double zero[3] = {0, 0, 0}, bad_v[3] = {0, kNaN, 0}, x[3] = {1, 0, 0};
    EXPECT_EQ(g6_set_j_particle(0, 1, 1, 0.0, 0.125, 1.0, zero, zero, zero, bad_v, x), G6_ERROR_VALUE);
    EXPECT_EQ(g6_set_j_particle(0, 1, 1, 0.0, 0.125, kNaN, zero, zero, zero, zero, x), G6_ERROR_VALUE);
    const std::string err = testing::internal::GetCapturedStderr();
    EXPECT_NE(err.find("v[1] = nan of address 1 (index 1) is not finite"), std::string::npos) << err;
    EXPECT_NE(err.find("mass = nan of address 1 (index 1) is not finite"), std::string::npos) << err;
    // The old j-particle at address 1 is no longer there: a calculation over it is refused ...
    EXPECT_EQ(force(0.5, 3, 0.01), G6_ERROR_RANGE);
    EXPECT_EQ(force(0.5, 1, 0.01), G6_OK);  // ... one below it runs
    ASSERT_EQ(g6_set_j_particle(0, 1, 1, 0.0, 0.125, 1.0, zero, zero, zero, zero, x), G6_OK);
    EXPECT_EQ(force(0.5, 3, 0.01), G6_OK);
}

TEST_F(G6Errors, ANonFiniteForceFromFiniteInputIsAValueErrorWithTheForces) {
    set_three();
    // On j-particle 1 (another index) without softening: 1/0.
    int index[1] = {10};
    double xi[1][3] = {{1, 0, 0}}, vi[1][3] = {{0, 0, 0}}, h2[1] = {0}, acc[1][3], jerk[1][3], pot[1];
    testing::internal::CaptureStderr();
    g6calc_firsthalf(0, 3, 1, index, xi, vi, nullptr, nullptr, nullptr, 0.0, h2);
    EXPECT_EQ(g6calc_lasthalf(0, 3, 1, index, xi, vi, 0.0, h2, acc, jerk, pot), G6_ERROR_VALUE);
    const std::string err = testing::internal::GetCapturedStderr();
    EXPECT_NE(err.find("the force on i-particle 0 (index 10) is not finite"), std::string::npos) << err;
    EXPECT_FALSE(std::isfinite(pot[0])) << "handed over as computed";
}

TEST_F(G6Errors, NullArraysAreErrorsNotCrashes) {
    set_three();
    int index[1] = {10};
    g6calc_firsthalf(0, 3, 1, index, nullptr, nullptr, nullptr, nullptr, nullptr, 0.01, nullptr);
    double acc[1][3], jerk[1][3], pot[1];
    EXPECT_EQ(g6calc_lasthalf(0, 3, 1, index, nullptr, nullptr, 0.01, nullptr, acc, jerk, pot), G6_ERROR_VALUE);
    double xi[1][3] = {{0.5, 0.5, 0}}, vi[1][3] = {{0, 0, 0}};
    g6calc_firsthalf(0, 3, 1, index, xi, vi, nullptr, nullptr, nullptr, 0.01, nullptr);
    EXPECT_EQ(g6calc_lasthalf(0, 3, 1, index, xi, vi, 0.01, nullptr, nullptr, nullptr, nullptr), G6_ERROR_VALUE);
    double zero[3] = {0, 0, 0};
    EXPECT_EQ(g6_set_j_particle(0, 0, 0, 0.0, 0.125, 1.0, nullptr, zero, zero, zero, nullptr), G6_ERROR_VALUE);
}

// The checks come before the engine, so the cuda engine answers alike (GPU machine; skips here).
TEST(G6ErrorsCuda, TheSameCodesOnTheCudaEngine) {
    std::string why;
    if (!nbody::hermite::cuda_engine_usable(&why)) GTEST_SKIP() << "no cuda engine: " << why;
    setenv("G6_ENGINE", "cuda", 1);
    ASSERT_EQ(g6_open(3), G6_OK);
    double zero[3] = {0, 0, 0};
    for (int k = 0; k < 3; ++k) {
        double x[3] = {double(k), 0, 0};
        ASSERT_EQ(g6_set_j_particle(3, k, k, 0.0, 0.125, 1.0, zero, zero, zero, zero, x), G6_OK);
    }
    ASSERT_EQ(g6_set_ti(3, 0.0), G6_OK);
    const auto code = [](double x0, int nj, double eps2) {
        int index[1] = {10};
        double xi[1][3] = {{x0, 0.5, 0}}, vi[1][3] = {{0, 0, 0}}, h2[1] = {0}, acc[1][3], jerk[1][3], pot[1];
        g6calc_firsthalf(3, nj, 1, index, xi, vi, nullptr, nullptr, nullptr, eps2, h2);
        return g6calc_lasthalf(3, nj, 1, index, xi, vi, eps2, h2, acc, jerk, pot);
    };
    EXPECT_EQ(code(kNaN, 3, 0.01), G6_ERROR_VALUE);
    EXPECT_EQ(code(0.5, 4, 0.01), G6_ERROR_RANGE);
    EXPECT_EQ(code(0.5, 3, -1.0), G6_ERROR_VALUE);
    EXPECT_EQ(g6_set_ti(3, kNaN), G6_ERROR_VALUE);
    EXPECT_EQ(code(0.5, 3, 0.01), G6_ERROR_VALUE);
    EXPECT_EQ(g6_set_ti(3, 0.0), G6_OK);
    EXPECT_EQ(code(0.5, 3, 0.01), G6_OK);
    EXPECT_EQ(g6_set_j_particle(3, INT_MAX, 1, 0.0, 0.125, 1.0, zero, zero, zero, zero, zero), G6_ERROR_RANGE);
    g6_close(3);
    setenv("G6_ENGINE", "cpu", 1);
}

TEST(G6ErrorsNotOpen, EveryCallOnAClusterNotOpenReturnsG6Error) {
    double zero[3] = {0, 0, 0}, acc[1][3], jerk[1][3], pot[1];
    int n = 0, list[1];
    EXPECT_EQ(g6_set_ti(77, 0.0), G6_ERROR);
    EXPECT_EQ(g6_set_j_particle(77, 0, 0, 0.0, 0.125, 1.0, zero, zero, zero, zero, zero), G6_ERROR);
    g6calc_firsthalf(77, 0, 0, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, 0.0, nullptr);
    EXPECT_EQ(g6calc_lasthalf(77, 0, 0, nullptr, nullptr, nullptr, 0.0, nullptr, acc, jerk, pot), G6_ERROR);
    EXPECT_EQ(g6_read_neighbour_list(77), G6_ERROR);
    EXPECT_EQ(g6_get_neighbour_list(77, 0, 1, &n, list), G6_ERROR);
    EXPECT_EQ(g6_close(77), G6_ERROR);
}

}  // namespace
