#pragma once
// The host backends: direct summation over all pairs, multi-threaded, with data in
// structure-of-arrays form so the inner loop vectorises.
//   ReferenceBackend = DirectSumBackend<double>: positions, velocities and sums in double; the
//                      truth every other backend is tested against.
//   CpuBackend       = DirectSumBackend<float>: fp32 throughout, the backend that runs when there
//                      is no GPU.
// Both run the CPU tree code instead of the direct sum under set_gravity({Gravity::Tree, ...}).

#include <cstddef>
#include <string_view>
#include <vector>

#include "nbody/sim/backend.hpp"
#include "nbody/sim/block_steps.hpp"
#include "nbody/sim/tree/host_tree.hpp"

namespace nbody {

template <class Real>
class DirectSumBackend final : public Backend {
public:
    std::string_view name() const override;
    void load(const State& state) override;
    void store(State& state) const override;
    std::size_t size() const override { return x_.size(); }
    void step(const StepParams& params, int count = 1) override;
    std::vector<Vec3d> accelerations(double softening) override;
    double time() const override { return time_; }
    // Only the reference backend (double) has a precise state; the cpu backend's is its floats.
    std::optional<PreciseState> store_precise() const override;
    void load_precise(const State& state, const PreciseState& precise) override;
    std::optional<std::size_t> first_non_finite() const override;  // scans its own arrays

    // --gravity tree runs the CPU tree code (tree/host_tree.hpp) in this backend's precision.
    void set_gravity(const GravityConfig& config) override;
    GravityConfig gravity() const override { return gravity_; }
    // What the last tree force pass did (zeros under direct gravity).
    const tree::TreeStats& last_tree_stats() const { return tree_stats_; }
    // Under --gravity tree: the CPU tree's potential walk (tree_potential_energy in host_tree.hpp)
    // in this backend's precision. When the accelerations of these positions are not there yet
    // (before the first step), one walk computes both (tree_accelerations_and_potentials).
    std::optional<double> tree_potential_energy(double softening) override;

    // Block time steps (block_steps.hpp) with the CPU tree's active-body walk; step() refuses them
    // under direct gravity. Shared steps stay the default.
    void set_time_steps(const TimeStepConfig& config) override;
    TimeStepConfig time_steps() const override { return time_steps_; }
    std::optional<ForceWork> force_work() const override { return work_; }
    // Each body's level in the last step of dt_max (empty under shared steps).
    const std::vector<std::uint8_t>& levels() const { return stepper_.levels(); }

    // Full-precision access, for tests such as time reversibility that float storage would spoil.
    std::vector<Vec3d> positions() const;
    std::vector<Vec3d> velocities() const;
    void reverse_velocities();

private:
    void compute_accelerations(Real eps2);
    void block_step(const StepParams& params);
    void check_block_steps(double softening) const;  // throws what block steps cannot run with

    std::vector<Real> x_, y_, z_, m_, vx_, vy_, vz_, ax_, ay_, az_;
    double time_ = 0;
    double acc_softening_ = -1;
    // The accelerations held are this solver's of these bodies (at whatever softening): what the
    // tree's relative criterion measures a pass by.
    bool have_accelerations() const { return acc_softening_ >= 0; }
    GravityConfig gravity_;
    tree::TreeStats tree_stats_;  // softening the stored accelerations belong to; -1: none yet
    TimeStepConfig time_steps_;
    BlockStepper<Real> stepper_;
    ForceWork work_;  // since load()
};

// The pieces of the host leapfrog step, shared by DirectSumBackend and the distributed backend
// (comm/distributed_direct_backend.hpp) so that a body's force and update are the same
// instructions on one rank and on P: a P-rank run is bit for bit a one-rank run.
//
// Accelerations of bodies [i_begin, i_end) from all n bodies (a body skips itself), written to
// ax[0 .. i_end - i_begin), on the shared thread pool. A body's sum does not depend on the range
// it is computed in.
template <class Real>
void direct_sum_accelerations(const Real* x, const Real* y, const Real* z, const Real* m, std::size_t n,
                              std::size_t i_begin, std::size_t i_end, Real eps2, Real* ax, Real* ay, Real* az);
// v += a dt/2 for n bodies.
template <class Real>
void leapfrog_kick(Real* vx, Real* vy, Real* vz, const Real* ax, const Real* ay, const Real* az, std::size_t n,
                   Real half_dt);
// x += v dt for n bodies.
template <class Real>
void leapfrog_drift(Real* x, Real* y, Real* z, const Real* vx, const Real* vy, const Real* vz, std::size_t n, Real dt);

using ReferenceBackend = DirectSumBackend<double>;
using CpuBackend = DirectSumBackend<float>;

extern template class DirectSumBackend<double>;
extern template class DirectSumBackend<float>;

}  // namespace nbody
