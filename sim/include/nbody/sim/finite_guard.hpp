#pragma once
// The NaN/Inf guard of the integrator loops. A run that blows up (two bodies at one point with no
// softening, a time step of 1e300) must stop at the first non-finite state, say at which step and
// which body, and keep the last finite state, instead of writing a file of `nan` that nothing can
// read.
//
// Cost: the check is Backend::first_non_finite() (a device reduction on the cuda backend, a scan
// on the host ones: O(N) against the step's O(N^2)), made after every batch of steps. Keeping a
// fallback state copies it to the host, so GuardedRun does that only when asked (checkpoint(),
// every few seconds). When a check fails, the run goes back to the last checkpoint and replays
// one step at a time (stepping is deterministic, so the replay retraces the same states) to find
// the first non-finite step, and ends on the state just before it.

#include <cstddef>
#include <optional>
#include <string>

#include "nbody/sim/backend.hpp"
#include "nbody/sim/state.hpp"

namespace nbody {

// A state and the step number it was reached at, with the double state where the backend has one.
struct Checkpoint {
    State state;  // labels (galaxy, component) included
    std::optional<PreciseState> precise;
    long long step = 0;
};

// Copies the backend's state (labels from `labels`, same N).
Checkpoint take_checkpoint(const Backend& backend, const State& labels, long long step);
// Loads `checkpoint` into the backend (its double state where it has one).
void restore_checkpoint(Backend& backend, const Checkpoint& checkpoint);

// Where the state first became non-finite: the step that produced it (counted from the run's
// start, 1-based) and the first such body.
struct NonFiniteEvent {
    long long step = 0;
    std::size_t body = 0;
    std::string describe(long long total_steps) const;  // "body 17 became non-finite at step 1201 of 5000"
};

// The first body of `state` with a non-finite coordinate, mass or velocity component.
std::optional<std::size_t> first_non_finite(const State& state);

class GuardedRun {
  public:
    // `backend` holds the initial state (finite: State::validate()), at step `first_step`.
    GuardedRun(Backend& backend, const State& labels, const StepParams& params, long long first_step = 0);

    // Takes `count` steps and checks the state. Returns true when it is finite; else false, with
    // the backend on the last finite state (step() says which) and event() saying what happened.
    bool advance(int count);
    // Keeps the current (checked) state as the fallback. Costs a copy to the host.
    void checkpoint();

    long long step() const { return step_; }
    const std::optional<NonFiniteEvent>& event() const { return event_; }

  private:
    Backend& backend_;
    const State& labels_;
    StepParams params_;
    long long step_;
    Checkpoint fallback_;
    std::optional<NonFiniteEvent> event_;
};

}  // namespace nbody
