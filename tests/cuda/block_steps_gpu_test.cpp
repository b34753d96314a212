// Block time steps on the GPU (`--backend cuda --gravity tree --timesteps block`; docs/TREE.md,
// "Block time steps") against the host BlockStepper on the CPU tree (its oracle): the active-body
// pass of the GPU tree, a two-body orbit with two levels, a Plummer sphere, level 0 against the
// shared leapfrog, the ForceWork counts and the refusals. Skipped without a usable GPU.
//
// Filter: --gtest_filter='GpuBlockSteps*'

#include <gtest/gtest.h>

#ifdef NBODY_HAVE_CUDA
#include <cuda_runtime_api.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <vector>

#include "../../sim/cuda/tree/gpu_tree.hpp"
#include "nbody/sim/cuda_backend.hpp"
#include "nbody/sim/diagnostics.hpp"
#include "nbody/sim/direct_sum_backend.hpp"
#include "nbody/sim/force_error.hpp"
#include "require_gpu.hpp"
#include "test_support.hpp"
#include "tree_test_support.hpp"

namespace nbody {
namespace {

// The angle alone: a pass then depends on the positions only, so the bit-for-bit comparisons below
// (an active pass against the force pass, a fresh pass at dt_max) hold; the relative criterion's
// passes also depend on the accelerations before them (GpuTree.RelativeCriterion*).
const TreeParams kAngle{0.5, 16, 128, 0.0};
GravityConfig tree_gravity() { return {Gravity::Tree, kAngle}; }
TimeStepConfig block(double eta, int max_level = kDefaultMaxLevel) { return {TimeSteps::Block, eta, max_level}; }

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

// Two bodies (masses 0.8 and 0.2, separation 1, total mass 1) on a circular orbit about their centre
// of mass (period ~2 pi). With eps 0.01 and eta 0.5 the criterion gives the heavy body (|a| ~ 0.2)
// dt 0.112 and the light one (|a| ~ 0.8) dt 0.056: with dt_max = 2 pi / 16 = 0.393 levels 2 and 3,
// each 14 % inside its level's bounds, and constant along the orbit.
State circular_binary(double eps) {
    State s;
    s.resize(2);
    const double r = 1, v = std::sqrt(r * r / std::pow(r * r + eps * eps, 1.5));  // softened circular speed
    s.pos_mass[0] = {-0.2f, 0, 0, 0.8f};
    s.pos_mass[1] = {0.8f, 0, 0, 0.2f};
    s.velocity[0] = {0, float(-0.2 * v), 0, 0};
    s.velocity[1] = {0, float(0.8 * v), 0, 0};
    return s;
}

using Outcome = test::TimeStepRun;

template <class Backend>
Outcome run(const State& s, const StepParams& p, long steps, const TimeStepConfig& ts) {
    return test::run_with_time_steps<Backend>(s, p, steps, ts);
}

double distance(const Vec4f& a, const Vec4f& b) { return norm(xyz(a) - xyz(b)); }

std::vector<float4> download(const cuda::DeviceBuffer<float4>& d, std::size_t n) {
    std::vector<float4> out(n);
    EXPECT_EQ(cudaMemcpy(out.data(), d.get(), n * sizeof(float4), cudaMemcpyDeviceToHost), cudaSuccess);
    return out;
}

// GpuTree::force_active: every body flagged is the force pass bit for bit; a subset gets forces
// within the tree's error of the full pass (its groups' boxes are over their active bodies only),
// for fewer terms, and every other entry of acc is left as it was; a count that does not match the
// flags is reported and writes nothing.
TEST(GpuBlockStepsTree, ActivePassIsTheForcePassForItsBodiesAndLeavesTheOthers) {
    REQUIRE_GPU();
    const State s = test::plummer_sphere(20000, 6);
    const int n = int(s.size());
    const float eps2 = 1e-4f;
    cuda::DeviceBuffer<float4> pos(n), full(n), some(n);
    cuda::DeviceBuffer<unsigned char> flags(n);
    ASSERT_EQ(cudaMemcpy(pos.get(), s.pos_mass.data(), n * sizeof(float4), cudaMemcpyHostToDevice), cudaSuccess);
    cuda::GpuTree tree;
    tree.force(pos.get(), n, eps2, kAngle, 8, full.get(), nullptr, 0, nullptr);
    tree.check_errors();
    const cuda::TreeWork full_work = tree.work(nullptr);
    EXPECT_GT(full_work.body_terms, 0.0);
    const std::vector<float4> a_full = download(full, n);

    // Every body flagged.
    std::vector<unsigned char> all(n, 1);
    ASSERT_EQ(cudaMemcpy(flags.get(), all.data(), n, cudaMemcpyHostToDevice), cudaSuccess);
    tree.reset_work(nullptr);
    tree.force_active(pos.get(), n, flags.get(), n, eps2, kAngle, 8, some.get(), nullptr);
    tree.check_errors();
    const std::vector<float4> a_all = download(some, n);
    for (int i = 0; i < n; ++i) {
        ASSERT_EQ(a_all[i].x, a_full[i].x) << i;
        ASSERT_EQ(a_all[i].z, a_full[i].z) << i;
    }
    EXPECT_EQ(tree.work(nullptr).body_terms, full_work.body_terms);

    // Every 7th body (sparse: most groups keep a few), and every body within 0.2 of the centre
    // (~3 %, dense: whole groups active).
    std::vector<unsigned char> subset(n, 0);
    std::vector<std::size_t> listed;
    for (int i = 0; i < n; ++i) {
        const Vec4f& q = s.pos_mass[std::size_t(i)];
        subset[i] = (i % 7 == 0 || std::hypot(q.x, q.y, q.z) < 0.2f) ? 1 : 0;
        if (subset[i]) listed.push_back(std::size_t(i));
    }
    const int count = int(listed.size());
    const std::vector<float4> sentinel(n, float4{-7.f, -7.f, -7.f, -7.f});
    ASSERT_EQ(cudaMemcpy(some.get(), sentinel.data(), n * sizeof(float4), cudaMemcpyHostToDevice), cudaSuccess);
    ASSERT_EQ(cudaMemcpy(flags.get(), subset.data(), n, cudaMemcpyHostToDevice), cudaSuccess);
    tree.reset_work(nullptr);
    tree.force_active(pos.get(), n, flags.get(), count, eps2, kAngle, 8, some.get(), nullptr);
    tree.check_errors();
    const cuda::TreeWork some_work = tree.work(nullptr);
    const std::vector<float4> a_some = download(some, n);
    std::vector<Vec3d> got, full_pass;
    for (int i = 0; i < n; ++i) {
        if (!subset[i]) {
            ASSERT_EQ(a_some[i].x, -7.f) << i;
            ASSERT_EQ(a_some[i].w, -7.f) << i;
            continue;
        }
        got.push_back({a_some[i].x, a_some[i].y, a_some[i].z});
        full_pass.push_back({a_full[i].x, a_full[i].y, a_full[i].z});
    }
    // Within the tree's error of the direct sum, as the full pass is (a group's box over its active
    // bodies accepts cells sooner, so the two differ by about that error).
    const std::vector<Vec3d> ref = direct_accelerations(s, listed, std::sqrt(double(eps2)));
    const ForceErrorStats e_some = relative_force_errors(got, ref), e_full = relative_force_errors(full_pass, ref);
    const ForceErrorStats apart = relative_force_errors(got, full_pass);
    std::printf("force_active: %d of %d bodies; error against the direct sum: median %.3g p99 %.3g max %.3g (the "
                "full pass on them: %.3g %.3g %.3g); from the full pass: max %.3g; terms %.4g against %.4g\n",
                count, n, e_some.median, e_some.p99, e_some.max, e_full.median, e_full.p99, e_full.max, apart.max,
                some_work.body_terms + some_work.cell_terms, full_work.body_terms + full_work.cell_terms);
    EXPECT_LE(e_some.median, 4e-4);
    EXPECT_LE(e_some.p99, 4e-3);
    EXPECT_LE(e_some.max, 3e-2);
    EXPECT_LT(some_work.body_terms + some_work.cell_terms, 0.3 * (full_work.body_terms + full_work.cell_terms));
    EXPECT_GT(some_work.body_terms, 0.0);

    // A count the flags do not have: reported, nothing written.
    ASSERT_EQ(cudaMemcpy(some.get(), sentinel.data(), n * sizeof(float4), cudaMemcpyHostToDevice), cudaSuccess);
    tree.force_active(pos.get(), n, flags.get(), count + 1, eps2, kAngle, 8, some.get(), nullptr);
    EXPECT_THROW(tree.check_errors(), std::runtime_error);
    const std::vector<float4> untouched = download(some, n);
    for (int i = 0; i < n; i += 7) ASSERT_EQ(untouched[i].x, -7.f) << i;
    // Reported once; the next pass is clean.
    tree.force_active(pos.get(), n, flags.get(), count, eps2, kAngle, 8, some.get(), nullptr);
    EXPECT_NO_THROW(tree.check_errors());
}

// The light body takes 8 steps per dt_max, the heavy one 4: the light one's forces at odd ticks
// come from the heavy one's predicted position. The GPU stepper chooses the CPU stepper's levels
// and ends where it does, to float rounding (fmaf against separate multiply and add). Its counts
// are exact: per dt_max 8 passes with 1 + 1 + ... evaluations, 12 in all, plus the first pass.
TEST(GpuBlockStepsStepper, CircularBinaryTakesTheCpuSteppersLevelsAndOrbit) {
    REQUIRE_GPU();
    const double eps = 0.01;
    const State s = circular_binary(eps);
    const StepParams p{2 * M_PI / 16, eps};
    const int steps = 4;  // a quarter of the orbit
    const Outcome gpu = run<CudaBackend>(s, p, steps, block(0.5));
    const Outcome cpu = run<CpuBackend>(s, p, steps, block(0.5));
    ASSERT_EQ(cpu.levels, (std::vector<std::uint8_t>{2, 3}));  // the setting above, on the oracle
    EXPECT_EQ(gpu.levels, cpu.levels);
    EXPECT_EQ(gpu.work.level_counts, cpu.work.level_counts);
    for (int i = 0; i < 2; ++i) {
        EXPECT_LT(distance(gpu.state.pos_mass[i], cpu.state.pos_mass[i]), 1e-5) << i;
        EXPECT_LT(norm(xyz(gpu.state.velocity[i]) - xyz(cpu.state.velocity[i])), 1e-5) << i;
    }
    // The orbit moved a quarter turn: the comparison above is not of two bodies at rest.
    EXPECT_GT(distance(gpu.state.pos_mass[1], s.pos_mass[1]), 0.5);
    // A quarter turn: the light body near (0, 0.8).
    EXPECT_LT(std::hypot(gpu.state.pos_mass[1].x - 0.0, gpu.state.pos_mass[1].y - 0.8), 0.05);

    // ForceWork: the sum of the due bodies over the ticks, and the report's other figures.
    EXPECT_EQ(gpu.work.evaluations, 2u + 12u * steps);
    EXPECT_EQ(gpu.work.passes, 1u + 8u * steps);
    EXPECT_EQ(gpu.work.body_terms, 2.0 * double(gpu.work.evaluations));  // each sees the leaf of both
    EXPECT_EQ(gpu.work.cell_terms, 0.0);
    EXPECT_EQ(gpu.work.clamped, 0u);
    EXPECT_EQ(gpu.work.evaluations, cpu.work.evaluations);
    EXPECT_EQ(gpu.work.passes, cpu.work.passes);
    EXPECT_EQ(gpu.work.body_terms, cpu.work.body_terms);
    EXPECT_EQ(gpu.work.cell_terms, cpu.work.cell_terms);
}

// Finer than max_level: held there and counted, as on the CPU.
TEST(GpuBlockStepsStepper, ClampedChoicesAreCountedAsOnTheCpu) {
    REQUIRE_GPU();
    const double eps = 0.01;
    const State s = circular_binary(eps);
    const StepParams p{2 * M_PI / 16, eps};
    const Outcome gpu = run<CudaBackend>(s, p, 2, block(0.5, 2));  // the light body wants level 3
    const Outcome cpu = run<CpuBackend>(s, p, 2, block(0.5, 2));
    EXPECT_GT(cpu.work.clamped, 0u);
    EXPECT_EQ(gpu.work.clamped, cpu.work.clamped);
    EXPECT_EQ(gpu.levels, cpu.levels);
    EXPECT_EQ(gpu.work.evaluations, cpu.work.evaluations);
}

// A Plummer sphere (4096 bodies, eps 0.05, dt_max 1/8, eta 0.1, to t = 1: levels 0-3 on the CPU,
// tests/sim/block_steps_test.cpp): the GPU stepper's energy error is of the CPU stepper's order,
// its levels the CPU's but for bodies near a level's edge (the two trees' forces differ by their
// error, ~1e-4), its evaluations within a few percent, and the bodies where the CPU put them.
TEST(GpuBlockStepsStepper, PlummerSphereMatchesTheCpuStepper) {
    REQUIRE_GPU();
    const State s = test::plummer_sphere(4096, 12);
    const StepParams p{1.0 / 8, 0.05};
    const int steps = 8;
    const Outcome gpu = run<CudaBackend>(s, p, steps, block(0.1));
    const Outcome cpu = run<CpuBackend>(s, p, steps, block(0.1));
    const double n = double(s.size());
    std::printf("plummer 4096 to t = 1, block dt_max 1/8 eta 0.1: energy error cpu %.3g gpu %.3g; evaluations "
                "cpu %llu gpu %llu; passes cpu %llu gpu %llu\nlevels cpu:",
                cpu.energy_error, gpu.energy_error, (unsigned long long)cpu.work.evaluations,
                (unsigned long long)gpu.work.evaluations, (unsigned long long)cpu.work.passes,
                (unsigned long long)gpu.work.passes);
    for (auto c : cpu.work.level_counts) std::printf(" %llu", (unsigned long long)c);
    std::printf("; gpu:");
    for (auto c : gpu.work.level_counts) std::printf(" %llu", (unsigned long long)c);
    std::printf("\n");

    // The energy error: of the CPU's order (a broken kick or prediction gives 1e-3 and more).
    EXPECT_LT(gpu.energy_error, 3 * cpu.energy_error + 5e-6);
    // Levels: the histogram at the last step's start, and body by body at the end.
    ASSERT_EQ(gpu.work.level_counts.size(), cpu.work.level_counts.size());
    std::uint64_t moved = 0;
    int used = 0;
    for (std::size_t k = 0; k < cpu.work.level_counts.size(); ++k) {
        const auto a = gpu.work.level_counts[k], b = cpu.work.level_counts[k];
        moved += a > b ? a - b : b - a;
        used += b > 0;
    }
    EXPECT_GE(used, 3);  // several levels in use: the comparison is of block steps
    EXPECT_LE(double(moved), 0.01 * n);
    ASSERT_EQ(gpu.levels.size(), s.size());
    std::size_t same = 0;
    for (std::size_t i = 0; i < s.size(); ++i) same += gpu.levels[i] == cpu.levels[i];
    EXPECT_GE(double(same), 0.99 * n);
    const double ratio = double(gpu.work.evaluations) / double(cpu.work.evaluations);
    EXPECT_NEAR(ratio, 1.0, 0.03);
    EXPECT_GT(gpu.work.passes, std::uint64_t(steps) + 1);  // more passes than steps: finer levels ran
    // Positions: the two trees' force errors differ, so the orbits drift apart slowly.
    std::vector<double> d(s.size());
    for (std::size_t i = 0; i < s.size(); ++i) d[i] = distance(gpu.state.pos_mass[i], cpu.state.pos_mass[i]);
    std::nth_element(d.begin(), d.begin() + d.size() / 2, d.end());
    EXPECT_LT(d[d.size() / 2], 1e-3);
    // The tree's work is counted: terms per evaluation of the order of the CPU tree's.
    const double gpu_terms = (gpu.work.body_terms + gpu.work.cell_terms) / double(gpu.work.evaluations);
    const double cpu_terms = (cpu.work.body_terms + cpu.work.cell_terms) / double(cpu.work.evaluations);
    std::printf("terms per evaluation: cpu %.0f gpu %.0f\n", cpu_terms, gpu_terms);
    EXPECT_GT(gpu_terms, 0.3 * cpu_terms);
    EXPECT_LT(gpu_terms, 3 * cpu_terms);
}

// Every body at level 0 (max_level 0) is the cuda shared leapfrog: the same kicks, drifts and force
// passes (all bodies due at each tick), so the same state to float rounding (bit for bit expected).
TEST(GpuBlockStepsStepper, LevelZeroIsTheCudaSharedRun) {
    REQUIRE_GPU();
    const State s = test::plummer_sphere(4096, 4);
    const StepParams p{1.0 / 64, 0.05};
    const Outcome shared = run<CudaBackend>(s, p, 5, {});
    const Outcome level0 = run<CudaBackend>(s, p, 5, block(0.2, 0));
    std::size_t identical = 0;
    for (std::size_t i = 0; i < s.size(); ++i) {
        ASSERT_LT(distance(shared.state.pos_mass[i], level0.state.pos_mass[i]), 1e-6) << i;
        ASSERT_LT(norm(xyz(shared.state.velocity[i]) - xyz(level0.state.velocity[i])), 1e-6) << i;
        identical += shared.state.pos_mass[i].x == level0.state.pos_mass[i].x &&
                     shared.state.velocity[i].y == level0.state.velocity[i].y;
    }
    std::printf("level 0 against shared steps: %zu of %zu bodies bit for bit\n", identical, s.size());
    EXPECT_EQ(level0.work.evaluations, shared.work.evaluations);
    EXPECT_EQ(level0.work.passes, shared.work.passes);
    EXPECT_EQ(level0.work.body_terms, shared.work.body_terms);
    EXPECT_EQ(level0.work.level_counts, std::vector<std::uint64_t>{s.size()});
    // And a step of dt_max moved the bodies: the comparison is not of a state left alone.
    double moved = 0;
    for (std::size_t i = 0; i < s.size(); ++i) moved = std::max(moved, distance(level0.state.pos_mass[i], s.pos_mass[i]));
    EXPECT_GT(moved, 1e-3);
}

// After each step of dt_max the time is k dt_max and the stored accelerations are those of the
// stored positions (every body at a boundary): accelerations() makes no new pass.
TEST(GpuBlockStepsStepper, EveryBodyIsSynchronisedAtDtMax) {
    REQUIRE_GPU();
    const State s = test::plummer_sphere(4096, 9);
    const StepParams p{1.0 / 16, 0.01};
    CudaBackend b;
    b.load(s);
    b.set_gravity(tree_gravity());
    b.set_time_steps(block(0.1));
    for (int k = 1; k <= 3; ++k) {
        b.step(p);
        EXPECT_EQ(b.time(), k * p.dt);
    }
    const std::uint64_t passes = b.force_work()->passes;
    const std::vector<Vec3d> stored = b.accelerations(p.softening);
    EXPECT_EQ(b.force_work()->passes, passes);  // no new pass
    State now;
    b.store(now);
    CudaBackend fresh;
    fresh.load(now);
    fresh.set_gravity(tree_gravity());
    const std::vector<Vec3d> again = fresh.accelerations(p.softening);
    for (std::size_t i = 0; i < now.size(); ++i) ASSERT_EQ(stored[i].x, again[i].x) << i;
    EXPECT_FALSE(b.first_non_finite().has_value());
}

TEST(GpuBlockStepsStepper, BadCombinationsAreRefusedWithTheReason) {
    REQUIRE_GPU();
    CudaBackend b;
    b.load(test::plummer_sphere(256));
    EXPECT_THROW(b.set_time_steps(block(0.0)), std::invalid_argument);
    EXPECT_EQ(b.time_steps().mode, TimeSteps::Shared);  // the running choice is kept
    b.set_time_steps(block(0.2));
    try {
        b.step({0.01, 0.01});
        FAIL() << "block steps under direct gravity";
    } catch (const std::invalid_argument& e) {
        EXPECT_TRUE(has(e.what(), "--gravity tree")) << e.what();
    }
    b.set_gravity(tree_gravity());
    try {
        b.step({0.01, 0.0});
        FAIL() << "block steps with softening 0";
    } catch (const std::invalid_argument& e) {
        EXPECT_TRUE(has(e.what(), "softening > 0")) << e.what();
    }
    cuda::DeviceBuffer<float4> in(256), out(256);
    b.export_device_positions(in.get());
    EXPECT_THROW(b.step_device(in.get(), out.get(), {0.01, 0.01}), std::invalid_argument);
    EXPECT_NO_THROW(b.step({0.01, 0.01}));
    EXPECT_EQ(b.time(), 0.01);
}

// The command line: run prints the same work lines for cuda as for cpu.
TEST(GpuBlockStepsCli, RunReportsTheWorkAsTheCpuBackendDoes) {
    REQUIRE_GPU();
    const std::string scene = " --scene " + test::source_dir() + "/scenes/plummer.toml --bodies 512 --gravity tree";
    const auto r = test::run_nbody("run" + scene + " --backend cuda --steps 2 --dt 0.05 --timesteps block --eta 0.1");
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_TRUE(has(r.output, "time steps block eta=0.1 max-level=8: force evaluations")) << r.output;
    EXPECT_TRUE(has(r.output, "levels at the last step's start")) << r.output;
    EXPECT_TRUE(has(r.output, "relative energy error")) << r.output;
    const auto shared = test::run_nbody("run" + scene + " --backend cuda --steps 2 --dt 0.05");
    ASSERT_EQ(shared.exit_code, 0) << shared.output;
    // 512 bodies: the first pass and two steps.
    EXPECT_TRUE(has(shared.output, "time steps shared: force evaluations 1536 (1.5 per body per step")) << shared.output;
    const auto direct = test::run_nbody("run --scene " + test::source_dir() +
                                        "/scenes/plummer.toml --bodies 512 --backend cuda --steps 1 --timesteps block");
    EXPECT_EQ(direct.exit_code, 1) << direct.output;
    EXPECT_TRUE(has(direct.output, "--timesteps block runs with --gravity tree")) << direct.output;
}

}  // namespace
}  // namespace nbody

#endif  // NBODY_HAVE_CUDA
