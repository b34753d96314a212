// The GPU tree's potential walk (GpuTree::potentials, CudaBackend::tree_potential_energy) against
// the double direct sum and the CPU tree, and its cost against a step's. Skipped without a GPU.

#include <gtest/gtest.h>

#ifdef NBODY_HAVE_CUDA
#include <cuda_runtime_api.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "../../sim/cuda/tree/gpu_tree.hpp"
#include "nbody/sim/cuda_backend.hpp"
#include "nbody/sim/diagnostics.hpp"
#include "nbody/sim/direct_sum_backend.hpp"
#include "nbody/sim/force_error.hpp"
#include "nbody/sim/scene.hpp"
#include "require_gpu.hpp"
#include "test_support.hpp"
#include "tree_test_support.hpp"

namespace nbody {
namespace {

std::vector<float> gpu_potentials(const State& s, const TreeParams& params, double eps) {
    const std::size_t n = s.size();
    cuda::DeviceBuffer<float4> pos(n);
    cuda::DeviceBuffer<float> phi(n);
    EXPECT_EQ(cudaMemcpy(pos.get(), s.pos_mass.data(), n * sizeof(float4), cudaMemcpyHostToDevice), cudaSuccess);
    cuda::GpuTree tree;
    tree.potentials(pos.get(), int(n), float(eps * eps), params, phi.get(), nullptr);
    tree.check_errors();
    std::vector<float> out(n);
    EXPECT_EQ(cudaMemcpy(out.data(), phi.get(), n * sizeof(float), cudaMemcpyDeviceToHost), cudaSuccess);
    return out;
}

// One criterion on two trees (binary radix, octree): each within the force error's bound of the
// direct sum, and of each other.
TEST(GpuTreePotential, MatchesTheDirectSumAndTheCpuTree) {
    REQUIRE_GPU();
    const State s = test::plummer_sphere(30000, 3);
    const double eps = 0.01;
    for (int group : {32, 64, 128}) {
        SCOPED_TRACE(group);
        const TreeParams params{0.5, 16, group};
        const auto gpu = test::as_vectors(gpu_potentials(s, params, eps));
        const auto cpu = test::as_vectors(test::tree_potentials_of<float>(s, params, eps));
        const ForceErrorStats e = relative_force_errors(gpu, test::exact_potentials(s, eps));
        std::printf("GPU tree potential, group %d: median %.3g, p99 %.3g, max %.3g\n", group, e.median, e.p99, e.max);
        EXPECT_LE(e.median, 2e-4);
        EXPECT_LE(e.p99, 2e-3);
        EXPECT_LE(relative_force_errors(gpu, cpu).p99, 2e-3);
    }
}

// theta -> 0: every body's own term left out, every other one in.
TEST(GpuTreePotential, SmallThetaIsTheDirectSum) {
    REQUIRE_GPU();
    const State s = test::plummer_sphere(8000, 4);
    const auto gpu = test::as_vectors(gpu_potentials(s, TreeParams{1e-4, 16, 64}, 0.01));
    EXPECT_LT(relative_force_errors(gpu, test::exact_potentials(s, 0.01)).max, 1e-5);
}

TEST(GpuTreePotential, BackendEnergyMatchesTheCpuBackendsAndKeepsTheState) {
    REQUIRE_GPU();
    const State s = test::plummer_sphere(20000, 6);
    CudaBackend gpu;
    gpu.load(s);
    EXPECT_FALSE(gpu.tree_potential_energy(0.01).has_value());
    gpu.set_gravity(test::tree_config(0.5));
    const auto before = gpu.accelerations(0.01);
    const std::optional<double> w = gpu.tree_potential_energy(0.01);
    ASSERT_TRUE(w.has_value());
    EXPECT_NEAR(*w / potential_energy_on_host(s, 0.01), 1.0, 1e-4);
    CpuBackend cpu;
    cpu.load(s);
    cpu.set_gravity(test::tree_config(0.5));
    EXPECT_NEAR(*w / *cpu.tree_potential_energy(0.01), 1.0, 2e-5);
    // The potential pass writes no acceleration and no velocity.
    const auto after = gpu.accelerations(0.01);
    EXPECT_EQ(test::max_relative_error(after, before), 0.0);
    State stored;
    gpu.store(stored);
    EXPECT_EQ(stored.velocity[123].x, s.velocity[123].x);
}

// The GPU target: the energy of a tree run (two potential passes, start and end) costs no
// more than two steps. N from NBODY_TREE_ENERGY_BODIES (default 1M; the target is stated at 16M:
// NBODY_TREE_ENERGY_BODIES=16777216).
TEST(GpuTreePotential, TheEnergyOfATreeRunCostsAtMostTwoSteps) {
    REQUIRE_GPU();
    const char* env = std::getenv("NBODY_TREE_ENERGY_BODIES");
    const std::size_t n = env ? std::size_t(std::atoll(env)) : std::size_t(1) << 20;
    const State s = test::plummer_sphere(n, 7);
    CudaBackend gpu;
    gpu.load(s);
    gpu.set_gravity(test::tree_config(0.5, 16, 128));
    const StepParams params{1.0 / 16, 0.05};
    double steps_ms = 1e30, energy_ms = 1e30;
    for (int repeat = 0; repeat < 3; ++repeat) {
        steps_ms = std::min(steps_ms, gpu.time_steps_ms(params, 2));
        const auto t0 = std::chrono::steady_clock::now();
        for (int k = 0; k < 2; ++k) (void)gpu.tree_potential_energy(params.softening);
        energy_ms = std::min(energy_ms,
                             std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
    }
    std::printf("N = %zu: 2 steps %.2f ms, the energy at start and end (2 potential passes) %.2f ms\n", n, steps_ms,
                energy_ms);
    EXPECT_LE(energy_ms, steps_ms);
}

}  // namespace
}  // namespace nbody
#endif  // NBODY_HAVE_CUDA
