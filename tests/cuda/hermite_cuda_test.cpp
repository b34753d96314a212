// The cuda Hermite force engine against the cpu reference (H200 suite; skipped without a GPU).

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <functional>
#include <numeric>
#include <random>
#include <span>
#include <string>

#include <cuda_runtime_api.h>

#include "../../sim/cuda/cuda_raii.hpp"
#include "../../sim/cuda/hermite/engine_cuda.hpp"
#include "../../sim/cuda/hermite/hermite_kernels.hpp"
#include "nbody/sim/diagnostics.hpp"
#include "nbody/sim/hermite/energy.hpp"
#include "nbody/sim/hermite/force_engine.hpp"
#include "nbody/sim/hermite/integrator.hpp"
#include "nbody/sim/hermite/spatial_order.hpp"
#include "nbody/sim/ic/plummer.hpp"

namespace nbody::hermite {
namespace {

#define REQUIRE_GPU()                                                                          \
    do {                                                                                       \
        std::string why_no_gpu;                                                                \
        if (!cuda_engine_usable(&why_no_gpu)) GTEST_SKIP() << "no usable CUDA device: " << why_no_gpu; \
    } while (0)

struct Scenario {
    std::vector<JParticle> j;
    std::vector<IParticle> i;
};

// n j-particles of a Plummer sphere at times t - dt_k with random Taylor terms, and ni of them as
// i-particles predicted to t (the host's job).
Scenario make_setup(std::size_t n, std::size_t ni, double t, std::uint64_t seed, double h2 = 0) {
    const State st = ic::make_plummer({.bodies = n, .seed = seed});
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<double> u(-1, 1);
    Scenario s;
    for (std::size_t k = 0; k < n; ++k) {
        JParticle p;
        p.id = int(k);
        p.t = t - std::ldexp(1.0, -int(3 + k % 6));
        p.mass = st.pos_mass[k].w;
        p.x = xyz(st.pos_mass[k]);
        p.v = xyz(st.velocity[k]);
        p.a2 = {u(rng) * 0.1, u(rng) * 0.1, u(rng) * 0.1};
        p.j6 = {u(rng) * 0.01, u(rng) * 0.01, u(rng) * 0.01};
        s.j.push_back(p);
    }
    for (std::size_t k = 0; k < ni; ++k) {
        const JParticle& p = s.j[(k * 7919) % n];
        s.i.push_back({.id = p.id, .x = predict_position(p, t - p.t), .v = predict_velocity(p, t - p.t), .h2 = h2});
    }
    return s;
}

// n j-particles of a Plummer sphere all at time t (their predictions are their positions, so that the
// engine's Morton order of their last positions is the batch's own), every one of them an i-particle.
Scenario make_settled_setup(std::size_t n, double t, std::uint64_t seed) {
    Scenario s = make_setup(n, 0, t, seed);
    for (JParticle& p : s.j) {
        p.t = t;
        s.i.push_back({.id = p.id, .x = p.x, .v = p.v});
    }
    return s;
}

std::vector<IForce> run(ForceEngine& e, const Scenario& s, double t, double eps2, bool neighbours = false) {
    for (std::size_t k = 0; k < s.j.size(); ++k) e.set_j(k, s.j[k]);
    std::vector<IForce> out(s.i.size());
    e.compute(t, s.j.size(), s.i, eps2, out, neighbours);
    return out;
}

struct Errors {
    double acc = 0, jerk = 0, pot = 0;
};
Errors compare(const std::vector<IForce>& a, const std::vector<IForce>& ref) {
    Errors e;
    for (std::size_t k = 0; k < a.size(); ++k) {
        e.acc = std::max(e.acc, norm(a[k].acc - ref[k].acc) / norm(ref[k].acc));
        e.jerk = std::max(e.jerk, norm(a[k].jerk - ref[k].jerk) / norm(ref[k].jerk));
        e.pot = std::max(e.pot, std::abs(a[k].pot - ref[k].pot) / std::abs(ref[k].pot));
    }
    return e;
}

// The same evaluation (no neighbour lists) on two engines: `first`'s forces and `second`'s, and the
// largest relative differences of the second's from the first's, which must stay below the bounds.
struct OnBoth {
    std::vector<IForce> first, second;
    Errors differences;
};
OnBoth compute_on_both(ForceEngine& first, ForceEngine& second, double t, std::size_t nj, std::span<const IParticle> in,
                       const Errors& bounds) {
    OnBoth r{std::vector<IForce>(in.size()), std::vector<IForce>(in.size()), {}};
    first.compute(t, nj, in, 1e-4, r.first, false);
    second.compute(t, nj, in, 1e-4, r.second, false);
    r.differences = compare(r.second, r.first);
    EXPECT_LT(r.differences.acc, bounds.acc);
    EXPECT_LT(r.differences.jerk, bounds.jerk);
    EXPECT_LT(r.differences.pot, bounds.pot);
    return r;
}

TEST(HermiteCuda, ForceJerkPotentialMatchTheCpuReference) {
    REQUIRE_GPU();
    const double t = 0.75;
    const Scenario s = make_setup(3001, 517, t, 3);
    auto cpu = make_force_engine(EngineKind::Cpu);
    for (double eps2 : {1e-4, 0.0}) {
        const auto ref = run(*cpu, s, t, eps2);
        for (const char* precision : {"ds", "fp64"})
            for (int block : {64, 128, 256})
                for (int unroll : {1, 4, 8})
                    for (int bpt : {1, 2, 4})
                    for (int split : {1, 7, 0}) {
                        const bool ds = std::string(precision) == "ds";
                        if (bpt > 1 && !ds) continue;          // several i-bodies per thread: the ds kernel only
                        if (block / bpt < 32) continue;        // not whole warps: no such variant
                        EngineConfig c{.precision = precision, .block = block, .unroll = unroll,
                                       .bodies_per_thread = bpt, .j_split = split};
                        auto gpu = make_force_engine(EngineKind::Cuda, c);
                        const Errors e = compare(run(*gpu, s, t, eps2), ref);
                        SCOPED_TRACE(std::string(precision) + " block " + std::to_string(block) + " unroll " +
                                     std::to_string(unroll) + " bodies/thread " + std::to_string(bpt) + " split " +
                                     std::to_string(split) + " eps2 " + std::to_string(eps2));
                        EXPECT_LT(e.acc, ds ? 2e-6 : 1e-13);
                        EXPECT_LT(e.jerk, ds ? 1e-4 : 1e-12);
                        EXPECT_LT(e.pot, ds ? 2e-6 : 1e-13);
                        if (block == 128 && unroll == 4 && split == 0)
                            std::printf("%s bodies/thread %d eps2 %g: max relative error acc %.2e jerk %.2e pot %.2e\n",
                                        precision, bpt, eps2, e.acc, e.jerk, e.pot);
                    }
    }
}

TEST(HermiteCuda, NearestNeighbourAndNeighbourListsMatchTheCpu) {
    REQUIRE_GPU();
    const double t = 0.5;
    const Scenario s = make_setup(2000, 300, t, 9, 0.05);
    auto cpu = make_force_engine(EngineKind::Cpu);
    auto gpu = make_force_engine(EngineKind::Cuda);
    gpu->want_nearest(true);
    const auto ref = run(*cpu, s, t, 1e-6, true);
    const auto got = run(*gpu, s, t, 1e-6, true);
    std::size_t listed = 0;
    for (std::size_t k = 0; k < s.i.size(); ++k) {
        EXPECT_EQ(got[k].nearest, ref[k].nearest) << k;
        auto a = std::vector<int>(gpu->neighbours(k).begin(), gpu->neighbours(k).end());
        auto b = std::vector<int>(cpu->neighbours(k).begin(), cpu->neighbours(k).end());
        std::sort(b.begin(), b.end());
        EXPECT_EQ(a, b) << k;
        listed += a.size();
    }
    EXPECT_GT(listed, 100u);
}

// The rule the engine follows by default (host logic: runs without a GPU too).
TEST(HermiteCuda, TwoBodiesPerThreadFromEightThousandActiveBodiesFourFromThirtyTwoThousand) {
    namespace k = nbody::cuda::hermite;
    EXPECT_EQ(k::bodies_per_thread_for(0, k::Precision::Ds, k::kNoExtras, 8191, 128), 1);
    EXPECT_EQ(k::bodies_per_thread_for(0, k::Precision::Ds, k::kNoExtras, 8192, 128), 2);
    EXPECT_EQ(k::bodies_per_thread_for(0, k::Precision::Ds, k::kNoExtras, 32767, 128), 2);
    EXPECT_EQ(k::bodies_per_thread_for(0, k::Precision::Ds, k::kNoExtras, 32768, 128), 4);
    EXPECT_EQ(k::bodies_per_thread_for(4, k::Precision::Ds, k::kNoExtras, 16, 128), 4);
    EXPECT_EQ(k::bodies_per_thread_for(0, k::Precision::Ds, k::kNoExtras, 1 << 20, 64), 2);  // 16 threads: no
    EXPECT_EQ(k::bodies_per_thread_for(0, k::Precision::Fp64, k::kNoExtras, 1 << 20, 128), 1);
    EXPECT_EQ(k::bodies_per_thread_for(0, k::Precision::Ds, k::kNearest, 1 << 20, 128), 1);
    EXPECT_EQ(k::bodies_per_thread_for(1, k::Precision::Ds, k::kNoExtras, 1 << 20, 128), 1);
    EXPECT_EQ(k::bodies_per_thread_for(2, k::Precision::Ds, k::kNoExtras, 16, 128), 2);
    EXPECT_EQ(k::bodies_per_thread_for(2, k::Precision::Ds, k::kNearest | k::kNeighbours, 16, 128), 1);
}

// A batch large enough for two bodies per thread under the default config matches the CPU too.
TEST(HermiteCuda, DefaultConfigOnALargeBatchMatchesTheCpuReference) {
    REQUIRE_GPU();
    const double t = 0.5;
    const Scenario s = make_setup(9000, 8200, t, 11);
    auto cpu = make_force_engine(EngineKind::Cpu);
    auto gpu = make_force_engine(EngineKind::Cuda);
    const Errors e = compare(run(*gpu, s, t, 1e-4), run(*cpu, s, t, 1e-4));
    EXPECT_LT(e.acc, 2e-6);
    EXPECT_LT(e.jerk, 1e-4);
    EXPECT_LT(e.pot, 2e-6);
}

// From kFarTilesFrom (32,768) active bodies the engine keeps its j-particles in Morton order and sorts
// the batch to match (docs/HERMITE.md, version 4). The results come back in the caller's order: every
// body active, then updated bodies and a small batch (against the ordered j-memory), then fewer
// j-particles (the order is made again for them), a batch whose ids are not its addresses, and a small
// batch over fewer j-particles (the order undone). The order is made on the GPU (spatial_order.cu).
TEST(HermiteCuda, SpatialOrderOfALargeBatchKeepsTheCallersOrder) {
    REQUIRE_GPU();
    const double t = 0.5;
    Scenario s = make_setup(33000, 0, t, 12);
    for (const JParticle& p : s.j) s.i.push_back({.id = p.id, .x = predict_position(p, t - p.t), .v = predict_velocity(p, t - p.t)});
    auto cpu = make_force_engine(EngineKind::Cpu);
    auto gpu = make_force_engine(EngineKind::Cuda);
    gpu->want_nearest(false);  // as the integrator's block steps: the variant with far tiles and the order
    gpu->set_profiling(true);
    // A result in the wrong place is off by O(1); float sums that cancel reach a few 1e-6 of the total.
    auto check = [&](const char* what, std::size_t nj) {
        SCOPED_TRACE(what);
        std::vector<IForce> g(s.i.size()), c(s.i.size());
        gpu->compute(t, nj, s.i, 1e-4, g, false);
        cpu->compute(t, nj, s.i, 1e-4, c, false);
        const Errors e = compare(g, c);
        EXPECT_LT(e.acc, 1e-5);
        EXPECT_LT(e.jerk, 1e-4);
        EXPECT_LT(e.pot, 2e-6);
    };
    for (std::size_t k = 0; k < s.j.size(); ++k) gpu->set_j(k, s.j[k]), cpu->set_j(k, s.j[k]);
    check("every body active", s.j.size());
    for (std::size_t k = 0; k < s.j.size(); k += 3) {  // a third of the bodies moved and updated
        s.j[k].x += Vec3d{0.01, -0.02, 0.005};
        gpu->set_j(k, s.j[k]), cpu->set_j(k, s.j[k]);
    }
    const std::vector<IParticle> all = s.i;
    s.i.assign(all.begin() + 100, all.begin() + 1100);
    check("1,000 active after updates", s.j.size());
    s.i.assign(all.begin(), all.begin() + 32768);
    check("32,768 active of 32,768 j-particles", 32768);
    s.i = all;
    for (IParticle& p : s.i) p.id = int(s.j.size()) - 1 - p.id;  // i-ids that are not their addresses
    check("i-ids that are not the addresses", s.j.size());
    for (std::size_t k = 0; k < s.j.size(); ++k) {  // nor the j-ids: the kernel sees the ids themselves
        s.j[k].id = int(k) + 1000000;
        gpu->set_j(k, s.j[k]), cpu->set_j(k, s.j[k]);
    }
    for (std::size_t k = 0; k < s.i.size(); ++k) s.i[k].id = int(k) + 1000000;
    check("j-ids that are not the addresses", s.j.size());
    s.i.assign(all.begin(), all.begin() + 1000);
    check("1,000 active of 32,000 j-particles: back to the addresses", 32000);
    // Made at the first large batch, again for 32,768 and 33,000 j-particles, undone for 32,000 (the
    // profile counts them).
    const std::vector<PhaseTime> phases = gpu->profile();
    EXPECT_NE(std::find_if(phases.begin(), phases.end(), [](const PhaseTime& p) { return p.name == "spatial order: 4 reorders"; }),
              phases.end());
}

// The engine's spatial order made on the GPU (spatial_order.cu) is the host's morton_order of the
// same positions, bit for bit: whatever slots the j-particles sit in, with ties (one cell: address
// order), non-finite coordinates and an outlier that stretches the cube; the addresses beyond those
// sorted keep their slots.
TEST(HermiteCuda, GpuMortonOrderIsTheHostsOfTheSamePositions) {
    REQUIRE_GPU();
    namespace k = nbody::cuda::hermite;
    using nbody::cuda::DeviceBuffer;
    const int n = 50000, sorted = 45000;
    std::mt19937_64 rng(21);
    std::normal_distribution<double> g(0.0, 1.0);
    std::vector<Point> at(n);  // by address
    for (Point& p : at) p = {g(rng), g(rng), g(rng)};
    for (int a = 100; a < 200; ++a) at[std::size_t(a)] = at[99];
    at[300].x = INFINITY, at[301].y = NAN, at[302].z = -INFINITY, at[303] = {40.0, -25.0, 3.0};
    std::vector<int> slot_of(n);
    std::iota(slot_of.begin(), slot_of.end(), 0);
    std::shuffle(slot_of.begin(), slot_of.end(), rng);
    std::vector<k::Real4> xm(n);
    for (int a = 0; a < n; ++a) xm[std::size_t(slot_of[std::size_t(a)])] = k::r4(at[std::size_t(a)].x, at[std::size_t(a)].y, at[std::size_t(a)].z, 1.0);
    DeviceBuffer<k::Real4> xm_dev(n);
    DeviceBuffer<int> slots_dev(n), order_dev(n);
    DeviceBuffer<unsigned char> scratch(k::morton_order_scratch_bytes(n));
    CUDA_CHECK(cudaMemcpy(xm_dev.get(), xm.data(), xm_dev.bytes(), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(slots_dev.get(), slot_of.data(), slots_dev.bytes(), cudaMemcpyHostToDevice));
    k::morton_order_j(xm_dev.get(), slots_dev.get(), sorted, n, order_dev.get(), scratch.get(), scratch.size(), nullptr);
    std::vector<int> order(n);
    CUDA_CHECK(cudaMemcpy(order.data(), order_dev.get(), order_dev.bytes(), cudaMemcpyDeviceToHost));
    const std::vector<std::uint32_t> host = morton_order(std::span<const Point>(at.data(), std::size_t(sorted)));
    std::vector<int> want(host.begin(), host.end());
    for (int a = sorted; a < n; ++a) want.push_back(a);
    EXPECT_EQ(order, want);
    // Not trivially so: the order moved most bodies, and the tied ones stayed together in address order.
    std::size_t moved = 0;
    for (int s = 0; s < sorted; ++s) moved += order[std::size_t(s)] != s;
    EXPECT_GT(moved, std::size_t(sorted) / 2);
    const auto tied = std::find(order.begin(), order.end(), 99);
    ASSERT_LE(tied + 101, order.end());
    for (int a = 99; a < 200; ++a) EXPECT_EQ(tied[a - 99], a);
}

// Applying an order moves every j-particle whole, all six arrays (the 6th order's too), to its new
// slot, keeps the slots beyond the order as they are, and the slot map follows.
TEST(HermiteCuda, ApplyingAnOrderMovesEveryJParticleWholeAndItsSlotMapFollows) {
    REQUIRE_GPU();
    namespace k = nbody::cuda::hermite;
    using nbody::cuda::DeviceBuffer;
    const int size = 5000, n = 4000;
    std::mt19937_64 rng(22);
    std::vector<int> slot_of(size), order(n);
    std::iota(slot_of.begin(), slot_of.end(), 0);
    std::shuffle(slot_of.begin(), slot_of.begin() + n, rng);  // a permutation of the first n slots
    std::iota(order.begin(), order.end(), 0);
    std::shuffle(order.begin(), order.end(), rng);
    constexpr int kArrays = 6;
    std::array<std::vector<k::Real4>, kArrays> rows;
    std::array<DeviceBuffer<k::Real4>, kArrays> dev;
    for (int r = 0; r < kArrays; ++r) {
        for (int s = 0; s < size; ++s) rows[r].push_back(k::r4(s + 0.125 * r, -s, r, 1e-3 * s));
        dev[r] = DeviceBuffer<k::Real4>(size);
        CUDA_CHECK(cudaMemcpy(dev[r].get(), rows[r].data(), dev[r].bytes(), cudaMemcpyHostToDevice));
    }
    DeviceBuffer<int> slots_dev(size), order_dev(n), source(n);
    DeviceBuffer<k::Real4> scratch(n);
    CUDA_CHECK(cudaMemcpy(slots_dev.get(), slot_of.data(), slots_dev.bytes(), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(order_dev.get(), order.data(), order_dev.bytes(), cudaMemcpyHostToDevice));
    const k::JMemory j{dev[0].get(), dev[1].get(), dev[2].get(), dev[3].get(), dev[4].get(), dev[5].get()};
    k::apply_order_j(j, order_dev.get(), slots_dev.get(), n, source.get(), scratch.get(), nullptr);
    std::vector<int> slots_after(size);
    CUDA_CHECK(cudaMemcpy(slots_after.data(), slots_dev.get(), slots_dev.bytes(), cudaMemcpyDeviceToHost));
    for (int r = 0; r < kArrays; ++r) {
        std::vector<k::Real4> got(size);
        CUDA_CHECK(cudaMemcpy(got.data(), dev[r].get(), dev[r].bytes(), cudaMemcpyDeviceToHost));
        for (int s = 0; s < size; ++s) {
            const int from = s < n ? slot_of[std::size_t(order[std::size_t(s)])] : s;
            const k::Real4 a = got[std::size_t(s)], b = rows[r][std::size_t(from)];
            ASSERT_TRUE(a.x == b.x && a.y == b.y && a.z == b.z && a.w == b.w) << "array " << r << ", slot " << s;
        }
    }
    for (int s = 0; s < n; ++s) EXPECT_EQ(slots_after[std::size_t(order[std::size_t(s)])], s);
    for (int a = n; a < size; ++a) EXPECT_EQ(slots_after[std::size_t(a)], a);
}

// Far and near tiles differ in cost: a batch with far tiles takes four times the automatic split
// (device runs 60-61), still at least two tiles per block. Host arithmetic: runs without a GPU.
TEST(HermiteCuda, FarTilesTakeFourTimesTheSplitWithinTwoTilesPerBlock) {
    namespace k = nbody::cuda::hermite;
    EXPECT_EQ(k::choose_j_split(262144, 262144, 128, 132, 4, false), 5);
    EXPECT_EQ(k::choose_j_split(262144, 262144, 128, 132, 4, true), 20);
    EXPECT_EQ(k::choose_j_split(1048576, 1048576, 128, 132, 4, true), 8);
    EXPECT_EQ(k::choose_j_split(32768, 4096, 128, 132, 4, true), 4096 / (2 * 128));  // the cap
}

// The sum of the tile counts of one GPU's kernel, and of its far tiles (both far loops).
unsigned long long tiles(const CudaEngine::TileLoops& l) { return l[0] + l[1] + l[2] + l[3] + l[4]; }
unsigned long long far_tiles(const CudaEngine::TileLoops& l) { return l[3] + l[4]; }
std::string tile_counts(const CudaEngine::TileLoops& l) {
    return "self " + std::to_string(l[0]) + ", any " + std::to_string(l[1]) + ", one " + std::to_string(l[2]) +
           ", far-any " + std::to_string(l[3]) + ", far-one " + std::to_string(l[4]);
}

// The engine's fast path, counted by its kernel (CudaEngine::tile_loops): a batch of every one of
// 40,000 bodies puts the j-memory in Morton order and takes far tiles, the self test only on each
// warp's own tile; a batch of 2,000 bodies spread over the sphere, against that order, takes the self
// test only on the tiles whose slots hold one of a warp's bodies (the kernel sees slots for ids: with
// the addresses every tile of the order spans nearly every address and ran it). The results match the
// cpu engine.
TEST(HermiteCuda, LargeBatchesTakeFarTilesAndEveryBatchTheSelfTestOnlyWhereItCanFire) {
    REQUIRE_GPU();
    const double t = 0.5;
    const Scenario s = make_settled_setup(40000, t, 13);
    auto gpu = make_cuda_engine({});
    gpu->want_nearest(false);  // as the integrator's block steps
    auto cpu = make_force_engine(EngineKind::Cpu);
    for (std::size_t k = 0; k < s.j.size(); ++k) gpu->set_j(k, s.j[k]), cpu->set_j(k, s.j[k]);
    gpu->count_tile_loops(true);
    std::vector<IForce> all(s.i.size());
    gpu->compute(t, s.j.size(), s.i, 1e-4, all, false);
    const CudaEngine::TileLoops large = gpu->tile_loops().front();
    std::printf("40,000 of 40,000 active: warp-tiles %s\n", tile_counts(large).c_str());
    EXPECT_GT(far_tiles(large), tiles(large) / 5) << tile_counts(large);
    EXPECT_LT(large[0], tiles(large) / 20) << tile_counts(large);

    std::vector<IParticle> some;
    for (std::size_t k = 0; k < s.i.size(); k += 20) some.push_back(s.i[k]);
    gpu->count_tile_loops(true);
    compute_on_both(*cpu, *gpu, t, s.j.size(), some, {.acc = 2e-6, .jerk = 1e-4, .pot = 2e-6});
    const CudaEngine::TileLoops mid = gpu->tile_loops().front();
    std::printf("2,000 of 40,000 active, Morton order: warp-tiles %s\n", tile_counts(mid).c_str());
    EXPECT_EQ(far_tiles(mid), 0u) << "far tiles below kFarTilesFrom";
    EXPECT_GT(tiles(mid), 0u);
    EXPECT_LT(mid[0], tiles(mid) / 2) << tile_counts(mid);
}

TEST(HermiteCuda, UnsupportedVariantListsTheSupportedOnes) {
    REQUIRE_GPU();
    try {
        make_force_engine(EngineKind::Cuda, {.block = 96});
        FAIL() << "no error";
    } catch (const std::invalid_argument& e) {
        EXPECT_NE(std::string(e.what()).find("block 64 | 128 | 256"), std::string::npos) << e.what();
    }
    try {
        make_force_engine(EngineKind::Cuda, {.precision = "fp64", .bodies_per_thread = 2});
        FAIL() << "no error";
    } catch (const std::invalid_argument& e) {
        EXPECT_NE(std::string(e.what()).find("bodies per thread 1 | 2 | 4 (2, 4: ds"), std::string::npos) << e.what();
    }
    try {
        make_force_engine(EngineKind::Cuda, {.block = 64, .bodies_per_thread = 4});
        FAIL() << "no error";
    } catch (const std::invalid_argument& e) {
        EXPECT_NE(std::string(e.what()).find("block 64, unroll 4, bodies per thread 4"), std::string::npos) << e.what();
    }
}

// The ds kernel's three tile loops (docs/HERMITE.md, version 3): tiles of one mass (sums in units of
// it), tiles of mixed masses, and tiles that may hold an i-body's own id (the only ones with the self
// test). Ids that are not the j-addresses (as a GRAPE-6 program may set them), softening 0 (a missed
// self test gives an infinite force), every body active in id order and a scattered batch.
TEST(HermiteCuda, DsTileLoopsMatchTheCpuReference) {
    REQUIRE_GPU();
    const double t = 0.25;
    Scenario s = make_setup(4000, 0, t, 21);
    std::mt19937_64 rng(5);
    std::uniform_real_distribution<double> u(0.5, 2.0);
    const double m0 = s.j[0].mass;
    for (std::size_t k = 0; k < s.j.size(); ++k) {
        s.j[k].id = int(5 * k + 3);
        s.j[k].mass = k < 2000 ? m0 : k < 3000 ? 3 * m0 : m0 * u(rng);  // uniform, uniform, mixed tiles
    }
    std::vector<IParticle> all, scattered;
    for (std::size_t k = 0; k < s.j.size(); ++k) {
        const JParticle& p = s.j[k];
        all.push_back({.id = p.id, .x = predict_position(p, t - p.t), .v = predict_velocity(p, t - p.t)});
        if (k % 13 == 0) scattered.push_back(all.back());
    }
    auto cpu = make_force_engine(EngineKind::Cpu);
    for (const auto* batch : {&all, &scattered}) {
        s.i = *batch;
        const auto ref = run(*cpu, s, t, 0.0);
        for (int block : {64, 128, 256})
            for (int bpt : {1, 2, 4}) {
                if (block / bpt < 32) continue;
                auto gpu = make_force_engine(EngineKind::Cuda, {.precision = "ds", .block = block, .unroll = 4,
                                                                .bodies_per_thread = bpt, .j_split = 0});
                const Errors e = compare(run(*gpu, s, t, 0.0), ref);
                SCOPED_TRACE("block " + std::to_string(block) + " bodies/thread " + std::to_string(bpt) + " batch " +
                             std::to_string(s.i.size()));
                EXPECT_LT(e.acc, 2e-6);
                EXPECT_LT(e.jerk, 1e-4);
                EXPECT_LT(e.pot, 2e-6);
            }
    }
}

// A 1,024-body Plummer sphere integrated with `p` on the cpu engine and on the GPU (the engine
// make_force_engine gives for the order): the largest position difference at t = 0.25 and the
// GPU run's |dE/E| at t = 1. `why` receives the GPU engine's line.
struct GpuAgainstCpu {
    double dx = 0, energy_error = 0;
};
// A Plummer sphere as the integrator's start() takes it: masses, positions, velocities in double.
struct Start {
    std::vector<double> m;
    std::vector<Vec3d> x, v;
};
Start plummer_start(std::size_t n, std::uint64_t seed) {
    const State st = ic::make_plummer({.bodies = n, .seed = seed});
    Start s;
    for (std::size_t k = 0; k < st.size(); ++k) {
        s.m.push_back(st.pos_mass[k].w);
        s.x.push_back(xyz(st.pos_mass[k]));
        s.v.push_back(xyz(st.velocity[k]));
    }
    return s;
}

GpuAgainstCpu integrate_on_both(const HermiteParams& p, std::string* why) {
    const auto [m, x, v] = plummer_start(1024, 4);
    const bool snap = p.order == 6;
    HermiteIntegrator cpu(make_force_engine(EngineKind::Cpu, {}, nullptr, snap), p),
        gpu(make_force_engine(EngineKind::Cuda, {}, why, snap), p);
    cpu.start(m, x, v, 0);
    gpu.start(m, x, v, 0);
    const double e0 = gpu.energy();
    cpu.evolve(0.25);
    gpu.evolve(0.25);
    GpuAgainstCpu r;
    for (std::size_t k = 0; k < m.size(); ++k) r.dx = std::max(r.dx, norm(cpu.bodies().x[k] - gpu.bodies().x[k]));
    gpu.evolve(1.0);
    r.energy_error = std::abs((gpu.energy() - e0) / e0);
    std::printf("N = 1024, order %d: cpu vs cuda after t = 0.25: max |dx| = %.2e; cuda |dE/E| at t = 1: %.2e (%s)\n",
                p.order, r.dx, r.energy_error, why->c_str());
    return r;
}

// The ds force kernel on its own, every j-particle active in the given order (t = each particle's
// own time, so the prediction is its position), with the warp-tiles counted by loop.
struct KernelRun {
    std::vector<IForce> out;
    std::vector<unsigned long long> loops;
};
KernelRun run_ds_kernel(const std::vector<JParticle>& js, double eps2, int block, int unroll, int bpt, bool far_tiles) {
    namespace k = nbody::cuda::hermite;
    using nbody::cuda::DeviceBuffer;
    const int n = int(js.size());
    std::vector<k::Real4> xm(n), vt(n), a2(n), j6(n, k::r4(0, 0, 0, 0)), ix(n), iv(n);
    for (int q = 0; q < n; ++q) {
        const JParticle& p = js[std::size_t(q)];
        xm[q] = k::r4(p.x.x, p.x.y, p.x.z, p.mass), vt[q] = k::r4(p.v.x, p.v.y, p.v.z, 0), a2[q] = k::r4(0, 0, 0, p.id);
        ix[q] = k::r4(p.x.x, p.x.y, p.x.z, 0), iv[q] = k::r4(p.v.x, p.v.y, p.v.z, p.id);
    }
    auto up = [](const std::vector<k::Real4>& h) {
        DeviceBuffer<k::Real4> d(h.size());
        EXPECT_EQ(cudaMemcpy(d.get(), h.data(), d.bytes(), cudaMemcpyHostToDevice), cudaSuccess);
        return d;
    };
    DeviceBuffer<k::Real4> dxm = up(xm), dvt = up(vt), da2 = up(a2), dj6 = up(j6), dix = up(ix), div = up(iv);
    const std::size_t un = js.size();
    DeviceBuffer<float4> hi(un), lo(un), vel(un);
    const k::Predicted pred{hi.get(), lo.get(), vel.get(), nullptr, nullptr, nullptr};
    k::predict_j({dxm.get(), dvt.get(), da2.get(), dj6.get(), nullptr, nullptr}, n, 0.0, k::Precision::Ds, pred, nullptr);
    const int split = 3, ni_pad = (n + block - 1) / block * block;
    const std::size_t partials = std::size_t(ni_pad) * split;
    DeviceBuffer<k::Real4> pa(partials), pj(partials), ra(un), rj(un);
    DeviceBuffer<int> pn(partials), rn(un);
    DeviceBuffer<unsigned long long> loops(k::kDsTileLoops);
    EXPECT_EQ(cudaMemset(loops.get(), 0, loops.bytes()), cudaSuccess);
    k::Partials part{pa.get(), pj.get(), pn.get()};
    part.tile_loops = loops.get();
    k::ForceVariant v{k::Precision::Ds, block, unroll, bpt, k::kNoExtras};
    v.far_tiles = far_tiles;
    k::hermite_force(v, pred, n, {dix.get(), div.get(), nullptr}, n, eps2, split, part, {}, nullptr);
    k::reduce_partials(part, n, ni_pad, split, {ra.get(), rj.get(), rn.get(), nullptr}, nullptr);
    std::vector<k::Real4> acc(un), jerk(un);
    KernelRun r{std::vector<IForce>(un), std::vector<unsigned long long>(k::kDsTileLoops)};
    EXPECT_EQ(cudaMemcpy(acc.data(), ra.get(), ra.bytes(), cudaMemcpyDeviceToHost), cudaSuccess);
    EXPECT_EQ(cudaMemcpy(jerk.data(), rj.get(), rj.bytes(), cudaMemcpyDeviceToHost), cudaSuccess);
    EXPECT_EQ(cudaMemcpy(r.loops.data(), loops.get(), loops.bytes(), cudaMemcpyDeviceToHost), cudaSuccess);
    for (int q = 0; q < n; ++q) {
        r.out[std::size_t(q)].acc = {acc[q].x, acc[q].y, acc[q].z}, r.out[std::size_t(q)].pot = acc[q].w;
        r.out[std::size_t(q)].jerk = {jerk[q].x, jerk[q].y, jerk[q].z};
    }
    return r;
}

// Each body's error against the double reference, relative to the sum of its pairs' magnitudes
// (m/r^2 for the acceleration, m (|v|/r^3 + 3 |x.v|/r^4) for the jerk, m/r for the potential), so that
// a sum that cancels does not hide or inflate a per-pair error.
Errors compare_to_scale(const std::vector<IForce>& a, const std::vector<IForce>& ref, const std::vector<JParticle>& js,
                        double eps2) {
    Errors e;
    for (std::size_t i = 0; i < a.size(); ++i) {
        double sa = 0, sj = 0, sp = 0;
        for (std::size_t q = 0; q < js.size(); ++q) {
            if (q == i) continue;
            const Vec3d dx = js[q].x - js[i].x, dv = js[q].v - js[i].v;
            const double r2 = dot(dx, dx) + eps2, r = std::sqrt(r2), m = js[q].mass;
            sa += m / r2, sp += m / r, sj += m * (norm(dv) / (r2 * r) + 3 * std::abs(dot(dx, dv)) / (r2 * r2));
        }
        e.acc = std::max(e.acc, norm(a[i].acc - ref[i].acc) / sa);
        e.jerk = std::max(e.jerk, norm(a[i].jerk - ref[i].jerk) / sj);
        e.pot = std::max(e.pot, std::abs(a[i].pot - ref[i].pot) / sp);
    }
    return e;
}

// Version 4: tiles far from a warp's i-bodies for their distance from the origin skip the low parts
// of the positions. Twelve small clusters in a row through the origin, in cluster order, some of one
// mass and some of mixed masses: a warp's bodies and a tile lie in one or two clusters, so a tile is
// near (its own cluster, or far from the origin beside a neighbour) or far apart, of one mass or not.
// Then two tight clusters 0.05 apart at x = 1000, where the low parts carry the separation (the high
// parts' spacing is 6e-5 there): these must take the double-single loops (one far tile among them
// would be off by ~1e-3 of its terms).
TEST(HermiteCuda, DsFarTilesMatchTheCpuReference) {
    REQUIRE_GPU();
    std::mt19937_64 rng(9);
    std::uniform_real_distribution<double> u(-1, 1), mass(0.5, 2.0);
    std::vector<JParticle> js;
    const int clusters = 14, per_cluster = 320;
    for (int c = 0; c < clusters; ++c)
        for (int q = 0; q < per_cluster; ++q) {
            JParticle p;
            p.id = int(js.size());
            p.mass = (c % 3 == 2 ? mass(rng) : 1.0) / (clusters * per_cluster);
            Vec3d d;
            do d = {u(rng), u(rng), u(rng)}; while (norm(d) > 1);
            p.x = c < 12 ? Vec3d{10.0 * (c - 5.5), 0.5 * (c % 2), 0} + 0.3 * d : Vec3d{1000.0 + 0.05 * (c - 12), 0, 0} + 0.01 * d;
            p.v = {0.1 * u(rng), 0.1 * u(rng), 0.1 * u(rng)};
            js.push_back(p);
        }
    Scenario s;
    s.j = js;
    for (const JParticle& p : js) s.i.push_back({.id = p.id, .x = p.x, .v = p.v});
    auto cpu = make_force_engine(EngineKind::Cpu);
    for (const double eps2 : {0.0, 1e-6}) {
        const auto ref = run(*cpu, s, 0.0, eps2);
        for (const auto [block, unroll, bpt] : {std::array{128, 4, 4}, std::array{256, 8, 4}, std::array{256, 4, 2}, std::array{64, 1, 1}}) {
            const KernelRun r = run_ds_kernel(js, eps2, block, unroll, bpt, true);
            const Errors e = compare_to_scale(r.out, ref, js, eps2);
            SCOPED_TRACE("block " + std::to_string(block) + " unroll " + std::to_string(unroll) + " bodies/thread " +
                         std::to_string(bpt) + " eps2 " + std::to_string(eps2));
            std::printf("far tiles, block %d unroll %d bodies/thread %d eps2 %g: tiles self %llu any %llu one %llu far-any %llu "
                        "far-one %llu; max error over the pairs' magnitudes acc %.2e jerk %.2e pot %.2e\n",
                        block, unroll, bpt, eps2, r.loops[0], r.loops[1], r.loops[2], r.loops[3], r.loops[4], e.acc, e.jerk, e.pot);
            EXPECT_LT(e.acc, 2e-6);
            EXPECT_LT(e.jerk, 2e-6);
            EXPECT_LT(e.pot, 2e-6);
            EXPECT_GT(r.loops[3], 0u) << "no far tile of mixed masses";
            EXPECT_GT(r.loops[4], 0u) << "no far tile of one mass";
            EXPECT_GT(r.loops[0] + r.loops[1] + r.loops[2], 0u) << "no near tile";
            const KernelRun off = run_ds_kernel(js, eps2, block, unroll, bpt, false);
            EXPECT_EQ(off.loops[3] + off.loops[4], 0u) << "far tiles taken while off";
            EXPECT_LT(compare_to_scale(off.out, ref, js, eps2).acc, 2e-6);
        }
    }
}

TEST(HermiteCuda, IntegratorOnTheGpuFollowsTheCpu) {
    REQUIRE_GPU();
    std::string why;
    const GpuAgainstCpu r = integrate_on_both({.eta = 0.01, .softening = 1.0 / 1024}, &why);  // ds
    EXPECT_LT(r.dx, 1e-5);
    EXPECT_LT(r.energy_error, 1e-7);
}

// The 6th order's snap kernel (fp64) against the cpu engine: j-particles with snap and crackle
// terms, i-particles with predicted accelerations, a j-split, with and without softening.
TEST(HermiteCuda, SnapMatchesTheCpuReference) {
    REQUIRE_GPU();
    const double t = 0.5;
    Scenario s = make_setup(3000, 700, t, 21);
    std::mt19937_64 rng(22);
    std::uniform_real_distribution<double> u(-1, 1);
    for (JParticle& p : s.j) {
        p.s24 = {u(rng) * 1e-3, u(rng) * 1e-3, u(rng) * 1e-3};
        p.c120 = {u(rng) * 1e-4, u(rng) * 1e-4, u(rng) * 1e-4};
    }
    for (std::size_t k = 0; k < s.i.size(); ++k) {
        const JParticle& p = s.j[(k * 7919) % s.j.size()];
        s.i[k].x = predict_position(p, t - p.t);
        s.i[k].v = predict_velocity(p, t - p.t);
        s.i[k].a = predict_acceleration(p, t - p.t);
    }
    for (double eps2 : {0.0, 1e-4})
        for (int split : {0, 5}) {
            auto cpu = make_force_engine(EngineKind::Cpu);
            auto gpu = make_force_engine(EngineKind::Cuda, {.precision = "fp64", .j_split = split});
            cpu->want_snap(true);
            gpu->want_snap(true);
            const auto ref = run(*cpu, s, t, eps2), got = run(*gpu, s, t, eps2);
            const Errors e = compare(got, ref);
            double snap = 0;
            for (std::size_t k = 0; k < ref.size(); ++k)
                snap = std::max(snap, norm(got[k].snap - ref[k].snap) / norm(ref[k].snap));
            std::printf("snap kernel, eps^2 %g, j-split %d: max relative error acc %.1e jerk %.1e pot %.1e snap %.1e\n",
                        eps2, split, e.acc, e.jerk, e.pot, snap);
            EXPECT_LT(e.acc, 1e-12);
            EXPECT_LT(e.jerk, 1e-12);
            EXPECT_LT(snap, 1e-11);
        }
    // The ds engine says what to use instead.
    auto ds = make_force_engine(EngineKind::Cuda, {.precision = "ds"});
    EXPECT_THROW(ds->want_snap(true), std::invalid_argument);
}

// hermite6 on the GPU (the fp64 snap kernel, whatever the precision asked) follows the cpu engine.
TEST(HermiteCuda, SixthOrderIntegratorOnTheGpuFollowsTheCpu) {
    REQUIRE_GPU();
    std::string why;
    const GpuAgainstCpu r = integrate_on_both({.order = 6, .softening = 1.0 / 1024}, &why);
    EXPECT_NE(why.find("cuda, fp64"), std::string::npos) << why;
    EXPECT_LT(r.dx, 1e-10);  // run 26 on the H200: 4.4e-16
    EXPECT_LT(r.energy_error, 1e-9);  // 1.5e-12
}

// The energy diagnostics of large runs sum the potential on the GPU with this engine (fp64): the
// same figure as the host's double sum, to rounding.
TEST(HermiteCuda, PotentialEnergyOnTheGpuMatchesTheHostSum) {
    REQUIRE_GPU();
    ic::PlummerParams params;
    params.bodies = 20000;
    params.seed = 5;
    const State s = ic::make_plummer(params);
    const double host = potential_energy_on_host(s, 0.01);
    const double gpu = potential_energy_on_gpu(s, 0.01);
    EXPECT_LT(std::abs(gpu - host), 1e-12 * std::abs(host)) << "host " << host << " gpu " << gpu;
    EXPECT_TRUE(potential_on_gpu(kGpuPotentialFrom));
    EXPECT_FALSE(potential_on_gpu(kGpuPotentialFrom - 1));
}

// A cuda Hermite run's energy from kGpuPotentialFrom bodies (hermite_energy_on_gpu): the potential of
// double positions on the GPU is the host's double sum (HermiteIntegrator::energy's) to rounding (each
// position moved by ~1e-9, which a float cannot hold: the positions go up as doubles).
TEST(HermiteCuda, RunEnergyOnTheGpuMatchesTheHostsDoubleSum) {
    REQUIRE_GPU();
    auto [m, x, v] = plummer_start(20000, 5);
    for (std::size_t k = 0; k < x.size(); ++k) x[k] += Vec3d{1e-9 * double(k % 7), -1e-9 * double(k % 5), 1e-9 * double(k % 3)};
    const double host = *total_energy(m, x, std::vector<Vec3d>(x.size()), 0.01);  // v = 0: the potential alone
    const std::optional<double> gpu = potential_energy_on_gpu_or_stop(m, x, 0.01, {});
    ASSERT_TRUE(gpu.has_value());
    EXPECT_LT(std::abs(*gpu - host), 1e-12 * std::abs(host)) << "host " << host << " gpu " << *gpu;
    EXPECT_FALSE(potential_energy_on_gpu_or_stop(m, x, 0.01, [] { return true; }).has_value());
    EXPECT_TRUE(hermite_energy_on_gpu("cuda", 524288));
}

// ---- the j-particles split over two GPUs (engine_cuda.cpp: every GPU holds every j-particle and
// computes over its own range of the slots) ------------------------------------------------------------

#define REQUIRE_TWO_GPUS()                                                                           \
    do {                                                                                             \
        REQUIRE_GPU();                                                                               \
        if (cuda_device_count_for_tests() < 2) GTEST_SKIP() << "needs 2 GPUs, " << cuda_device_count_for_tests() << " visible"; \
    } while (0)

int cuda_device_count_for_tests() {
    int count = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess) return 0;
    return count;
}

TEST(HermiteTwoGpus, PartialForcesAddUpToOneGpusAndTheNearestNeighbourIsTheSame) {
    REQUIRE_TWO_GPUS();
    const double t = 0.5;
    const Scenario s = make_setup(3001, 400, t, 21, 0.05);  // an odd nj: the GPUs hold 1501 and 1500
    auto one = make_force_engine(EngineKind::Cuda, {.precision = "fp64"});
    auto two = make_force_engine(EngineKind::Cuda, {.precision = "fp64", .devices = {0, 1}, .several_gpus_from = 0});
    one->want_nearest(true);
    two->want_nearest(true);
    const auto ref = run(*one, s, t, 1e-6, true);
    const auto got = run(*two, s, t, 1e-6, true);
    const Errors e = compare(got, ref);
    EXPECT_LT(e.acc, 1e-13);  // fp64 on both: the partial sums differ only in order
    EXPECT_LT(e.jerk, 1e-13);
    EXPECT_LT(e.pot, 1e-13);
    for (std::size_t k = 0; k < s.i.size(); ++k) {
        EXPECT_EQ(got[k].nearest, ref[k].nearest) << k;
        EXPECT_EQ(std::vector<int>(two->neighbours(k).begin(), two->neighbours(k).end()),
                  std::vector<int>(one->neighbours(k).begin(), one->neighbours(k).end()))
            << k;
    }
    EXPECT_EQ(two->interactions(), one->interactions());
}

TEST(HermiteTwoGpus, NearestNeighbourTiesKeepTheLowestIdWhateverGpuHoldsIt) {
    REQUIRE_TWO_GPUS();
    // An i-particle at the origin and four j-particles at the same distance; the first GPU computes
    // over slots 0 and 1, the second over 2 and 3. The lowest id, 2, wins on one GPU and on two,
    // whether the second GPU holds it (ids 6 7 2 4) or the first (2 7 6 4), whichever GPU is first.
    const Vec3d at[4] = {{1, 0, 0}, {0, 1, 0}, {-1, 0, 0}, {0, -1, 0}};
    const std::vector<IParticle> in{{.id = 100, .x = {0, 0, 0}, .v = {0, 0, 0}}};
    for (const std::array<int, 4> ids : {std::array{6, 7, 2, 4}, std::array{2, 7, 6, 4}})
        for (const std::vector<int>& devices : {std::vector<int>{}, std::vector<int>{0, 1}, std::vector<int>{1, 0}}) {
            auto e = make_force_engine(EngineKind::Cuda, {.precision = "fp64", .devices = devices, .several_gpus_from = 0});
            e->want_nearest(true);
            for (std::size_t k = 0; k < 4; ++k) e->set_j(k, {.id = ids[k], .t = 0, .mass = 1e-3, .x = at[k]});
            std::vector<IForce> out(1);
            e->compute(0, 4, in, 1e-4, out);
            EXPECT_EQ(out[0].nearest, 2) << devices.size() << " GPUs, id 2 at address " << (ids[0] == 2 ? 0 : 2);
        }
}

// The integrator on an n-body Plummer sphere to t = 0.125, on one GPU's engine and on two GPUs': the
// partial sums round differently, which may move a body across a level boundary now and then, so the
// blocks agree within 1 % and dE/E within 10 %. The integrators own the engines and free them when
// this returns: `while_engines_live` is where a caller reads an engine's counts (run 108's segfault:
// HermiteTwoGpus.IntegratorWithFarTiles... read them through a reference after the return).
struct OneAndTwoGpus {
    unsigned long long blocks_one = 0, blocks_two = 0;
    double de_one = 0, de_two = 0;
};
OneAndTwoGpus integrate_on_one_and_two_gpus(std::size_t n, std::uint64_t seed, std::unique_ptr<ForceEngine> one_gpu,
                                            std::unique_ptr<ForceEngine> two_gpus,
                                            const std::function<void(const OneAndTwoGpus&)>& while_engines_live = {}) {
    const auto [m, x, v] = plummer_start(n, seed);
    HermiteParams p;
    p.softening = 0.01;
    HermiteIntegrator one(std::move(one_gpu), p), two(std::move(two_gpus), p);
    one.start(m, x, v, 0);
    two.start(m, x, v, 0);
    const double e0 = one.energy();
    one.evolve(0.125);
    two.evolve(0.125);
    const OneAndTwoGpus r{one.stats().blocks, two.stats().blocks, (one.energy() - e0) / e0, (two.energy() - e0) / e0};
    EXPECT_NEAR(double(r.blocks_two), double(r.blocks_one), 0.01 * double(r.blocks_one));
    EXPECT_NEAR(r.de_two, r.de_one, 0.1 * std::abs(r.de_one) + 1e-10) << "one GPU " << r.de_one << ", two " << r.de_two;
    std::printf("%zu bodies to t = 0.125: blocks %llu on one GPU, %llu on two; dE/E %.3e and %.3e\n", n, r.blocks_one,
                r.blocks_two, r.de_one, r.de_two);
    if (while_engines_live) while_engines_live(r);
    return r;
}

TEST(HermiteTwoGpus, IntegratorTakesOneGpusBlocksAndKeepsItsEnergy) {
    REQUIRE_TWO_GPUS();
    // Every block on both GPUs (by default a 4,096-body run's blocks, below 2^25 pairs, take the first alone).
    integrate_on_one_and_two_gpus(4096, 8, make_force_engine(EngineKind::Cuda),
                                  make_force_engine(EngineKind::Cuda, {.devices = {0, 1}, .several_gpus_from = 0}));
}

// The fast path of large batches on each GPU of two as on one: every GPU's range of the slots starts
// at a whole tile, so each warp meets one GPU's tiles and the two GPUs' warp-tiles add up to one GPU's,
// loop by loop: far tiles, and the self test only on the tiles that hold a warp's own bodies. Split by
// address (a % 2, before 2026-11-27) a GPU's ids were not its slots: every near tile ran the self test,
// and half of a batch had no place in the GPU's order. The results are one GPU's but for the order of
// the double sums (the tiles' float sums are the same).
// Two GPUs against one with the same tiles: the double sums over tiles and splits group differently,
// the tiles' float sums are the same (a tile in another loop would differ by ~1e-7).
constexpr Errors kSameTiles{.acc = 1e-9, .jerk = 1e-7, .pot = 1e-9};

TEST(HermiteTwoGpus, LargeBatchesTakeOneGpusFastPathOnEachGpu) {
    REQUIRE_TWO_GPUS();
    const double t = 0.5;
    const Scenario s = make_settled_setup(40000, t, 31);
    auto one = make_cuda_engine({});
    auto two = make_cuda_engine({.devices = {0, 1}});
    one->want_nearest(false);  // as the integrator's block steps
    two->want_nearest(false);
    for (std::size_t k = 0; k < s.j.size(); ++k) one->set_j(k, s.j[k]), two->set_j(k, s.j[k]);
    auto check = [&](const char* what, const std::vector<IParticle>& batch) {
        SCOPED_TRACE(what);
        one->count_tile_loops(true), two->count_tile_loops(true);
        const Errors e = compute_on_both(*one, *two, t, s.j.size(), batch, kSameTiles).differences;
        const CudaEngine::TileLoops o = one->tile_loops().front();
        const std::vector<CudaEngine::TileLoops> p = two->tile_loops();
        ASSERT_EQ(p.size(), 2u);
        std::printf("%s: one GPU %s; two GPUs %s | %s; max difference acc %.1e jerk %.1e pot %.1e\n", what,
                    tile_counts(o).c_str(), tile_counts(p[0]).c_str(), tile_counts(p[1]).c_str(), e.acc, e.jerk, e.pot);
        for (std::size_t l = 0; l < o.size(); ++l) EXPECT_EQ(p[0][l] + p[1][l], o[l]) << "loop " << l;
        for (const CudaEngine::TileLoops& gpu : p) {
            EXPECT_GT(far_tiles(gpu), tiles(gpu) / 5) << tile_counts(gpu);
            EXPECT_GT(gpu[0], 0u) << tile_counts(gpu);  // each GPU holds some of the batch's own bodies
            EXPECT_LT(gpu[0], tiles(gpu) / 20) << tile_counts(gpu);
        }
    };
    check("40,000 of 40,000 active", s.i);
    check("33,000 of 40,000 active", std::vector<IParticle>(s.i.begin(), s.i.begin() + 33000));
    EXPECT_EQ(two->spread_evaluations(), 2u);
}

// An evaluation below EngineConfig::several_gpus_from pairs runs on the first GPU alone: the same
// kernels over the same j-memory as one GPU, so the same results to the bit; from it on, on both.
TEST(HermiteTwoGpus, SmallEvaluationsRunOnTheFirstGpuAlone) {
    REQUIRE_TWO_GPUS();
    EXPECT_EQ(EngineConfig{}.several_gpus_from, kSeveralGpusFromPairs);
    const double t = 0.5;
    const Scenario s = make_setup(8192, 400, t, 41);
    auto one = make_cuda_engine({});
    auto two = make_cuda_engine({.devices = {0, 1}, .several_gpus_from = 1e6});
    one->want_nearest(false);
    two->want_nearest(false);
    for (std::size_t k = 0; k < s.j.size(); ++k) one->set_j(k, s.j[k]), two->set_j(k, s.j[k]);
    one->count_tile_loops(true), two->count_tile_loops(true);
    const std::vector<IParticle> few(s.i.begin(), s.i.begin() + 100);  // 819,200 pairs
    const OnBoth small = compute_on_both(*one, *two, t, s.j.size(), few, kSameTiles);
    const std::vector<IForce>& a = small.first;
    const std::vector<IForce>& b = small.second;
    for (std::size_t k = 0; k < few.size(); ++k) {
        EXPECT_EQ(b[k].acc.x, a[k].acc.x) << k;
        EXPECT_EQ(b[k].acc.y, a[k].acc.y) << k;
        EXPECT_EQ(b[k].acc.z, a[k].acc.z) << k;
        EXPECT_EQ(b[k].jerk.x, a[k].jerk.x) << k;
        EXPECT_EQ(b[k].pot, a[k].pot) << k;
    }
    EXPECT_EQ(two->spread_evaluations(), 0u);
    EXPECT_GT(tiles(two->tile_loops()[0]), 0u);
    EXPECT_EQ(tiles(two->tile_loops()[1]), 0u) << "the second GPU computed a small evaluation";
    compute_on_both(*one, *two, t, s.j.size(), s.i, kSameTiles);  // 3,276,800 pairs: on both
    EXPECT_EQ(two->spread_evaluations(), 1u);
    EXPECT_GT(tiles(two->tile_loops()[1]), 0u);
}

// The integrator on two GPUs with the engine's defaults, 40,000 Plummer bodies to t = 0.125: its
// largest blocks (every body at t = 0.125, the levels of steps 1/64 and shorter at each 1/64) take the
// far tiles on both GPUs, its small blocks run on the first alone; one GPU's blocks and energy.
TEST(HermiteTwoGpus, IntegratorWithFarTilesTakesOneGpusBlocksAndKeepsItsEnergy) {
    REQUIRE_TWO_GPUS();
    std::unique_ptr<CudaEngine> two_engine = make_cuda_engine({.devices = {0, 1}});
    CudaEngine& two_gpus = *two_engine;  // owned by the integrator: read in the callback, not after
    two_gpus.count_tile_loops(true);
    std::size_t spread = 0;
    std::vector<CudaEngine::TileLoops> loops;
    const OneAndTwoGpus r = integrate_on_one_and_two_gpus(40000, 9, make_cuda_engine({}), std::move(two_engine),
                                                          [&](const OneAndTwoGpus&) {
                                                              spread = two_gpus.spread_evaluations();
                                                              loops = two_gpus.tile_loops();
                                                          });
    ASSERT_EQ(loops.size(), 2u);
    std::printf("  %zu of the %llu blocks on both GPUs; warp-tiles %s | %s\n", spread, r.blocks_two,
                tile_counts(loops[0]).c_str(), tile_counts(loops[1]).c_str());
    EXPECT_GT(spread, 0u);
    EXPECT_LT(spread, std::size_t(r.blocks_two)) << "no block on the first GPU alone";
    for (const CudaEngine::TileLoops& gpu : loops) EXPECT_GT(far_tiles(gpu), 0u) << tile_counts(gpu);
}

TEST(HermiteTwoGpus, DeviceSpecsAreCheckedWithTheReason) {
    REQUIRE_GPU();
    EXPECT_EQ(engine_devices("1"), std::vector<int>{0});
    for (const std::string bad : {"0", "two", "0,0", "99", "0,99", ""}) {
        try {
            (void)engine_devices(bad);
            FAIL() << "'" << bad << "' was accepted";
        } catch (const std::invalid_argument& e) {
            EXPECT_NE(std::string(e.what()).find("GPUs '" + bad + "'"), std::string::npos) << e.what();
        }
    }
}

// The j-split's partials are added in a fixed order (hermite_kernels.cu): below 64 splits by eight
// rows (row r: splits r, r + 8, ... in turn, then the rows in order), from 64 on by a warp per body
// (lane l: splits l, l + 32, ..., then lane l takes lane l + 16's, l + 8's, ... l + 1's). The GPU's
// sums must be those additions to the bit, with and without the snap, and the nearest neighbour the
// lowest id among the smallest r^2 whatever split holds it.
struct HostSplitSum {
    std::array<double, 4> a{0, 0, 0, 0}, jn{0, 0, 0, 3.0e38}, sn{0, 0, 0, 0};
    int nearest = -1, nearest_split = 0x7fffffff;
    void add(const nbody::cuda::hermite::Real4& p, const nbody::cuda::hermite::Real4& q, int nn,
             const nbody::cuda::hermite::Real4& r, int split, bool snap) {
        a[0] += p.x, a[1] += p.y, a[2] += p.z, a[3] += p.w;
        jn[0] += q.x, jn[1] += q.y, jn[2] += q.z;
        if (nn >= 0 && (q.w < jn[3] || (q.w == jn[3] && nn < nearest))) jn[3] = q.w, nearest = nn, nearest_split = split;
        if (snap) sn[0] += r.x, sn[1] += r.y, sn[2] += r.z;
    }
    void add(const HostSplitSum& o, bool snap) {
        add({o.a[0], o.a[1], o.a[2], o.a[3]}, {o.jn[0], o.jn[1], o.jn[2], o.jn[3]},
            o.nearest_split == 0x7fffffff ? -1 : o.nearest, {o.sn[0], o.sn[1], o.sn[2], 0}, o.nearest_split, snap);
    }
};

TEST(HermiteCuda, TheSplitsPartialsAreAddedInTheirDocumentedOrderToTheBit) {
    REQUIRE_GPU();
    namespace k = nbody::cuda::hermite;
    using nbody::cuda::DeviceBuffer;
    std::mt19937_64 rng(2026);
    std::uniform_real_distribution<double> value(-1.0, 1.0);
    std::uniform_int_distribution<int> coarse(0, 3);  // r^2 from four values: ties across splits
    for (const bool snap : {false, true})
        for (const int splits : {3, 63, 64, 100, 512, 1000})
            for (const int ni : {1, 23, 100, 257}) {
                const int ni_pad = (ni + 127) / 128 * 128;
                const std::size_t nu = std::size_t(ni);
                const std::size_t count = std::size_t(splits) * std::size_t(ni_pad);
                std::vector<k::Real4> pa(count), pj(count), ps(count);
                std::vector<int> pn(count);
                for (std::size_t o = 0; o < count; ++o) {
                    // Magnitudes over twelve decades, so that the order of the additions shows in the bits.
                    const double scale = std::pow(10.0, double(o % 12) - 6.0);
                    pa[o] = k::r4(value(rng) * scale, value(rng) * scale, value(rng) * scale, value(rng) * scale);
                    pj[o] = k::r4(value(rng) * scale, value(rng) * scale, value(rng) * scale, 1.0 + coarse(rng));
                    ps[o] = k::r4(value(rng) * scale, value(rng) * scale, value(rng) * scale, 0.0);
                    pn[o] = (o % 7 == 0) ? -1 : int(rng() % 1000);
                }
                auto up = [](const auto& h) {
                    DeviceBuffer<std::decay_t<decltype(h[0])>> d(h.size());
                    EXPECT_EQ(cudaMemcpy(d.get(), h.data(), d.bytes(), cudaMemcpyHostToDevice), cudaSuccess);
                    return d;
                };
                DeviceBuffer<k::Real4> dpa = up(pa), dpj = up(pj), dps = up(ps), ra(nu), rj(nu),
                                       rs(nu);
                DeviceBuffer<int> dpn = up(pn), rn(nu);
                k::Partials part{dpa.get(), dpj.get(), dpn.get(), snap ? dps.get() : nullptr};
                k::reduce_partials(part, ni, ni_pad, splits, {ra.get(), rj.get(), rn.get(), snap ? rs.get() : nullptr}, nullptr);
                ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
                std::vector<k::Real4> ga(nu), gj(nu), gs(nu);
                std::vector<int> gn(nu);
                ASSERT_EQ(cudaMemcpy(ga.data(), ra.get(), ra.bytes(), cudaMemcpyDeviceToHost), cudaSuccess);
                ASSERT_EQ(cudaMemcpy(gj.data(), rj.get(), rj.bytes(), cudaMemcpyDeviceToHost), cudaSuccess);
                ASSERT_EQ(cudaMemcpy(gs.data(), rs.get(), rs.bytes(), cudaMemcpyDeviceToHost), cudaSuccess);
                ASSERT_EQ(cudaMemcpy(gn.data(), rn.get(), rn.bytes(), cudaMemcpyDeviceToHost), cudaSuccess);
                const bool by_warp = splits >= 64;
                const int lanes = by_warp ? 32 : 8;
                for (int i = 0; i < ni; ++i) {
                    std::vector<HostSplitSum> part_sums(static_cast<std::size_t>(lanes));
                    for (int l = 0; l < lanes; ++l)
                        for (int s = l; s < splits; s += lanes) {
                            const std::size_t o = std::size_t(s) * std::size_t(ni_pad) + std::size_t(i);
                            part_sums[std::size_t(l)].add(pa[o], pj[o], pn[o], ps[o], s, snap);
                        }
                    HostSplitSum total;
                    if (by_warp) {
                        for (int offset = 16; offset >= 1; offset /= 2)
                            for (int l = 0; l < offset; ++l) part_sums[std::size_t(l)].add(part_sums[std::size_t(l + offset)], snap);
                        total = part_sums[0];
                    } else {
                        total = part_sums[0];
                        for (int l = 1; l < lanes; ++l) total.add(part_sums[std::size_t(l)], snap);
                    }
                    const std::size_t u = std::size_t(i);
                    const std::array<double, 4> got_a{ga[u].x, ga[u].y, ga[u].z, ga[u].w}, got_j{gj[u].x, gj[u].y, gj[u].z, gj[u].w};
                    SCOPED_TRACE("snap " + std::to_string(snap) + ", " + std::to_string(splits) + " splits, body " +
                                 std::to_string(i) + " of " + std::to_string(ni));
                    ASSERT_EQ(got_a, total.a);
                    ASSERT_EQ(got_j, total.jn);
                    ASSERT_EQ(gn[u], total.nearest);
                    if (snap) {
                        const std::array<double, 3> got_s{gs[u].x, gs[u].y, gs[u].z}, want_s{total.sn[0], total.sn[1], total.sn[2]};
                        ASSERT_EQ(got_s, want_s);
                    }
                }
            }
}

}  // namespace
}  // namespace nbody::hermite
