// Block time steps on the host (block_steps.hpp). Cost per tick: O(N) for the predictions and the
// active list, plus the force solver's pass for the active bodies (on the CPU tree: a tree over
// all N, walked only by the groups that hold an active body).

#include "nbody/sim/block_steps.hpp"

#include <cmath>

namespace nbody {
namespace {

template <class Real>
double acceleration_norm(const BodyArrays<Real>& b, std::size_t i) {
    return nbody::acceleration_norm(b.ax[i], b.ay[i], b.az[i]);  // time_steps.hpp: the GPU stepper's too
}

}  // namespace

template <class Real>
void BlockStepper<Real>::half_kick(const BodyArrays<Real>& b, std::size_t i, double tick_dt) const {
    // Real(0.5 dt_i) is Real(0.5) * Real(dt) of the shared step for dt_i = dt_max (a power of two
    // scales exactly), so a run with every body at level 0 is the shared leapfrog bit for bit.
    const Real half = Real(0.5 * double(schedule_.step_ticks(level_[i])) * tick_dt);
    b.vx[i] += b.ax[i] * half, b.vy[i] += b.ay[i] * half, b.vz[i] += b.az[i] * half;
}

template <class Real>
void BlockStepper<Real>::start_step(const BodyArrays<Real>& b, std::size_t i, int level, double tick_dt) {
    level_[i] = static_cast<std::uint8_t>(level);
    half_kick(b, i, tick_dt);
}

template <class Real>
std::uint64_t BlockStepper<Real>::next_event(std::uint64_t tick) const {
    return schedule_.next_event(tick, per_level_.data());
}

template <class Real>
void BlockStepper<Real>::predict_and_list(const BodyArrays<Real>& b, std::uint64_t tick, double tick_dt) {
    // The drift since a body's step started depends on its level alone: one Real per level.
    const int levels = schedule_.max_level() + 1;
    std::vector<Real> drift(levels);
    std::vector<bool> ends(levels);
    for (int k = 0; k < levels; ++k) {
        drift[k] = Real(double(tick - schedule_.step_start(k, tick)) * tick_dt);
        ends[k] = schedule_.boundary(k, tick);
    }
    active_.clear();
    for (std::size_t i = 0; i < b.n; ++i) {
        const Real d = drift[level_[i]];
        px_[i] = b.x[i] + b.vx[i] * d, py_[i] = b.y[i] + b.vy[i] * d, pz_[i] = b.z[i] + b.vz[i] * d;
        if (!ends[level_[i]]) continue;
        active_.push_back(static_cast<std::uint32_t>(i));
        b.x[i] = px_[i], b.y[i] = py_[i], b.z[i] = pz_[i];
    }
}

template <class Real>
void BlockStepper<Real>::step(const BodyArrays<Real>& b, double dt_max, double softening,
                              const TimeStepConfig& config, ActiveForces<Real>& forces, ForceWork& work) {
    schedule_ = BlockSchedule(config.max_level);
    const double tick_dt = dt_max / double(schedule_.ticks_per_step());
    const Real eps2 = Real(softening) * Real(softening);
    level_.resize(b.n);
    px_.resize(b.n), py_.resize(b.n), pz_.resize(b.n);
    auto wanted = [&](std::size_t i) {
        bool clamped = false;
        const int k = schedule_.wanted_level(acceleration_norm(b, i), softening, config.eta, dt_max, &clamped);
        work.clamped += clamped;
        return k;
    };
    per_level_.assign(config.max_level + 1, 0);
    for (std::size_t i = 0; i < b.n; ++i) {
        start_step(b, i, wanted(i), tick_dt);
        ++per_level_[level_[i]];
    }
    work.level_counts = per_level_;  // the levels this step starts with (all free to choose)
    const std::uint64_t end = schedule_.ticks_per_step();
    for (std::uint64_t tick = 0; tick < end;) {
        tick = next_event(tick);
        predict_and_list(b, tick, tick_dt);
        forces.accelerations(px_.data(), py_.data(), pz_.data(), b.m, b.n, active_.data(), active_.size(), eps2, b.ax,
                             b.ay, b.az);
        for (std::uint32_t i : active_) half_kick(b, i, tick_dt);  // closes the step that ends here
        if (tick == end) break;  // every body is at a boundary: synchronised
        for (std::uint32_t i : active_) {
            --per_level_[level_[i]];
            start_step(b, i, schedule_.next_level(level_[i], wanted(i), tick), tick_dt);
            ++per_level_[level_[i]];
        }
    }
}

template class BlockStepper<float>;
template class BlockStepper<double>;

}  // namespace nbody
