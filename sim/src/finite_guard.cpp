#include "nbody/sim/finite_guard.hpp"

#include <cmath>
#include <stdexcept>

namespace nbody {

std::optional<std::size_t> Backend::first_non_finite() const {
    State s;
    store(s);
    return nbody::first_non_finite(s);
}

Checkpoint take_checkpoint(const Backend& backend, const State& labels, long long step) {
    Checkpoint c;
    c.state = labels;
    backend.store(c.state);
    c.precise = backend.store_precise();
    c.step = step;
    return c;
}

void restore_checkpoint(Backend& backend, const Checkpoint& checkpoint) {
    if (checkpoint.precise)
        backend.load_precise(checkpoint.state, *checkpoint.precise);
    else
        backend.load(checkpoint.state);
}

std::string NonFiniteEvent::describe(long long total_steps) const {
    std::string s = "body " + std::to_string(body) + " became non-finite (NaN or Inf) at step " + std::to_string(step);
    if (total_steps > 0) s += " of " + std::to_string(total_steps);
    return s;
}

std::optional<std::size_t> first_non_finite(const State& state) {
    for (std::size_t i = 0; i < state.size(); ++i) {
        const Vec4f& p = state.pos_mass[i];
        const Vec4f& v = state.velocity[i];
        if (!std::isfinite(p.x) || !std::isfinite(p.y) || !std::isfinite(p.z) || !std::isfinite(p.w) ||
            !std::isfinite(v.x) || !std::isfinite(v.y) || !std::isfinite(v.z))
            return i;
    }
    return std::nullopt;
}

GuardedRun::GuardedRun(Backend& backend, const State& labels, const StepParams& params, long long first_step)
    : backend_(backend), labels_(labels), params_(params), step_(first_step) {
    fallback_ = take_checkpoint(backend_, labels_, step_);
}

void GuardedRun::checkpoint() { fallback_ = take_checkpoint(backend_, labels_, step_); }

bool GuardedRun::advance(int count) {
    if (event_) throw std::logic_error("GuardedRun::advance() after the state became non-finite");
    if (count <= 0) return true;
    backend_.step(params_, count);
    if (!backend_.first_non_finite()) {
        step_ += count;
        return true;
    }
    // Replay from the fallback, one checked step at a time, keeping the state before each step.
    const long long bad_by = step_ + count;
    restore_checkpoint(backend_, fallback_);
    Checkpoint before = fallback_;
    for (long long s = fallback_.step + 1; s <= bad_by; ++s) {
        backend_.step(params_, 1);
        if (const std::optional<std::size_t> body = backend_.first_non_finite()) {
            event_ = NonFiniteEvent{s, *body};
            restore_checkpoint(backend_, before);
            step_ = before.step;
            fallback_ = std::move(before);
            return false;
        }
        before = take_checkpoint(backend_, labels_, s);
    }
    // The replay stayed finite (a backend that does not step deterministically): go on from it.
    step_ = bad_by;
    return true;
}

}  // namespace nbody
