// Snapshot version 2 on the CUDA backend: in ds and fp64 the double state goes into the snapshot
// and a run continued from it matches an uninterrupted one bit for bit (5 + 5 steps against 10).
// In fp32 there is no double state. Skips with the reason without a GPU.

#include <gtest/gtest.h>

#include <cstring>
#include <iostream>
#include <string>
#include <vector>

#include "nbody/sim/backend.hpp"
#include "nbody/sim/ic/plummer.hpp"
#include "nbody/sim/io/snapshot.hpp"
#include "test_support.hpp"

#ifdef NBODY_HAVE_CUDA
#include "nbody/sim/cuda_backend.hpp"
#endif

namespace nbody {
namespace {

#ifdef NBODY_HAVE_CUDA

State plummer(std::size_t n) {
    ic::PlummerParams p;
    p.bodies = n;
    p.seed = 7;
    return ic::make_plummer(p);
}

KernelConfig in_mode(Precision p) {
    KernelConfig c;
    c.precision = p;
    return CudaBackend::fit_to_precision(c);
}

bool same_bits(const std::vector<Vec3d>& a, const std::vector<Vec3d>& b) {
    return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(Vec3d)) == 0;
}

TEST(CudaSnapshot, DsAndFp64RestoreExactly) {
    std::string why;
    if (!cuda_available(&why)) GTEST_SKIP() << "no usable CUDA device: " << why;
    test::TempDir dir;
    const StepParams params{1e-3, 0.05};
    for (Precision p : {Precision::Ds, Precision::Fp64}) {
        SCOPED_TRACE(std::string(to_string(p)));
        CudaBackend straight;
        straight.set_kernel_config(in_mode(p));
        io::Snapshot mid;
        mid.state = plummer(1000);  // not a multiple of any block: the tail is covered too
        mid.params = params;
        straight.load(mid.state);
        straight.step(params, 5);
        straight.store(mid.state);
        mid.precise = straight.store_precise();
        ASSERT_TRUE(mid.precise.has_value());
        io::write_snapshot(dir.file("mid.nbsnap"), mid);
        straight.step(params, 5);

        const io::Snapshot back = io::read_snapshot(dir.file("mid.nbsnap"));
        ASSERT_TRUE(back.precise.has_value());
        CudaBackend resumed;
        resumed.set_kernel_config(in_mode(p));
        resumed.load_precise(back.state, *back.precise);
        resumed.step(params, 5);
        EXPECT_TRUE(same_bits(straight.positions_precise(), resumed.positions_precise()));
        EXPECT_TRUE(same_bits(straight.velocities_precise(), resumed.velocities_precise()));
        EXPECT_EQ(straight.time(), resumed.time());

        // From the floats alone the digits beyond float are lost: the check above can fail.
        CudaBackend from_floats;
        from_floats.set_kernel_config(in_mode(p));
        from_floats.load(back.state);
        from_floats.step(params, 5);
        EXPECT_FALSE(same_bits(straight.positions_precise(), from_floats.positions_precise()));
    }
}

TEST(CudaSnapshot, Fp32HasNoDoubleState) {
    std::string why;
    if (!cuda_available(&why)) GTEST_SKIP() << "no usable CUDA device: " << why;
    CudaBackend b;
    b.load(plummer(100));
    EXPECT_FALSE(b.store_precise().has_value());
}

#else

TEST(CudaSnapshot, SkippedWithoutCuda) { GTEST_SKIP() << "this build has no CUDA backend"; }

#endif

}  // namespace
}  // namespace nbody
