// The meeting that the threads driving the GPUs of one process hold before each collective
// (sim/cuda/peer_meeting.hpp): plain C++, so it is tested here, on CI's machine without a GPU, with
// threads standing in for the GPUs. A hang fails the test by its own deadline.

#include <gtest/gtest.h>

#include <chrono>
#include <functional>
#include <future>
#include <thread>
#include <vector>

#include "../../sim/cuda/peer_meeting.hpp"
#include "test_support.hpp"

namespace nbody::cuda {
namespace {

constexpr int kThreads = 4, kRounds = 50;

// Runs role(t) for t = 0 .. kThreads-1 each on a thread of its own and returns what each returned;
// the test process ends with a message if they are not all done within 20 s (a hang).
std::vector<int> on_threads(const std::function<int(int)>& role) {
    std::vector<std::future<int>> running;
    for (int t = 0; t < kThreads; ++t) running.push_back(std::async(std::launch::async, role, t));
    std::vector<int> out;
    for (std::future<int>& f : running) out.push_back(test::get_within(f, std::chrono::seconds(20), "a thread of a meeting"));
    return out;
}

// The rounds a thread goes through: meet, then the "collective"; it stops at a meeting whose verdict
// is no. Returns the round it stopped at (kRounds: all of them).
int rounds_until_stopped(PeerMeeting& meeting) {
    for (int round = 0; round < kRounds; ++round)
        if (!meeting.meet()) return round;
    return kRounds;
}

TEST(PeerMeeting, AThreadThatFailsBeforeAMeetingStopsEveryOtherThreadThere) {
    for (int failing = 0; failing < kThreads; ++failing) {
        PeerMeeting meeting(kThreads);
        const std::vector<int> stopped = on_threads([&](int t) {
            int round = kRounds;
            if (t == failing) {
                for (round = 0; round < 10; ++round) EXPECT_TRUE(meeting.meet());
                meeting.fail();  // as a refused allocation before the collective of round 10
            } else {
                round = rounds_until_stopped(meeting);
            }
            meeting.leave();
            return round;
        });
        for (int t = 0; t < kThreads; ++t) EXPECT_EQ(stopped[std::size_t(t)], 10) << "thread " << t << ", failing " << failing;
    }
}

TEST(PeerMeeting, AFailureAfterAMeetingStopsTheOthersAtTheNextOne) {
    PeerMeeting meeting(kThreads);
    const std::vector<int> stopped = on_threads([&](int t) {
        int round = kRounds;
        if (t == 1) {
            for (round = 0; round <= 10; ++round) EXPECT_TRUE(meeting.meet());
            meeting.fail();  // after queueing its part of round 10's collective: the others finish it
        } else {
            round = rounds_until_stopped(meeting);
        }
        meeting.leave();
        return round;
    });
    EXPECT_EQ(stopped, (std::vector<int>{11, 11, 11, 11}));
}

TEST(PeerMeeting, AThreadThatIsDoneHoldsNobodyBack) {
    PeerMeeting meeting(kThreads);
    const std::vector<int> finished = on_threads([&](int t) {
        int round = 0;
        const int last = t == 3 ? 5 : kRounds;  // thread 3 has fewer rounds and leaves early
        while (round < last && meeting.meet()) ++round;
        meeting.leave();
        return round;
    });
    EXPECT_EQ(finished, (std::vector<int>{kRounds, kRounds, kRounds, 5}));
}

}  // namespace
}  // namespace nbody::cuda
