#pragma once
// Shared or block (hierarchical) time steps for the leapfrog (docs/TREE.md, "Block time steps").
//   Shared  every body takes every step dt: one force pass of N bodies per step (the default).
//   Block   body i takes dt_i = dt_max / 2^k_i, k_i its level in 0..max_level, chosen by the
//           GADGET/GOTHIC criterion dt_i <= eta sqrt(eps / |a_i|); a step of dt_max is
//           2^max_level ticks, and at each tick only the bodies whose step ends there (the
//           active bodies) get a force. Galaxy centres need steps 10-100x shorter than their
//           outskirts (Miki & Umemura 2017): a shared step pays the centre's dt for every body.
//
// The level bookkeeping below is plain integer arithmetic on ticks, with no arrays: the GPU stepper
// (sim/cuda/tree/block_steps.cu) runs the same functions per body in its kernels. Compiled by nvcc
// they are __host__ __device__ (NBODY_SCHEDULE_HD), for the host compiler plain inline functions.

#include <cmath>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "nbody/sim/gravity.hpp"

#if defined(__CUDACC__)
#define NBODY_SCHEDULE_HD __host__ __device__
#else
#define NBODY_SCHEDULE_HD
#endif

namespace nbody {

enum class TimeSteps { Shared, Block };

// "shared", "block"; parse_time_steps throws std::invalid_argument listing them.
std::string_view to_string(TimeSteps mode);
TimeSteps parse_time_steps(std::string_view text);

// Default accuracy parameter: at milky-way-andromeda.toml's own N (65,536) eta 0.2 gives the
// energy error of its shared dt 0.02 (7.0e-6 against 7.8e-6 to t = 4) with 2.3x fewer force
// evaluations (docs/TREE.md, "Block time steps"); scaled down to 16K (heavier bodies) it takes 0.1
// for that. GADGET-2's dt = sqrt(2 eta' eps / |a|) at its usual eta' = 0.025 is eta = 0.22 here.
inline constexpr double kDefaultBlockEta = 0.2;
// Finest level by default: dt_max / 256. A body asking for a finer step is held at this level and
// counted (BlockStepStats::clamped); levels cost nothing when no body uses them.
inline constexpr int kDefaultMaxLevel = 8;
inline constexpr int kMaxMaxLevel = 30;  // 2^30 ticks per step of dt_max: far beyond any use

struct TimeStepConfig {
    TimeSteps mode = TimeSteps::Shared;
    double eta = kDefaultBlockEta;
    int max_level = kDefaultMaxLevel;

    friend bool operator==(const TimeStepConfig& a, const TimeStepConfig& b) {
        return a.mode == b.mode && a.eta == b.eta && a.max_level == b.max_level;
    }
    // "shared" or "block eta=0.2 max-level=8".
    std::string to_string() const;
};

// Empty when usable, else the reason: eta not a finite number > 0, max_level outside 0..30.
std::string check_time_step_config(const TimeStepConfig& c);

// Throws std::invalid_argument with the reason when block time steps cannot run under this gravity
// and softening (they need the tree code and a softening > 0): one wording for every backend.
void check_block_steps_can_run(Gravity gravity, double softening);

// What the force passes of a backend did since load(): the figure block steps are judged by.
struct ForceWork {
    std::uint64_t evaluations = 0;  // bodies whose acceleration was computed (a shared step adds N)
    std::uint64_t passes = 0;       // force passes (tree builds); a shared step is one
    double body_terms = 0, cell_terms = 0;  // the tree's body-body and body-cell terms, summed
    std::uint64_t clamped = 0;      // block steps: level choices held at max_level (wanted finer)
    std::vector<std::uint64_t> level_counts;  // block steps: bodies per level chosen at the last step's start
};

// |a| in double from its components. A float's square is exact in double, so a compiler that
// contracts the sum into FMAs (nvcc) rounds it as the host does: the device chooses the host's levels.
NBODY_SCHEDULE_HD inline double acceleration_norm(double ax, double ay, double az) {
    return ::sqrt(ax * ax + ay * ay + az * az);
}

// The integer time of block steps within one step of dt_max: ticks 0 .. 2^max_level.
class BlockSchedule {
public:
    NBODY_SCHEDULE_HD explicit BlockSchedule(int max_level) : max_level_(max_level) {}
    NBODY_SCHEDULE_HD int max_level() const { return max_level_; }
    NBODY_SCHEDULE_HD std::uint64_t ticks_per_step() const { return std::uint64_t(1) << max_level_; }
    // Ticks in one step of level k.
    NBODY_SCHEDULE_HD std::uint64_t step_ticks(int level) const { return std::uint64_t(1) << (max_level_ - level); }
    // A body of level k ends a step at tick t (and starts its next) when t is a multiple of its step.
    NBODY_SCHEDULE_HD bool boundary(int level, std::uint64_t tick) const { return tick % step_ticks(level) == 0; }
    // The tick at which a body of level k started the step that holds `tick` (< tick).
    NBODY_SCHEDULE_HD std::uint64_t step_start(int level, std::uint64_t tick) const {
        return (tick - 1) / step_ticks(level) * step_ticks(level);
    }

    // The level the criterion asks for: the coarsest k with dt_max / 2^k <= eta sqrt(eps / |a|),
    // at most max_level (`clamped` is set when even that is too coarse). |a| = 0: level 0.
    NBODY_SCHEDULE_HD int wanted_level(double acc, double eps, double eta, double dt_max, bool* clamped) const {
        *clamped = false;
        if (!(acc > 0)) return 0;
        const double dt = eta * ::sqrt(eps / acc);
        int level = 0;
        // Halving until it fits: exact powers of two, no log2 rounding at the edges.
        for (double step = dt_max; step > dt; step *= 0.5) {
            if (level == max_level_) {
                *clamped = true;
                break;
            }
            ++level;
        }
        return level;
    }

    // The level a body of level `current` takes at tick t, one of its boundaries, wanting `wanted`:
    // finer at once (a finer step always starts at a boundary of a coarser one); coarser only as far
    // as a level whose steps also start at t (GADGET-2's rule), so that every body's step stays
    // aligned to its level and all of them meet at the end of dt_max.
    NBODY_SCHEDULE_HD int next_level(int current, int wanted, std::uint64_t tick) const {
        if (wanted >= current) return wanted;
        int level = current;
        while (level > wanted && boundary(level - 1, tick)) --level;
        return level;
    }

    // The first tick after `tick` at which a body's step ends, given the bodies per level
    // (per_level[0 .. max_level]); UINT64_MAX when every level is empty. Host only.
    template <class Count>
    std::uint64_t next_event(std::uint64_t tick, const Count* per_level) const {
        std::uint64_t next = ~std::uint64_t(0);
        for (int k = 0; k <= max_level_; ++k) {
            if (per_level[k] == 0) continue;
            const std::uint64_t step = step_ticks(k);
            const std::uint64_t at = (tick / step + 1) * step;
            if (at < next) next = at;
        }
        return next;
    }

private:
    int max_level_;
};

}  // namespace nbody
