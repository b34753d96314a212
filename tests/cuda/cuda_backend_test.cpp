// The CUDA backend against the double-precision reference and the fp32 cpu backend.
// Tests that need a GPU skip with the reason when none is usable (CI, development machines);
// the kernel-variant tests and the no-GPU error path run everywhere the backend is built.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "nbody/sim/backend.hpp"
#include "nbody/sim/direct_sum_backend.hpp"
#include "nbody/sim/ic/plummer.hpp"
#include "nbody/sim/scene.hpp"
#include "require_gpu.hpp"
#include "test_support.hpp"

#ifdef NBODY_HAVE_CUDA
#include <cuda_runtime_api.h>

#include <cstdlib>
#include <optional>
#include <tuple>

#include "../../sim/cuda/force_kernel.hpp"
#include "nbody/sim/cuda_backend.hpp"
#endif

namespace nbody {
namespace {

#ifndef NBODY_HAVE_CUDA

TEST(CudaBackend, BuiltWithoutCuda) {
    std::string why;
    EXPECT_FALSE(cuda_available(&why));
    std::ostringstream notice;
    EXPECT_THROW(make_backend(BackendKind::Cuda, notice), std::runtime_error);
    GTEST_SKIP() << "this build has no CUDA backend: " << why;
}

#else

constexpr double kForceTolerance = 2e-5;  // Chamomile eq. 3, max over bodies

std::string describe(const KernelConfig& c) {
    return "U=" + std::to_string(c.unroll) + " p=" + std::to_string(c.block) + " q=" +
           std::to_string(c.threads_per_body) + " B=" + std::to_string(c.bodies_per_thread);
}

KernelConfig config(int unroll, int block, int q, int b) {
    KernelConfig c;
    c.unroll = unroll;
    c.block = block;
    c.threads_per_body = q;
    c.bodies_per_thread = b;
    return c;
}

State plummer(std::size_t n, std::uint64_t seed = 1) {
    ic::PlummerParams p;
    p.bodies = n;
    p.seed = seed;
    return ic::make_plummer(p);
}

// A small owner for test buffers allocated straight with cudaMalloc, as an interop caller would.
struct DeviceArray {
    void* ptr = nullptr;
    explicit DeviceArray(std::size_t bytes) {
        if (cudaMalloc(&ptr, bytes) != cudaSuccess) throw std::runtime_error("cudaMalloc failed in test");
    }
    ~DeviceArray() { cudaFree(ptr); }
    DeviceArray(const DeviceArray&) = delete;
    DeviceArray& operator=(const DeviceArray&) = delete;
};

std::vector<Vec4f> download(const void* device_ptr, std::size_t n) {
    std::vector<Vec4f> out(n);
    if (cudaMemcpy(out.data(), device_ptr, n * sizeof(Vec4f), cudaMemcpyDeviceToHost) != cudaSuccess)
        throw std::runtime_error("cudaMemcpy failed in test");
    return out;
}

bool same_bits(const std::vector<Vec4f>& a, const std::vector<Vec4f>& b) {
    return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(Vec4f)) == 0;
}

double max_abs_diff_xyz(const std::vector<Vec4f>& a, const std::vector<Vec4f>& b) {
    double worst = 0;
    for (std::size_t i = 0; i < a.size(); ++i) {
        const double d = norm(xyz(a[i]) - xyz(b[i]));
        if (!(d <= worst)) worst = d;  // NaN wins
    }
    return worst;
}

// ---------------------------------------------------------------------------------------------
// Kernel variants: the dispatch switch and the host-side checks. No device needed.

// Sets an environment variable for one scope (the NBODY_FORCE_* developer overrides, which the
// kernel driver reads at every launch), restoring the previous value after.
class ScopedEnv {
public:
    ScopedEnv(const char* name, const char* value) : name_(name) {
        if (const char* old = std::getenv(name)) old_ = std::string(old);
        if (value != nullptr) ::setenv(name, value, 1);
        else ::unsetenv(name);
    }
    ~ScopedEnv() {
        if (old_) ::setenv(name_, old_->c_str(), 1);
        else ::unsetenv(name_);
    }
    ScopedEnv(const ScopedEnv&) = delete;
    ScopedEnv& operator=(const ScopedEnv&) = delete;

private:
    const char* name_;
    std::optional<std::string> old_;
};

// B = 8 is compiled for unroll 4, 8 and threads_per_body 1, 2, 4, 8 only (force_kernel.hpp).
bool has_instance(int u, int q, int b) { return b != 8 || ((u == 4 || u == 8) && q <= 8); }

TEST(CudaKernelVariants, SupportedValuesAreTheIssuesLists) {
    EXPECT_EQ(CudaBackend::supported_unroll(), (std::vector<int>{1, 2, 4, 8, 16, 32}));
    EXPECT_EQ(CudaBackend::supported_threads_per_body(), (std::vector<int>{1, 2, 4, 8, 16, 32}));
    EXPECT_EQ(CudaBackend::supported_bodies_per_thread(), (std::vector<int>{1, 2, 4, 8}));
    EXPECT_EQ(CudaBackend::check_kernel_config_host(KernelConfig{}), "") << "the default config must be valid";
}

TEST(CudaKernelVariants, EverySupportedCombinationHasAnInstance) {
    int checked = 0, with_instance = 0;
    for (int u : CudaBackend::supported_unroll())
        for (int q : CudaBackend::supported_threads_per_body())
            for (int b : CudaBackend::supported_bodies_per_thread())
                for (int p = 32; p <= 1024; p += 32) {
                    const KernelConfig c = config(u, p, q, b);
                    const std::string why = CudaBackend::check_kernel_config_host(c);
                    if (has_instance(u, q, b)) {
                        EXPECT_EQ(why, "") << describe(c);
                        ++with_instance;
                    } else {
                        EXPECT_NE(why.find("bodies_per_thread 8 is compiled only with unroll 4, 8 and "
                                           "threads_per_body 1, 2, 4, 8"),
                                  std::string::npos)
                            << describe(c) << ": " << why;
                    }
                    ++checked;
                }
    EXPECT_EQ(checked, 6 * 6 * 4 * 32);
    EXPECT_EQ(with_instance, (6 * 6 * 3 + 2 * 4) * 32);
}

// Flag sets other than the product's exist for the listed (U, q, B) only, and the refusal says so.
TEST(CudaKernelVariants, ExperimentFlagsHaveInstancesForTheListedVariantsOnly) {
    for (int flags : cuda::kForceExperimentFlags) {
        for (const cuda::ForceExperimentVariant& e : cuda::kForceExperimentVariants) {
            cuda::ForceVariant v{e.unroll, e.threads_per_body, e.bodies_per_thread, flags};
            EXPECT_NO_THROW(cuda::require_force_instance(v)) << flags;
        }
    }
    try {
        cuda::require_force_instance(cuda::ForceVariant{2, 1, 1, 0});
        ADD_FAILURE() << "U2 q1 B1 with flags 0 has an instance";
    } catch (const std::invalid_argument& e) {
        EXPECT_NE(std::string(e.what()).find("compiled only for U32 q2 B4"), std::string::npos) << e.what();
    }
    // Flag sets compiled for nobody (4: mass tiles without the rotation, 6) name the sets there are.
    for (int flags : {4, 6}) {
        try {
            cuda::require_force_instance(cuda::ForceVariant{16, 1, 4, flags});
            ADD_FAILURE() << "flags " << flags << " have an instance";
        } catch (const std::invalid_argument& e) {
            EXPECT_NE(std::string(e.what()).find("only as 0, 1, 2, 3, 5, 15"), std::string::npos) << e.what();
        }
    }
    EXPECT_NO_THROW(cuda::require_force_instance(cuda::ForceVariant{2, 1, 1, cuda::kForceProductFlags}));
}

// The 128-register companions (flags 23) take over from the product at blocks of 257..512 threads,
// for the listed (U, q, B) only, and only for the product's flags. Host code: runs in CI.
TEST(CudaKernelVariants, RegisterCompanionsRunAtBlocksUpTo512) {
    const ScopedEnv env("NBODY_FORCE_FLAGS", nullptr);
    const cuda::ForceVariant companion{16, 1, 4};
    ASSERT_TRUE(cuda::has_register_companion(companion));
    EXPECT_EQ(cuda::force_flags_at_block(companion, 512), cuda::kForceProductFlags | cuda::kForceRegisters128);
    EXPECT_EQ(cuda::force_flags_at_block(companion, 288), cuda::kForceProductFlags | cuda::kForceRegisters128);
    EXPECT_EQ(cuda::force_flags_at_block(companion, 256), cuda::kForceProductFlags);
    EXPECT_EQ(cuda::force_flags_at_block(companion, 1024), cuda::kForceProductFlags);
    const cuda::ForceVariant none{4, 8, 1};
    EXPECT_FALSE(cuda::has_register_companion(none));
    EXPECT_EQ(cuda::force_flags_at_block(none, 512), cuda::kForceProductFlags);
    for (int u : cuda::kForceCompanionUnroll)
        for (int q : cuda::kForceCompanionThreadsPerBody)
            for (int b : cuda::kForceCompanionBodiesPerThread)
                EXPECT_NO_THROW(cuda::require_force_instance(
                    cuda::ForceVariant{u, q, b, cuda::kForceProductFlags | cuda::kForceRegisters128}));
    // An A/B run that asks for version 2 (flags 3) keeps it at any block.
    const cuda::ForceVariant v2{16, 1, 4, 3};
    EXPECT_EQ(cuda::force_flags_at_block(v2, 512), 3);
}

// The uniform-mass tile table: (m, 1/m) for full tiles of one usable mass, (0, 0) for mixed,
// padded or unusable ones. Host code: runs in CI.
TEST(CudaKernelVariants, UniformTileMassesNameTheTilesOfOneMass) {
    const std::vector<float> m{2, 2, 2, 2, 3, 3, 3, 3, 2, 3, 2, 2, 0, 0, 0, 0, 1e-30f, 1e-30f, 1e-30f, 1e-30f, 5, 5};
    const std::vector<float2> t = cuda::uniform_tile_masses(m.data(), m.size(), 1, 4);
    ASSERT_EQ(t.size(), 6u);
    EXPECT_EQ(t[0].x, 2.0f);
    EXPECT_EQ(t[0].y, 0.5f);
    EXPECT_EQ(t[1].x, 3.0f);
    EXPECT_EQ(t[1].y, 1.0f / 3.0f);
    EXPECT_EQ(t[2].x, 0.0f);  // mixed
    EXPECT_EQ(t[3].x, 0.0f);  // massless: the general loop multiplies by 0
    EXPECT_EQ(t[4].x, 0.0f);  // beyond 2^-32: sums in its unit could overflow
    EXPECT_EQ(t[5].x, 0.0f);  // padded tail tile
    const float strided[] = {9, 9, 9, 0.25f, 9, 9, 9, 0.25f, 9, 9, 9, 0.5f};  // every 4th float is a mass
    EXPECT_EQ(cuda::uniform_tile_masses(strided + 3, 2, 4, 2)[0].x, 0.25f);
    EXPECT_EQ(cuda::uniform_tile_masses(strided + 3, 3, 4, 3)[0].x, 0.0f);
    EXPECT_TRUE(cuda::uniform_tile_masses(m.data(), 0, 1, 4).empty());
    EXPECT_TRUE(cuda::usable_tile_mass(1.0f / 3000.0f));
    EXPECT_FALSE(cuda::usable_tile_mass(0.0f));
    EXPECT_FALSE(cuda::usable_tile_mass(std::numeric_limits<float>::infinity()));
    EXPECT_FALSE(cuda::usable_tile_mass(1e-30f));
    EXPECT_THROW((void)cuda::uniform_tile_masses(m.data(), m.size(), 1, 0), std::invalid_argument);
}

TEST(CudaKernelVariants, MalformedOverridesAreNamed) {
    {
        const ScopedEnv env("NBODY_FORCE_GRID", "sideways");
        const std::string r = CudaBackend::check_kernel_config_host(KernelConfig{});
        EXPECT_NE(r.find("NBODY_FORCE_GRID='sideways'"), std::string::npos) << r;
        EXPECT_NE(r.find("auto, classic, balanced"), std::string::npos) << r;
    }
    {
        // 32 is past the last experiment bit (16: 128-register budget).
        const ScopedEnv env("NBODY_FORCE_FLAGS", "32");
        const std::string r = CudaBackend::check_kernel_config_host(KernelConfig{});
        EXPECT_NE(r.find("NBODY_FORCE_FLAGS='32'"), std::string::npos) << r;
        EXPECT_NE(r.find("bit 4: uniform-mass tiles"), std::string::npos) << r;
    }
    {
        const ScopedEnv env("NBODY_FORCE_FLAGS", "seven");
        const std::string r = CudaBackend::check_kernel_config_host(KernelConfig{});
        EXPECT_NE(r.find("NBODY_FORCE_FLAGS='seven'"), std::string::npos) << r;
    }
    {
        // A well-formed override that selects no instance for this variant.
        const ScopedEnv env("NBODY_FORCE_FLAGS", "0");
        const std::string r = CudaBackend::check_kernel_config_host(config(2, 256, 1, 1));
        EXPECT_NE(r.find("kernel flags 0"), std::string::npos) << r;
        EXPECT_EQ(CudaBackend::check_kernel_config_host(config(32, 256, 2, 4)), "");
    }
    EXPECT_EQ(CudaBackend::check_kernel_config_host(config(2, 256, 1, 1)), "") << "override left behind";
}

TEST(CudaKernelVariants, UnsupportedValuesAreRefusedWithTheSupportedList) {
    std::string r = CudaBackend::check_kernel_config_host(config(3, 256, 1, 1));
    EXPECT_NE(r.find("unroll 3 is not supported"), std::string::npos) << r;
    EXPECT_NE(r.find("1, 2, 4, 8, 16, 32"), std::string::npos) << r;

    r = CudaBackend::check_kernel_config_host(config(64, 256, 1, 1));
    EXPECT_NE(r.find("unroll 64"), std::string::npos) << r;

    r = CudaBackend::check_kernel_config_host(config(4, 256, 3, 1));
    EXPECT_NE(r.find("threads_per_body 3 is not supported"), std::string::npos) << r;
    EXPECT_NE(r.find("1, 2, 4, 8, 16, 32"), std::string::npos) << r;
    r = CudaBackend::check_kernel_config_host(config(4, 256, 64, 1));
    EXPECT_NE(r.find("threads_per_body 64"), std::string::npos) << r;

    r = CudaBackend::check_kernel_config_host(config(4, 256, 1, 3));
    EXPECT_NE(r.find("bodies_per_thread 3 is not supported"), std::string::npos) << r;
    EXPECT_NE(r.find("1, 2, 4, 8"), std::string::npos) << r;

    r = CudaBackend::check_kernel_config_host(config(16, 256, 1, 8));
    EXPECT_NE(r.find("bodies_per_thread 8 is compiled only with unroll 4, 8"), std::string::npos) << r;

    // Two bad values: both named.
    r = CudaBackend::check_kernel_config_host(config(5, 256, 7, 1));
    EXPECT_NE(r.find("unroll 5"), std::string::npos) << r;
    EXPECT_NE(r.find("threads_per_body 7"), std::string::npos) << r;
}

TEST(CudaKernelVariants, BlockShapeIsChecked) {
    for (int p : {0, -32, 16, 48, 100, 1000}) {
        const std::string r = CudaBackend::check_kernel_config_host(config(4, p, 1, 1));
        EXPECT_NE(r.find("multiple of 32"), std::string::npos) << "block " << p << ": " << r;
    }
    const std::string r = CudaBackend::check_kernel_config_host(config(4, 2048, 1, 1));
    EXPECT_NE(r.find("1024"), std::string::npos) << r;
}

// ---------------------------------------------------------------------------------------------
// No GPU: the factory says why.

TEST(CudaAvailability, CudaBackendWithoutGpuFailsWithTheReason) {
    std::string why;
    if (cuda_available(&why)) GTEST_SKIP() << "a CUDA device is usable here; this tests the no-GPU path";
    ASSERT_FALSE(why.empty());
    std::ostringstream notice;
    try {
        (void)make_backend(BackendKind::Cuda, notice);
        FAIL() << "make_backend(Cuda) succeeded without a usable GPU";
    } catch (const std::runtime_error& e) {
        EXPECT_NE(std::string(e.what()).find(why), std::string::npos)
            << "message '" << e.what() << "' does not carry the reason '" << why << "'";
    }
    EXPECT_THROW(CudaBackend{}, std::runtime_error);
}

TEST(CudaAvailability, AutoFallsBackToCpuWithANotice) {
    std::string why;
    if (cuda_available(&why)) GTEST_SKIP() << "a CUDA device is usable here; this tests the no-GPU path";
    std::ostringstream notice;
    const auto backend = make_backend(BackendKind::Auto, notice);
    EXPECT_EQ(backend->name(), "cpu");
    EXPECT_NE(notice.str().find(why), std::string::npos) << notice.str();
}

// ---------------------------------------------------------------------------------------------
// Force kernel against the double reference: every (U, q, B) instance at every block size.

using test::reference_accelerations;

const std::vector<Vec3d>& reference_accelerations_4096(double softening) {
    static const std::vector<Vec3d> ref = reference_accelerations(plummer(4096), softening);
    return ref;
}

// accelerations() keeps a(x) while the positions and the softening are unchanged, whichever
// kernel config computed it; reloading the state makes the config under test compute it.
std::vector<Vec3d> fresh_accelerations(CudaBackend& gpu, const State& s, double softening) {
    gpu.load(s);
    return gpu.accelerations(softening);
}

using Variant = std::tuple<int, int, int>;  // U, q, B

class CudaForceVariant : public ::testing::TestWithParam<Variant> {};

// Every instance at every block size, with each work split forced (at N = 4096 the automatic
// choice is the balanced one, whose i-blocks are split among several blocks).
TEST_P(CudaForceVariant, MatchesDoubleReferenceAtEveryBlockSize) {
    REQUIRE_GPU();
    const auto [u, q, b] = GetParam();
    constexpr double eps = 0.01;
    const std::vector<Vec3d>& ref = reference_accelerations_4096(eps);
    const State s = plummer(4096);
    CudaBackend gpu;
    int tested = 0;
    for (const char* grid : {"classic", "balanced"}) {
        const ScopedEnv env("NBODY_FORCE_GRID", grid);
        for (int p : {32, 64, 128, 256, 512, 1024}) {
            const KernelConfig c = config(u, p, q, b);
            SCOPED_TRACE(describe(c) + " " + grid);
            const std::string why = gpu.check_kernel_config(c);
            if (!why.empty()) {
                // Only the registers may rule a block size out, and the smallest never.
                EXPECT_NE(p, 32) << why;
                if (grid[0] == 'c') std::printf("[  NOTE    ] %s refused: %s\n", describe(c).c_str(), why.c_str());
                continue;
            }
            gpu.set_kernel_config(c);
            ASSERT_EQ(gpu.kernel_config(), c);
            const double err = test::max_relative_error(fresh_accelerations(gpu, s, eps), ref);
            EXPECT_LE(err, kForceTolerance);
            ++tested;
        }
    }
    EXPECT_GT(tested, 0);
}

std::string variant_name(const ::testing::TestParamInfo<Variant>& info) {
    return "U" + std::to_string(std::get<0>(info.param)) + "_q" + std::to_string(std::get<1>(info.param)) + "_B" +
           std::to_string(std::get<2>(info.param));
}

std::vector<Variant> all_instances() {
    std::vector<Variant> v;
    for (int u : {1, 2, 4, 8, 16, 32})
        for (int q : {1, 2, 4, 8, 16, 32})
            for (int b : {1, 2, 4, 8})
                if (has_instance(u, q, b)) v.emplace_back(u, q, b);
    return v;
}

INSTANTIATE_TEST_SUITE_P(AllInstances, CudaForceVariant, ::testing::ValuesIn(all_instances()), variant_name);

// The version-1 kernel's flag sets (kept for A/B timing) against the reference, both splits.
TEST(CudaForce, ExperimentFlagInstancesMatchTheReference) {
    REQUIRE_GPU();
    constexpr double eps = 0.01;
    const std::vector<Vec3d>& ref = reference_accelerations_4096(eps);
    const State s = plummer(4096);
    CudaBackend gpu;
    for (const char* flags : {"0", "1", "2", "3", "5"})
        for (const char* grid : {"classic", "balanced"}) {
            const ScopedEnv f("NBODY_FORCE_FLAGS", flags);
            const ScopedEnv g("NBODY_FORCE_GRID", grid);
            for (const cuda::ForceExperimentVariant& e : cuda::kForceExperimentVariants)
                for (int p : {64, 256}) {
                    const KernelConfig c = config(e.unroll, p, e.threads_per_body, e.bodies_per_thread);
                    SCOPED_TRACE(describe(c) + " flags " + flags + " " + grid);
                    ASSERT_EQ(gpu.check_kernel_config(c), "");
                    gpu.set_kernel_config(c);
                    EXPECT_LE(test::max_relative_error(fresh_accelerations(gpu, s, eps), ref), kForceTolerance);
                }
        }
}

// The balanced split: what it plans for the H200-sized cases the issue names, and that its sums,
// combined across blocks in a fixed order, are deterministic and agree with the classic split.
TEST(CudaForce, BalancedSplitPlan) {
    REQUIRE_GPU();
    int device = 0, sms = 0;
    ASSERT_EQ(cudaGetDevice(&device), cudaSuccess);
    ASSERT_EQ(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device), cudaSuccess);
    const cuda::ForceVariant v{32, 2, 4};
    const cuda::ForcePlan p = cuda::plan_force(v, 1024, 262144, true);
    EXPECT_EQ(p.iblocks, 128);
    EXPECT_EQ(p.tiles, 256);
    EXPECT_GE(p.blocks_per_sm, 1);
    if (p.iblocks % sms != 0) {
        EXPECT_EQ(p.grid, cuda::ForceGrid::Balanced) << sms << " SMs";
        EXPECT_EQ(p.blocks, sms * p.blocks_per_sm);
        EXPECT_GE(p.max_contributors, 2);
    }
    // Without scratch there is only the classic split; an explicit choice wins over auto.
    EXPECT_EQ(cuda::plan_force(v, 1024, 262144, false).grid, cuda::ForceGrid::Classic);
    cuda::ForceVariant classic = v;
    classic.grid = cuda::ForceGrid::Classic;
    EXPECT_EQ(cuda::plan_force(classic, 1024, 262144, true).grid, cuda::ForceGrid::Classic);
    EXPECT_EQ(cuda::plan_force(classic, 1024, 262144, true).blocks, 128);
    // One tile, one i-block: nothing to balance.
    EXPECT_EQ(cuda::plan_force(v, 1024, 2, true).grid, cuda::ForceGrid::Classic);
}

TEST(CudaForce, BalancedSplitIsDeterministicAndAgreesWithClassic) {
    REQUIRE_GPU();
    constexpr double eps = 0.01;
    const State s = plummer(20000, 21);  // not a multiple of any i-block or tile
    CudaBackend gpu;
    for (const KernelConfig& c : {config(8, 256, 1, 4), config(8, 512, 2, 4), config(16, 128, 8, 2), config(4, 512, 2, 8)}) {
        SCOPED_TRACE(describe(c));
        gpu.set_kernel_config(c);
        std::vector<Vec3d> classic, balanced;
        {
            const ScopedEnv env("NBODY_FORCE_GRID", "classic");
            classic = fresh_accelerations(gpu, s, eps);
        }
        {
            const ScopedEnv env("NBODY_FORCE_GRID", "balanced");
            balanced = fresh_accelerations(gpu, s, eps);
            const std::vector<Vec3d> again = fresh_accelerations(gpu, s, eps);
            ASSERT_EQ(again.size(), balanced.size());
            for (std::size_t i = 0; i < again.size(); ++i)
                ASSERT_TRUE(again[i].x == balanced[i].x && again[i].y == balanced[i].y && again[i].z == balanced[i].z)
                    << "body " << i << ": the balanced split is not deterministic";
        }
        // Same pairs, summed in another grouping: a few ulp apart, far below the reference tolerance.
        EXPECT_LE(test::max_relative_error(balanced, classic), 1e-5);
        bool any_difference = false;
        for (std::size_t i = 0; i < classic.size() && !any_difference; ++i)
            any_difference = classic[i].x != balanced[i].x || classic[i].y != balanced[i].y;
        EXPECT_TRUE(any_difference) << "the two splits gave identical bits: was the balanced one used at all?";
    }
}

// The scratch grows with N on a live backend; its counters stay consistent across the sizes.
TEST(CudaForce, BalancedScratchFollowsTheSystemSize) {
    REQUIRE_GPU();
    constexpr double eps = 0.01;
    const ScopedEnv env("NBODY_FORCE_GRID", "balanced");
    CudaBackend gpu;
    gpu.set_kernel_config(config(8, 128, 1, 1));
    for (std::size_t n : {std::size_t(700), std::size_t(9000), std::size_t(3000)}) {
        SCOPED_TRACE(n);
        const State s = plummer(n, 4);
        ReferenceBackend ref;
        ref.load(s);
        gpu.load(s);
        EXPECT_LE(test::max_relative_error(gpu.accelerations(eps), ref.accelerations(eps)), kForceTolerance);
    }
}

const std::vector<KernelConfig>& edge_configs() {
    static const std::vector<KernelConfig> c = {
        KernelConfig{},          config(1, 32, 1, 1),   config(8, 64, 4, 2),  config(32, 1024, 32, 4),
        config(16, 128, 2, 4),   config(4, 96, 8, 1),   config(8, 256, 2, 8), config(4, 640, 1, 8),
    };
    return c;
}

TEST(CudaForce, EdgeSizes) {
    REQUIRE_GPU();
    constexpr double eps = 0.01;
    CudaBackend gpu;
    for (std::size_t n : {std::size_t(2), std::size_t(31), std::size_t(1000), std::size_t(4097)}) {
        const State s = plummer(n, 5);
        const std::vector<Vec3d> a_ref = reference_accelerations(s, eps);
        for (const KernelConfig& c : edge_configs()) {
            SCOPED_TRACE("N=" + std::to_string(n) + " " + describe(c));
            gpu.set_kernel_config(c);
            const std::vector<Vec3d> a = fresh_accelerations(gpu, s, eps);
            ASSERT_EQ(a.size(), n);
            EXPECT_LE(test::max_relative_error(a, a_ref), kForceTolerance);
        }
    }
}

// Many tiles per block at a size cheap enough for compute-sanitizer's racecheck (gpu-suite.sh
// runs it): tile reloads must not race with the previous tile's reads.
TEST(CudaForce, ManySmallTiles) {
    REQUIRE_GPU();
    constexpr double eps = 0.01;
    const State s = plummer(300, 12);
    const std::vector<Vec3d> a_ref = reference_accelerations(s, eps);
    CudaBackend gpu;
    // Both splits: the balanced one at this size splits every i-block among several blocks, so the
    // partial sums, the arrival counters and the last arriver's summing all run (and race-check).
    for (const char* grid : {"classic", "balanced"}) {
        const ScopedEnv env("NBODY_FORCE_GRID", grid);
        for (const KernelConfig& c : {config(1, 32, 1, 1), config(32, 32, 1, 4), config(4, 64, 2, 2),
                                      config(2, 32, 32, 1), config(8, 64, 8, 4), config(4, 32, 2, 8)}) {
            SCOPED_TRACE(describe(c) + " " + grid);
            gpu.set_kernel_config(c);
            EXPECT_LE(test::max_relative_error(fresh_accelerations(gpu, s, eps), a_ref), kForceTolerance);
        }
        // The version-1 tile handling (two barriers per tile, flags 0).
        const ScopedEnv flags("NBODY_FORCE_FLAGS", "0");
        gpu.set_kernel_config(config(4, 32, 1, 1));
        EXPECT_LE(test::max_relative_error(fresh_accelerations(gpu, s, eps), a_ref), kForceTolerance);
    }
}

// kForceMassTiles (the product's flags): tiles whose bodies all share one mass run the j-loop
// without the mass multiply, the sums kept in units of that mass; other tiles run the general loop
// in units of 1. Runs of uniform tiles of several masses (none a power of two, so every change of
// unit rounds), mixed tiles between and after them, a massless run and a padded tail tile, against
// the reference, for product instances and the two-barrier variant (flags 5).
State mixed_mass_system(std::size_t n) {
    State s = plummer(n, 7);
    for (std::size_t i = 0; i < n; ++i) {
        float& m = s.pos_mass[i].w;
        const float base = 1.0f / 3000.0f;
        if (i < 1024) m = base;                                                // uniform tiles, mass 1
        else if (i < 1536) m = 7.0f * base;                                    // uniform, another mass
        else if (i < 2048) m = i % 3 == 0 ? 5.0f * base : base;                // mixed tiles
        else if (i < 2560) m = 0.3f * base;                                    // uniform again
        else if (i < 2816) m = 0.0f;                                           // massless (test) bodies
        else if (i < 3328) m = 7.0f * base;                                    // a mass seen before
        else m = base * (0.5f + static_cast<float>(i % 7) / 6.5f);             // no two alike
    }
    return s;
}

TEST(CudaForce, UniformMassTilesMatchTheReference) {
    REQUIRE_GPU();
    constexpr double eps = 0.01;
    const State s = mixed_mass_system(4000);
    const std::vector<Vec3d> a_ref = reference_accelerations(s, eps);
    CudaBackend gpu;
    const std::vector<std::pair<const char*, KernelConfig>> cases{
        {"7", config(16, 256, 1, 4)}, {"7", config(16, 1024, 1, 4)}, {"7", config(32, 128, 2, 4)},
        {"7", config(8, 64, 4, 8)},   {"7", config(1, 32, 32, 1)},   {"7", config(4, 96, 1, 2)},
        {"7", config(32, 1024, 1, 2)}, {"7", config(16, 64, 8, 2)},  {"7", config(32, 96, 2, 1)},
        {"5", config(16, 256, 1, 4)}, {"5", config(32, 256, 2, 4)},
        {"3", config(16, 256, 1, 4)}};
    for (const char* grid : {"classic", "balanced"})
        for (const auto& [flags, c] : cases) {
            const ScopedEnv f("NBODY_FORCE_FLAGS", flags);
            const ScopedEnv g("NBODY_FORCE_GRID", grid);
            SCOPED_TRACE(describe(c) + " flags " + flags + " " + grid);
            ASSERT_EQ(gpu.check_kernel_config(c), "");
            gpu.set_kernel_config(c);
            EXPECT_LE(test::max_relative_error(fresh_accelerations(gpu, s, eps), a_ref), kForceTolerance);
        }
}

// The symmetric kernel's uniform-mass tiles (both sides of an off-diagonal tile of one mass each:
// w^3 d summed, scaled by m_j and m_i once per tile) on the same system, every bodies-per-lane,
// against the reference.
TEST(CudaForce, SymmetricUniformMassTilesMatchTheReference) {
    REQUIRE_GPU();
    constexpr double eps = 0.01;
    const State s = mixed_mass_system(4000);
    const std::vector<Vec3d> a_ref = reference_accelerations(s, eps);
    CudaBackend gpu;
    for (PairMode mode : {PairMode::Symmetric, PairMode::SymmetricBoundingBox})
        for (int lanes : {1, 2, 4, 8}) {
            KernelConfig c;
            c.pair_mode = mode;
            c.bodies_per_lane = lanes;
            SCOPED_TRACE(c.to_string());
            ASSERT_EQ(gpu.check_kernel_config(c), "");
            gpu.set_kernel_config(c);
            EXPECT_LE(test::max_relative_error(fresh_accelerations(gpu, s, eps), a_ref), kForceTolerance);
        }
}

// A galaxy model stores each component's bodies one after another: most tiles hold one mass, and
// the uniform-tile loop must take them (a table that never marked a tile uniform would pass the
// accuracy test above and lose the speed). The model's tiles, counted on the host.
TEST(CudaKernelVariants, GalaxySceneTilesAreMostlyUniform) {
    const Scene scene = load_scene(test::source_dir() + "/scenes/milky-way-andromeda.toml", 65536);
    const State& s = scene.state;
    const std::vector<float2> t = cuda::uniform_tile_masses(&s.pos_mass[0].w, s.size(), 4, 512);
    std::size_t uniform = 0;
    for (const float2& tm : t) uniform += tm.x > 0 ? 1 : 0;
    EXPECT_GE(double(uniform) / double(t.size()), 0.9) << uniform << " of " << t.size() << " tiles";
}

// What the mass tiles are for: one FMUL less per interaction (12.36 against 13.36 SASS instructions
// in U16 q1 B4's loops) measured +3.3 % at 256K on the H200 (docs/PERFORMANCE.md, section 11). A
// tile-uniformity test that never fired, or a loop that kept the multiply, would lose it.
TEST(CudaForce, UniformMassTilesAreFasterOnEqualMasses) {
    REQUIRE_GPU();
    CudaBackend gpu;
    if (gpu.device_info().name.find("H200") == std::string::npos)
        GTEST_SKIP() << "the expected gain is the H200's figure; this is " << gpu.device_info().name;
    // The gain depends on the instance's schedule (docs/PERFORMANCE.md section 12.4, run 15: flags 7
    // against 3 at 256K, U8 p1024 q2 B4 +10.8 %, U32 q2 B4 +1.1 %, U16 q1 B4 +0.5 %): this checks
    // the instance where the saved FMUL shows, so that a change that loses it is seen.
    gpu.set_kernel_config(config(8, 1024, 2, 4));
    gpu.load(plummer(262144));
    const StepParams params{1e-4, 0.05};
    double best[2] = {1e30, 1e30};
    for (int round = 0; round < 3; ++round)
        for (int k = 0; k < 2; ++k) {
            const ScopedEnv f("NBODY_FORCE_FLAGS", k == 0 ? "3" : "7");
            best[k] = std::min(best[k], gpu.time_steps_ms(params, 2));
        }
    EXPECT_LT(best[1], 0.985 * best[0]) << "flags 7: " << best[1] << " ms, flags 3: " << best[0] << " ms";
}

TEST(CudaForce, SingleBodyFeelsNoForce) {
    REQUIRE_GPU();
    State s;
    s.resize(1);
    s.pos_mass[0] = {1.5f, -2.0f, 0.25f, 3.0f};
    CudaBackend gpu;
    for (const KernelConfig& c : edge_configs()) {
        SCOPED_TRACE(describe(c));
        gpu.set_kernel_config(c);
        const std::vector<Vec3d> a = fresh_accelerations(gpu, s, 0.01);
        ASSERT_EQ(a.size(), 1u);
        EXPECT_EQ(a[0].x, 0.0);
        EXPECT_EQ(a[0].y, 0.0);
        EXPECT_EQ(a[0].z, 0.0);
    }
}

// Two bodies far from the origin (padding bodies sit at the origin): the pair force exactly as
// the formula gives it, and Newton's third law.
TEST(CudaForce, TwoBodiesAwayFromTheOrigin) {
    REQUIRE_GPU();
    State s;
    s.resize(2);
    s.pos_mass[0] = {100.0f, 100.0f, 100.0f, 2.0f};
    s.pos_mass[1] = {101.0f, 100.0f, 100.0f, 1.0f};
    CudaBackend gpu;
    const double eps = 0.1, r2 = 1.0 + eps * eps, inv_r3 = 1.0 / (r2 * std::sqrt(r2));
    for (const KernelConfig& c : edge_configs()) {
        SCOPED_TRACE(describe(c));
        gpu.set_kernel_config(c);
        const std::vector<Vec3d> a = fresh_accelerations(gpu, s, eps);
        EXPECT_NEAR(a[0].x, 1.0 * inv_r3, 1e-6);
        EXPECT_NEAR(a[1].x, -2.0 * inv_r3, 1e-6);
        EXPECT_EQ(a[0].y, 0.0);
        EXPECT_EQ(a[1].z, 0.0);
    }
}

// ---------------------------------------------------------------------------------------------
// Leapfrog on the GPU.

TEST(CudaLeapfrog, HundredStepsMatchCpuBackendForEveryConfigShape) {
    REQUIRE_GPU();
    const StepParams params{1e-3, 0.05};
    const State initial = plummer(1000, 3);  // not a multiple of any block: tails everywhere
    CpuBackend cpu;
    cpu.load(initial);
    cpu.step(params, 100);
    State expected;
    cpu.store(expected);

    for (const KernelConfig& c : edge_configs()) {
        SCOPED_TRACE(describe(c));
        CudaBackend gpu;
        gpu.set_kernel_config(c);
        gpu.load(initial);
        gpu.step(params, 100);
        EXPECT_NEAR(gpu.time(), initial.time + 100 * params.dt, 1e-12);
        State got;
        gpu.store(got);
        ASSERT_EQ(got.size(), initial.size());
        // The two fp32 backends differ only in summation order: a few ulp, grown over 100
        // steps to ~5e-7 (measured in an emulation); a wrong kick or drift is off by > 1e-3.
        EXPECT_LE(max_abs_diff_xyz(got.pos_mass, expected.pos_mass), 1e-5);
        EXPECT_LE(max_abs_diff_xyz(got.velocity, expected.velocity), 1e-5);
        for (std::size_t i = 0; i < got.size(); ++i) ASSERT_EQ(got.pos_mass[i].w, initial.pos_mass[i].w);
    }
}

TEST(CudaLeapfrog, BatchedStepsEqualSingleSteps) {
    REQUIRE_GPU();
    const StepParams params{2e-3, 0.02};
    const State initial = plummer(777, 9);
    CudaBackend a, b;
    a.load(initial);
    b.load(initial);
    a.step(params, 25);
    for (int i = 0; i < 25; ++i) b.step(params, 1);
    State sa, sb;
    a.store(sa);
    b.store(sb);
    EXPECT_TRUE(same_bits(sa.pos_mass, sb.pos_mass));
    EXPECT_TRUE(same_bits(sa.velocity, sb.velocity));
    EXPECT_EQ(a.time(), b.time());
}

TEST(CudaLeapfrog, SofteningChangeRecomputesAccelerations) {
    REQUIRE_GPU();
    const State initial = plummer(512, 4);
    CpuBackend cpu;
    CudaBackend gpu;
    cpu.load(initial);
    gpu.load(initial);
    for (double eps : {0.05, 0.2, 0.05}) {
        cpu.step({1e-3, eps}, 10);
        gpu.step({1e-3, eps}, 10);
    }
    State c, g;
    cpu.store(c);
    gpu.store(g);
    EXPECT_LE(max_abs_diff_xyz(g.pos_mass, c.pos_mass), 1e-5);
    EXPECT_LE(max_abs_diff_xyz(g.velocity, c.velocity), 1e-5);
}

TEST(CudaLeapfrog, ConfigChangeMidRunKeepsTheState) {
    REQUIRE_GPU();
    const StepParams params{1e-3, 0.05};
    const State initial = plummer(1000, 6);
    CpuBackend cpu;
    cpu.load(initial);
    cpu.step(params, 30);
    State expected;
    cpu.store(expected);

    CudaBackend gpu;
    gpu.load(initial);
    gpu.step(params, 10);
    gpu.set_kernel_config(config(8, 128, 4, 2));
    gpu.step(params, 10);
    gpu.set_kernel_config(config(2, 512, 1, 4));
    gpu.step(params, 10);
    State got;
    gpu.store(got);
    EXPECT_NEAR(gpu.time(), 30 * params.dt, 1e-12);
    EXPECT_LE(max_abs_diff_xyz(got.pos_mass, expected.pos_mass), 1e-5);
    EXPECT_LE(max_abs_diff_xyz(got.velocity, expected.velocity), 1e-5);
}

// ---------------------------------------------------------------------------------------------
// Configuration refused with its reason; the running state is untouched.

TEST(CudaConfig, InvalidConfigIsRefusedWithReasonAndStateUntouched) {
    REQUIRE_GPU();
    const StepParams params{1e-3, 0.05};
    const State initial = plummer(600, 8);
    CudaBackend gpu, twin;
    const KernelConfig running = config(8, 128, 2, 2);
    gpu.set_kernel_config(running);
    twin.set_kernel_config(running);
    gpu.load(initial);
    twin.load(initial);
    gpu.step(params, 5);
    twin.step(params, 5);
    State before;
    gpu.store(before);
    const double time_before = gpu.time();

    struct Bad {
        KernelConfig c;
        const char* reason;
    };
    const std::vector<Bad> bad = {
        {config(3, 128, 1, 1), "unroll 3"},       {config(4, 100, 1, 1), "multiple of 32"},
        {config(4, 2048, 1, 1), "1024"},          {config(4, 128, 5, 1), "threads_per_body 5"},
        {config(16, 128, 1, 8), "bodies_per_thread 8"}, {config(4, 0, 1, 1), "multiple of 32"},
        {config(4, 128, 1, 16), "bodies_per_thread 16"},
    };
    for (const Bad& b : bad) {
        SCOPED_TRACE(describe(b.c));
        const std::string reason = gpu.check_kernel_config(b.c);
        EXPECT_NE(reason.find(b.reason), std::string::npos) << reason;
        try {
            gpu.set_kernel_config(b.c);
            ADD_FAILURE() << "accepted";
        } catch (const std::invalid_argument& e) {
            EXPECT_NE(std::string(e.what()).find(b.reason), std::string::npos) << e.what();
        }
        EXPECT_EQ(gpu.kernel_config(), running);
    }
    State after;
    gpu.store(after);
    EXPECT_TRUE(same_bits(before.pos_mass, after.pos_mass));
    EXPECT_TRUE(same_bits(before.velocity, after.velocity));
    EXPECT_EQ(gpu.time(), time_before);

    // And it carries on exactly as a twin that never saw the bad configs.
    gpu.step(params, 5);
    twin.step(params, 5);
    State g, t;
    gpu.store(g);
    twin.store(t);
    EXPECT_TRUE(same_bits(g.pos_mass, t.pos_mass));
    EXPECT_TRUE(same_bits(g.velocity, t.velocity));
}

TEST(CudaConfig, ResourcesOfTheDefaultInstance) {
    REQUIRE_GPU();
    CudaBackend gpu;
    for (const KernelConfig& c : edge_configs()) {
        const CudaBackend::KernelResources r = gpu.kernel_resources(c);
        std::printf("[  NOTE    ] %s: %d registers/thread, %zu bytes local, max %d threads/block\n",
                    describe(c).c_str(), r.registers_per_thread, r.local_bytes_per_thread, r.max_threads_per_block);
        EXPECT_EQ(r.local_bytes_per_thread, 0u) << describe(c) << " spills to local memory";
        EXPECT_GT(r.registers_per_thread, 0);
    }
}

TEST(CudaBackend, RejectsSofteningThatTheKernelCannotUse) {
    REQUIRE_GPU();
    CudaBackend gpu;
    gpu.load(plummer(64));
    State before;
    gpu.store(before);
    for (double eps : {0.0, -0.01, std::numeric_limits<double>::quiet_NaN(), 1e-30}) {
        SCOPED_TRACE(eps);
        try {
            gpu.step({1e-3, eps});
            ADD_FAILURE() << "accepted";
        } catch (const std::invalid_argument& e) {
            EXPECT_NE(std::string(e.what()).find("softening"), std::string::npos) << e.what();
        }
        EXPECT_THROW(gpu.accelerations(eps), std::invalid_argument);
    }
    EXPECT_THROW(gpu.step({0.0, 0.05}), std::invalid_argument);
    EXPECT_THROW(gpu.step({1e-3, 0.05}, -1), std::invalid_argument);
    State after;
    gpu.store(after);
    EXPECT_TRUE(same_bits(before.pos_mass, after.pos_mass));
    EXPECT_EQ(gpu.time(), 0.0);
}

TEST(CudaBackend, LoadStoreRoundTripAndDeviceInfo) {
    REQUIRE_GPU();
    State s = plummer(300, 2);
    s.time = 4.25;
    CudaBackend gpu;
    EXPECT_THROW(gpu.step({1e-3, 0.05}), std::logic_error);  // nothing loaded
    gpu.load(s);
    EXPECT_EQ(gpu.size(), 300u);
    EXPECT_EQ(gpu.time(), 4.25);
    State back;
    gpu.store(back);
    EXPECT_TRUE(same_bits(back.pos_mass, s.pos_mass));
    for (std::size_t i = 0; i < s.size(); ++i) {
        EXPECT_EQ(back.velocity[i].x, s.velocity[i].x);
        EXPECT_EQ(back.velocity[i].z, s.velocity[i].z);
    }
    EXPECT_EQ(back.time, 4.25);
    const CudaDeviceInfo& info = gpu.device_info();
    EXPECT_FALSE(info.name.empty());
    EXPECT_GT(info.sm_count, 0);
    EXPECT_GT(info.clock_khz, 0);
    EXPECT_GT(info.fp32_instructions_per_second(), 0.0);
    std::printf("[  NOTE    ] %s: %d SMs, sm_%d%d, %d kHz, %.1f TFP32-instr/s\n", info.name.c_str(), info.sm_count,
                info.compute_major, info.compute_minor, info.clock_khz, info.fp32_instructions_per_second() / 1e12);
}

TEST(CudaBackend, ForceTimingIsReported) {
    REQUIRE_GPU();
    CudaBackend gpu;
    EXPECT_EQ(gpu.last_force_ms(), 0.0);
    gpu.load(plummer(8192));
    gpu.step({1e-3, 0.05}, 3);
    gpu.synchronize();
    EXPECT_GT(gpu.last_force_ms(), 0.0);
    const double ms = gpu.time_steps_ms({1e-3, 0.05}, 4);
    EXPECT_GT(ms, 0.0);
    EXPECT_NEAR(gpu.time(), 7e-3, 1e-12);
}

// ---------------------------------------------------------------------------------------------
// Interop path: raw device buffers in and out, no host copies.

TEST(CudaInterop, StepDeviceBetweenForeignBuffersEqualsStep) {
    REQUIRE_GPU();
    const StepParams params{1e-3, 0.05};
    const State initial = plummer(1500, 11);
    const std::size_t n = initial.size();
    for (const KernelConfig& c : {KernelConfig{}, config(16, 64, 8, 4)}) {
        SCOPED_TRACE(describe(c));
        CudaBackend interop, plain;
        interop.set_kernel_config(c);
        plain.set_kernel_config(c);
        interop.load(initial);
        plain.load(initial);

        DeviceArray a(n * sizeof(Vec4f)), b(n * sizeof(Vec4f));
        interop.export_device_positions(a.ptr);
        void* in = a.ptr;
        void* out = b.ptr;
        for (int i = 0; i < 20; ++i) {
            interop.step_device(in, out, params);
            std::swap(in, out);
        }
        EXPECT_EQ(interop.bytes_copied_to_host(), 0u);
        State tmp;
        EXPECT_THROW(interop.store(tmp), std::logic_error);  // positions are in `in`, not adopted yet
        EXPECT_THROW(interop.step(params), std::logic_error);

        plain.step(params, 20);
        State expected;
        plain.store(expected);
        EXPECT_TRUE(same_bits(download(in, n), expected.pos_mass));

        interop.adopt_device_positions(in);
        State got;
        interop.store(got);
        EXPECT_TRUE(same_bits(got.pos_mass, expected.pos_mass));
        EXPECT_TRUE(same_bits(got.velocity, expected.velocity));
        EXPECT_EQ(interop.time(), plain.time());

        // Back on the backend's own buffers, it carries on like the plain one.
        interop.step(params, 5);
        plain.step(params, 5);
        interop.store(got);
        plain.store(expected);
        EXPECT_TRUE(same_bits(got.pos_mass, expected.pos_mass));
        EXPECT_TRUE(same_bits(got.velocity, expected.velocity));
    }
}

TEST(CudaInterop, StepDeviceRejectsBadBuffers) {
    REQUIRE_GPU();
    CudaBackend gpu;
    gpu.load(plummer(64));
    DeviceArray a(64 * sizeof(Vec4f));
    EXPECT_THROW(gpu.step_device(a.ptr, a.ptr, {1e-3, 0.05}), std::invalid_argument);
    EXPECT_THROW(gpu.step_device(nullptr, a.ptr, {1e-3, 0.05}), std::invalid_argument);
    EXPECT_THROW(gpu.step_device(a.ptr, nullptr, {1e-3, 0.05}), std::invalid_argument);
}

#endif  // NBODY_HAVE_CUDA

}  // namespace
}  // namespace nbody
