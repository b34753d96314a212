// Tests of the symmetric ("each pair once") force kernel against the double-precision reference,
// its launch geometry, the device's own evaluation of the triangular map, and (SymmetricTiming)
// the issue-8 rate table. GPU tests skip with the reason when no CUDA device is usable.

#include <gtest/gtest.h>

#if defined(NBODY_HAVE_CUDA)

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include "../../sim/cuda/cuda_raii.hpp"
#include "../../sim/cuda/force_kernel.hpp"
#include "../../sim/cuda/symmetric_kernel.hpp"
#include "../../sim/cuda/triangular_map.hpp"
#include "nbody/sim/direct_sum_backend.hpp"
#include "nbody/sim/ic/plummer.hpp"
#include "nbody/sim/state.hpp"
#include "test_support.hpp"

namespace {

using nbody::cuda::DeviceBuffer;
using nbody::cuda::SymmetricMap;
using nbody::cuda::SymmetricVariant;

constexpr double kSoftening = 0.01;
constexpr float kEps2 = static_cast<float>(kSoftening * kSoftening);
constexpr double kBound = 2e-5;  // max_i |a - a_ref| / |a_ref|, the full kernel's bound

// Empty when a device is usable and this build has kernels for it; else why not.
std::string device_problem() {
    int count = 0;
    const cudaError_t err = cudaGetDeviceCount(&count);
    if (err != cudaSuccess) {
        (void)cudaGetLastError();
        return std::string("no usable CUDA device: ") + cudaGetErrorString(err);
    }
    if (count == 0) return "no CUDA device";
    return nbody::cuda::kernel_image_problem();
}

#define SKIP_WITHOUT_DEVICE()                          \
    do {                                               \
        const std::string problem = device_problem();  \
        if (!problem.empty()) GTEST_SKIP() << problem; \
    } while (0)

nbody::State plummer(std::size_t n, std::uint64_t seed = 42) {
    nbody::ic::PlummerParams p;
    p.bodies = n;
    p.seed = seed;
    return nbody::ic::make_plummer(p);
}

std::vector<nbody::Vec3d> reference_accelerations(const nbody::State& s) {
    return nbody::test::reference_accelerations(s, kSoftening);
}

static_assert(sizeof(nbody::Vec4f) == sizeof(float4), "Vec4f must match float4");

DeviceBuffer<float4> upload(const std::vector<nbody::Vec4f>& host) {
    DeviceBuffer<float4> d(host.size());
    if (!host.empty())
        CUDA_CHECK(cudaMemcpy(d.get(), host.data(), host.size() * sizeof(float4), cudaMemcpyHostToDevice));
    return d;
}

std::vector<float4> download(const DeviceBuffer<float4>& d, std::size_t n) {
    std::vector<float4> out(n);
    if (n > 0) CUDA_CHECK(cudaMemcpy(out.data(), d.get(), n * sizeof(float4), cudaMemcpyDeviceToHost));
    return out;
}

// Accelerations from the symmetric kernel; the output buffer starts as NaN bytes so that a pass
// which fails to overwrite it shows.
std::vector<float4> symmetric_accelerations(const SymmetricVariant& v, const nbody::State& s) {
    const std::size_t n = s.size();
    DeviceBuffer<float4> pos = upload(s.pos_mass);
    DeviceBuffer<float4> acc(std::max<std::size_t>(n, 1));
    CUDA_CHECK(cudaMemset(acc.get(), 0xff, acc.bytes()));
    nbody::cuda::launch_symmetric_force(v, pos.get(), static_cast<int>(n), kEps2, acc.get(), nullptr, 0.0f,
                                        nullptr);
    CUDA_CHECK(cudaDeviceSynchronize());
    return download(acc, n);
}

std::vector<nbody::Vec3d> to_vec3d(const std::vector<float4>& a) {
    std::vector<nbody::Vec3d> out;
    out.reserve(a.size());
    for (const float4& x : a) out.push_back({x.x, x.y, x.z});
    return out;
}

std::string name(const SymmetricVariant& v) {
    return std::string(nbody::cuda::to_string(v.map)) + " B=" + std::to_string(v.bodies_per_lane);
}

std::vector<SymmetricVariant> all_variants() {
    std::vector<SymmetricVariant> out;
    for (SymmetricMap m : {SymmetricMap::Lambda, SymmetricMap::BoundingBox})
        for (int b : nbody::cuda::kSymmetricBodiesPerLaneValues) out.push_back({m, b});
    return out;
}

void expect_matches_reference(const nbody::State& s, const std::vector<SymmetricVariant>& variants) {
    const auto ref = reference_accelerations(s);
    for (const SymmetricVariant& v : variants) {
        const std::vector<float4> a = symmetric_accelerations(v, s);
        const double err = nbody::test::max_relative_error(to_vec3d(a), ref);
        EXPECT_LE(err, kBound) << "N=" << s.size() << " " << name(v);
        bool w_zero = true;
        for (const float4& x : a) w_zero = w_zero && x.w == 0.0f;
        EXPECT_TRUE(w_zero) << "acc.w must be 0 (N=" << s.size() << " " << name(v) << ")";
    }
}

// ---- no device needed ----------------------------------------------------------------------------

TEST(SymmetricGeometry, LambdaLaunchesOneBlockPerTile) {
    for (int b : nbody::cuda::kSymmetricBodiesPerLaneValues) {
        for (int n : {1, 2, 31, 32, 33, 1000, 4097, 1 << 20}) {
            const auto g = nbody::cuda::symmetric_geometry({SymmetricMap::Lambda, b}, n);
            const std::uint64_t t = (static_cast<std::uint64_t>(n) + 32 * b - 1) / (32 * b);
            EXPECT_EQ(g.tile, 32 * b);
            EXPECT_EQ(g.tiles_per_side, t);
            EXPECT_EQ(g.tiles, t * (t + 1) / 2);
            EXPECT_EQ(g.blocks, g.tiles) << "n=" << n << " B=" << b;
            EXPECT_EQ(g.grid_y, 1u);
            EXPECT_EQ(g.threads, 32);
            EXPECT_EQ(g.shared_bytes, 2u * 32u * b * sizeof(float4));
        }
    }
    const auto empty = nbody::cuda::symmetric_geometry({SymmetricMap::Lambda, 4}, 0);
    EXPECT_EQ(empty.blocks, 0u);
}

// n = 4M bodies in tiles of 64 (B = 2): T = 65536 and T(T+1)/2 = 2,147,516,416 blocks, more than
// gridDim.x's 2^31 - 1: two rows of blocks, none wasted, every k below 2^32.
TEST(SymmetricGeometry, LambdaSplitsGridsBeyondTheXLimit) {
    const auto g = nbody::cuda::symmetric_geometry({SymmetricMap::Lambda, 2}, 65536 * 64);
    EXPECT_EQ(g.tiles_per_side, 65536u);
    EXPECT_EQ(g.tiles, 2147516416ull);
    EXPECT_EQ(g.grid_y, 2u);
    EXPECT_LE(g.grid_x, 2147483647u);
    EXPECT_GE(g.blocks, g.tiles);
    EXPECT_LT(g.blocks - g.tiles, g.grid_y);
    EXPECT_LT(g.blocks, 1ull << 32);
    // One tile fewer per side fits a 1-D grid.
    EXPECT_EQ(nbody::cuda::symmetric_geometry({SymmetricMap::Lambda, 2}, 65535 * 64).grid_y, 1u);
}

TEST(SymmetricGeometry, BoundingBoxCoversTheSquare) {
    const auto g = nbody::cuda::symmetric_geometry({SymmetricMap::BoundingBox, 4}, 1000);
    EXPECT_EQ(g.tiles_per_side, 8u);
    EXPECT_EQ(g.grid_x, 8u);
    EXPECT_EQ(g.grid_y, 8u);
    EXPECT_EQ(g.grid_z, 1u);
    EXPECT_EQ(g.blocks, 64u);
    EXPECT_EQ(g.tiles, 36u);
    // T = 65536 rows do not fit gridDim.y (65535): they spread over z.
    const auto big = nbody::cuda::symmetric_geometry({SymmetricMap::BoundingBox, 2}, 65536 * 64);
    EXPECT_EQ(big.grid_x, 65536u);
    EXPECT_LE(big.grid_y, 65535u);
    EXPECT_GE(static_cast<std::uint64_t>(big.grid_y) * big.grid_z, 65536u);
}

TEST(SymmetricKernelArgs, RejectsWhatItCannotRun) {
    EXPECT_THROW(nbody::cuda::require_symmetric_instance({SymmetricMap::Lambda, 3}), std::invalid_argument);
    try {
        nbody::cuda::require_symmetric_instance({SymmetricMap::Lambda, 16});
        FAIL() << "bodies_per_lane 16 accepted";
    } catch (const std::invalid_argument& e) {
        EXPECT_NE(std::string(e.what()).find("supported: 1, 2, 4, 8"), std::string::npos) << e.what();
    }
    const SymmetricVariant v{SymmetricMap::Lambda, 4};
    EXPECT_THROW(nbody::cuda::symmetric_geometry(v, -1), std::invalid_argument);
    EXPECT_THROW(nbody::cuda::symmetric_geometry(v, nbody::cuda::symmetric_max_bodies(v) + 1),
                 std::invalid_argument);
    EXPECT_EQ(nbody::cuda::symmetric_max_bodies(v), 65536 * 128);
    // Bad softening is refused before any CUDA call, so this needs no device.
    float4 dummy{};
    EXPECT_THROW(nbody::cuda::launch_symmetric_force(v, &dummy, 1, 0.0f, &dummy, nullptr, 0.0f, nullptr),
                 std::invalid_argument);
    EXPECT_THROW(nbody::cuda::launch_symmetric_force(v, &dummy, 1, NAN, &dummy, nullptr, 0.0f, nullptr),
                 std::invalid_argument);
    EXPECT_THROW(nbody::cuda::launch_symmetric_force(v, nullptr, 1, kEps2, &dummy, nullptr, 0.0f, nullptr),
                 std::invalid_argument);
    EXPECT_EQ(nbody::cuda::parse_symmetric_map("bounding-box"), SymmetricMap::BoundingBox);
    EXPECT_THROW(nbody::cuda::parse_symmetric_map("box"), std::invalid_argument);
}

// ---- on the device -------------------------------------------------------------------------------

TEST(SymmetricKernel, NoSpillsAndFullWarpBlocks) {
    SKIP_WITHOUT_DEVICE();
    for (const SymmetricVariant& v : all_variants()) {
        const auto r = nbody::cuda::symmetric_kernel_resources(v);
        EXPECT_EQ(r.local_bytes_per_thread, 0u) << name(v) << " spills to local memory";
        EXPECT_GT(r.max_blocks_per_sm, 0) << name(v);
        std::printf("  %-16s %3d registers, %5zu B shared, %2d resident warps/SM\n", name(v).c_str(),
                    r.registers_per_thread, r.static_shared_bytes, r.max_blocks_per_sm);
    }
}

TEST(SymmetricKernel, PlummerMatchesReference) {
    SKIP_WITHOUT_DEVICE();
    expect_matches_reference(plummer(4096), all_variants());
}

TEST(SymmetricKernel, EdgeSizesMatchReference) {
    SKIP_WITHOUT_DEVICE();
    // 1: nothing to pair; 2: one pair; 31: a part tile; 1000, 4097: part tiles at every B, and
    // several diagonal and off-diagonal tiles.
    for (int n : {1, 2, 31, 1000, 4097})
        expect_matches_reference(plummer(static_cast<std::size_t>(n), 7 + n), all_variants());
}

TEST(SymmetricKernel, CoincidentBodiesStayFinite) {
    SKIP_WITHOUT_DEVICE();
    nbody::State s = plummer(300);
    s.pos_mass[5] = s.pos_mass[200];  // same place, both massive: only softening keeps r^2 > 0
    s.pos_mass[7] = s.pos_mass[8];
    expect_matches_reference(s, {{SymmetricMap::Lambda, 4}, {SymmetricMap::BoundingBox, 1}});
}

TEST(SymmetricKernel, ClosingKickUsesTheNewAccelerations) {
    SKIP_WITHOUT_DEVICE();
    const nbody::State s = plummer(777);
    const std::size_t n = s.size();
    DeviceBuffer<float4> pos = upload(s.pos_mass);
    DeviceBuffer<float4> vel = upload(s.velocity);
    DeviceBuffer<float4> acc(n);
    const float half_dt = 0.125f;
    nbody::cuda::launch_symmetric_force(SymmetricMap::Lambda, pos.get(), static_cast<int>(n), kEps2,
                                        acc.get(), vel.get(), half_dt, nullptr);
    CUDA_CHECK(cudaDeviceSynchronize());
    const auto a = download(acc, n);
    const auto v = download(vel, n);
    for (std::size_t i = 0; i < n; ++i) {
        ASSERT_EQ(v[i].x, std::fma(a[i].x, half_dt, s.velocity[i].x)) << i;
        ASSERT_EQ(v[i].y, std::fma(a[i].y, half_dt, s.velocity[i].y)) << i;
        ASSERT_EQ(v[i].z, std::fma(a[i].z, half_dt, s.velocity[i].z)) << i;
        ASSERT_EQ(v[i].w, s.velocity[i].w) << i;
    }
}

// The map exactly as the device evaluates it (MUFU.RSQ), every k of the largest grid supported.
TEST(SymmetricMapDevice, ExhaustiveTo65536TilesPerSide) {
    SKIP_WITHOUT_DEVICE();
    using nbody::cuda::TriangularMapFlavor;
    const std::uint32_t t = nbody::cuda::tri::kMaxTilesPerSide;
    for (bool diagonal : {true, false}) {
        for (TriangularMapFlavor f : {TriangularMapFlavor::Fast, TriangularMapFlavor::Exact}) {
            const auto r = nbody::cuda::check_triangular_map_on_device(t, f, diagonal, 0.0f);
            EXPECT_EQ(r.checked, diagonal ? 2147516416ull : 2147450880ull);
            EXPECT_EQ(r.wrong, 0u) << (f == TriangularMapFlavor::Fast ? "fast" : "exact")
                                   << (diagonal ? " eq. 4" : " eq. 5")
                                   << ": first wrong k = " << r.first_wrong;
        }
    }
    // The paper's uncorrected variant on the device, for the record (not an assertion: how far it
    // holds depends on MUFU's rounding; the host figure is row 2410).
    const auto p = nbody::cuda::check_triangular_map_on_device(t, TriangularMapFlavor::Paper, true,
                                                               nbody::cuda::tri::kPaperEpsilon);
    std::printf("  paper variant on the device (eps %g): %llu of %llu blocks wrong, first wrong k = %llu\n",
                static_cast<double>(nbody::cuda::tri::kPaperEpsilon),
                static_cast<unsigned long long>(p.wrong), static_cast<unsigned long long>(p.checked),
                static_cast<unsigned long long>(p.first_wrong));
    EXPECT_GT(p.wrong, 0u) << "the uncorrected variant was exact to T = 65536 on this device";
}

// ---- the issue-8 table ---------------------------------------------------------------------------

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    const std::size_t h = v.size() / 2;
    return v.size() % 2 == 1 ? v[h] : 0.5 * (v[h - 1] + v[h]);
}

double time_full_force_ms(const nbody::cuda::ForceVariant& fv, int block, const float4* pos, int n,
                          float4* acc, int repeats) {
    nbody::cuda::ForceArgs args;
    args.pos = pos;
    args.n = n;
    args.eps2 = kEps2;
    args.acc = acc;
    nbody::cuda::Stream stream;
    nbody::cuda::Event start, stop;
    nbody::cuda::launch_force(fv, block, args, stream.get());  // warm-up
    stream.synchronize();
    std::vector<double> ms;
    for (int r = 0; r < repeats; ++r) {
        start.record(stream.get());
        nbody::cuda::launch_force(fv, block, args, stream.get());
        stop.record(stream.get());
        CUDA_CHECK(cudaEventSynchronize(stop.get()));
        ms.push_back(nbody::cuda::elapsed_ms(start, stop));
    }
    return median(ms);
}

// Effective interactions per second, N^2 / step time, for the symmetric kernel (both maps, every
// B at the default map) and the full kernel. About 15 s on an H200, most of it at N = 1M.
TEST(SymmetricTiming, PrintsRates) {
    SKIP_WITHOUT_DEVICE();
    int device = 0;
    cudaDeviceProp prop{};
    CUDA_CHECK(cudaGetDevice(&device));
    CUDA_CHECK(cudaGetDeviceProperties(&prop, device));
    std::printf("\n%s, %d SMs. Effective rate = N^2 / (time of one force pass); median of the repeats.\n\n",
                prop.name, prop.multiProcessorCount);
    std::printf("| N | kernel | ms / pass | N^2 / s | vs full |\n|---|---|---|---|---|\n");

    for (int n : {16384, 65536, 262144, 1048576}) {
        const int repeats = n >= 1048576 ? 3 : n >= 262144 ? 5 : 9;
        const nbody::State s = plummer(static_cast<std::size_t>(n), 1);
        DeviceBuffer<float4> pos = upload(s.pos_mass);
        DeviceBuffer<float4> acc(static_cast<std::size_t>(n));
        const double n2 = static_cast<double>(n) * n;

        auto full_name = [](const nbody::cuda::ForceVariant& fv) {
            return "full (unroll " + std::to_string(fv.unroll) + ", q " +
                   std::to_string(fv.threads_per_body) + ", B " + std::to_string(fv.bodies_per_thread) +
                   ", block 256)";
        };
        const nbody::cuda::ForceVariant full_default{};
        const double full_ms = time_full_force_ms(full_default, 256, pos.get(), n, acc.get(), repeats);
        auto row = [&](const std::string& what, double ms) {
            std::printf("| %d | %s | %.3f | %.3e | %.2fx |\n", n, what.c_str(), ms, n2 / (ms * 1e-3),
                        full_ms / ms);
            std::fflush(stdout);
        };
        row(full_name(full_default) + " (default)", full_ms);
        nbody::cuda::ForceVariant full_b4{};
        full_b4.bodies_per_thread = 4;
        full_b4.unroll = 8;
        row(full_name(full_b4), time_full_force_ms(full_b4, 256, pos.get(), n, acc.get(), repeats));

        std::vector<SymmetricVariant> variants = {{SymmetricMap::Lambda, 4}, {SymmetricMap::BoundingBox, 4}};
        for (int b : {1, 2, 8}) variants.push_back({SymmetricMap::Lambda, b});
        variants.push_back({SymmetricMap::BoundingBox, 8});
        for (const SymmetricVariant& v : variants) {
            const double ms =
                nbody::cuda::time_symmetric_force_ms(v, pos.get(), n, kEps2, acc.get(), repeats);
            EXPECT_GT(ms, 0.0);
            row("symmetric " + name(v), ms);
        }
    }
}

}  // namespace

#else  // !NBODY_HAVE_CUDA

TEST(SymmetricKernel, NeedsCuda) {
    GTEST_SKIP() << "built without the CUDA backend (NBODY_HAVE_CUDA is off)";
}

#endif
