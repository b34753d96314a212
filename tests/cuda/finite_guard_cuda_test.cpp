// The NaN/Inf guard on the cuda backend: the device reduction (CUB) finds the first bad body,
// including in the last partial block, and GuardedRun stops at the same step as on the cpu
// backend. Skips with the reason without a GPU.

#include <gtest/gtest.h>

#include <algorithm>
#include <iostream>

#include "nbody/sim/backend.hpp"
#include "nbody/sim/finite_guard.hpp"
#include "nbody/sim/ic/plummer.hpp"
#include "require_gpu.hpp"

#ifdef NBODY_HAVE_CUDA
#include <cuda_runtime_api.h>
#include <vector_functions.h>

#include <limits>
#include <vector>

#include "../../sim/cuda/cuda_check.hpp"
#include "../../sim/cuda/cuda_raii.hpp"
#include "../../sim/cuda/finite_check.hpp"
#include "nbody/sim/cuda_backend.hpp"
#endif

namespace nbody {
namespace {

#ifdef NBODY_HAVE_CUDA

// The reduction itself (FiniteCheck, finite_check.cu) on buffers with chosen bad entries: the
// first, one in the middle, the last of a partial block; NaN or Inf in any component.
TEST(CudaFiniteGuard, DeviceReductionFindsTheFirstBadBody) {
    REQUIRE_GPU();
    constexpr std::size_t n = 100'003;
    const float nan = std::numeric_limits<float>::quiet_NaN(), inf = std::numeric_limits<float>::infinity();
    cuda::DeviceBuffer<float4> pos(n), vel(n);
    cuda::FiniteCheck check;
    struct Case {
        std::size_t body;
        bool velocity;
        int component;
        float value;
    } cases[] = {{0, false, 0, nan}, {517, true, 2, inf}, {70'000, false, 3, -inf}, {n - 1, true, 1, nan}};
    for (const Case& c : cases) {
        std::vector<float4> p(n, make_float4(1, 2, 3, 1)), v(n, make_float4(0.5f, 0, -0.5f, 0));
        float* target = c.velocity ? &v[c.body].x : &p[c.body].x;
        target[c.component] = c.value;
        if (c.body + 10 < n) p[c.body + 10].y = nan;  // a later bad body does not hide the first
        CUDA_CHECK(cudaMemcpy(pos.get(), p.data(), n * sizeof(float4), cudaMemcpyHostToDevice));
        CUDA_CHECK(cudaMemcpy(vel.get(), v.data(), n * sizeof(float4), cudaMemcpyHostToDevice));
        EXPECT_EQ(check.first_non_finite(pos.get(), vel.get(), n, nullptr), c.body);
        // Velocity w is unused: a NaN there is no error.
        p.assign(n, make_float4(1, 2, 3, 1));
        v.assign(n, make_float4(0, 0, 0, nan));
        CUDA_CHECK(cudaMemcpy(pos.get(), p.data(), n * sizeof(float4), cudaMemcpyHostToDevice));
        CUDA_CHECK(cudaMemcpy(vel.get(), v.data(), n * sizeof(float4), cudaMemcpyHostToDevice));
        EXPECT_EQ(check.first_non_finite(pos.get(), vel.get(), n, nullptr), n);
    }
}

// Through the backend: a body thrown out at 3e38 per unit time overflows float in the first
// drift, and then the whole system's forces are NaN.
TEST(CudaFiniteGuard, BackendReportsABlowUp) {
    REQUIRE_GPU();
    State s = ic::make_plummer({.bodies = 5000, .seed = 3});
    CudaBackend b;
    b.load(s);
    b.step({1e-3, 0.01}, 3);
    EXPECT_FALSE(b.first_non_finite());
    s.velocity[4321] = {3e38f, 0, 0, 0};
    b.load(s);
    b.step({2.0, 0.01}, 1);
    EXPECT_EQ(b.first_non_finite(), 0u);  // every body is NaN after the closing kick
}

TEST(CudaFiniteGuard, GuardedRunStopsAtTheSameStepAsTheCpuBackend) {
    REQUIRE_GPU();
    State s = ic::make_plummer({.bodies = 1000, .seed = 11});
    s.pos_mass[0] = {0, 0, 0, 1e-3f};
    s.velocity[0] = {1e37f, 0, 0, 0};
    const StepParams params{1.0, 0.05};
    for (Precision p : {Precision::Fp32, Precision::Ds}) {
        CudaBackend b;
        KernelConfig c;
        c.precision = p;
        b.set_kernel_config(CudaBackend::fit_to_precision(c));
        b.load(s);
        GuardedRun run(b, s, params);
        EXPECT_FALSE(run.advance(100)) << to_string(p);
        ASSERT_TRUE(run.event());
        EXPECT_EQ(run.event()->step, 35) << to_string(p);
        EXPECT_EQ(run.event()->body, 0u);
        EXPECT_EQ(run.step(), 34);
        EXPECT_FALSE(b.first_non_finite());
    }
}

#else

TEST(CudaFiniteGuard, SkippedWithoutCuda) { GTEST_SKIP() << "this build has no CUDA backend"; }

#endif

}  // namespace
}  // namespace nbody
