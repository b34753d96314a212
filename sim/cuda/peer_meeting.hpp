#pragma once
// Where the host threads that drive the GPUs of one process (a thread per GPU) meet before they
// queue a collective, so that one that fails never leaves the others waiting in it for good: an NCCL
// collective (and the PeerGate before it) waits on the GPU for every GPU's part, and a thread that
// threw before queueing its part would leave the others' streams stuck, their threads in the next
// wait, and the process in a hang.
//
// A failing thread calls fail() and then leave(); so does a thread that is done (leave() only).
// Every thread that meets reads the same verdict: false when some thread failed before that
// meeting, and then none queues the collective. Not covered: a failure inside the collective's own
// call, or a kernel fault on one GPU after its part was queued (only ncclCommAbort undoes those).
// A meeting costs a few microseconds on the host (std::barrier); no GPU waits for it.

#include <atomic>
#include <barrier>
#include <cstddef>
#include <exception>
#include <new>
#include <stdexcept>
#include <string>

namespace nbody::cuda {

// What a thread throws that stopped at a meeting because another failed: not the cause, which the
// failing thread's own exception says.
class StoppedForAPeer : public std::runtime_error {
public:
    StoppedForAPeer() : std::runtime_error("stopped: another GPU's thread failed") {}
};

class PeerMeeting {
public:
    explicit PeerMeeting(std::ptrdiff_t threads) : barrier_(threads, Verdict{this}) {}
    PeerMeeting(const PeerMeeting&) = delete;
    PeerMeeting& operator=(const PeerMeeting&) = delete;

    // Waits for every thread still taking part; true: go on to the collective.
    bool meet() {
        barrier_.arrive_and_wait();
        return !stop_;
    }
    void fail() { failing_ = true; }
    void leave() { barrier_.arrive_and_drop(); }

private:
    struct Verdict {
        PeerMeeting* meeting;
        void operator()() noexcept { meeting->stop_ = meeting->failing_.load(); }
    };
    std::atomic<bool> failing_{false};
    bool stop_ = false;  // written by the barrier's completion, read by every thread after it
    std::barrier<Verdict> barrier_;
};

// One thread's part of a meeting: `task`, whose failure is kept in `failure` and said to the others
// (fail()) before the thread leaves, as it leaves when done.
template <class Task>
void take_part(PeerMeeting& meeting, std::exception_ptr& failure, const Task& task) {
    try {
        task();
    } catch (...) {
        failure = std::current_exception();
        meeting.fail();
    }
    meeting.leave();
}

// What a failure kept by take_part says, for the message that names its GPU.
inline std::string what_of(const std::exception_ptr& failure) {
    try {
        std::rethrow_exception(failure);
    } catch (const std::bad_alloc&) {
        return "out of host memory";
    } catch (const std::exception& e) {
        return e.what();
    } catch (...) {
        return "unknown error";
    }
}

}  // namespace nbody::cuda
