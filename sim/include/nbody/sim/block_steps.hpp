#pragma once
// Block time steps on the host: leapfrog kick-drift-kick per body with power-of-two steps
// (time_steps.hpp), forces only for the bodies whose step ends at a tick.
//
// Per body i of level k (dt_i = dt_max / 2^k), between two of its boundaries t0 and t0 + dt_i:
//   v_i += a_i dt_i / 2 (at t0);  x_i += v_i dt_i;  a_i = F_i(all bodies at t0 + dt_i);  v_i += a_i dt_i / 2
// which is the shared-step leapfrog for that body. Between its boundaries a body is not moved:
// its position for the others' forces (and for the tree) is predicted, x_i + v_i (t - t0), from
// its half-step velocity, exactly where its own drift will put it; so positions are rounded once
// per own step, not once per tick. After a step of dt_max every body is at a boundary.
//
// The force solver is an interface, ActiveForces: given every body's (predicted) position and a
// list of active bodies, the accelerations of those bodies alone. The CPU tree implements it by
// walking only the groups that hold an active body (tree::tree_accelerations_active); a GPU tree
// would implement the same call on device arrays, with BlockSchedule's tick arithmetic shared.

#include <cstddef>
#include <cstdint>
#include <vector>

#include "nbody/sim/time_steps.hpp"

namespace nbody {

// The arrays of a host backend, structure of arrays, n bodies, input order.
template <class Real>
struct BodyArrays {
    Real *x, *y, *z, *m, *vx, *vy, *vz, *ax, *ay, *az;
    std::size_t n;
};

template <class Real>
class ActiveForces {
public:
    virtual ~ActiveForces() = default;
    // Accelerations of the bodies listed in `active` (n_active input indices, ascending) from all
    // n bodies at (x, y, z) with masses m, softening eps2 = eps^2, written to ax[i], ay[i], az[i] for
    // each listed i; the other entries are left as they are.
    virtual void accelerations(const Real* x, const Real* y, const Real* z, const Real* m, std::size_t n,
                               const std::uint32_t* active, std::size_t n_active, Real eps2, Real* ax, Real* ay,
                               Real* az) = 0;
};

template <class Real>
class BlockStepper {
public:
    // One step of dt_max. On entry and on return every body is synchronised and b.ax.. hold the
    // accelerations of b.x.. (the backend's invariant). Levels are chosen afresh at the start (every
    // level starts a step there) and changed at a body's own boundaries (BlockSchedule::next_level).
    // Adds to `work` the levels at the end, and the level choices that were clamped.
    void step(const BodyArrays<Real>& b, double dt_max, double softening, const TimeStepConfig& config,
              ActiveForces<Real>& forces, ForceWork& work);

    // Each body's level in the step just taken (for tests and the report).
    const std::vector<std::uint8_t>& levels() const { return level_; }

private:
    // v_i += a_i dt_i / 2 with body i's level.
    void half_kick(const BodyArrays<Real>& b, std::size_t i, double tick_dt) const;
    // Sets body i's level for the step starting at `tick` and gives it the opening half kick.
    void start_step(const BodyArrays<Real>& b, std::size_t i, int level, double tick_dt);
    // The first tick after `tick` at which some body's step ends.
    std::uint64_t next_event(std::uint64_t tick) const;
    // Predicted positions of every body at `tick`; lists the bodies whose step ends there and moves
    // them (x = the prediction: their drift).
    void predict_and_list(const BodyArrays<Real>& b, std::uint64_t tick, double tick_dt);

    BlockSchedule schedule_{0};
    std::vector<std::uint8_t> level_;
    std::vector<std::uint64_t> per_level_;  // bodies per level
    std::vector<Real> px_, py_, pz_;
    std::vector<std::uint32_t> active_;
};

extern template class BlockStepper<float>;
extern template class BlockStepper<double>;

}  // namespace nbody
