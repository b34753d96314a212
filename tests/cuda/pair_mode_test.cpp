// The pair modes through the CUDA backend, as run/view/bench select them: each pair once
// (triangular map or bounding box) must agree with the double reference as the full kernel does.

#include <gtest/gtest.h>

#include <sstream>
#include <string>

#include "nbody/sim/direct_sum_backend.hpp"
#include "nbody/sim/ic/plummer.hpp"
#include "nbody/sim/kernel_config.hpp"
#include "require_gpu.hpp"
#include "test_support.hpp"

#ifdef NBODY_HAVE_CUDA
#include "nbody/sim/cuda_backend.hpp"
#endif

namespace nbody {
namespace {

TEST(PairMode, NamesRoundTripAndUnknownOnesListTheChoices) {
    for (PairMode m : {PairMode::Full, PairMode::Symmetric, PairMode::SymmetricBoundingBox})
        EXPECT_EQ(parse_pair_mode(to_string(m)), m);
    try {
        parse_pair_mode("half");
        FAIL() << "expected an error";
    } catch (const std::invalid_argument& e) {
        EXPECT_NE(std::string(e.what()).find("full, symmetric, symmetric-bb"), std::string::npos) << e.what();
    }
    KernelConfig c;
    c.pair_mode = PairMode::Symmetric;
    c.bodies_per_lane = 8;
    EXPECT_EQ(c.to_string().find("symmetric"), 0u) << c.to_string();
}

#ifdef NBODY_HAVE_CUDA

class SymmetricThroughBackend : public ::testing::TestWithParam<std::tuple<PairMode, int>> {};

TEST_P(SymmetricThroughBackend, AccelerationsMatchTheReference) {
    REQUIRE_GPU();
    const auto [mode, lanes] = GetParam();
    for (std::size_t n : {1000u, 4096u, 4097u}) {
        const State s = ic::make_plummer({.bodies = n, .seed = 21});
        ReferenceBackend reference;
        reference.load(s);
        CudaBackend cuda;
        KernelConfig c;
        c.pair_mode = mode;
        c.bodies_per_lane = lanes;
        cuda.load(s);
        cuda.set_kernel_config(c);
        const double err = test::max_relative_error(cuda.accelerations(0.01), reference.accelerations(0.01));
        EXPECT_LE(err, 2e-5) << c.to_string() << " N=" << n;
    }
}

TEST_P(SymmetricThroughBackend, HundredStepsFollowTheCpuBackend) {
    REQUIRE_GPU();
    const auto [mode, lanes] = GetParam();
    const State s = ic::make_plummer({.bodies = 2000, .seed = 5});
    const StepParams params{.dt = 1e-3, .softening = 0.02};
    CpuBackend cpu;
    cpu.load(s);
    cpu.step(params, 100);
    CudaBackend cuda;
    KernelConfig c;
    c.pair_mode = mode;
    c.bodies_per_lane = lanes;
    cuda.set_kernel_config(c);
    cuda.load(s);
    cuda.step(params, 100);
    State a, b;
    cpu.store(a);
    cuda.store(b);
    double worst = 0;
    for (std::size_t i = 0; i < a.size(); ++i)
        worst = std::max(worst, norm(xyz(a.pos_mass[i]) - xyz(b.pos_mass[i])) / (norm(xyz(a.pos_mass[i])) + 1e-3));
    EXPECT_LT(worst, 1e-4) << c.to_string();
}

INSTANTIATE_TEST_SUITE_P(Modes, SymmetricThroughBackend,
                         ::testing::Combine(::testing::Values(PairMode::Symmetric, PairMode::SymmetricBoundingBox),
                                            ::testing::Values(1, 4, 8)),
                         [](const auto& info) {
                             return std::string(std::get<0>(info.param) == PairMode::Symmetric ? "lambda" : "bb") +
                                    "_B" + std::to_string(std::get<1>(info.param));
                         });

TEST(PairMode, UnsupportedBodiesPerLaneIsRefusedWithTheList) {
    KernelConfig c;
    c.pair_mode = PairMode::Symmetric;
    c.bodies_per_lane = 3;
    const std::string reason = CudaBackend::check_kernel_config_host(c);
    EXPECT_NE(reason.find("1, 2, 4, 8"), std::string::npos) << reason;
}

#endif

}  // namespace
}  // namespace nbody
