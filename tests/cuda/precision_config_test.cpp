// Precision modes without a GPU: names, the KernelConfig description, and the dispatch switch of
// the precision kernels refusing what was not compiled, with the supported values in the reason.

#include <gtest/gtest.h>

#include <cstdlib>
#include <stdexcept>
#include <string>
#include <vector>

#include "nbody/sim/kernel_config.hpp"

#ifdef NBODY_HAVE_CUDA
#include "nbody/sim/cuda_backend.hpp"
#endif

namespace nbody {
namespace {

bool contains(const std::string& text, const std::string& part) {
    return text.find(part) != std::string::npos;
}

TEST(PrecisionNames, RoundTripAndRefuseUnknownNamesWithTheList) {
    for (Precision p : kAllPrecisions) EXPECT_EQ(parse_precision(to_string(p)), p);
    EXPECT_EQ(to_string(Precision::Fp32Jbag), "fp32-jbag");
    for (const char* bad : {"", "FP32", "fp16", "double", "ds ", "jbag"}) {
        try {
            (void)parse_precision(bad);
            FAIL() << "'" << bad << "' was accepted";
        } catch (const std::invalid_argument& e) {
            EXPECT_TRUE(contains(e.what(), "fp32, fp32-jbag, ds, fp64")) << e.what();
            EXPECT_TRUE(contains(e.what(), std::string("'") + bad + "'")) << e.what();
        }
    }
}

TEST(PrecisionNames, KernelConfigNamesANonDefaultPrecisionOnly) {
    KernelConfig c;
    EXPECT_FALSE(contains(c.to_string(), "precision")) << c.to_string();
    c.precision = Precision::Ds;
    EXPECT_TRUE(contains(c.to_string(), "precision ds")) << c.to_string();
    KernelConfig d;
    EXPECT_NE(c, d);
}

#ifdef NBODY_HAVE_CUDA

KernelConfig config(Precision p, int unroll, int q, int b, int block = 256) {
    KernelConfig c;
    c.precision = p;
    c.unroll = unroll;
    c.threads_per_body = q;
    c.bodies_per_thread = b;
    c.block = block;
    return c;
}

TEST(PrecisionDispatch, EverySupportedCombinationHasAnInstance) {
    int checked = 0;
    for (Precision p : {Precision::Fp32Jbag, Precision::Ds, Precision::Fp64})
        for (int u : CudaBackend::supported_unroll(p))
            for (int q : CudaBackend::supported_threads_per_body(p))
                for (int b : CudaBackend::supported_bodies_per_thread(p))
                    for (int block : {32, 128, 1024}) {
                        const KernelConfig c = config(p, u, q, b, block);
                        EXPECT_EQ(CudaBackend::check_kernel_config_host(c), "") << c.to_string();
                        ++checked;
                    }
    EXPECT_EQ(checked, 3 * (24 + 24 + 8));
    // The lists themselves: what the option help and docs/PRECISION.md promise.
    EXPECT_EQ(CudaBackend::supported_unroll(Precision::Ds), (std::vector<int>{4, 8}));
    EXPECT_EQ(CudaBackend::supported_threads_per_body(Precision::Fp64), (std::vector<int>{1, 2, 4, 8}));
    EXPECT_EQ(CudaBackend::supported_bodies_per_thread(Precision::Fp32Jbag), (std::vector<int>{1, 2, 4}));
    EXPECT_EQ(CudaBackend::supported_bodies_per_thread(Precision::Fp64), (std::vector<int>{1}));
    EXPECT_EQ(CudaBackend::supported_unroll(Precision::Fp32), CudaBackend::supported_unroll());
}

TEST(PrecisionDispatch, UnsupportedCombinationsAreRefusedWithTheSupportedValues) {
    std::string r = CudaBackend::check_kernel_config_host(config(Precision::Ds, 16, 1, 1));
    EXPECT_TRUE(contains(r, "no ds kernel instance")) << r;
    EXPECT_TRUE(contains(r, "unroll 16 is not supported in ds (supported: 4, 8)")) << r;

    r = CudaBackend::check_kernel_config_host(config(Precision::Fp64, 4, 1, 2));
    EXPECT_TRUE(contains(r, "bodies_per_thread 2 is not supported in fp64 (supported: 1)")) << r;

    r = CudaBackend::check_kernel_config_host(config(Precision::Fp32Jbag, 4, 16, 8));
    EXPECT_TRUE(contains(r, "threads_per_body 16 is not supported in fp32-jbag (supported: 1, 2, 4, 8)"))
        << r;
    EXPECT_TRUE(contains(r, "bodies_per_thread 8 is not supported in fp32-jbag (supported: 1, 2, 4)")) << r;

    // fp32 itself keeps the full list: the same config is fine there.
    EXPECT_EQ(CudaBackend::check_kernel_config_host(config(Precision::Fp32, 16, 16, 4)), "");

    // The symmetric kernels are fp32 only.
    KernelConfig sym;
    sym.pair_mode = PairMode::Symmetric;
    sym.precision = Precision::Fp64;
    r = CudaBackend::check_kernel_config_host(sym);
    EXPECT_TRUE(contains(r, "pair mode full only")) << r;

    // Block shape is checked for the precision kernels too.
    r = CudaBackend::check_kernel_config_host(config(Precision::Ds, 4, 1, 1, 100));
    EXPECT_TRUE(contains(r, "multiple of 32")) << r;
}

TEST(PrecisionDispatch, FitMovesTunablesToTheNearestInstance) {
    KernelConfig tuned = config(Precision::Fp32, 32, 16, 8, 512);
    EXPECT_EQ(CudaBackend::fit_to_precision(tuned), tuned) << "fp32 is left alone";

    tuned.precision = Precision::Ds;
    const KernelConfig ds = CudaBackend::fit_to_precision(tuned);
    EXPECT_EQ(ds.unroll, 8);
    EXPECT_EQ(ds.threads_per_body, 8);
    EXPECT_EQ(ds.bodies_per_thread, 4);
    EXPECT_EQ(ds.block, 512);
    EXPECT_EQ(CudaBackend::check_kernel_config_host(ds), "");

    tuned.precision = Precision::Fp64;
    tuned.unroll = 1;  // below every instance: the smallest
    tuned.pair_mode = PairMode::Symmetric;
    const KernelConfig f = CudaBackend::fit_to_precision(tuned);
    EXPECT_EQ(f.unroll, 4);
    EXPECT_EQ(f.bodies_per_thread, 1);
    EXPECT_EQ(f.pair_mode, PairMode::Full);
    EXPECT_EQ(CudaBackend::check_kernel_config_host(f), "");

    for (Precision p : kAllPrecisions) {
        KernelConfig d;
        d.precision = p;
        EXPECT_EQ(CudaBackend::check_kernel_config_host(CudaBackend::fit_to_precision(d)), "")
            << to_string(p);
    }
}

// The A/B formulations (NBODY_JBAG_SUM, NBODY_DS_SEPARATION) exist for a few (U, q, B) only; a
// malformed value or a config without that instance is refused with the reason, not at a launch.
TEST(PrecisionDispatch, FormulationOverridesAreCheckedAndListed) {
    struct EnvGuard {
        const char* name;
        ~EnvGuard() { unsetenv(name); }
    };
    {
        const EnvGuard g{"NBODY_DS_SEPARATION"};
        setenv("NBODY_DS_SEPARATION", "eq3", 1);
        EXPECT_EQ(CudaBackend::check_kernel_config_host(config(Precision::Ds, 8, 2, 4, 512)), "");
        std::string r = CudaBackend::check_kernel_config_host(config(Precision::Ds, 4, 2, 1));
        EXPECT_TRUE(contains(r, "NBODY_DS_SEPARATION=eq3 is compiled only for")) << r;
        EXPECT_TRUE(contains(r, "U8 q2 B4")) << r;
        // fp32-jbag is not affected by the ds override.
        EXPECT_EQ(CudaBackend::check_kernel_config_host(config(Precision::Fp32Jbag, 4, 2, 1)), "");
        setenv("NBODY_DS_SEPARATION", "exact", 1);
        r = CudaBackend::check_kernel_config_host(config(Precision::Ds, 8, 2, 4, 512));
        EXPECT_TRUE(contains(r, "NBODY_DS_SEPARATION='exact'")) << r;
        EXPECT_TRUE(contains(r, "ref, eq3")) << r;
    }
    {
        const EnvGuard g{"NBODY_JBAG_SUM"};
        setenv("NBODY_JBAG_SUM", "plain", 1);
        EXPECT_EQ(CudaBackend::check_kernel_config_host(config(Precision::Fp32Jbag, 8, 1, 4, 512)), "");
        const std::string r = CudaBackend::check_kernel_config_host(config(Precision::Fp32Jbag, 4, 8, 2));
        EXPECT_TRUE(contains(r, "NBODY_JBAG_SUM=plain is compiled only for")) << r;
    }
    EXPECT_EQ(CudaBackend::check_kernel_config_host(config(Precision::Ds, 4, 2, 1)), "");
}

#endif

}  // namespace
}  // namespace nbody
