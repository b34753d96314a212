// Several GPUs sharing the force pass (docs/DISTRIBUTED.md). On one GPU: the shares of each kernel
// (the every-pair kernel's i-slices, the tree's group shares, the symmetric kernel's tile shares)
// add up to the whole pass. On two GPUs (skipped with fewer, and in builds without NCCL): a
// CudaBackend stepping on both equals the one-GPU run, bit for bit for every pair and the tree.

#include <gtest/gtest.h>

#include <cuda_runtime_api.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <future>
#include <memory>
#include <numeric>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "../../sim/cuda/cuda_raii.hpp"
#include "../../sim/cuda/force_kernel.hpp"
#include "../../sim/cuda/symmetric_kernel.hpp"
#include "../../sim/cuda/tree/gpu_tree.hpp"
#include "nbody/sim/comm/nccl_communicator.hpp"
#include "nbody/sim/cuda_backend.hpp"
#include "nbody/sim/time_steps.hpp"
#include "nbody/sim/state.hpp"
#include "require_gpu.hpp"
#include "test_support.hpp"
#include "tree_test_support.hpp"

namespace nbody {
namespace {

constexpr float kEps2 = 0.05f * 0.05f;

// Sets an environment variable for one test and puts the old value back.
class ScopedEnv {
public:
    ScopedEnv(const char* name, const char* value) : name_(name) {
        if (const char* old = std::getenv(name)) old_ = old, had_ = true;
        setenv(name, value, 1);
    }
    ~ScopedEnv() {
        if (had_) setenv(name_, old_.c_str(), 1);
        else unsetenv(name_);
    }

private:
    const char* name_;
    std::string old_;
    bool had_ = false;
};

std::vector<float4> positions_of(const State& s) {
    std::vector<float4> out(s.size());
    std::memcpy(out.data(), s.pos_mass.data(), s.size() * sizeof(float4));
    return out;
}

std::vector<float4> read(const cuda::DeviceBuffer<float4>& buffer, std::size_t n) {
    std::vector<float4> out(n);
    CUDA_CHECK(cudaDeviceSynchronize());
    CUDA_CHECK(cudaMemcpy(out.data(), buffer.get(), n * sizeof(float4), cudaMemcpyDeviceToHost));
    return out;
}

bool same_bits(const std::vector<float4>& a, const std::vector<float4>& b) {
    return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float4)) == 0;
}

// The most any body's acceleration differs, relative to the largest one.
double relative_difference(const std::vector<float4>& a, const std::vector<float4>& b) {
    double worst = 0, scale = 0;
    for (std::size_t i = 0; i < a.size(); ++i) {
        scale = std::max(scale, double(std::hypot(a[i].x, a[i].y, a[i].z)));
        worst = std::max(worst, double(std::hypot(a[i].x - b[i].x, a[i].y - b[i].y, a[i].z - b[i].z)));
    }
    return worst / scale;
}

TEST(ForceShares, IBodySlicesOfTheEveryPairKernelAreTheWholePassBitForBit) {
    REQUIRE_GPU();
    const ScopedEnv classic("NBODY_FORCE_GRID", "classic");
    const State s = test::plummer_sphere(10000, 5);
    const int n = int(s.size());
    const cuda::DeviceBuffer<float4> pos(s.size());
    CUDA_CHECK(cudaMemcpy(pos.get(), s.pos_mass.data(), s.size() * sizeof(float4), cudaMemcpyHostToDevice));
    cuda::DeviceBuffer<float4> whole(s.size()), sliced(s.size());
    const cuda::ForceVariant v{8, 2, 4};
    cuda::ForceArgs args;
    args.pos = pos.get();
    args.n = n;
    args.eps2 = kEps2;
    args.acc = whole.get();
    cuda::launch_force(v, 256, args, nullptr);
    // Uneven slices that do not fall on i-block boundaries.
    for (const auto [begin, end] : {std::pair{0, 3333}, std::pair{3333, 7001}, std::pair{7001, n}}) {
        args.acc = sliced.get();
        args.i_begin = begin;
        args.i_count = end - begin;
        cuda::launch_force(v, 256, args, nullptr);
    }
    EXPECT_TRUE(same_bits(read(whole, s.size()), read(sliced, s.size())));
    args.i_begin = 9000;
    args.i_count = 2000;
    EXPECT_THROW(cuda::launch_force(v, 256, args, nullptr), std::invalid_argument);
}

TEST(ForceShares, TreeWalkSharesAddUpToTheWholeWalkBitForBit) {
    REQUIRE_GPU();
    const State s = test::plummer_sphere(20000, 7);
    const int n = int(s.size());
    const cuda::DeviceBuffer<float4> pos(s.size());
    CUDA_CHECK(cudaMemcpy(pos.get(), s.pos_mass.data(), s.size() * sizeof(float4), cudaMemcpyHostToDevice));
    cuda::DeviceBuffer<float4> whole(s.size()), part(s.size());
    cuda::GpuTree tree;
    const TreeParams params;  // the relative criterion: a pass depends on the last one's |a| too
    tree.force(pos.get(), n, kEps2, params, 8, part.get(), nullptr, 0, nullptr);
    tree.force(pos.get(), n, kEps2, params, 8, whole.get(), nullptr, 0, nullptr);  // by part's |a|
    const std::vector<float4> expected = read(whole, s.size());
    tree.take_accelerations(part.get(), n, nullptr);  // each share below by part's |a| again, as several GPUs
    std::vector<float4> sum(s.size(), float4{0, 0, 0, 0});
    for (const auto [begin, end] : {std::pair{0.0, 0.37}, std::pair{0.37, 1.0}}) {
        tree.force(pos.get(), n, kEps2, params, 8, part.get(), nullptr, 0, nullptr, cuda::WalkShare{begin, end});
        const std::vector<float4> got = read(part, s.size());
        for (std::size_t i = 0; i < sum.size(); ++i)
            sum[i] = {sum[i].x + got[i].x, sum[i].y + got[i].y, sum[i].z + got[i].z, 0.0f};
    }
    EXPECT_TRUE(same_bits(expected, sum));
    EXPECT_THROW(tree.force(pos.get(), n, kEps2, params, 8, part.get(), part.get(), 0.1f, nullptr,
                            cuda::WalkShare{0.0, 0.5}),
                 std::invalid_argument);
}

TEST(ForceShares, SymmetricTileSharesAddUpToTheWholeTriangle) {
    REQUIRE_GPU();
    const State s = test::plummer_sphere(9000, 9);
    const int n = int(s.size());
    const cuda::DeviceBuffer<float4> pos(s.size());
    CUDA_CHECK(cudaMemcpy(pos.get(), s.pos_mass.data(), s.size() * sizeof(float4), cudaMemcpyHostToDevice));
    cuda::DeviceBuffer<float4> whole(s.size()), part(s.size());
    const cuda::SymmetricVariant v;
    cuda::launch_symmetric_force(v, pos.get(), n, kEps2, whole.get(), nullptr, 0, nullptr);
    std::vector<float4> sum(s.size(), float4{0, 0, 0, 0});
    std::uint64_t tiles = 0;
    for (const auto [begin, end] : {std::pair{0.0, 0.5}, std::pair{0.5, 0.8}, std::pair{0.8, 1.0}}) {
        const cuda::SymmetricTiles share = cuda::symmetric_tile_share(v, n, begin, end);
        tiles += share.count;
        cuda::launch_symmetric_force(v, pos.get(), n, kEps2, part.get(), nullptr, 0, nullptr, nullptr, share);
        const std::vector<float4> got = read(part, s.size());
        for (std::size_t i = 0; i < sum.size(); ++i)
            sum[i] = {sum[i].x + got[i].x, sum[i].y + got[i].y, sum[i].z + got[i].z, 0.0f};
    }
    EXPECT_EQ(tiles, cuda::symmetric_geometry(v, n).tiles);
    EXPECT_LT(relative_difference(read(whole, s.size()), sum), 1e-5);
}

// ---- two GPUs ------------------------------------------------------------------------------------

#define REQUIRE_TWO_GPUS()                                                                                  \
    do {                                                                                                    \
        REQUIRE_GPU();                                                                                      \
        if (!comm::have_nccl()) GTEST_SKIP() << "this build has no NCCL";                                   \
        if (comm::visible_gpu_count() < 2) GTEST_SKIP() << "needs 2 GPUs, " << comm::visible_gpu_count() << " visible"; \
    } while (0)

State run(const State& start, const KernelConfig& config, const GravityConfig& gravity, int gpus, int steps) {
    CudaBackend backend(0);
    backend.set_kernel_config(config);
    backend.set_gravity(gravity);
    if (gpus > 1) backend.use_gpus({0, 1});
    backend.load(start);
    // One step per call: the shares are rebalanced every 16 calls, so a run of 20 or more moves them.
    for (int s = 0; s < steps; ++s) backend.step(StepParams{1.0 / 64, 0.05}, 1);
    State out;
    backend.store(out);
    return out;
}

bool same_state(const State& a, const State& b) {
    return a.size() == b.size() &&
           std::memcmp(a.pos_mass.data(), b.pos_mass.data(), a.size() * sizeof(Vec4f)) == 0 &&
           std::memcmp(a.velocity.data(), b.velocity.data(), a.size() * sizeof(Vec4f)) == 0;
}

TEST(TwoGpus, EveryPairIsTheOneGpuRunBitForBit) {
    REQUIRE_TWO_GPUS();
    const ScopedEnv classic("NBODY_FORCE_GRID", "classic");
    const State start = test::plummer_sphere(20011, 11);
    const KernelConfig config;
    EXPECT_TRUE(same_state(run(start, config, {}, 1, 20), run(start, config, {}, 2, 20)));
}

TEST(TwoGpus, TreeIsTheOneGpuRunBitForBit) {
    REQUIRE_TWO_GPUS();
    const State start = test::plummer_sphere(50000, 13);
    GravityConfig tree;
    tree.gravity = Gravity::Tree;
    EXPECT_TRUE(same_state(run(start, {}, tree, 1, 20), run(start, {}, tree, 2, 20)));
}

// A GPU whose thread fails in a step (an injected failure just before its collective, where a refused
// allocation of its tree would throw) stops the others before the collective instead of leaving them
// in it: the step ends with the cause naming the GPU; every call then says that the GPUs parted,
// until the state is loaded again; after that load the run is the one-GPU run bit for bit. On every
// GPU there is, up to four, with the failure on the last GPU and on the first (the caller's thread).
TEST(TwoGpus, AGpuThatFailsStopsTheOthersInsteadOfHangingThem) {
    REQUIRE_TWO_GPUS();
    const State start = test::plummer_sphere(50000, 13);
    GravityConfig tree;
    tree.gravity = Gravity::Tree;
    const StepParams params{1.0 / 64, 0.05};
    const State one = run(start, {}, tree, 1, 20);
    std::vector<int> devices(std::size_t(std::min(comm::visible_gpu_count(), 4)));
    std::iota(devices.begin(), devices.end(), 0);
    for (const int failing : {int(devices.size()) - 1, 0}) {
        CudaBackend backend(0);
        backend.set_gravity(tree);
        backend.use_gpus(devices);
        backend.load(start);
        backend.step(params, 1);
        backend.fail_for_tests(failing, 2);
        auto steps = [&] {
            return test::runtime_error_of([&] {
                for (int s = 0; s < 5; ++s) backend.step(params, 1);
            });
        };
        std::future<std::string> stepping = std::async(std::launch::async, steps);
        const std::string error = test::get_within(stepping, std::chrono::seconds(60),
                                                   "the steps of GPUs other than the failing GPU " + std::to_string(failing));
        std::printf("%zu GPUs, GPU %d failing: %s\n", devices.size(), failing, error.c_str());
        const std::string gpu = "GPU " + std::to_string(failing) + " (device " + std::to_string(failing) + ")";
        EXPECT_NE(error.find(gpu + " failed: an injected failure before collective"), std::string::npos) << error;
        const std::string again = steps();
        EXPECT_NE(again.find("their states parted when " + gpu + " failed"), std::string::npos) << again;
        backend.load(start);
        for (int s = 0; s < 20; ++s) backend.step(params, 1);
        State out;
        backend.store(out);
        EXPECT_TRUE(same_state(out, one)) << devices.size() << " GPUs after the load, GPU " << failing << " having failed";
    }
}

// run's "tree terms" line on several GPUs of one process: each GPU counts the lists of its share
// of the groups, the lists one GPU would walk, so the sums are one GPU's exactly.
TEST(TwoGpus, TreeTermsOfTheGpusAddUpToOneGpus) {
    REQUIRE_TWO_GPUS();
    const State start = test::plummer_sphere(50000, 37);
    GravityConfig tree;
    tree.gravity = Gravity::Tree;
    std::vector<ForceWork> work;
    for (const int gpus : {1, 2}) {
        CudaBackend backend(0);
        backend.set_gravity(tree);
        if (gpus > 1) backend.use_gpus({0, 1});
        backend.load(start);
        for (int call = 0; call < 20; ++call) backend.step(StepParams{1.0 / 64, 0.05}, 1);
        const std::optional<ForceWork> w = backend.force_work();
        ASSERT_TRUE(w.has_value()) << gpus << " GPU(s)";
        work.push_back(*w);
    }
    EXPECT_GT(work[0].body_terms, 0.0);
    EXPECT_EQ(work[1].body_terms, work[0].body_terms);
    EXPECT_EQ(work[1].cell_terms, work[0].cell_terms);
    EXPECT_EQ(work[1].passes, work[0].passes);
}

TEST(TwoGpus, EachPairOnceMatchesOneGpu) {
    REQUIRE_TWO_GPUS();
    const State start = test::plummer_sphere(20000, 17);
    // Both maps: split over GPUs the bounding-box config places its share with the lambda map.
    for (const PairMode mode : {PairMode::Symmetric, PairMode::SymmetricBoundingBox}) {
        KernelConfig config;
        config.pair_mode = mode;
        const State one = run(start, config, {}, 1, 3), two = run(start, config, {}, 2, 3);
        double worst = 0;
        for (std::size_t i = 0; i < one.size(); ++i)
            worst = std::max({worst, double(std::abs(one.pos_mass[i].x - two.pos_mass[i].x)),
                              double(std::abs(one.pos_mass[i].y - two.pos_mass[i].y)),
                              double(std::abs(one.pos_mass[i].z - two.pos_mass[i].z))});
        EXPECT_LT(worst, 1e-5) << to_string(mode);  // float sums in another order (atomics), over 3 steps
    }
}

TEST(TwoGpus, SharesCoverTheWorkAndFollowTheMeasuredTimes) {
    REQUIRE_TWO_GPUS();
    CudaBackend backend(0);
    backend.use_gpus({0, 1});
    ASSERT_EQ(backend.gpu_count(), 2);
    backend.load(test::plummer_sphere(65536, 19));
    for (int call = 0; call < 24; ++call) backend.step(StepParams{1.0 / 64, 0.05}, 1);
    backend.synchronize();
    const std::vector<CudaBackend::GpuShare> shares = backend.gpu_shares();
    ASSERT_EQ(shares.size(), 2u);
    EXPECT_EQ(shares[0].begin, 0.0);
    EXPECT_EQ(shares[0].end, shares[1].begin);
    EXPECT_EQ(shares[1].end, 1.0);
    // Two identical GPUs: the rebalanced cut stays near the middle.
    EXPECT_NEAR(shares[0].end, 0.5, 0.1);
    for (const auto& share : shares) EXPECT_GT(share.ms, 0.0) << "GPU " << share.device;
}

// bench on several GPUs times the shares after they settled: before, its few step calls never
// reached the first rebalancing (every 16 calls) and it timed the even cut (device run 172: 1M on
// two H100s, GPU 0 3.53 ms for its half against 2.50 ms). Two GPUs whose halves take exactly the same
// time to 0.1 % would leave 50.0 %: not seen on any pair measured (7-40 % apart).
TEST(TwoGpus, BenchTimesTheSharesAfterTheySettled) {
    REQUIRE_TWO_GPUS();
    const auto r = test::run_nbody("bench --backend cuda --gravity tree --bodies 262144 --repeats 2 --gpus 2");
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_NE(r.output.find("shares settled first, over 136 untimed step calls"), std::string::npos) << r.output;
    const std::size_t line = r.output.find("GPU shares of the last run: GPU 0: ");
    ASSERT_NE(line, std::string::npos) << r.output;
    EXPECT_NE(r.output.compare(line + 35, 6, "50.0 %"), 0) << "the even first cut was timed\n" << r.output;
}

// The tree code on GPUs 0 and 1, a Plummer sphere of `bodies` loaded.
std::unique_ptr<CudaBackend> tree_on_two_gpus(std::size_t bodies, std::uint64_t seed) {
    auto backend = std::make_unique<CudaBackend>(0);
    GravityConfig tree;
    tree.gravity = Gravity::Tree;
    backend->set_gravity(tree);
    backend->use_gpus({0, 1});
    backend->load(test::plummer_sphere(bodies, seed));
    return backend;
}

// The rebalancing's exchange of share times must not make a step call wait for the GPUs: the
// viewer keeps frames in flight, and a call that waited for its own step drained them (device run
// 107: a host all-gather every 16th call cost the 1M viewer on two GPUs 1.3 ms a frame).
// Under mpirun each rank probes its own GPU (set_process_gpu), and the probe leaves that GPU current:
// a probe of GPU 0 on rank 1 opened a context there (run 121: 518 MiB on GPU 0 held by rank 1).
TEST(TwoGpus, TheProbeChecksTheProcessGpuAndLeavesItCurrent) {
    REQUIRE_TWO_GPUS();
    int current = -1;
    set_process_gpu(1);
    EXPECT_TRUE(cuda_available());
    ASSERT_EQ(cudaGetDevice(&current), cudaSuccess);
    EXPECT_EQ(current, 1);
    set_process_gpu(0);
    EXPECT_TRUE(cuda_available());
    ASSERT_EQ(cudaGetDevice(&current), cudaSuccess);
    EXPECT_EQ(current, 0);
}

TEST(TwoGpus, NoStepCallWaitsForItsStep) {
    REQUIRE_TWO_GPUS();
    const std::unique_ptr<CudaBackend> two = tree_on_two_gpus(std::size_t(1) << 22, 29);
    CudaBackend& backend = *two;
    const StepParams params{1.0 / 64, 0.05};
    const double step_ms = backend.time_steps_ms(params, 2) / 2;  // builds what the steps keep, too
    double slowest_ms = 0;
    int slowest_call = -1;
    for (int call = 0; call < 40; ++call) {  // past two postings (calls 16 and 32) and one reading (24)
        backend.synchronize();  // an empty queue: a call that waits, waits for its own step
        const auto start = std::chrono::steady_clock::now();
        backend.step(params, 1);
        const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
        if (ms > slowest_ms) slowest_ms = ms, slowest_call = call;
    }
    backend.synchronize();
    EXPECT_LT(slowest_ms, 0.5 * step_ms) << "call " << slowest_call << " took " << slowest_ms << " ms of host time; a "
                                         << "step takes " << step_ms << " ms on the GPUs";
}

// The viewer's GPU also draws (set_other_work_ms): its share shrinks until its share and the drawing
// end with the other GPU's share. The host queues the calls ahead of the GPUs, as the viewer does,
// so the times each rebalancing reads may be of passes cut before the last move (device run 108:
// read as the current cut's, they drove the first GPU's share to 11 %).
TEST(TwoGpus, TheDrawingGpuGetsLessOfThePassByItsOtherWork) {
    REQUIRE_TWO_GPUS();
    const std::unique_ptr<CudaBackend> two = tree_on_two_gpus(std::size_t(1) << 20, 31);
    CudaBackend& backend = *two;
    const StepParams params{1.0 / 64, 0.05};
    backend.time_steps_ms(params, 2);
    // Rebalancings every 16 calls, each half the way; the host at most two calls ahead, as the
    // viewer's frames. Groups of unequal cost take more of them to settle (run 159: 12 % apart after 8).
    const auto rebalance = [&](int rebalancings) {
        for (int call = 0; call < 16 * rebalancings; ++call) {
            backend.step(params, 1);
            if (call % 2 == 1) backend.synchronize();
        }
        backend.synchronize();
    };
    // Without other work, the cut where both halves of the walk take as long: not the middle of the
    // groups under the relative criterion, whose groups cost more where the pull is weak.
    rebalance(8);
    const double even_cut = backend.gpu_shares()[0].end;
    const double pass_ms = backend.gpu_shares()[0].ms;  // the tree's build and half its walk
    const double other_ms = 0.5 * pass_ms;  // as the drawing of a 1M frame (1.6 ms) beside a 3.5 ms half pass
    backend.set_other_work_ms(other_ms);
    rebalance(16);
    const std::vector<CudaBackend::GpuShare> shares = backend.gpu_shares();
    EXPECT_LT(shares[0].end, even_cut - 0.05) << CudaBackend::describe(shares) << "; without other work " << even_cut;
    EXPECT_GT(shares[0].end, 0.4 * even_cut) << CudaBackend::describe(shares) << "; without other work " << even_cut;
    // Run 109, the host far ahead (its timed passes then came from one cut only): 39 % and the first
    // GPU's share plus its other work 17 % longer than the second's. With the cut right the two ends
    // still differ by the passes' own spread at 1M, pass to pass: one pass's times were 12 % apart in
    // run 173 and 16 % in run 195 (passing in runs 172, 192, 193), so the mean of 16 passes is compared.
    double mean_ms[2] = {0, 0};
    constexpr int kPasses = 16;
    for (int pass = 0; pass < kPasses; ++pass) {
        backend.step(params, 1);
        backend.synchronize();
        const std::vector<CudaBackend::GpuShare> now = backend.gpu_shares();
        for (int g = 0; g < 2; ++g) mean_ms[g] += now[std::size_t(g)].ms / kPasses;
    }
    EXPECT_NEAR(mean_ms[0] + other_ms, mean_ms[1], 0.15 * mean_ms[1]) << CudaBackend::describe(shares);
    EXPECT_THROW(backend.set_other_work_ms(-1.0), std::invalid_argument);
}

// Block steps walk on one GPU: asked for on two, before or after the GPUs, one message says so.
TEST(TwoGpus, BlockTimeStepsAreRefusedWithOneMessage) {
    REQUIRE_TWO_GPUS();
    const std::string expected = "block time steps run on one GPU (this backend would share its force passes among 2 GPUs)";
    const TimeStepConfig block{TimeSteps::Block, 0.1, kDefaultMaxLevel};
    const auto message = [](const std::function<void()>& call) {
        try {
            call();
        } catch (const std::invalid_argument& e) {
            return std::string(e.what());
        }
        return std::string("(not refused)");
    };
    CudaBackend after(0);
    after.use_gpus({0, 1});
    EXPECT_NE(message([&] { after.set_time_steps(block); }).find(expected), std::string::npos);
    CudaBackend before(0);
    GravityConfig tree;
    tree.gravity = Gravity::Tree;
    before.set_gravity(tree);
    before.set_time_steps(block);
    EXPECT_NE(message([&] { before.use_gpus({0, 1}); }).find(expected), std::string::npos);
}

TEST(TwoGpus, InteropStepEndsOnTheFirstGpuAsOneGpuWould) {
    REQUIRE_TWO_GPUS();
    const ScopedEnv classic("NBODY_FORCE_GRID", "classic");
    const State start = test::plummer_sphere(8192, 23);
    const StepParams params{1.0 / 64, 0.05};
    std::vector<float4> out[2];
    for (int gpus = 1; gpus <= 2; ++gpus) {
        CudaBackend backend(0);
        if (gpus == 2) backend.use_gpus({0, 1});
        backend.load(start);
        cudaSetDevice(0);
        cuda::DeviceBuffer<float4> a(start.size()), b(start.size());
        backend.export_device_positions(a.get());
        for (int s = 0; s < 3; ++s) {
            backend.step_device(a.get(), b.get(), params);
            std::swap(a, b);
        }
        backend.synchronize();
        out[gpus - 1] = read(a, start.size());
    }
    EXPECT_TRUE(same_bits(out[0], out[1]));
}

TEST(TwoGpus, OneGpuModesAreRefusedWithTheReason) {
    REQUIRE_TWO_GPUS();
    CudaBackend backend(0);
    backend.use_gpus({0, 1});
    KernelConfig ds;
    ds.precision = Precision::Ds;
    try {
        backend.set_kernel_config(CudaBackend::fit_to_precision(ds));
        FAIL() << "ds on two GPUs was accepted";
    } catch (const std::invalid_argument& e) {
        EXPECT_NE(std::string(e.what()).find("runs on one GPU"), std::string::npos) << e.what();
    }
    EXPECT_THROW(backend.use_gpus({0, 1}), std::logic_error);
}

}  // namespace
}  // namespace nbody
