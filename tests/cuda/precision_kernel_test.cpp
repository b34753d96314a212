// The precision modes of the CUDA kernel (fp32, fp32-jbag, ds, fp64) against the double-precision
// reference, on the GPU: each within its own bound, the displaced sphere, leapfrog agreement,
// the interop ping-pong and precision switches. Each test skips with the reason without a GPU.
//
// Bounds, at N = 2048 and softening 0.1 (Chamomile's eps^2 = 0.01), from docs/PRECISION.md (host
// emulation of each kernel's summation order at the default config U8 p512 q2 B4):
//   fp32       2e-5   the fp32 tests' bound; emulated 1.0e-6 (Chamomile's DIRECT style: 2.2e-6)
//   fp32-jbag  2e-6   H200 9.1e-7 (per-term floor 5.8e-7 there: docs/PRECISION.md); CS: 5.4e-7
//   ds         2e-6   fp32-jbag's inner loop on positions rounded once relative to a reference point
//                     near the centre (docs/PRECISION.md: ~fp32-jbag's figure, < 1.5x expected)
//   fp64       1e-12  emulated 2e-15 to 3e-15: rsqrt(double) is 1 ulp, sums of N doubles
// The margin over the emulated figures absorbs the unknown error distribution of the GPU's
// MUFU.RSQ; the bounds stay an order of magnitude apart, so a mode that silently ran another's
// arithmetic would fail.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "nbody/sim/backend.hpp"
#include "nbody/sim/direct_sum_backend.hpp"
#include "nbody/sim/ic/plummer.hpp"
#include "require_gpu.hpp"
#include "test_support.hpp"

#ifdef NBODY_HAVE_CUDA
#include <cuda_runtime_api.h>

#include "nbody/sim/cuda_backend.hpp"
#endif

namespace nbody {
namespace {

#ifdef NBODY_HAVE_CUDA

constexpr double kSoftening = 0.1;

double bound(Precision p) {
    switch (p) {
        case Precision::Fp32:
            return 2e-5;
        case Precision::Fp32Jbag:
            return 2e-6;
        case Precision::Ds:
            return 2e-6;
        case Precision::Fp64:
            return 1e-12;
    }
    return 0;
}

std::string name(Precision p) { return std::string(to_string(p)); }

State plummer(std::size_t n, std::uint64_t seed = 1) {
    ic::PlummerParams p;
    p.bodies = n;
    p.seed = seed;
    return ic::make_plummer(p);
}

const std::vector<Vec3d>& reference(std::size_t n) {
    static std::map<std::size_t, std::vector<Vec3d>> cache;
    auto it = cache.find(n);
    if (it == cache.end()) {
        ReferenceBackend r;
        r.load(plummer(n));
        it = cache.emplace(n, r.accelerations(kSoftening)).first;
    }
    return it->second;
}

std::vector<Vec3d> displaced_positions(const State& s, double distance) {
    const double c = distance / std::sqrt(3.0);
    std::vector<Vec3d> x(s.size());
    for (std::size_t i = 0; i < s.size(); ++i) x[i] = xyz(s.pos_mass[i]) + Vec3d{c, c, c};
    return x;
}

KernelConfig mode(Precision p, KernelConfig c = {}) {
    c.precision = p;
    return CudaBackend::fit_to_precision(c);
}

double emax(CudaBackend& b, Precision p, const State& s, const std::vector<Vec3d>* positions = nullptr,
            KernelConfig config = {}) {
    b.set_kernel_config(mode(p, config));
    b.load(s);
    if (positions != nullptr) b.load_positions(*positions);
    return test::max_relative_error(b.accelerations(kSoftening), reference(s.size()));
}

TEST(CudaPrecision, EachModeAgreesWithTheReferenceWithinItsBound) {
    REQUIRE_GPU();
    CudaBackend b;
    const State s = plummer(2048);
    std::map<Precision, double> err;
    for (Precision p : kAllPrecisions) {
        err[p] = emax(b, p, s);
        EXPECT_LE(err[p], bound(p)) << name(p);
        std::printf("[          ] N=2048 %-9s Emax %.3e (bound %.0e)\n", name(p).c_str(), err[p], bound(p));
    }
    EXPECT_LT(err[Precision::Fp64], 1e-3 * err[Precision::Fp32Jbag]);
}

// At N = 2048 one body with a small net force (cancellation) sets Emax through the per-term
// rounding, whatever the summation order (H200: fp32 4.97e-7 against fp32-jbag 1.29e-6 there).
// Where the sums are long the partial sums must win: compare the same kernel shape at 32K.
TEST(CudaPrecision, PartialSumsBeatThePlainSumOnLongSums) {
    REQUIRE_GPU();
    CudaBackend b;
    const State s = plummer(32768);
    KernelConfig shape;
    shape.unroll = 8, shape.block = 512, shape.threads_per_body = 1, shape.bodies_per_thread = 4;
    const double plain = emax(b, Precision::Fp32, s, nullptr, shape);
    const double jbag = emax(b, Precision::Fp32Jbag, s, nullptr, shape);
    std::printf("[          ] N=32768 U8 p512 q1 B4: fp32 Emax %.3e, fp32-jbag %.3e\n", plain, jbag);
    EXPECT_LT(jbag, plain);
}

// Every compiled (U, q, B) of every mode at block sizes that make tail tiles, sub-bags shorter
// than kSubBag (p/q = 4) and padded i-bodies, with N not a multiple of anything.
TEST(CudaPrecision, EveryInstanceAgreesWithTheReference) {
    REQUIRE_GPU();
    CudaBackend b;
    const std::size_t n = 777;
    const State s = plummer(n);
    // ds gets positions displaced by 100, so that its lo parts are non-zero and exercised.
    const std::vector<Vec3d> shifted = displaced_positions(s, 100.0);
    int runs = 0;
    for (Precision p : {Precision::Fp32Jbag, Precision::Ds, Precision::Fp64})
        for (int u : CudaBackend::supported_unroll(p))
            for (int q : CudaBackend::supported_threads_per_body(p))
                for (int bt : CudaBackend::supported_bodies_per_thread(p))
                    for (int block : {32, 96, 256}) {
                        KernelConfig c;
                        c.precision = p;
                        c.unroll = u;
                        c.threads_per_body = q;
                        c.bodies_per_thread = bt;
                        c.block = block;
                        ASSERT_EQ(b.check_kernel_config(c), "") << c.to_string();
                        b.set_kernel_config(c);
                        b.load(s);
                        if (p == Precision::Ds) b.load_positions(shifted);
                        const double e = test::max_relative_error(b.accelerations(kSoftening), reference(n));
                        EXPECT_LE(e, bound(p)) << c.to_string();
                        ++runs;
                    }
    EXPECT_EQ(runs, 3 * (2 * 4 * 3 + 2 * 4 * 3 + 2 * 4 * 1));
}

// A sphere 1000 length units from the origin, built in double: fp32 positions keep only ~1e-4 of
// each coordinate there; ds (hi + lo) and fp64 keep what the centred sphere has.
TEST(CudaPrecision, DisplacedSphereKeepsItsDigitsInDsNotInFp32) {
    REQUIRE_GPU();
    CudaBackend b;
    const State s = plummer(2048);
    const std::vector<Vec3d> far = displaced_positions(s, 1000.0);
    const double fp32_centred = emax(b, Precision::Fp32, s);
    const double fp32_far = emax(b, Precision::Fp32, s, &far);
    const double ds_centred = emax(b, Precision::Ds, s);
    const double ds_far = emax(b, Precision::Ds, s, &far);
    const double fp64_far = emax(b, Precision::Fp64, s, &far);
    std::printf("[          ] displaced 1000: fp32 %.3e (centred %.3e), ds %.3e (centred %.3e), fp64 %.3e\n",
                fp32_far, fp32_centred, ds_far, ds_centred, fp64_far);
    EXPECT_LE(ds_far, 2 * ds_centred) << "ds must keep its centred accuracy far from the origin";
    EXPECT_GT(fp32_far, 100 * ds_far) << "fp32 was expected to lose digits there";
    EXPECT_GT(fp32_far, 10 * fp32_centred);
    EXPECT_LE(fp64_far, 1e-9);  // x + offset and the offset's own rounding: ~1e-13 absolute
}

// Leapfrog steps against the reference backend's double integration: positions with the digits
// each mode keeps. Exercises the ds and fp64 kick-drift kernels and the closing kicks.
TEST(CudaPrecision, LeapfrogFollowsTheReferenceIntegration) {
    REQUIRE_GPU();
    const State s = plummer(512, 7);
    const StepParams params{1e-3, kSoftening};
    const int steps = 20;
    ReferenceBackend ref;
    ref.load(s);
    ref.step(params, steps);
    const std::vector<Vec3d> want = ref.positions();
    const std::map<Precision, double> limit{{Precision::Fp32, 1e-5},
                                            {Precision::Fp32Jbag, 1e-5},
                                            {Precision::Ds, 1e-8},
                                            {Precision::Fp64, 1e-12}};
    CudaBackend b;
    for (Precision p : kAllPrecisions) {
        b.set_kernel_config(mode(p));
        b.load(s);
        b.step(params, steps);
        const std::vector<Vec3d> got = b.positions_precise();
        // Relative to max(1, |x|): a float position 10 units out rounds to 5e-7 per step.
        double worst = 0;
        for (std::size_t i = 0; i < got.size(); ++i)
            worst = std::max(worst, norm(got[i] - want[i]) / std::max(1.0, norm(want[i])));
        EXPECT_LE(worst, limit.at(p)) << name(p);
        EXPECT_NEAR(b.time(), steps * params.dt, 1e-12);
        // store() hands out the floats: the positions rounded (ds: x_hi).
        State out;
        b.store(out);
        for (std::size_t i = 0; i < got.size(); i += 97)
            EXPECT_EQ(out.pos_mass[i].x, static_cast<float>(got[i].x)) << name(p) << " body " << i;
        std::printf("[          ] 20 steps, %-9s max |x - x_ref| / max(1, |x_ref|) %.3e\n", name(p).c_str(),
                    worst);
    }
}

struct DeviceArray {
    void* ptr = nullptr;
    explicit DeviceArray(std::size_t bytes) {
        if (cudaMalloc(&ptr, bytes) != cudaSuccess) throw std::runtime_error("cudaMalloc failed in test");
    }
    ~DeviceArray() { cudaFree(ptr); }
    DeviceArray(const DeviceArray&) = delete;
    DeviceArray& operator=(const DeviceArray&) = delete;
};

// The viewer's path: positions exported into two caller buffers, stepped in turn. The ds / fp64
// digits must follow the buffers the backend wrote (and the copy it exported), giving bit for bit
// what step() gives; a buffer it never wrote restarts them from its floats.
TEST(CudaPrecision, InteropPingPongKeepsTheExtraDigits) {
    REQUIRE_GPU();
    const std::size_t n = 1000;
    const State s = plummer(n, 3);
    const std::vector<Vec3d> far = displaced_positions(s, 300.0);
    const StepParams params{1e-3, kSoftening};
    for (Precision p : {Precision::Ds, Precision::Fp64}) {
        CudaBackend plain, interop;
        for (CudaBackend* b : {&plain, &interop}) {
            b->set_kernel_config(mode(p));
            b->load(s);
            b->load_positions(far);
        }
        plain.step(params, 6);

        DeviceArray buf[2] = {DeviceArray(n * sizeof(Vec4f)), DeviceArray(n * sizeof(Vec4f))};
        interop.export_device_positions(buf[0].ptr);
        int cur = 0;
        for (int k = 0; k < 6; ++k) {
            interop.step_device(buf[cur].ptr, buf[1 - cur].ptr, params);
            cur = 1 - cur;
        }
        interop.adopt_device_positions(buf[cur].ptr);  // the buffer it last wrote: digits kept
        const std::vector<Vec3d> x = interop.positions_precise(), xw = plain.positions_precise();
        ASSERT_EQ(x.size(), xw.size());
        EXPECT_EQ(std::memcmp(x.data(), xw.data(), x.size() * sizeof(Vec3d)), 0)
            << name(p) << ": the interop ping-pong differs from step()";
        const std::vector<Vec3d> v = interop.velocities_precise(), vw = plain.velocities_precise();
        EXPECT_EQ(std::memcmp(v.data(), vw.data(), v.size() * sizeof(Vec3d)), 0) << name(p);

        // A buffer the backend did not write (here: a copy the test made) carries floats only.
        ASSERT_EQ(cudaMemcpy(buf[1 - cur].ptr, buf[cur].ptr, n * sizeof(Vec4f), cudaMemcpyDeviceToDevice),
                  cudaSuccess);
        interop.adopt_device_positions(buf[1 - cur].ptr);
        const std::vector<Vec3d> restarted = interop.positions_precise();
        State floats;
        interop.store(floats);
        double lost = 0;
        for (std::size_t i = 0; i < n; ++i) {
            EXPECT_EQ(restarted[i].x, double(floats.pos_mass[i].x)) << name(p) << " body " << i;
            lost = std::max(lost, std::abs(restarted[i].x - xw[i].x));
        }
        EXPECT_GT(lost, 0.0) << name(p) << ": at 300 from the origin the floats must differ from the doubles";
    }
}

// Switching precision on a running system converts the state: fp64 -> ds keeps 48 bits, ds ->
// fp64 is exact, -> fp32 rounds to float.
TEST(CudaPrecision, SwitchingPrecisionConvertsTheState) {
    REQUIRE_GPU();
    const State s = plummer(600, 5);
    const std::vector<Vec3d> far = displaced_positions(s, 1000.0);
    CudaBackend b;
    b.set_kernel_config(mode(Precision::Fp64));
    b.load(s);
    b.load_positions(far);
    const std::vector<Vec3d> x64 = b.positions_precise();
    for (std::size_t i = 0; i < far.size(); ++i)
        ASSERT_EQ(x64[i].x, far[i].x) << "fp64 keeps the doubles exactly";

    b.set_kernel_config(mode(Precision::Ds));
    (void)b.accelerations(kSoftening);  // the conversion happens at the next force pass
    const std::vector<Vec3d> xds = b.positions_precise();
    double worst = 0;
    for (std::size_t i = 0; i < far.size(); ++i) worst = std::max(worst, norm(xds[i] - far[i]));
    EXPECT_LE(worst, 1000.0 * 1e-14) << "hi + lo keeps ~48 bits";

    b.set_kernel_config(mode(Precision::Fp64));
    (void)b.accelerations(kSoftening);
    const std::vector<Vec3d> back = b.positions_precise();
    EXPECT_EQ(std::memcmp(back.data(), xds.data(), back.size() * sizeof(Vec3d)), 0)
        << "ds -> fp64 must be exact";

    b.set_kernel_config(mode(Precision::Fp32));
    (void)b.accelerations(kSoftening);
    const std::vector<Vec3d> x32 = b.positions_precise();
    for (std::size_t i = 0; i < far.size(); i += 37)
        EXPECT_EQ(x32[i].x, double(static_cast<float>(far[i].x))) << "fp32 holds the rounded positions";
}

// fp32-jbag and ds take m / r^3 as m rsqrt(r^6) on positions scaled by a power of two chosen from
// the softening (precision_kernels.cu, Frame). Unscaled, r^6 overflows beyond r ~ 2.6e6 (a far
// body would feel no force) and flushes to zero below r ~ 5e-7 (a tiny system's forces would be
// inf/NaN); every mode must keep those terms, as fp32 and fp64 do. In the far case only the far
// body is compared: ds's reference point, the mean of the bodies, lies 4e5 out there, where the
// sphere's own forces lose digits as in fp32 (docs/PRECISION.md: clusters far apart).
TEST(CudaPrecision, FarBodiesAndTinySystemsKeepEveryTerm) {
    REQUIRE_GPU();
    struct Case {
        const char* what;
        State state;
        double softening;
        std::optional<std::size_t> only;  // compare this body only
    };
    std::vector<Case> cases;
    {
        State s = plummer(255);
        s.resize(256);
        s.pos_mass[255] = Vec4f{1e8f, -3e7f, 2e7f, 1e-6f};  // its whole force comes from r ~ 1e8
        cases.push_back({"a body 1e8 from a Plummer sphere, eps 0.1", s, 0.1, 255});
    }
    {
        State s = plummer(256);
        for (Vec4f& b : s.pos_mass) b.x *= 1e-6f, b.y *= 1e-6f, b.z *= 1e-6f;
        cases.push_back({"a Plummer sphere of radius 1e-6, eps 1e-7", s, 1e-7, std::nullopt});
    }
    CudaBackend b;
    for (const Case& c : cases) {
        ReferenceBackend r;
        r.load(c.state);
        std::vector<Vec3d> ref = r.accelerations(c.softening);
        if (c.only) ref = {ref[*c.only]};
        for (Precision p : kAllPrecisions) {
            b.set_kernel_config(mode(p));
            b.load(c.state);
            std::vector<Vec3d> acc = b.accelerations(c.softening);
            if (c.only) acc = {acc[*c.only]};
            const double e = test::max_relative_error(acc, ref);
            std::printf("[          ] %s: %-9s Emax %.3e\n", c.what, name(p).c_str(), e);
            EXPECT_LE(e, bound(p)) << c.what << ", " << name(p);
        }
    }
}

TEST(CudaPrecision, LoadPositionsRejectsBadInput) {
    REQUIRE_GPU();
    CudaBackend b;
    b.load(plummer(64));
    EXPECT_THROW(b.load_positions(std::vector<Vec3d>(63)), std::invalid_argument);
    std::vector<Vec3d> bad(64);
    bad[5].y = std::nan("");
    EXPECT_THROW(b.load_positions(bad), std::invalid_argument);
}

#else

TEST(CudaPrecision, BuiltWithoutCuda) { GTEST_SKIP() << "this build has no CUDA backend"; }

#endif

}  // namespace
}  // namespace nbody
