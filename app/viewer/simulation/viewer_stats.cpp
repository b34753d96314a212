#include "viewer_stats.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace nbody::app {

void RollingSeries::push(float v) {
    values_[next_] = v;
    next_ = (next_ + 1) % values_.size();
    count_ = std::min(count_ + 1, values_.size());
}

void RollingSeries::clear() {
    std::fill(values_.begin(), values_.end(), 0.0f);
    next_ = count_ = 0;
}

float RollingSeries::max() const { return count_ ? *std::max_element(values_.begin(), values_.end()) : 0.0f; }

void FrameTimes::add(double seconds) {
    if (!(seconds >= 0)) return;
    const double ms = 1e3 * seconds;
    bins_[std::min(kBins, std::size_t(ms / kBinMs))] += 1;
    ++count_;
    sum_ms_ += ms;
    longest_ms_ = std::max(longest_ms_, ms);
}

double FrameTimes::percentile_ms(double fraction) const {
    if (count_ == 0) return 0;
    const long long rank = std::clamp(static_cast<long long>(std::ceil(fraction * double(count_))), 1LL, count_);
    long long seen = 0;
    for (std::size_t b = 0; b < kBins; ++b)
        if ((seen += bins_[b]) >= rank) return std::min((double(b) + 0.5) * kBinMs, longest_ms_);
    return longest_ms_;
}

long long FrameTimes::count_over_ms(double ms) const {
    long long over = bins_[kBins];
    for (std::size_t b = std::size_t(std::max(0.0, ms / kBinMs)) + 1; b < kBins; ++b) over += bins_[b];
    return over;
}

std::string FrameTimes::summary() const {
    constexpr double kLateMs = 1.5 * 1e3 / 60.0;  // a frame a 60 Hz display would show late
    char line[200];
    std::snprintf(line, sizeof line, "mean %.2f ms, median %.1f, 90 %% %.1f, 99 %% %.1f, longest %.1f; %lld of %lld over "
                  "%.1f ms (1.5 frames at 60 Hz)", mean_ms(), percentile_ms(0.5), percentile_ms(0.9), percentile_ms(0.99),
                  longest_ms_,
                  count_over_ms(kLateMs), count_, kLateMs);
    return line;
}

void PerfStats::add_frame(double seconds) {
    if (!(seconds > 0)) return;
    // Smoothed over about half a second of frames, so the readout is steady enough to read.
    const double alpha = std::clamp(seconds / 0.5, 0.02, 1.0);
    frame_ms_ = frame_ms_ > 0 ? frame_ms_ + alpha * (1e3 * seconds - frame_ms_) : 1e3 * seconds;
    fps_ = 1e3 / frame_ms_;
    fps_history_.push(float(1.0 / seconds));
}

void PerfStats::add_steps(const StepReport& report, std::size_t n, const KernelConfig* config, double computed) {
    d2h_last_ = report.bytes_to_host;
    upload_last_ = report.bytes_uploaded;
    if (report.steps <= 0 || !(report.ms_per_step > 0)) return;
    ms_per_step_ = report.ms_per_step;
    // All pairs, self-interaction included: the kernel evaluates N^2 (the softened self term
    // is zero), the same count cuda-samples and GPU Gems 3 use for their rates.
    ips_ = double(n) * double(n) / (ms_per_step_ * 1e-3);
    computed_ips_ = computed / (ms_per_step_ * 1e-3);
    ms_history_.push(float(ms_per_step_));
    ips_history_.push(float(ips_ * 1e-9));
    if (!config) return;
    auto it = std::find_if(configs_.begin(), configs_.end(),
                           [&](const ConfigRate& r) { return r.config == *config; });
    if (it == configs_.end()) {
        configs_.push_back({*config, ips_, ips_, ms_per_step_, 0});
        it = configs_.end() - 1;
    }
    it->interactions_per_second += 0.1 * (ips_ - it->interactions_per_second);
    it->ms_per_step += 0.1 * (ms_per_step_ - it->ms_per_step);
    it->best = std::max(it->best, ips_);
    it->steps += report.steps;
}

void PerfStats::clear_steps() {
    ms_per_step_ = ips_ = computed_ips_ = 0;
    ms_history_.clear();
    ips_history_.clear();
    configs_.clear();
}

EnergyMonitor::~EnergyMonitor() {
    if (job_.valid()) job_.wait();
}

void EnergyMonitor::reset(std::optional<io::RunEnergy> carried, double softening) {
    if (job_.valid()) job_.wait();
    carried_ = std::move(carried);
    carried_softening_ = softening;
    job_ = {};
    latest_.reset();
    baseline_.reset();
    baseline_softening_ = -1;
    latest_softening_ = -2;
    momentum_error_ = 0;
    ++generation_;
}

void EnergyMonitor::start(State state, double softening, const GravityConfig& gravity) {
    launch(std::move(state), softening, gravity, std::nullopt);
}

void EnergyMonitor::start_known(State state, double softening, const GravityConfig& gravity, double potential,
                                unsigned generation) {
    if (generation == generation_) launch(std::move(state), softening, gravity, potential);
}

void EnergyMonitor::launch(State state, double softening, const GravityConfig& gravity,
                           std::optional<double> potential) {
    if (job_.valid()) return;
    started_ = std::chrono::steady_clock::now();
    job_ = std::async(std::launch::async, [s = std::move(state), softening, gravity, potential, started = started_]() {
        Result r;
        r.started = started;
        r.d = potential ? diagnostics_with_potential(s, *potential)
                        : compute_diagnostics(s, softening, gravity, choose_energy_source(std::nullopt, gravity));
        r.time = s.time;
        r.softening = softening;
        r.gravity = gravity;
        for (std::size_t i = 0; i < s.size(); ++i)
            r.momentum_scale += s.pos_mass[i].w * norm(xyz(s.velocity[i]));
        return r;
    });
}

void EnergyMonitor::poll() {
    if (!job_.valid() || job_.wait_for(std::chrono::seconds(0)) != std::future_status::ready) return;
    const Result r = job_.get();  // rethrows a failure of the computation to the frame loop
    last_sum_seconds_ = std::chrono::duration<double>(std::chrono::steady_clock::now() - r.started).count();
    latest_ = r.d;
    latest_time_ = r.time;
    latest_started_ = r.started;
    latest_softening_ = r.softening;
    latest_gravity_ = r.gravity;
    momentum_error_ = r.momentum_scale > 0 ? norm(r.d.momentum) / r.momentum_scale : 0.0;
    // The first result after a load, or after the softening or the solver changed (which change
    // the potential energy itself), is the new reference.
    if (!baseline_ || baseline_softening_ != r.softening || baseline_gravity_ != r.gravity) {
        baseline_ = r.d;
        baseline_time_ = r.time;
        baseline_softening_ = r.softening;
        baseline_gravity_ = r.gravity;
        take_carried_baseline();
    }
}

// A snapshot's E0 replaces the first result as the baseline when it measures the same potential.
void EnergyMonitor::take_carried_baseline() {
    const std::string source(to_string(choose_energy_source(std::nullopt, baseline_gravity_)));
    if (carried_ && carried_->source == source && carried_softening_ == baseline_softening_) {
        baseline_->total = carried_->energy;
        baseline_time_ = carried_->time;
    }
    carried_.reset();
}

std::optional<io::RunEnergy> EnergyMonitor::run_energy() const {
    if (!baseline_ || !std::isfinite(baseline_->total)) return std::nullopt;  // a snapshot keeps finite ones only
    return io::RunEnergy{baseline_->total, baseline_time_,
                         std::string(to_string(choose_energy_source(std::nullopt, baseline_gravity_)))};
}

double EnergyMonitor::latest_age_seconds() const {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - latest_started_).count();
}

double EnergyMonitor::automatic_period() const {
    constexpr double kEvery = 3.0, kMostShare = 0.05;
    return std::max(kEvery, last_sum_seconds_ / kMostShare);
}

double EnergyMonitor::seconds_since_start() const {
    if (started_ == std::chrono::steady_clock::time_point{}) return 1e9;
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - started_).count();
}

std::optional<double> EnergyMonitor::energy_error() const {
    if (!latest_ || !baseline_ || latest_softening_ != baseline_softening_ || latest_gravity_ != baseline_gravity_ ||
        baseline_->total == 0)
        return std::nullopt;
    return (latest_->total - baseline_->total) / std::abs(baseline_->total);
}

}  // namespace nbody::app
