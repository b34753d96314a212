#pragma once
// Measurements the viewer shows: frame rate, step time and throughput with their recent
// history, the rates of every kernel configuration tried, and the conserved quantities
// (computed on a worker thread: the potential energy is O(N^2) on the host for direct gravity,
// and a CPU tree walk, O(N log N), for tree gravity).

#include <chrono>
#include <cstddef>
#include <future>
#include <optional>
#include <string>
#include <vector>

#include "nbody/sim/diagnostics.hpp"
#include "nbody/sim/energy_source.hpp"
#include "nbody/sim/gravity.hpp"
#include "nbody/sim/io/snapshot.hpp"
#include "nbody/sim/kernel_config.hpp"
#include "nbody/sim/state.hpp"
#include "viewer_sim.hpp"

namespace nbody::app {

// A fixed-capacity ring of samples in the layout ImGui::PlotLines takes (values + offset).
class RollingSeries {
  public:
    explicit RollingSeries(std::size_t capacity = 240) : values_(capacity, 0.0f) {}
    void push(float v);
    void clear();
    const float* data() const { return values_.data(); }
    int size() const { return int(values_.size()); }
    int offset() const { return int(next_); }  // oldest sample when full
    int count() const { return int(count_); }
    float max() const;

  private:
    std::vector<float> values_;
    std::size_t next_ = 0, count_ = 0;
};

// Every frame's length in 0.1 ms bins up to 250 ms (the longest kept apart): how smooth a run was,
// which a mean frame rate hides (a frame late by a period is one the display shows twice), in a
// few kilobytes however long the run.
class FrameTimes {
  public:
    void add(double seconds);
    long long count() const { return count_; }
    double percentile_ms(double fraction) const;  // fraction in [0, 1]: 0.5 the median
    double longest_ms() const { return longest_ms_; }
    double mean_ms() const { return count_ > 0 ? sum_ms_ / double(count_) : 0.0; }
    long long count_over_ms(double ms) const;
    // "mean 16.9 ms, median 16.7, 90 % 17.0, 99 % 25.2, longest 41.0; 3 of 599 over 25.0 ms (1.5 frames at 60 Hz)"
    std::string summary() const;

  private:
    static constexpr double kBinMs = 0.1;
    static constexpr std::size_t kBins = 2500;
    std::vector<long long> bins_ = std::vector<long long>(kBins + 1, 0);  // the last: 250 ms and longer
    long long count_ = 0;
    double longest_ms_ = 0, sum_ms_ = 0;
};

struct ConfigRate {
    KernelConfig config;
    double interactions_per_second = 0;  // smoothed while it ran
    double best = 0;
    double ms_per_step = 0;
    long long steps = 0;
};

class PerfStats {
  public:
    void add_frame(double seconds);
    // `n` bodies; `config` is the kernel that ran (null: host backend); `computed` the
    // interactions one step really evaluated where they are counted (the tree code), else 0.
    void add_steps(const StepReport& report, std::size_t n, const KernelConfig* config, double computed = 0);
    void clear_steps();  // N changed: throughput history no longer comparable

    double fps() const { return fps_; }
    double frame_ms() const { return frame_ms_; }
    double ms_per_step() const { return ms_per_step_; }
    // N^2 over the step time: the direct sum's rate, or for the tree code its direct-sum equivalent.
    double interactions_per_second() const { return ips_; }
    // The interactions the tree code evaluated per second; 0 where they are not counted.
    double computed_interactions_per_second() const { return computed_ips_; }
    std::size_t bytes_to_host_last_frame() const { return d2h_last_; }
    std::size_t bytes_uploaded_last_frame() const { return upload_last_; }

    const RollingSeries& fps_history() const { return fps_history_; }
    const RollingSeries& ms_history() const { return ms_history_; }
    const RollingSeries& ips_history() const { return ips_history_; }  // in 1e9 interactions/s
    const std::vector<ConfigRate>& configs() const { return configs_; }

  private:
    double fps_ = 0, frame_ms_ = 0, ms_per_step_ = 0, ips_ = 0, computed_ips_ = 0;
    std::size_t d2h_last_ = 0, upload_last_ = 0;
    RollingSeries fps_history_, ms_history_, ips_history_;
    std::vector<ConfigRate> configs_;
};

// Conserved quantities, recomputed off the frame loop's thread.
class EnergyMonitor {
  public:
    ~EnergyMonitor();
    // A new system: forget the baseline. `carried`: a snapshot's E0 of the run it continues (issue
    // 33), the baseline once a first result summed the same way with `softening` arrives.
    void reset(std::optional<io::RunEnergy> carried = std::nullopt, double softening = 0);
    bool busy() const { return job_.valid(); }
    bool running() const {
        return busy() && job_.wait_for(std::chrono::seconds(0)) != std::future_status::ready;
    }
    // Starts computing the diagnostics of `state` unless a computation is already running; under
    // tree gravity the potential comes from the CPU tree's walk with its parameters
    // (energy_source.hpp), else from every pair.
    void start(State state, double softening, const GravityConfig& gravity = {});
    // The same with the potential summed elsewhere (the cuda backend's tree walk, between two steps):
    // kinetic energy, momentum and the virial ratio are summed here on a worker. Dropped when
    // `generation` is not the monitor's any more (a reset came while the potential was being summed)
    // or a computation is running.
    void start_known(State state, double softening, const GravityConfig& gravity, double potential,
                     unsigned generation);
    // Changes at every reset(): a sum asked for before it belongs to another system.
    unsigned generation() const { return generation_; }
    // Collects a finished computation; call once per frame.
    void poll();
    // Seconds since the last start() (for "every few seconds").
    double seconds_since_start() const;
    // How long the last sum took (from its start to the poll that collected it); 0 before one.
    double last_sum_seconds() const { return last_sum_seconds_; }
    // Seconds between two automatic sums: every 3 s, or 20 times the last sum's length where that
    // is longer, so that the sums never take more than 5 % of the machine from the simulation (a
    // GPU's every-pair sum in double at 1M bodies takes seconds).
    double automatic_period() const;

    const std::optional<Diagnostics>& latest() const { return latest_; }
    const std::optional<Diagnostics>& baseline() const { return baseline_; }
    double latest_time() const { return latest_time_; }
    // Wall-clock seconds since the state of the latest result was taken (the sum's start).
    double latest_age_seconds() const;
    // (E - E0) / |E0|, when both exist and were computed with the same softening and solver.
    std::optional<double> energy_error() const;
    // The baseline as a snapshot keeps it (E0, its model time, how it was summed); none before it.
    std::optional<io::RunEnergy> run_energy() const;
    double baseline_time() const { return baseline_time_; }
    // Where the latest potential came from (tree: its error is in the energy error too).
    EnergySource source() const { return choose_energy_source(std::nullopt, latest_gravity_); }
    // |P| relative to sum m|v|: 0 for exact momentum conservation.
    double momentum_error() const { return momentum_error_; }

  private:
    void launch(State state, double softening, const GravityConfig& gravity, std::optional<double> potential);
    void take_carried_baseline();
    struct Result {
        Diagnostics d;
        double time = 0, softening = 0, momentum_scale = 0;
        GravityConfig gravity;
        std::chrono::steady_clock::time_point started;
    };
    std::future<Result> job_;
    std::optional<Diagnostics> latest_, baseline_;
    double latest_time_ = 0, baseline_softening_ = -1, latest_softening_ = -2, baseline_time_ = 0;
    std::optional<io::RunEnergy> carried_;
    double carried_softening_ = 0;
    double momentum_error_ = 0, last_sum_seconds_ = 0;
    unsigned generation_ = 0;
    GravityConfig baseline_gravity_, latest_gravity_;  // a tree's potential is the baseline of that tree only
    std::chrono::steady_clock::time_point started_{}, latest_started_{};
};

}  // namespace nbody::app
