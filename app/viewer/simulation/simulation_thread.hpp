#pragma once
// The simulation beside the frame loop (issue 33): a host backend stepped on its own thread, so
// that the window, the camera and the panels run at the display's rate whatever a step costs.
//
//   frame loop (UI thread)                         simulation thread
//   grant(steps)  ── credit ──────────────────────> takes one step at a time while credit lasts
//   post(task) / load(state) ── queue ───────────> runs them between two steps (never during one)
//   take_latest() <── newest complete state ───── published after every step (a swap, no copy)
//   finish_tasks() <── task outcomes ───────────── the UI's callbacks run on the UI thread
//
// No lock is held across a step or a task: the mutex guards only the queue, the credit and the
// published slot. The backend belongs to the thread from construction to destruction; the UI
// reads what was published (the state, the gravity solver, the tree's timings).
//
// On the GPU (the cuda backend with CUDA-GL interop) the same thread steps the backend, and a
// Publish hook replaces the host hand-over: it copies each step's positions into a device slot
// (render::PublishedPositions), and the frame loop, told by take_fresh() that one is newer,
// copies that slot into its vertex buffer. No host copy, and no wait on either side.

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "nbody/sim/backend.hpp"
#include "nbody/sim/gravity.hpp"
#include "nbody/sim/state.hpp"

namespace nbody::app {

class SimulationThread {
  public:
    // Runs on the simulation thread between steps; returns text for the UI (may be empty).
    // What it throws becomes the outcome's error.
    using Task = std::function<std::string(Backend&)>;
    struct Outcome {
        std::string text, error;
    };
    // Runs on the UI thread, in finish_tasks().
    using Done = std::function<void(const Outcome&)>;
    // Read on the simulation thread after each step, for the UI: the tree's timings, say, and
    // the interactions the step really computed (0: not counted), for honest rates.
    struct StepNote {
        std::string text;
        double interactions = 0;
        std::string gpus;  // the shares of several GPUs (CudaBackend::describe), when there are
    };
    using Describe = std::function<StepNote(const Backend&)>;
    // Run on the simulation thread with each step's complete state, before it is published: the
    // trail points and cluster radii sampled by model time (issue 33), not by frames.
    using AfterStep = std::function<void(const State&)>;

    // Replaces the host hand-over (store() into a State, swapped under the lock) after each
    // step: hands the backend's state over some other way (device slots). Simulation thread.
    using Publish = std::function<void(Backend&)>;
    // Runs first on the simulation thread (a CUDA device made current there).
    using Start = std::function<void()>;

    // What the simulation did since the last take_latest().
    struct Progress {
        int steps = 0;
        double step_seconds = 0;  // wall clock of those steps
        std::string error;        // a step threw: stepping stopped (credit cleared) with this reason
    };

    // Starts the thread; from now on only it touches `backend` (which must outlive this object).
    SimulationThread(Backend& backend, Describe describe = {}, AfterStep after_step = {}, Publish publish = {},
                     Start start = {});
    ~SimulationThread();  // after the step in progress
    SimulationThread(const SimulationThread&) = delete;
    SimulationThread& operator=(const SimulationThread&) = delete;

    // Allows `steps` more steps with `params` (taking effect from the next step), keeping at most
    // `most_pending` steps owed: a slow simulation is not handed a growing backlog.
    void grant(int steps, const StepParams& params, int most_pending);
    // No step after the one in progress (pause).
    void hold();
    // `task` runs between two steps; `done` then runs in the next finish_tasks(). `what` names it
    // for the window while it runs ("estimating the force error").
    void post(Task task, Done done = {}, std::string what = "");
    // Replaces the system between two steps; states published before it are never taken again.
    void load(const State& state);
    // Exactly `steps` steps after everything posted so far, then returns with the state reached
    // published (recording: a frame is taken after exactly its steps). Waits for them, polling
    // `give_up` (a stop signal) every few milliseconds: once it says so, returns false at once,
    // the steps still owed dropped and the step in progress left to end on its own.
    bool run_exactly(int steps, const StepParams& params, const std::function<bool()>& give_up = {});
    // No step after the one in progress; waits at most `patience` for it (and a task running) to
    // end. False when it is still running: the caller may end the process rather than wait.
    bool settle_within(std::chrono::milliseconds patience);
    // The step or task in progress, about to be abandoned, gives its cores to what the caller has
    // left to do: this thread and the CPU backends' workers drop to the lowest priority.
    void yield_cores();

    // Swaps the newest published state into `state` (positions, masses, velocities, time; the
    // labels are left as they are) when there is one newer than the last taken. Never waits for
    // a step.
    bool take_latest(State& state);
    // With a Publish hook: whether a step of the current system was published since the last
    // call (its state is where the hook put it). Never waits for a step.
    bool take_fresh();
    Progress take_progress();
    // Runs the `done` callbacks of the tasks finished since the last call, on the caller's thread.
    void finish_tasks();

    GravityConfig gravity() const;
    StepNote description() const;  // Describe's note after the newest step
    bool idle() const;                // no step or task running or owed
    // What the thread is doing now ("step", or a task's `what`) and for how long; none when idle.
    struct Activity {
        std::string what;
        double seconds = 0;
    };
    std::optional<Activity> activity() const;

  private:
    // Waits (lock held) until `ready`, or `give_up` says so (polled): false then.
    template <class Ready>
    bool wait_unless(std::unique_lock<std::mutex>& lock, Ready ready, const std::function<bool()>& give_up);

    struct Job {
        Task task;
        Done done;
        bool is_load = false;
        std::string what;
    };
    void loop();
    void run_job(Job& job, std::unique_lock<std::mutex>& lock);
    void run_step(std::unique_lock<std::mutex>& lock);

    Backend& backend_;
    const Describe describe_;
    const AfterStep after_step_;
    const Publish publish_;
    const Start start_;

    mutable std::mutex mutex_;
    std::condition_variable wake_;     // work for the thread
    std::condition_variable settled_;  // a step or a task finished
    std::deque<Job> jobs_;
    std::vector<std::pair<Done, Outcome>> finished_;
    int credit_ = 0;
    StepParams params_;
    bool busy_ = false, stopping_ = false;
    std::string busy_what_;
    std::chrono::steady_clock::time_point busy_since_;
    long long loads_posted_ = 0, loads_done_ = 0;
    // The published slot: the newest complete state, and the load it belongs to.
    State latest_;
    long long latest_load_ = 0;
    bool latest_fresh_ = false;
    Progress progress_;
    GravityConfig gravity_;
    StepNote description_;

    State scratch_;  // the simulation thread's: stored into, then swapped with latest_
    std::atomic<int> tid_{0};  // the simulation thread's kernel id, once it runs
    std::thread thread_;  // last: started once everything above exists
};

}  // namespace nbody::app
