// Block steps of the 4th order taken whole on the GPU (ForceEngine::step_blocks) against the same
// steps taken by the host (HermiteParams::blocks_on_device = false): the same bits, block for block,
// on one GPU and on two (skipped, with the reason, without them).

#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <iomanip>
#include <functional>
#include <future>
#include <numeric>
#include <memory>
#include <string>
#include <vector>

#include <cuda_runtime_api.h>

#include "nbody/sim/comm/nccl_communicator.hpp"
#include "nbody/sim/hermite/force_engine.hpp"
#include "nbody/sim/hermite/integrator.hpp"
#include "nbody/sim/ic/plummer.hpp"
#include "test_support.hpp"

namespace nbody::hermite {
namespace {

bool gpus_for_test(int wanted, std::string& why) {
    if (!cuda_engine_usable(&why)) return false;
    int count = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess || count < wanted) {
        why = "needs " + std::to_string(wanted) + " GPUs, " + std::to_string(count) + " visible";
        return false;
    }
    return true;
}

#define REQUIRE_GPUS(n)                                                      \
    do {                                                                     \
        std::string why_not;                                                 \
        if (!gpus_for_test(n, why_not)) GTEST_SKIP() << why_not;             \
    } while (0)

struct Integrated {
    Bodies bodies;
    HermiteStats stats;
    double seconds = 0;
    std::string error;  // a HermiteError's message
    int calls = 0;      // of advance_blocks
    double time = 0;
};

// The run of a test: n Plummer bodies to t_end, and what `prepare` changes at the start (a pair).
struct RunSetup {
    std::size_t n = 40000;
    double t_end = 0.125, softening = 0.01;
    int max_level = 40;
    std::function<void(std::vector<double>&, std::vector<Vec3d>&, std::vector<Vec3d>&)> prepare;
};

HermiteIntegrator started(std::unique_ptr<ForceEngine> engine, bool on_device, const RunSetup& s) {
    const State st = ic::make_plummer({.bodies = s.n, .seed = 12});
    std::vector<double> m;
    std::vector<Vec3d> x, v;
    for (std::size_t k = 0; k < st.size(); ++k)
        m.push_back(st.pos_mass[k].w), x.push_back(xyz(st.pos_mass[k])), v.push_back(xyz(st.velocity[k]));
    if (s.prepare) s.prepare(m, x, v);
    HermiteParams p;
    p.softening = s.softening;
    p.max_level = s.max_level;
    p.blocks_on_device = on_device;
    HermiteIntegrator h(std::move(engine), p);
    EXPECT_EQ(h.device_blocks_unavailable().empty(), on_device) << h.device_blocks_unavailable();
    h.start(m, x, v, 0);
    return h;
}

// The run to s.t_end by `engine`, its block steps on the GPU or on the host; with `pairs_a_call`, in
// calls of advance_blocks() as `nbody run` makes them between its progress lines (each reads the state
// back and the next sends it up again).
Integrated integrate(std::unique_ptr<ForceEngine> engine, bool on_device, const RunSetup& s = {}, double pairs_a_call = 0) {
    HermiteIntegrator h = started(std::move(engine), on_device, s);
    Integrated r;
    const auto start = std::chrono::steady_clock::now();
    try {
        if (pairs_a_call > 0)
            while (h.advance_blocks(s.t_end, pairs_a_call)) ++r.calls;
        h.evolve(s.t_end);
    } catch (const HermiteError& e) {
        r.error = e.what();
    }
    r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    r.bodies = h.bodies();
    r.stats = h.stats();
    r.time = h.time();
    return r;
}

int deepest_level(const HermiteIntegrator& h) {
    const std::vector<std::size_t> levels = h.level_histogram();
    int deepest = 0;
    for (std::size_t k = 0; k < levels.size(); ++k)
        if (levels[k] > 0) deepest = int(k);
    return deepest;
}

bool same_bits(const Vec3d& a, const Vec3d& b) { return std::memcmp(&a, &b, sizeof a) == 0; }

// Every body's state, the blocks and the evaluations the same to the bit.
void expect_same_run(const Integrated& gpu, const Integrated& host) {
    EXPECT_EQ(gpu.stats.blocks, host.stats.blocks);
    EXPECT_EQ(gpu.stats.body_steps, host.stats.body_steps);
    EXPECT_EQ(gpu.time, host.time);
    ASSERT_EQ(gpu.bodies.size(), host.bodies.size());
    std::size_t differ = 0, first = gpu.bodies.size();
    for (std::size_t i = 0; i < gpu.bodies.size(); ++i) {
        const bool same = same_bits(gpu.bodies.x[i], host.bodies.x[i]) && same_bits(gpu.bodies.v[i], host.bodies.v[i]) &&
                          same_bits(gpu.bodies.a[i], host.bodies.a[i]) && same_bits(gpu.bodies.jerk[i], host.bodies.jerk[i]) &&
                          gpu.bodies.pot[i] == host.bodies.pot[i] && gpu.bodies.t[i] == host.bodies.t[i] &&
                          gpu.bodies.level[i] == host.bodies.level[i];
        if (!same) ++differ, first = std::min(first, i);
    }
    if (differ == 0) return;
    const Bodies &g = gpu.bodies, &h = host.bodies;
    const std::size_t i = first;
    ADD_FAILURE() << std::setprecision(17) << differ << " bodies differ; the first, " << i << ": x " << g.x[i].x << " / " << h.x[i].x << ", v "
                  << g.v[i].x << " / " << h.v[i].x << ", a " << g.a[i].x << " / " << h.a[i].x << ", jerk " << g.jerk[i].x
                  << " / " << h.jerk[i].x << ", pot " << g.pot[i] << " / " << h.pot[i] << ", t " << g.t[i] << " / "
                  << h.t[i] << ", level " << g.level[i] << " / " << h.level[i] << " (GPU / host)";
}

// 40,000 bodies to t = 0.125: the blocks of every level, the largest (every body) taking the far tiles
// in Morton order and the reorders between them, as the host's batches do.
TEST(HermiteDeviceBlocks, OneGpuTakesTheHostsStepsBitForBit) {
    REQUIRE_GPUS(1);
    const Integrated host = integrate(make_force_engine(EngineKind::Cuda), false);
    const Integrated gpu = integrate(make_force_engine(EngineKind::Cuda), true);
    std::printf("40,000 bodies to t = 0.125: %llu blocks, %llu evaluations; host steps %.3f s, GPU steps %.3f s\n",
                (unsigned long long)gpu.stats.blocks, (unsigned long long)gpu.stats.body_steps, host.seconds, gpu.seconds);
    ASSERT_TRUE(host.error.empty()) << host.error;
    ASSERT_TRUE(gpu.error.empty()) << gpu.error;
    EXPECT_GT(gpu.stats.blocks, 100u);
    expect_same_run(gpu, host);
    // In calls of ~1e9 pairs (a few dozen blocks each), the state up and down between them.
    const Integrated in_calls = integrate(make_force_engine(EngineKind::Cuda), true, {}, 1e9);
    std::printf("the same in %d calls\n", in_calls.calls);
    EXPECT_GT(in_calls.calls, 5);
    expect_same_run(in_calls, host);
}

// Two heavy bodies sent head on at each other without softening, and a smallest level one short of
// what their passage needs (found by a first run on the host, which reaches it, with the levels the
// start needs above it): the block that underflows is found on the GPU, nothing of it is kept, and the
// host takes it again to say why: the same error and the same last good state as the host's own steps.
TEST(HermiteDeviceBlocks, AFailingBlockIsTheHostsErrorAndKeepsTheLastGoodState) {
    REQUIRE_GPUS(1);
    RunSetup s{.n = 2048, .t_end = 0.03125, .softening = 0.0};
    s.prepare = [](std::vector<double>& m, std::vector<Vec3d>& x, std::vector<Vec3d>& v) {
        m[0] = m[1] = 0.05;
        x[0] = {-0.05, 0.0, 0.0}, v[0] = {4.0, 0.0, 0.0};
        x[1] = {0.05, 0.0, 0.0}, v[1] = {-4.0, 0.0, 0.0};
    };
    HermiteIntegrator probe = started(make_force_engine(EngineKind::Cuda), false, s);
    const int at_start = deepest_level(probe);
    int deepest = at_start;
    while (probe.advance(s.t_end)) deepest = std::max(deepest, deepest_level(probe));
    std::printf("levels: %d at the start, %d at the pair's passage\n", at_start, deepest);
    ASSERT_GT(deepest, at_start) << "the pair's passage needs no finer step than the start: the test's pair is wrong";
    s.max_level = deepest - 1;
    const Integrated host = integrate(make_force_engine(EngineKind::Cuda), false, s);
    const Integrated gpu = integrate(make_force_engine(EngineKind::Cuda), true, s);
    ASSERT_FALSE(host.error.empty()) << "the host's run did not fail";
    EXPECT_EQ(gpu.error, host.error);
    EXPECT_NE(gpu.error.find("step underflow"), std::string::npos) << gpu.error;
    expect_same_run(gpu, host);
}

// Two GPUs of one process meeting through NCCL: their blocks are the host-driven two-GPU run's, bit
// for bit, large blocks spread over both GPUs (their results gathered and added in GPU order), small
// ones computed whole on each.
TEST(HermiteDeviceBlocks, TwoGpusTakeTheHostsTwoGpuStepsBitForBit) {
    REQUIRE_GPUS(2);
    if (!comm::have_nccl()) GTEST_SKIP() << "a build without NCCL";
    const std::vector<int> devices{0, 1};
    const Integrated host = integrate(make_force_engine(EngineKind::Cuda, {.devices = devices}), false);
    std::unique_ptr<ForceEngine> engine = make_force_engine(EngineKind::Cuda, {.devices = devices});
    engine->join_local_gpus(comm::make_nccl_communicators(devices));
    const Integrated gpu = integrate(std::move(engine), true);
    std::printf("two GPUs, 40,000 bodies to t = 0.125: %llu blocks; host steps %.3f s, GPU steps %.3f s\n",
                (unsigned long long)gpu.stats.blocks, host.seconds, gpu.seconds);
    ASSERT_TRUE(gpu.error.empty()) << gpu.error;
    expect_same_run(gpu, host);
}

// A GPU's thread that fails in a block step (an injected failure just before a spread evaluation, where
// a refused allocation would throw) stops the other GPUs' threads: the call ends with the cause, naming
// the GPU, instead of the others waiting in NCCL for it; the integrator keeps the state it had before
// the call; the engine refuses more work with the reason. On every GPU there is, up to four, with the
// failure on the last GPU's thread and on the first's (the caller's own thread).
TEST(HermiteDeviceBlocks, AGpuThatFailsStopsTheOthersInsteadOfHangingThem) {
    REQUIRE_GPUS(2);
    if (!comm::have_nccl()) GTEST_SKIP() << "a build without NCCL";
    int count = 0;
    ASSERT_EQ(cudaGetDeviceCount(&count), cudaSuccess);
    std::vector<int> devices(std::size_t(std::min(count, 4)));
    std::iota(devices.begin(), devices.end(), 0);
    for (const int failing : {int(devices.size()) - 1, 0}) {
        EngineConfig config{.devices = devices};
        config.fault_for_tests = {.gpu = failing, .spread_block = 2};
        std::unique_ptr<ForceEngine> engine = make_force_engine(EngineKind::Cuda, config);
        engine->join_local_gpus(comm::make_nccl_communicators(devices));
        HermiteIntegrator h = started(std::move(engine), true, {});
        const Bodies before = h.bodies();
        const double t_before = h.time();
        auto advance = [&h] { return test::runtime_error_of([&h] { h.advance_blocks(0.125, INFINITY); }); };
        std::future<std::string> call = std::async(std::launch::async, advance);
        const std::string error = test::get_within(call, std::chrono::seconds(60),
                                                   "the block steps of GPUs other than the failing GPU " + std::to_string(failing));
        std::printf("%zu GPUs, GPU %d failing: %s\n", devices.size(), failing, error.c_str());
        EXPECT_NE(error.find("GPU " + std::to_string(failing) + " (device " + std::to_string(failing) + ") failed"), std::string::npos) << error;
        EXPECT_NE(error.find("injected failure before spread evaluation 2"), std::string::npos) << error;
        EXPECT_EQ(h.time(), t_before);
        const Bodies after = h.bodies();
        ASSERT_EQ(after.size(), before.size());
        std::size_t moved = 0;
        for (std::size_t i = 0; i < before.size(); ++i)
            if (!same_bits(after.x[i], before.x[i]) || !same_bits(after.v[i], before.v[i]) || after.t[i] != before.t[i]) ++moved;
        EXPECT_EQ(moved, 0u) << "bodies changed by a call that failed";
        const std::string again = advance();
        EXPECT_NE(again.find("this engine takes no more"), std::string::npos) << again;
    }
}

// Without communicators between its GPUs the engine says why its blocks stay on the host; a wrong set
// of communicators is refused.
TEST(HermiteDeviceBlocks, SeveralGpusWithoutCommunicatorsStepOnTheHost) {
    REQUIRE_GPUS(2);
    auto engine = make_force_engine(EngineKind::Cuda, {.devices = {0, 1}});
    EXPECT_NE(engine->device_blocks_unavailable().find("NCCL"), std::string::npos) << engine->device_blocks_unavailable();
    if (!comm::have_nccl()) return;
    const std::vector<int> reversed{1, 0};
    EXPECT_THROW(engine->join_local_gpus(comm::make_nccl_communicators(reversed)), std::invalid_argument);
}

}  // namespace
}  // namespace nbody::hermite
