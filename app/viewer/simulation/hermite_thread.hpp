#pragma once
// Hermite's block steps beside the frame loop (issue 33: a window that never waits, on any
// backend). In the loop, a frame gave the block steps 30 ms and then drew; one block of a few
// thousand bodies on two cores, or a synchronising block of every body, froze the window for its
// whole length. Here the run steps on its own thread and the window draws what it published last.
//
//   frame loop (UI thread)                           Hermite thread
//   play_to(t) ── the model time wanted ───────────> block steps toward it, in runs of about a frame
//   post(job)  ── queue ───────────────────────────> runs it between two runs (an energy sum, the N key)
//   take()     <── newest state and figures ──────── published after every run and job (a swap)
//   park()     ── the run is the caller's until the guard ends (settings, a save, leapfrog again)
//
// No lock is held across a run of blocks: the mutex guards the target, the queue and the
// published slot. A run of blocks that throws (a pair at zero separation, a step underflow) keeps
// its last completed block, which is published with the reason; the thread then waits for a new
// target.

#include <chrono>
#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <utility>

#include "nbody/sim/state.hpp"
#include "viewer_hermite.hpp"

namespace nbody::app {

class HermiteThread {
  public:
    // On the thread: block steps toward model time `t` for about `budget_s` of wall clock (one
    // block at least). Throws for bad input, the run keeping its last completed block.
    using Advance = std::function<HermiteFrame(double t, double budget_s)>;
    // On the thread, after each run and job: the state to show (positions, velocities, time; the
    // labels are the frame loop's) and the panels' figures, the block steps given being `frame`.
    using Publish = std::function<void(State& state, HermiteSummary& summary, const HermiteFrame& frame)>;
    // On the thread between two runs; what it throws reaches take() as the error.
    using Job = std::function<void()>;

    // How long one run of blocks goes on before its state is published: about a display frame,
    // so that the window shows the bodies move at its rate while the blocks are short.
    static constexpr double kRunSeconds = 1.0 / 60.0;

    // `now`: the run's model time, where stepping starts from. Starts the thread.
    HermiteThread(double now, Advance advance, Publish publish);
    ~HermiteThread();  // after the run of blocks (or the job) in progress
    HermiteThread(const HermiteThread&) = delete;
    HermiteThread& operator=(const HermiteThread&) = delete;

    // Steps toward model time `t` from now on (a lower t than reached: no more steps).
    void play_to(double t);
    // No run of blocks after the one in progress.
    void hold();
    // `job` runs between two runs of blocks, then its state is published. `what` names it for
    // the window while it runs.
    void post(Job job, std::string what);

    // What was published since the last take: the state swapped into `state` (its labels left as
    // they are) and the figures copied into `summary`, the block steps summed since the last take.
    struct Taken {
        bool fresh = false;
        std::string error;  // a run or a job threw: stepping stopped with this reason
    };
    Taken take(State& state, HermiteSummary& summary);
    // The model time of the newest published state (taken or not).
    double published_time() const;

    // While a Parked lives the thread runs nothing: the run (ViewerHermite) is the caller's. When
    // the last one goes, the thread publishes the run as the caller left it.
    class Parked {
      public:
        explicit Parked(HermiteThread* t) : t_(t) {}
        Parked(Parked&& o) noexcept : t_(std::exchange(o.t_, nullptr)) {}
        Parked& operator=(Parked&&) = delete;
        ~Parked();

      private:
        HermiteThread* t_;
    };
    // Waits for the run of blocks in progress and the jobs posted (not for the target).
    [[nodiscard]] Parked park();
    // After a stop: no run after the one in progress, waited for at most `patience`. False when it
    // still runs (the caller may end the process rather than wait).
    bool settle_within(std::chrono::milliseconds patience);

    struct Activity {
        std::string what;
        double seconds = 0;
    };
    std::optional<Activity> activity() const;  // none when idle

  private:
    struct Posted {
        Job job;
        std::string what;
    };
    void loop();
    bool has_work() const;  // lock held
    void run(std::unique_lock<std::mutex>& lock, const Posted* posted);
    void unpark();

    const Advance advance_;
    const Publish publish_;

    mutable std::mutex mutex_;
    std::condition_variable wake_;     // work for the thread, or a park ended
    std::condition_variable settled_;  // a run or a job finished
    std::deque<Posted> jobs_;
    double target_, reached_;
    int parked_ = 0;      // parks asked for: no run of blocks starts
    bool held_ = false;   // a park granted: nothing runs at all
    bool busy_ = false, stopping_ = false;
    std::string busy_what_;
    std::chrono::steady_clock::time_point busy_since_;

    // The published slot, and the thread's own state swapped into it.
    State latest_, scratch_;
    HermiteSummary summary_;
    HermiteFrame untaken_;  // block steps since the last take
    bool fresh_ = false;
    std::string error_;

    std::thread thread_;  // last: started once everything above exists
};

}  // namespace nbody::app
