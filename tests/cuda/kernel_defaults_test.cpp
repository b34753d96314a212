// The default-config table (sim/src/kernel_defaults.cpp): what a user runs without kernel options.
// Host code: runs in CI, no GPU needed.

#include <gtest/gtest.h>

#include <string>

#include "nbody/sim/kernel_defaults.hpp"

#ifdef NBODY_HAVE_CUDA
#include "nbody/sim/cuda_backend.hpp"
#endif

namespace nbody {
namespace {

TEST(KernelDefaults, RowsAreSortedAndStartAtZeroPerArchitecture) {
    const auto rows = kernel_default_rows();
    ASSERT_FALSE(rows.empty());
    for (std::size_t k = 0; k < rows.size(); ++k) {
        const bool first_of_arch = k == 0 || rows[k - 1].compute_major != rows[k].compute_major ||
                                   rows[k - 1].compute_minor != rows[k].compute_minor;
        if (first_of_arch) {
            EXPECT_EQ(rows[k].min_bodies, 0u) << "row " << k << ": every N of a listed architecture has a row";
        } else {
            EXPECT_LT(rows[k - 1].min_bodies, rows[k].min_bodies) << "row " << k;
        }
        EXPECT_NE(std::string(rows[k].measured), "") << "row " << k << " says where it was measured";
        EXPECT_EQ(rows[k].config.precision, Precision::Fp32) << "row " << k;
    }
}

TEST(KernelDefaults, TheTableIsConsultedByArchitectureAndN) {
    // sm_90: each row holds from its min_bodies to the next row's.
    for (const KernelDefaultRow& row : kernel_default_rows()) {
        const KernelConfig c = default_kernel_config(row.compute_major, row.compute_minor, row.min_bodies);
        EXPECT_EQ(c, row.config) << "N = " << row.min_bodies;
        EXPECT_EQ(find_kernel_default(row.compute_major, row.compute_minor, row.min_bodies), &row);
    }
    // An architecture without measurements gets the portable default.
    EXPECT_EQ(default_kernel_config(7, 5, 65536), KernelConfig{});
    EXPECT_EQ(find_kernel_default(7, 5, 65536), nullptr);
    EXPECT_NE(describe_default_kernel_config(7, 5, 1).find("portable"), std::string::npos);
    // The H200's large-N default computes each pair once, and the description says it is the same physics.
    const KernelConfig big = default_kernel_config(9, 0, 1 << 20);
    EXPECT_NE(big.pair_mode, PairMode::Full);
    EXPECT_NE(describe_default_kernel_config(9, 0, 1 << 20).find("same physics"), std::string::npos);
    // Its every-pair tunables are the measured best every-pair config at that N, not the portable ones.
    EXPECT_NE(big.unroll * 10000 + big.block, KernelConfig{}.unroll * 10000 + KernelConfig{}.block);
}

#ifdef NBODY_HAVE_CUDA
// Every row names compiled instances, in its pair mode and, for --pairs full, in the every-pair kernel.
TEST(KernelDefaults, EveryRowHasInstances) {
    for (const KernelDefaultRow& row : kernel_default_rows()) {
        KernelConfig full = row.config;
        full.pair_mode = PairMode::Full;
        EXPECT_EQ(CudaBackend::check_kernel_config_host(row.config), "") << row.config.to_string();
        EXPECT_EQ(CudaBackend::check_kernel_config_host(full), "") << full.to_string();
    }
}
#endif

}  // namespace
}  // namespace nbody
