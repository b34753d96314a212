#pragma once
// The viewer's Hermite run (--integrator hermite4, or the Simulation panel's integrator): the
// 4th-order block-step integrator of sim/hermite, in double on the host, its forces from the cpu
// or the cuda engine (docs/HERMITE.md, "In the viewer").
//
// Leapfrog's CUDA kernel writes positions straight into the vertex buffer; this state lives in
// double on the host instead, so every frame the positions, predicted to the frame's model time,
// are rounded to float and uploaded with glBufferSubData (SimulationDriver::advance_hermite). That
// costs a loop over N and 16 bytes per body per frame: 64 KiB and well under a millisecond for
// the 4,096-body clusters Hermite serves here, nothing beside the O(N^2) forces of one block.

#include <chrono>
#include <cstdint>
#include <future>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "nbody/sim/hermite/integrator.hpp"
#include "nbody/sim/io/snapshot.hpp"
#include "nbody/sim/state.hpp"

namespace nbody::app {

struct HermiteSettings {
    int order = 4;       // 4 or 6 (the cpu engine only)
    double eta = 0.01;
    double dt_max = 0.125;  // rounded down to a power of two by the integrator
    double softening = 0;
    hermite::EngineKind engine = hermite::EngineKind::Auto;
    std::string precision = "ds";  // the cuda engine's: ds | fp64

    bool operator==(const HermiteSettings&) const = default;
};

// What one frame's block steps did.
struct HermiteFrame {
    std::uint64_t blocks = 0;
    std::uint64_t evaluations = 0;  // force evaluations: the active bodies summed over the blocks
    double seconds = 0;             // wall clock
    bool reached = true;            // the frame's target time was reached within its budget
};

// The run as the panels show it, copied after each run of block steps: the run itself may be
// stepping on its own thread meanwhile (hermite_thread.hpp).
struct HermiteSummary {
    double time = 0;     // the model time on screen
    HermiteFrame frame;  // the block steps since the previous summary taken
    hermite::HermiteStats total;
    std::vector<std::size_t> levels;  // bodies per block level
    double dt_max = 0;
    std::size_t bodies = 0;
    // Up to this many bodies the energy error is summed with every summary (33K pairs at 256);
    // above, on a worker thread on request (measure_energy).
    static constexpr std::size_t kEnergyEverySummaryMaxN = 256;
    std::optional<double> energy_error;
};

class ViewerHermite {
  public:
    // Starts from `state` (one force evaluation on every body). Throws hermite::HermiteError for
    // bad input (a pair at zero separation with zero softening, a NaN, a first step that
    // underflows) and std::invalid_argument for bad settings; nothing is left half-built.
    ViewerHermite(const HermiteSettings& settings, const State& state);
    // The same from a file's double state (`state` above is it rounded); with `resume`, a synchronised
    // run's block-step state of settings.order (io/hermite_snapshot.hpp), it continues that run
    // exactly, with no force evaluation.
    ViewerHermite(const HermiteSettings& settings, const PreciseState& precise, double time,
                  const hermite::Bodies* resume = nullptr);

    // Block steps while the next one ends at or before `t`, then shows the bodies predicted to t
    // (each within its own step: as accurate as the integrator's predictor). With `budget_s` > 0
    // it stops once that much wall clock has passed (a window stays responsive) and shows the
    // last block time. Throws hermite::HermiteError; the state of the last completed block stays.
    HermiteFrame advance_to(double t, double budget_s);
    // One block step (the N key).
    HermiteFrame step_once();
    // Every body to exactly t (>= time()): the end of a --t-end run, and the report's energy.
    void synchronise_at(double t);
    // Restarts with other settings (eta, dt_max) from the state at time(), kept in double.
    void change(const HermiteSettings& settings);

    double time() const { return shown_; }  // the model time on screen
    const hermite::HermiteIntegrator& integrator() const { return *h_; }
    const HermiteSettings& settings() const { return settings_; }
    const std::string& engine_line() const { return engine_line_; }
    // Rounded to float at time(): x, y, z, m for the vertex buffer; the whole state with `labels`'
    // galaxy and component labels (snapshots, the energy monitor, switching back to leapfrog);
    // positions, velocities and time into `out`, its labels left as they are.
    void positions(std::vector<Vec4f>& out) const;
    State state(const State& labels) const;
    void store(State& out) const;
    // The panels' figures now; `frame`: the block steps they report.
    HermiteSummary summary(const HermiteFrame& frame) const;

    // Into `snap`: the state at time() in double, the run's parameters and, where every body is at
    // time() (a block's end), the block-step state that resumes the run exactly (`nbody run -i`,
    // the viewer); the caller sets the rest (the floats, the scene).
    void save_into(io::Snapshot& snap) const;

    // Relative energy error at time() against the start, in double on the host (O(N^2)).
    double energy_error() const;
    // A snapshot's E0 of the run this one continues (issue 33): the error then counts from the
    // run's first state. Only a Hermite run's (summed from the double state) is taken.
    void continue_run_energy(const io::RunEnergy& e0);
    // Sums the energy error of the state on screen on a worker thread, from a copy (O(N^2) in
    // double: about a second at 16K bodies on two cores, which the frame loop must not wait for),
    // for the panel's one energy line: the monitor's floats cannot show an error below float
    // rounding (~1e-8). poll_energy() collects it; no-op while one runs. measure_energy() reads
    // the run: it is called where the run steps (its own thread, hermite_thread.hpp); the sum's
    // accessors below are the frame loop's, and safe while the run steps elsewhere.
    void measure_energy();
    void poll_energy();
    // Seconds since the sum running now started; none when none runs.
    std::optional<double> measuring_seconds() const;
    struct Measured {
        double error = 0, time = 0;
        std::chrono::steady_clock::time_point taken{};  // when the state summed was copied
    };
    std::optional<Measured> measured() const;
    // Largest distance of a body from where it started (a periodic orbit's closing error).
    double largest_displacement() const;

  private:
    void start(const std::vector<double>& mass, const std::vector<Vec3d>& x, const std::vector<Vec3d>& v,
               double time, const hermite::Bodies* resume = nullptr);
    void predict_shown() const;
    // At the block time, every body predicted to it; the potential on the GPU for a cuda run from
    // kGpuPotentialFrom bodies (on the host, 8.6e9 pair terms at 128K: device run 140's 300 frames
    // ended before the start that waited for it).
    double run_energy() const;

    HermiteSettings settings_;
    std::unique_ptr<hermite::HermiteIntegrator> h_;
    double shown_ = 0;
    double pairs_per_second_ = 0;  // of the last advance_blocks() call (advance_to)
    double e0_ = 0, t0_ = 0;  // the run's first energy and its model time
    mutable std::mutex energy_mutex_;  // the sum below: started where the run steps, read by the frame loop
    std::optional<Measured> measured_;
    std::chrono::steady_clock::time_point measuring_since_{};
    std::future<Measured> measuring_;  // last: a running sum is waited for before the state it copied goes
    std::vector<Vec3d> x0_;  // positions at the start, for largest_displacement()
    std::string engine_line_;
    mutable std::vector<Vec3d> x_, v_;  // predicted to shown_
};

// The Viewer's bookkeeping of a Hermite run's playback (viewer_hermite_step.cpp).
struct HermitePlayback {
    double target = 0;              // the model time playback has asked for so far
    std::optional<double> t_end;    // --t-end: pause (or, scripted, end) there
    bool failed = false;            // any error in this run: a scripted run exits 1
};

}  // namespace nbody::app
