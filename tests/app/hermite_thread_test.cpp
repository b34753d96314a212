// Hermite's block steps beside the frame loop (issue 33: a window that never waits, on any
// backend). A run whose blocks sleep stands for a slow Hermite run (a synchronising block of
// thousands of bodies on two cores); the "frame loop" is the test's own loop, which must never
// wait for a block.

#include "hermite_thread.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "test_support.hpp"

namespace nbody::app {
namespace {

using Clock = std::chrono::steady_clock;
using namespace std::chrono_literals;

// Blocks of `block_dt` model time, each sleeping `block_time`; body 0 sits at x = the model time.
// Throws in the block that would pass `fails_after`. Logs what happened, in order.
class SleepyRun : public test::EventLog {
  public:
    SleepyRun(std::chrono::milliseconds block_time, double block_dt = 0.125)
        : block_time_(block_time), block_dt_(block_dt) {}

    HermiteFrame advance(double t, double budget_s) {
        const auto start = Clock::now();
        HermiteFrame f;
        while (time_ + block_dt_ <= t) {
            log("block begins");
            std::this_thread::sleep_for(block_time_);
            if (time_ + block_dt_ > fails_after) throw std::runtime_error("the sleepy run fails on purpose");
            time_ += block_dt_;
            ++f.blocks;
            f.evaluations += 10;
            log("block ends");
            if (std::chrono::duration<double>(Clock::now() - start).count() > budget_s && time_ + block_dt_ <= t) {
                f.reached = false;
                break;
            }
        }
        f.seconds = std::chrono::duration<double>(Clock::now() - start).count();
        return f;
    }
    void publish(State& state, HermiteSummary& summary, const HermiteFrame& frame) const {
        state.resize(1);
        state.pos_mass[0] = {float(time_), marker, 0.0f, 1.0f};
        state.time = time_;
        summary.time = time_;
        summary.frame = frame;
        summary.bodies = 1;
    }
    HermiteThread start() {
        return HermiteThread(
            0.0, [this](double t, double budget_s) { return advance(t, budget_s); },
            [this](State& s, HermiteSummary& sum, const HermiteFrame& f) { publish(s, sum, f); });
    }

    double time() const { return time_; }

    float marker = 0;  // set by the test while the run is parked
    double fails_after = 1e30;

  private:
    std::chrono::milliseconds block_time_;
    double block_dt_;
    std::atomic<double> time_{0};
};

using test::wait_for;

double ms_since(Clock::time_point t) { return std::chrono::duration<double, std::milli>(Clock::now() - t).count(); }

TEST(HermiteThread, FrameLoopKeepsDrawingWhileASlowBlockRuns) {
    SleepyRun run(400ms);
    auto thread = run.start();
    State shown;
    HermiteSummary summary;
    thread.play_to(1.0);
    double slowest_ms = 0;
    int frames = 0, fresh = 0;
    const auto start = Clock::now();
    while (Clock::now() - start < 300ms) {
        const auto t = Clock::now();
        fresh += thread.take(shown, summary).fresh ? 1 : 0;
        thread.play_to(1.0);
        slowest_ms = std::max(slowest_ms, ms_since(t));
        ++frames;
        std::this_thread::sleep_for(5ms);
    }
    EXPECT_GT(frames, 30);
    EXPECT_EQ(fresh, 0) << "a state was published before its block completed";
    EXPECT_LT(slowest_ms, 50.0) << "the frame loop waited for the block";
    ASSERT_TRUE(wait_for([&] { return thread.take(shown, summary).fresh; }));
    EXPECT_EQ(shown.time, 0.125) << "the state after the first block is shown";
    EXPECT_EQ(shown.pos_mass[0].x, 0.125f);
    EXPECT_EQ(summary.frame.blocks, 1u);
}

TEST(HermiteThread, StepsToTheTimeAskedForAndNoFurther) {
    SleepyRun run(1ms);
    auto thread = run.start();
    State shown;
    HermiteSummary summary;
    thread.play_to(0.5);
    ASSERT_TRUE(wait_for([&] {
        thread.take(shown, summary);
        return shown.time == 0.5;
    }));
    std::this_thread::sleep_for(50ms);
    EXPECT_EQ(run.time(), 0.5) << "stepped past the time asked for";
    EXPECT_FALSE(thread.activity().has_value());
    thread.play_to(1.0);
    ASSERT_TRUE(wait_for([&] {
        thread.take(shown, summary);
        return shown.time == 1.0;
    }));
}

TEST(HermiteThread, BlockStepsTakenBetweenTwoFramesAreAllCounted) {
    SleepyRun run(2ms, 1.0 / 1024);
    auto thread = run.start();
    State shown;
    HermiteSummary summary;
    thread.play_to(0.25);  // 256 blocks, several runs of about a frame
    std::uint64_t blocks = 0, evaluations = 0;
    ASSERT_TRUE(wait_for([&] {
        if (thread.take(shown, summary).fresh) blocks += summary.frame.blocks, evaluations += summary.frame.evaluations;
        return shown.time == 0.25;
    }));
    EXPECT_EQ(blocks, 256u);
    EXPECT_EQ(evaluations, 2560u);
}

TEST(HermiteThread, ParkWaitsForTheBlockThenHoldsTheRunAndShowsWhatWasDoneToIt) {
    SleepyRun run(100ms);
    auto thread = run.start();
    State shown;
    HermiteSummary summary;
    thread.play_to(100.0);
    ASSERT_TRUE(wait_for([&] { return thread.activity().has_value(); }));
    {
        const auto parked = thread.park();
        const std::vector<std::string> events = run.events();
        ASSERT_FALSE(events.empty());
        EXPECT_EQ(events.back(), "block ends") << "parked during a block";
        const double held_at = run.time();
        std::this_thread::sleep_for(250ms);
        EXPECT_EQ(run.time(), held_at) << "a block ran while the run was parked";
        run.marker = 7;  // the caller's change (new settings, say)
        thread.hold();   // and nothing more to step
    }
    ASSERT_TRUE(wait_for([&] {
        thread.take(shown, summary);
        return shown.pos_mass.size() == 1 && shown.pos_mass[0].y == 7.0f;
    })) << "the run as the caller left it was not published";
}

TEST(HermiteThread, JobsRunBetweenBlocks) {
    SleepyRun run(100ms);
    auto thread = run.start();
    thread.play_to(0.25);
    ASSERT_TRUE(wait_for([&] { return thread.activity().has_value(); }));
    std::atomic<bool> done{false};
    thread.post(
        [&] {
            run.log("job");
            done = true;
        },
        "a job");
    ASSERT_TRUE(wait_for([&] { return done.load(); }));
    const std::vector<std::string> events = run.events();
    const auto job = std::find(events.begin(), events.end(), "job");
    ASSERT_NE(job, events.begin());
    EXPECT_EQ(*(job - 1), "block ends") << "the job ran during a block";
}

TEST(HermiteThread, AFailedBlockStopsSteppingWithTheReasonAndTheLastGoodState) {
    SleepyRun run(1ms);
    run.fails_after = 0.3;
    auto thread = run.start();
    State shown;
    HermiteSummary summary;
    thread.play_to(1.0);
    HermiteThread::Taken taken;
    ASSERT_TRUE(wait_for([&] {
        taken = thread.take(shown, summary);
        return !taken.error.empty();
    }));
    EXPECT_NE(taken.error.find("fails on purpose"), std::string::npos) << taken.error;
    EXPECT_EQ(shown.time, 0.25) << "not the last completed block";
    std::this_thread::sleep_for(30ms);
    EXPECT_FALSE(thread.activity().has_value()) << "stepping went on after the failure";
    EXPECT_TRUE(thread.take(shown, summary).error.empty()) << "the reason is given once";
}

TEST(HermiteThread, AStopDoesNotWaitForALongBlock) {
    SleepyRun run(1500ms);
    auto thread = run.start();
    thread.play_to(1.0);
    ASSERT_TRUE(wait_for([&] { return thread.activity().has_value(); }));
    const auto start = Clock::now();
    EXPECT_FALSE(thread.settle_within(100ms));
    EXPECT_LT(ms_since(start), 500.0);
    EXPECT_EQ(thread.activity()->what, "block steps");
}

}  // namespace
}  // namespace nbody::app
