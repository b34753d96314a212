// Leapfrog physics on the host backends: orbits, order of accuracy, reversibility, momentum.

#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <numbers>
#include <random>
#include <sstream>

#include "nbody/sim/diagnostics.hpp"
#include "nbody/sim/direct_sum_backend.hpp"
#include "nbody/sim/ic/plummer.hpp"
#include "test_support.hpp"

namespace nbody {
namespace {

// Two equal masses (total 1) a distance 1 apart on a circular orbit about their centre of mass:
// period 2 pi, each body at radius 1/2 moving at speed 1/2.
State circular_binary() {
    State s;
    s.resize(2);
    s.pos_mass[0] = {0.5f, 0, 0, 0.5f};
    s.pos_mass[1] = {-0.5f, 0, 0, 0.5f};
    s.velocity[0] = {0, 0.5f, 0, 0};
    s.velocity[1] = {0, -0.5f, 0, 0};
    return s;
}

// Eccentric binary (e = 0.5, semi-major axis 1) released at apocentre.
State eccentric_binary() {
    const double e = 0.5, a = 1.0, apo = a * (1 + e);
    const double v_rel = std::sqrt((1 - e) / (a * (1 + e)));  // vis-viva at apocentre, G M = 1
    State s;
    s.resize(2);
    s.pos_mass[0] = {float(apo / 2), 0, 0, 0.5f};
    s.pos_mass[1] = {float(-apo / 2), 0, 0, 0.5f};
    s.velocity[0] = {0, float(v_rel / 2), 0, 0};
    s.velocity[1] = {0, float(-v_rel / 2), 0, 0};
    return s;
}

std::unique_ptr<Backend> make(const std::string& kind) {
    if (kind == "reference") return std::make_unique<ReferenceBackend>();
    return std::make_unique<CpuBackend>();
}

// Momentum from the backend's own precision: a float copy would round the double velocities.
Vec3d momentum(const Backend& backend, const State& masses) {
    const auto velocities = backend.name() == "reference"
                                ? static_cast<const ReferenceBackend&>(backend).velocities()
                                : static_cast<const CpuBackend&>(backend).velocities();
    Vec3d p;
    for (std::size_t i = 0; i < velocities.size(); ++i) p += double(masses.pos_mass[i].w) * velocities[i];
    return p;
}

class HostBackends : public ::testing::TestWithParam<std::string> {};

TEST_P(HostBackends, CircularBinaryKeepsRadiusAndPhaseOverTenOrbits) {
    auto backend = make(GetParam());
    backend->load(circular_binary());
    const double period = 2 * std::numbers::pi;
    // fp32 positions gain rounding error every step, so the cpu backend takes fewer, larger steps:
    // 2000 a period keeps the leapfrog phase error near 3e-5 over ten orbits.
    const int steps_per_orbit = GetParam() == "reference" ? 20000 : 2000;
    const StepParams params{.dt = period / steps_per_orbit, .softening = 0.0};
    backend->step(params, 10 * steps_per_orbit);
    State s;
    backend->store(s);
    EXPECT_NEAR(backend->time(), 10 * period, 1e-9);
    for (int b = 0; b < 2; ++b) {
        const Vec3d x = xyz(s.pos_mass[b]);
        const Vec3d expected = b == 0 ? Vec3d{0.5, 0, 0} : Vec3d{-0.5, 0, 0};  // whole orbits: back at the start
        EXPECT_LT(std::abs(norm(x) - 0.5) / 0.5, 1e-4) << "radius of body " << b;
        // fp32 positions round every drift (x ~ 0.5 holds 3e-8 steps, moved 1.6e-3 a step), a bias
        // that reaches ~1e-3 of phase over 20,000 steps whatever dt is; double keeps 1e-4 easily.
        const double phase_bound = GetParam() == "reference" ? 1e-4 : 3e-3;
        EXPECT_LT(norm(x - expected) / 0.5, phase_bound) << "phase of body " << b;
    }
}

TEST_P(HostBackends, MomentumIsConservedToRoundOff) {
    std::mt19937 rng(7);
    std::uniform_real_distribution<float> u(-1.0f, 1.0f), mass(0.1f, 2.0f);
    State s;
    s.resize(300);
    for (std::size_t i = 0; i < s.size(); ++i) {
        s.pos_mass[i] = {u(rng), u(rng), u(rng), mass(rng)};
        s.velocity[i] = {0.3f * u(rng), 0.3f * u(rng), 0.3f * u(rng), 0};
    }
    auto backend = make(GetParam());
    backend->load(s);
    const Vec3d before = momentum(*backend, s);
    backend->step({.dt = 1e-3, .softening = 0.05}, 200);
    const Vec3d after = momentum(*backend, s);
    backend->store(s);
    double scale = 0;
    for (std::size_t i = 0; i < s.size(); ++i) scale += s.pos_mass[i].w * norm(xyz(s.velocity[i]));
    const double drift = norm(after - before) / scale;
    EXPECT_GT(scale, 1.0) << "the cluster should be moving";
    // Each pair force is computed twice, once per side, so conservation holds to rounding of the
    // working precision, not exactly.
    const double bound = GetParam() == "reference" ? 1e-13 : 1e-5;
    EXPECT_LT(drift, bound);
}

INSTANTIATE_TEST_SUITE_P(Backends, HostBackends, ::testing::Values("reference", "cpu"));

double max_energy_error_over_one_orbit(double dt) {
    ReferenceBackend backend;
    const State start = eccentric_binary();
    backend.load(start);
    const double e0 = compute_diagnostics(start, 0.0).total;
    const int steps = int(std::lround(2 * std::numbers::pi / dt));
    double worst = 0;
    State s;
    for (int i = 0; i < steps; ++i) {
        backend.step({.dt = dt, .softening = 0.0});
        backend.store(s);
        // The float copy is accurate to ~1e-7; the energy error at these steps is far larger.
        worst = std::max(worst, std::abs(compute_diagnostics(s, 0.0).total - e0) / std::abs(e0));
    }
    return worst;
}

TEST(Leapfrog, EnergyErrorIsSecondOrderInDt) {
    const double coarse = max_energy_error_over_one_orbit(0.02);
    const double fine = max_energy_error_over_one_orbit(0.01);
    const double ratio = coarse / fine;
    EXPECT_GT(coarse, 1e-5) << "error too small to measure the order";
    EXPECT_GT(ratio, 3.5) << "coarse " << coarse << " fine " << fine;
    EXPECT_LT(ratio, 4.5) << "coarse " << coarse << " fine " << fine;
}

TEST(Leapfrog, IsTimeReversibleInDouble) {
    ReferenceBackend backend;
    const State start = ic::make_plummer({.bodies = 64, .seed = 3});
    backend.load(start);
    const auto x0 = backend.positions();
    const auto v0 = backend.velocities();
    const StepParams params{.dt = 2e-3, .softening = 0.05};
    backend.step(params, 300);
    const auto x_mid = backend.positions();
    backend.reverse_velocities();
    backend.step(params, 300);
    const auto x1 = backend.positions();
    auto v1 = backend.velocities();
    double moved = 0, pos_err = 0, vel_err = 0;
    for (std::size_t i = 0; i < x0.size(); ++i) {
        moved = std::max(moved, norm(x_mid[i] - x0[i]) / norm(x0[i]));
        pos_err = std::max(pos_err, norm(x1[i] - x0[i]) / norm(x0[i]));
        vel_err = std::max(vel_err, norm(v1[i] * -1.0 - v0[i]) / norm(v0[i]));
    }
    EXPECT_GT(moved, 1e-3) << "the system barely moved; the test would prove nothing";
    EXPECT_LT(pos_err, 1e-10);
    EXPECT_LT(vel_err, 1e-10);
}

TEST(CpuBackend, AccelerationsMatchReferenceForPlummerSphere) {
    const State s = ic::make_plummer({.bodies = 1024, .seed = 11});
    ReferenceBackend reference;
    CpuBackend cpu;
    reference.load(s);
    cpu.load(s);
    const double err = test::max_relative_error(cpu.accelerations(0.01), reference.accelerations(0.01));
    EXPECT_LE(err, 1e-5);
    EXPECT_GT(err, 0.0) << "fp32 and double sums cannot agree exactly; is the cpu backend really fp32?";
}

TEST(Backend, RejectsBadStepParameters) {
    CpuBackend cpu;
    cpu.load(circular_binary());
    EXPECT_THROW(cpu.step({.dt = 0.0, .softening = 0.1}), std::invalid_argument);
    EXPECT_THROW(cpu.step({.dt = -1.0, .softening = 0.1}), std::invalid_argument);
    EXPECT_THROW(cpu.step({.dt = 0.1, .softening = -1.0}), std::invalid_argument);
}

TEST(Backend, FactoryParsesKindsAndAutoSaysWhichItPicked) {
    EXPECT_EQ(parse_backend_kind("cpu"), BackendKind::Cpu);
    EXPECT_EQ(parse_backend_kind("reference"), BackendKind::Reference);
    try {
        parse_backend_kind("gpu");
        FAIL() << "expected an error";
    } catch (const std::invalid_argument& e) {
        EXPECT_NE(std::string(e.what()).find("reference, cpu, cuda, auto"), std::string::npos) << e.what();
    }
    std::ostringstream notice;
    auto backend = make_backend(BackendKind::Auto, notice);
    EXPECT_NE(notice.str().find(std::string("auto -> ") + std::string(backend->name())), std::string::npos)
        << notice.str();
    std::string why;
    if (!cuda_available(&why)) {
        EXPECT_EQ(backend->name(), "cpu");
        EXPECT_FALSE(why.empty());
        std::ostringstream ignored;
        try {
            make_backend(BackendKind::Cuda, ignored);
            FAIL() << "cuda backend created without a usable GPU";
        } catch (const std::runtime_error& e) {
            EXPECT_NE(std::string(e.what()).find(why), std::string::npos) << e.what();
        }
    }
}

}  // namespace
}  // namespace nbody
