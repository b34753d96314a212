// The simulation beside the frame loop (issue 33): a backend that sleeps in every step stands for a
// slow CPU simulation; the "frame loop" here is the test's own loop, which must never wait for it.

#include "simulation_thread.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "nbody/sim/trail_sampler.hpp"

#include "test_support.hpp"

namespace nbody::app {
namespace {

using Clock = std::chrono::steady_clock;
using namespace std::chrono_literals;

// Moves every body +1 in x per step, sleeping `step_time` in it; logs what happened, in order.
class SleepyBackend final : public Backend, public test::EventLog {
  public:
    explicit SleepyBackend(std::chrono::milliseconds step_time) : step_time_(step_time) {}
    std::string_view name() const override { return "sleepy"; }
    void load(const State& state) override {
        state_ = state;
        log("load");
    }
    void store(State& state) const override {
        state.resize(state_.size());
        state.pos_mass = state_.pos_mass;
        state.velocity = state_.velocity;
        state.time = state_.time;
    }
    std::size_t size() const override { return state_.size(); }
    void step(const StepParams& params, int count) override {
        for (int s = 0; s < count; ++s) {
            log("step begins");
            std::this_thread::sleep_for(step_time_);
            for (auto& p : state_.pos_mass) p.x += 1.0f;
            state_.time += params.dt;
            log("step ends");
        }
        if (fail_next_) throw std::runtime_error("the sleepy backend fails on purpose");
    }
    std::vector<Vec3d> accelerations(double) override { return std::vector<Vec3d>(state_.size()); }
    double time() const override { return state_.time; }

    std::atomic<bool> fail_next_{false};

  private:
    std::chrono::milliseconds step_time_;
    State state_;
};

State bodies(std::size_t n) {
    State s;
    s.resize(n);
    for (std::size_t i = 0; i < n; ++i) s.pos_mass[i] = {float(i), 0.0f, 0.0f, 1.0f};
    return s;
}

using test::wait_for;

TEST(SimulationThread, FrameLoopKeepsDrawingWhileASlowStepRuns) {
    SleepyBackend backend(400ms);
    backend.load(bodies(8));
    SimulationThread sim(backend);
    State shown = bodies(8);
    sim.grant(1, StepParams{}, 2);
    // 60 "frames" of 5 ms while the one step takes 400 ms: each frame's look at the simulation
    // must return at once, and the state shown is the old one until the step is complete.
    double slowest_ms = 0;
    int frames = 0, frames_before_step = 0;
    const auto start = Clock::now();
    while (Clock::now() - start < 300ms) {
        const auto t = Clock::now();
        const bool fresh = sim.take_latest(shown);
        sim.finish_tasks();
        slowest_ms = std::max(slowest_ms, std::chrono::duration<double, std::milli>(Clock::now() - t).count());
        if (!fresh) ++frames_before_step;
        ++frames;
        std::this_thread::sleep_for(5ms);
    }
    EXPECT_GT(frames, 30);
    EXPECT_EQ(frames_before_step, frames) << "a state was published before its step completed";
    EXPECT_LT(slowest_ms, 50.0) << "the frame loop waited for the step";
    EXPECT_EQ(shown.pos_mass[0].x, 0.0f);
    ASSERT_TRUE(wait_for([&] { return sim.take_latest(shown); }));
    EXPECT_EQ(shown.pos_mass[0].x, 1.0f) << "the complete state after the step is shown";
}

TEST(SimulationThread, RequestIsAppliedBetweenSteps) {
    SleepyBackend backend(50ms);
    backend.load(bodies(4));
    SimulationThread sim(backend);
    sim.grant(3, StepParams{}, 3);
    ASSERT_TRUE(wait_for([&] { return backend.events().back() == "step begins"; }));
    std::string answer, error;
    sim.post(
        [&](Backend& b) {
            static_cast<SleepyBackend&>(b).log("request");
            return std::string("applied");
        },
        [&](const SimulationThread::Outcome& o) { answer = o.text, error = o.error; });
    ASSERT_TRUE(wait_for([&] {
        sim.finish_tasks();
        return !answer.empty();
    }));
    EXPECT_EQ(answer, "applied");
    EXPECT_TRUE(error.empty());
    const std::vector<std::string> events = backend.events();
    std::size_t request_at = 0;
    for (std::size_t i = 0; i < events.size(); ++i)
        if (events[i] == "request") request_at = i;
    ASSERT_GT(request_at, 0u);
    EXPECT_EQ(events[request_at - 1], "step ends") << "the request ran inside a step";
    // Posted during the first step, it is taken right after it, before the steps still owed.
    EXPECT_EQ(std::count(events.begin(), events.begin() + long(request_at), std::string("step ends")), 1);
}

TEST(SimulationThread, TaskErrorReachesTheUiAndSteppingGoesOn) {
    SleepyBackend backend(1ms);
    backend.load(bodies(2));
    SimulationThread sim(backend);
    std::string error;
    sim.post([](Backend&) -> std::string { throw std::invalid_argument("theta must be in (0, 1]"); },
             [&](const SimulationThread::Outcome& o) { error = o.error; });
    ASSERT_TRUE(wait_for([&] {
        sim.finish_tasks();
        return !error.empty();
    }));
    EXPECT_EQ(error, "theta must be in (0, 1]");
    State shown = bodies(2);
    sim.grant(1, StepParams{}, 1);
    ASSERT_TRUE(wait_for([&] { return sim.take_latest(shown); }));
    EXPECT_EQ(shown.pos_mass[1].x, 2.0f);
}

TEST(SimulationThread, StatesOfTheOldSystemAreNotShownAfterALoad) {
    SleepyBackend backend(30ms);
    backend.load(bodies(4));
    SimulationThread sim(backend);
    sim.grant(5, StepParams{}, 5);
    ASSERT_TRUE(wait_for([&] { return backend.events().back() == "step begins"; }));
    sim.load(bodies(9));  // while a step of the 4-body system runs
    State shown = bodies(9);
    sim.grant(2, StepParams{}, 2);
    int taken = 0;
    ASSERT_TRUE(wait_for([&] {
        if (sim.take_latest(shown)) {
            ++taken;
            EXPECT_EQ(shown.size(), 9u) << "a state of the replaced system was taken";
        }
        return sim.idle() && taken > 0;
    }));
    EXPECT_EQ(shown.pos_mass[8].x, 10.0f) << "two steps of the new system";
}

TEST(SimulationThread, RunExactlyTakesExactlyItsStepsAfterAPostedLoad) {
    SleepyBackend backend(2ms);
    backend.load(bodies(3));
    SimulationThread sim(backend);
    sim.grant(50, StepParams{}, 50);  // steps owed from before the recording started
    sim.load(bodies(3));
    StepParams p;
    p.dt = 0.5;
    sim.run_exactly(4, p);
    State shown = bodies(3);
    ASSERT_TRUE(sim.take_latest(shown));
    EXPECT_EQ(shown.time, 2.0);
    EXPECT_EQ(shown.pos_mass[0].x, 4.0f);
    EXPECT_TRUE(sim.idle());
}

TEST(SimulationThread, SlowSimulationIsNotHandedABacklog) {
    SleepyBackend backend(100ms);
    backend.load(bodies(1));
    SimulationThread sim(backend);
    for (int frame = 0; frame < 20; ++frame) sim.grant(1, StepParams{}, 2);  // 20 frames at once
    std::this_thread::sleep_for(20ms);
    sim.hold();  // pause: the owed steps are dropped, the one running ends
    ASSERT_TRUE(wait_for([&] { return sim.idle(); }));
    State shown = bodies(1);
    ASSERT_TRUE(sim.take_latest(shown));
    EXPECT_LE(shown.pos_mass[0].x, 1.0f) << "steps ran after the pause";
}

TEST(SimulationThread, StepErrorStopsSteppingWithTheReason) {
    SleepyBackend backend(1ms);
    backend.load(bodies(2));
    backend.fail_next_ = true;
    SimulationThread sim(backend);
    sim.grant(5, StepParams{}, 5);
    SimulationThread::Progress p;
    ASSERT_TRUE(wait_for([&] {
        const SimulationThread::Progress now = sim.take_progress();
        if (!now.error.empty()) p = now;
        return !p.error.empty();
    }));
    EXPECT_EQ(p.error, "the sleepy backend fails on purpose");
    EXPECT_TRUE(wait_for([&] { return sim.idle(); })) << "the steps owed were dropped";
}

// Issue 33: a stop is honoured while a long step runs. A frame waiting for its exact steps gives
// up within a few polls of being asked, no half-done state is published, the steps still owed
// are dropped, and settle_within says the step is still running instead of waiting for it.
TEST(SimulationThread, AStopEndsTheWaitForExactStepsDuringAStep) {
    SleepyBackend backend(1500ms);
    backend.load(bodies(2));
    SimulationThread sim(backend);
    std::atomic<bool> stop{false};
    std::thread signal([&] {
        std::this_thread::sleep_for(200ms);
        stop = true;
    });
    const auto start = Clock::now();
    const bool done = sim.run_exactly(3, StepParams{}, [&] { return stop.load(); });
    const double waited = std::chrono::duration<double>(Clock::now() - start).count();
    signal.join();
    EXPECT_FALSE(done);
    EXPECT_LT(waited, 0.6) << "the wait went on after the stop";
    State shown = bodies(2);
    EXPECT_FALSE(sim.take_latest(shown)) << "a state was published before its step completed";
    EXPECT_FALSE(sim.settle_within(100ms)) << "the step in progress should still be running";
    ASSERT_TRUE(sim.settle_within(5000ms));
    const std::vector<std::string> events = backend.events();
    EXPECT_EQ(std::count(events.begin(), events.end(), std::string("step ends")), 1)
        << "steps owed ran after the stop";
}

// Issue 33, item 7: trail points are sampled after each step on the simulation thread, by model
// time, so their spacing does not depend on how many frames the window drew: 40 steps granted as
// one frame or as 40 frames give the same points.
TEST(SimulationThread, TrailPointsAreSpacedInModelTimeWhateverTheFrames) {
    const StepParams params{1.0 / 128, 0.0};
    std::vector<std::vector<double>> runs;
    for (int frames : {1, 40}) {
        SleepyBackend backend(0ms);
        backend.load(bodies(3));
        TrailSampler sampler;
        sampler.set_interval(5.0 / 128);
        SimulationThread thread(backend, {}, [&](const State& s) { sampler.record(s.time, s.pos_mass); });
        for (int f = 0; f < frames; ++f) thread.run_exactly(40 / frames, params);
        std::vector<double> times;
        for (const TrailPoint& p : sampler.take()) {
            times.push_back(p.time);
            EXPECT_EQ(p.positions.size(), 3u);
            EXPECT_EQ(p.positions[0].x, float(p.time * 128)) << "the positions of that step";
        }
        runs.push_back(times);
    }
    EXPECT_EQ(runs[0], runs[1]);
    ASSERT_EQ(runs[0].size(), 8u);  // after steps 1, 6, 11, ..., 36
    for (std::size_t k = 1; k < runs[0].size(); ++k) EXPECT_EQ(runs[0][k] - runs[0][k - 1], 5.0 / 128) << k;
}

}  // namespace
}  // namespace nbody::app
