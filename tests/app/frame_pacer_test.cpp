// The pacing of a frame loop beside the simulation (frame_pacer.hpp): a late frame is made up by
// the next ones, so the frame rate is the display's wherever the frames fit on average; a stall
// does not cause a burst.

#include <gtest/gtest.h>

#include <chrono>
#include <vector>

#include "frame_pacer.hpp"

namespace nbody::app {
namespace {

using namespace std::chrono_literals;
using Clock = FramePacer::Clock;

// Runs frames of the given lengths from t = 0; returns each frame's start, in microseconds.
std::vector<long long> frame_starts(const std::vector<std::chrono::microseconds>& work) {
    FramePacer pacer(16667us);
    Clock::time_point now{};
    pacer.start(now);
    std::vector<long long> starts;
    for (const auto w : work) {
        starts.push_back(std::chrono::duration_cast<std::chrono::microseconds>(now.time_since_epoch()).count());
        now += w;
        now = std::max(now, pacer.next_start(now));
    }
    return starts;
}

TEST(FramePacer, FramesThatFitStartOnePeriodApart) {
    const std::vector<long long> starts = frame_starts({10ms, 12ms, 5ms, 16ms});
    EXPECT_EQ(starts, (std::vector<long long>{0, 16667, 33334, 50001}));
}

TEST(FramePacer, ALateFrameIsMadeUpByTheNextOnes) {
    // The second frame runs 4 ms over; the third starts late, the fourth is back on the schedule.
    const std::vector<long long> starts = frame_starts({10ms, 20667us, 8ms, 8ms, 8ms});
    EXPECT_EQ(starts[2], 16667 + 20667);
    EXPECT_EQ(starts[3], 3 * 16667);
    EXPECT_EQ(starts[4], 4 * 16667);
}

TEST(FramePacer, ManyFramesAverageThePeriodDespiteLateOnes) {
    // One frame in five takes 20 ms, the others 12 ms: 13.6 ms on average, under the period.
    std::vector<std::chrono::microseconds> work;
    for (int i = 0; i < 500; ++i) work.push_back(i % 5 == 0 ? 20ms : 12ms);
    const std::vector<long long> starts = frame_starts(work);
    const double mean_period_us = double(starts.back() - starts.front()) / double(starts.size() - 1);
    EXPECT_NEAR(mean_period_us, 16667.0, 1.0);
}

TEST(FramePacer, AStallStartsTheScheduleAgainWithoutABurst) {
    // A 100 ms frame: the next starts when it ends, and the one after a full period later.
    const std::vector<long long> starts = frame_starts({10ms, 100ms, 5ms, 5ms});
    EXPECT_EQ(starts[2], 16667 + 100000);
    EXPECT_EQ(starts[3], 16667 + 100000 + 16667);
}

}  // namespace
}  // namespace nbody::app
