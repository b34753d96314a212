#pragma once
// Fourth-order Hermite predictor-corrector (Makino & Aarseth 1992) with individual block time
// steps, on a ForceEngine. Double precision throughout on the host. The 6th-order scheme of
// Nitadori & Makino (2008) shares the block steps; its differences are listed at the end.
//
// One block step at time t:
//   1. the active bodies are those whose step ends at t (whole levels: see below);
//   2. the engine predicts every j-body to t, the host predicts the active ones the same way;
//   3. the engine returns a1, j1 (and the potential) on the active bodies at their predicted state;
//   4. the corrector: from a0, j0, a1, j1 over dt, the 2nd and 3rd derivatives
//        a2 = (-6 (a0 - a1) - dt (4 j0 + 2 j1)) / dt^2,   a3 = (12 (a0 - a1) + 6 dt (j0 + j1)) / dt^3
//        x1 = xp + a2 dt^4/24 + a3 dt^5/120,              v1 = vp + a2 dt^3/6 + a3 dt^4/24
//   5. a new step from Aarseth's criterion
//        dt = sqrt(eta (|a1| |a2'| + |j1|^2) / (|j1| |a3| + |a2'|^2)),  a2' = a2 + dt a3,
//      rounded down to dt_max 2^-k; a step may halve freely but only double when t is a multiple
//      of the doubled step (the block structure). k beyond max_level is an error (underflow).
// The first step of a body is eta_start |a| / |j|, rounded down likewise.
//
// Levels: every body of level k has step dt_max 2^-k and the same start time (its time is the
// largest multiple of its step not after the current time), so a level is either wholly active or
// wholly idle and the next block time is the earliest level end.
//
// Times are kept relative to an origin (the load time, or the last synchronisation at a t_end that
// was not a multiple of dt_max): relative times are exact dyadic numbers, so "is a multiple of"
// is exact. evolve(t_end) ends with every body at t_end: block steps up to the last block time
// <= t_end, then, for the bodies still behind, one step of their own length to t_end.
//
// Order 6 (HermiteParams::order = 6; an engine that computes the snap s = d^2 a / dt^2: cpu, cuda fp64):
//   - predictor x, v, a to the crackle term (j-particles carry snap/24 and crackle/120);
//   - the engine returns a1, j1, s1; the corrector is
//        v1 = v0 + dt/2 (a0 + a1) - dt^2/10 (j1 - j0) + dt^3/120 (s1 + s0)
//        x1 = x0 + dt/2 (v0 + v1) - dt^2/10 (a1 - a0) + dt^3/120 (j1 + j0)
//   - the crackle, pop and 5th derivative at the end of the step come from the quintic through
//     a, j, s at both ends; the step from the generalised criterion
//        dt = eta ((sqrt(|a| |s|) + |j|) / (sqrt(|c| |d5|) + |pop|))^(1/3),
//     never below eta |a| / sqrt(|a| |s| + |j|^2) / 32 (kStepFloorOfTheLowTimeScale);
//   - the start takes two force passes (the snap needs every body's acceleration) and a first
//     step of eta_start |a| / |j| with eta_start 1/4096 unless given (kEtaStart6).

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "nbody/sim/hermite/force_engine.hpp"
#include "nbody/sim/types.hpp"

namespace nbody::hermite {

// The 6th order's first-step parameter (eta_start 0): its eta is on another scale than the 4th
// order's (default_eta), so eta / 2 would not do. The first step's predictor has no crackle yet, so
// its error is an order larger: on a 16K Plummer sphere (eps 1/N) 1/256 left a jump of 9.9e-9 in
// the energy in the first 1/16 time unit (and nothing after it to t = 10), 1/1024 2.4e-10, 1/4096
// 2.2e-14 at t = 1, for 0.8 % more force evaluations (device run 27, docs/HERMITE.md).
constexpr double kEtaStart6 = 1.0 / 4096;
// The 6th order's step is at least this fraction of eta |a| / sqrt(|a| |s| + |j|^2), a time scale of
// the engine's own a, j and s. The criterion's pop and d5 come from differences divided by dt^4 and
// dt^5; below a few 1e-6 of a pair's time scale they are rounding, and a criterion fed rounding asks
// for ever shorter steps: a 16K Plummer sphere at eta 0.01 stopped with an underflow at t = 0.247
// (device runs 63-64), a binary 1e4 from the origin at once (Hermite6.SmallEtaFarFromTheOrigin...).
// 1/32: in Plummer spheres at eta 0.1 the criterion asks for less on 0.27 % of the steps (256
// bodies, at most 4x less) and 0.002 % (2,048); where rounding rules, the step settles at the bound.
constexpr double kStepFloorOfTheLowTimeScale = 1.0 / 32;
// The eta each order takes when none is given: 0.01 for order 4 (Aarseth's form, as phiGRAPE and
// Sapporo's tests); 0.1 for order 6, which closes the figure eight to 2e-10 in 1,550 force
// evaluations where eta 0.2 leaves 2e-8 (docs/HERMITE.md).
inline double default_eta(int order) { return order == 6 ? 0.1 : 0.01; }
// The name users give an order (--integrator, scene files, snapshots, reports).
inline const char* integrator_name(int order) { return order == 6 ? "hermite6" : "hermite4"; }

struct HermiteParams {
    double eta = 0.0;         // Aarseth's accuracy parameter (order 6: its generalised form); 0: default_eta(order)
    double eta_start = 0.0;   // first-step parameter (0: eta / 2 for order 4, kEtaStart6 for order 6)
    int order = 4;            // 4 or 6
    double dt_max = 0.125;    // largest step; rounded down to a power of two
    int max_level = 40;       // smallest step dt_max 2^-max_level
    double softening = 0.0;   // Plummer epsilon; 0 is allowed
    bool shared_steps = false;  // every body on the smallest step the criterion asks for (for tests)
    // The 4th order's block steps whole on the engine's GPUs where it can (advance_blocks); false: the
    // host takes them (the same bits, slower: docs/HERMITE.md, "Block steps on the GPU").
    bool blocks_on_device = true;
};

// The system in double: the integrator's whole state. a and jerk are those computed at the
// predicted state of the body's last step (what the next corrector needs); level is the block level.
struct Bodies {
    std::vector<double> mass;
    std::vector<Vec3d> x, v, a, jerk;
    std::vector<Vec3d> snap, crackle;  // order 6 only (zero for order 4): at the body's time t
    std::vector<double> pot;      // -sum m_j / r at the last force evaluation
    std::vector<double> t;        // relative to the origin
    std::vector<int> level;

    std::size_t size() const { return mass.size(); }
    void resize(std::size_t n);
};

// Bad input or a failed step: names the bodies, the time and the reason. The integrator keeps the
// state of the last completed block.
class HermiteError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

struct HermiteStats {
    std::uint64_t blocks = 0;            // block steps taken
    std::uint64_t body_steps = 0;        // i-particle force evaluations (the "force evaluations")
    double interactions = 0;             // i x j pairs computed
};

// Where the wall time of the block steps went, by phase, while profiling was on (set_profiling;
// `nbody run --integrator hermite4 --profile`). Every phase is host time: `force` is the engine's
// compute(), whose own phases (the GPU's share among them) engine().profile() gives.
struct HermiteProfile {
    double select = 0;   // the next block time and its active bodies (levels, order)
    double predict = 0;  // the active bodies predicted to the block time (the i-batch)
    double force = 0;    // ForceEngine::compute
    double check = 0;    // the forces checked finite
    double correct = 0;  // corrector, next steps and levels
    double commit = 0;   // the corrected bodies written back and handed to the engine (set_j)
    double requeue = 0;  // the active bodies back into their levels
    double device = 0;   // block steps taken whole on the GPU (advance_blocks): all of the above there
    std::uint64_t blocks = 0, body_steps = 0;  // counted while profiling
};

// What the corrector finds for one body at the end of its step.
struct StepEnd {
    Vec3d x, v;
    Vec3d crackle;   // order 6
    double dt_crit = 0;  // the step the criterion asks for next
};

class HermiteIntegrator {
public:
    HermiteIntegrator(std::unique_ptr<ForceEngine> engine, const HermiteParams& params);

    // Starts a run from positions and velocities at time `time`: forces on every body, first steps.
    void start(const std::vector<double>& mass, const std::vector<Vec3d>& x, const std::vector<Vec3d>& v, double time);
    // Continues a run from a synchronised state (every t equal) saved with bodies() and time() (a, jerk, pot, level
    // as they were): no force evaluation, so the continuation is bit for bit the one in memory.
    void resume(const Bodies& bodies, double time);

    // Block steps until every body is at t_end (>= time()).
    void evolve(double t_end);
    // One block step (the viewer's unit of work); returns the new current time.
    double step_block();

    double time() const { return origin_ + now_; }
    // One block step if it ends at or before t_end (true), else nothing (false). A driver that
    // reports progress loops on this and then calls evolve(t_end), which takes the same steps.
    bool advance(double t_end);
    // Block steps up to t_end as advance() takes them, on the engine's GPUs where they can run there
    // (ForceEngine::step_blocks: the host's state is read back once a call), stopping once the blocks
    // have computed about pair_budget pairs (at least one block; a driver's unit between progress lines,
    // every rank of a run across ranks stopping at the same block). Elsewhere one block, on the host. Returns whether a
    // block was taken. Block for block the bits of advance().
    bool advance_blocks(double t_end, double pair_budget);
    // Why advance_blocks() takes its blocks on the host (empty: it takes them on the GPU).
    std::string device_blocks_unavailable() const;
    // Every body is at time() (after start, resume or evolve; not in general after step_block).
    bool synchronised() const;
    const Bodies& bodies() const { return b_; }
    // Positions and velocities of every body predicted to the current time (exact when synchronised).
    void predicted(std::vector<Vec3d>& x, std::vector<Vec3d>& v) const;
    // The same predicted to absolute time t by each body's own Taylor series: as accurate as the
    // integrator's predictor while t is before every body's step end (after advance(t) returned
    // false, every t up to that bound). The viewer shows frames at times between block times so.
    void predicted_at(double t, std::vector<Vec3d>& x, std::vector<Vec3d>& v) const;

    // Bodies per block level 0..max_level.
    std::vector<std::size_t> level_histogram() const;
    const HermiteStats& stats() const { return stats_; }
    // Times each phase of the block steps from now on (and the engine's own phases: the engine's
    // set_profiling); off, no clock is read.
    void set_profiling(bool on);
    const HermiteProfile& profile() const { return profile_; }
    // The profile as lines of text: each phase's seconds, share of `wall` (the run's wall time, for
    // the share not in any phase), per block and per body step, then the engine's phases.
    std::string profile_report(double wall) const;
    const HermiteParams& params() const { return p_; }
    ForceEngine& engine() { return *engine_; }

    // Total energy (kinetic + softened potential) of the synchronised state, in double on the host
    // (O(N^2), threaded): independent of the engine's precision.
    double energy() const;
    // The same, or nothing when `stop` (polled between rows: milliseconds at N = 10^6) asks to give
    // up: a Ctrl-C is honoured within a second.
    std::optional<double> energy_or_stop(const std::function<bool()>& stop) const;

private:
    double level_dt(int level) const { return level_dts_[std::size_t(level)]; }  // level in 0..max_level + 1
    double level_start(std::size_t k) const;  // when level k's bodies started their steps (0: none there)
    double level_end(std::size_t k) const;    // block_clock.hpp's level_end() of level k
    void build_levels();
    JParticle j_particle(std::size_t i) const;  // body i as the engine stores it (a / 2, jerk / 6, ...)
    void upload_all();  // every body's j-particle to the engine
    void predict_all(double rel, std::vector<Vec3d>& x, std::vector<Vec3d>& v) const;  // to relative time rel
    // Forces on `active` at relative time `t` from their predicted states; fills xp, vp, force_.
    void evaluate(double t, const std::vector<int>& active);
    // Corrects `active` (steps ending at t); levels are chosen when `choose_levels`.
    void correct(double t, const std::vector<int>& active, bool choose_levels);
    int level_for(double dt_crit, int old_level, double t) const;
    // Body i (index k in the active list), whose step of length dt ends now.
    StepEnd end_of_step_4(std::size_t i, std::size_t k, double dt) const;
    StepEnd end_of_step_6(std::size_t i, std::size_t k, double dt) const;
    void find_nearest(double t, const std::vector<int>& active);
    [[noreturn]] void fail_force(double t, const std::vector<int>& active, std::size_t k) const;

    std::unique_ptr<ForceEngine> engine_;
    HermiteParams p_;
    bool device_blocks_ = false;  // device_blocks_unavailable() was empty at construction
    Bodies b_;
    double origin_ = 0;   // absolute time of relative time 0
    double now_ = 0;      // current block time, relative
    std::vector<std::vector<int>> levels_;
    std::vector<double> level_dts_;  // dt_max 2^-k for k = 0..max_level + 1
    // Kept between block steps so that a step allocates and clears nothing (callgrind: the zeroing
    // of a fresh corrected-state vector was ~8 % of the host's work per body step).
    struct Corrected : StepEnd {
        int level = 0;
    };
    std::vector<Corrected> corrected_;
    std::vector<int> active_;
    std::vector<std::uint64_t> mark_;  // the active bodies while a block's list is made (step_block)
    std::vector<JParticle> jp_;        // the corrected bodies as the engine stores them
    std::vector<IParticle> ip_;
    std::vector<IForce> force_;
    HermiteStats stats_;
    bool profiling_ = false;
    HermiteProfile profile_;
};

// Round down to a power of two (for dt_max); throws std::invalid_argument for x <= 0 or non-finite.
double floor_power_of_two(double x);

}  // namespace nbody::hermite
