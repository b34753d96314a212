// The viewer's Hermite run: see viewer_hermite.hpp.

#include "viewer_hermite.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>

#include "nbody/sim/diagnostics.hpp"
#include "nbody/sim/io/hermite_snapshot.hpp"

namespace nbody::app {

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

}  // namespace

ViewerHermite::ViewerHermite(const HermiteSettings& settings, const State& state) : settings_(settings) {
    std::vector<double> m(state.size());
    std::vector<Vec3d> x(state.size()), v(state.size());
    for (std::size_t i = 0; i < state.size(); ++i) {
        m[i] = state.pos_mass[i].w;
        x[i] = xyz(state.pos_mass[i]);
        v[i] = xyz(state.velocity[i]);
    }
    start(m, x, v, state.time);
}

ViewerHermite::ViewerHermite(const HermiteSettings& settings, const PreciseState& precise, double time,
                             const hermite::Bodies* resume)
    : settings_(settings) {
    start(precise.mass, precise.position, precise.velocity, time, resume);
}

void ViewerHermite::start(const std::vector<double>& mass, const std::vector<Vec3d>& x, const std::vector<Vec3d>& v,
                          double time, const hermite::Bodies* resume) {
    hermite::HermiteParams p;
    p.order = settings_.order;
    p.eta = settings_.eta;
    p.dt_max = settings_.dt_max;
    p.softening = settings_.softening;
    hermite::EngineConfig config;
    config.precision = settings_.precision;
    std::string why;
    auto h = std::make_unique<hermite::HermiteIntegrator>(hermite::make_force_engine(settings_.engine, config, &why, p.order == 6, mass.size()), p);
    if (resume)
        h->resume(*resume, time);
    else
        h->start(mass, x, v, time);  // throws HermiteError for bad input: *this is untouched
    x0_ = x;  // before the old integrator goes: change() passes its arrays in
    h_ = std::move(h);
    engine_line_ = why;
    shown_ = time;
    e0_ = run_energy();
    t0_ = time;
    predict_shown();
}

void ViewerHermite::change(const HermiteSettings& settings) {
    h_->evolve(shown_);  // every body at the time on screen, in double
    const hermite::Bodies& b = h_->bodies();
    const double e0 = e0_, t0 = t0_;
    const std::vector<Vec3d> x0 = x0_;
    const HermiteSettings old = settings_;
    settings_ = settings;
    try {
        start(b.mass, b.x, b.v, h_->time());
    } catch (...) {
        settings_ = old;
        throw;
    }
    e0_ = e0;  // the energy error still counts from the run's start
    t0_ = t0;
    x0_ = x0;
}

void ViewerHermite::predict_shown() const { h_->predicted_at(shown_, x_, v_); }

HermiteFrame ViewerHermite::advance_to(double t, double budget_s) {
    const auto start = Clock::now();
    const hermite::HermiteStats before = h_->stats();
    HermiteFrame f;
    try {
        // On the GPU a call takes as many blocks as the budget's time at the last calls' rate of pairs
        // (one block first, or where the host takes them: advance_blocks); with no budget, all of them.
        double pairs = budget_s > 0 ? 0.0 : INFINITY;
        for (;;) {
            const double before_pairs = h_->stats().interactions;
            const auto call = Clock::now();
            if (!h_->advance_blocks(t, pairs)) break;
            const double took = seconds_since(call), left = budget_s - seconds_since(start);
            if (took > 0) pairs_per_second_ = (h_->stats().interactions - before_pairs) / took;
            if (budget_s > 0 && left < 0) {
                f.reached = false;
                break;
            }
            if (budget_s > 0) pairs = pairs_per_second_ * left;
        }
    } catch (...) {
        // The integrator kept its last completed block: that is the state to show.
        shown_ = h_->time();
        predict_shown();
        throw;
    }
    shown_ = f.reached ? std::max(t, h_->time()) : h_->time();
    predict_shown();
    f.blocks = h_->stats().blocks - before.blocks;
    f.evaluations = h_->stats().body_steps - before.body_steps;
    f.seconds = seconds_since(start);
    return f;
}

HermiteFrame ViewerHermite::step_once() {
    const auto start = Clock::now();
    const hermite::HermiteStats before = h_->stats();
    shown_ = h_->time();  // the last block, also when the step fails
    predict_shown();
    shown_ = h_->step_block();
    predict_shown();
    return {h_->stats().blocks - before.blocks, h_->stats().body_steps - before.body_steps, seconds_since(start), true};
}

void ViewerHermite::synchronise_at(double t) {
    h_->evolve(t);
    shown_ = h_->time();
    predict_shown();
}

void ViewerHermite::positions(std::vector<Vec4f>& out) const {
    const hermite::Bodies& b = h_->bodies();
    out.resize(b.size());
    for (std::size_t i = 0; i < b.size(); ++i)
        out[i] = {float(x_[i].x), float(x_[i].y), float(x_[i].z), float(b.mass[i])};
}

State ViewerHermite::state(const State& labels) const {
    State s = labels;
    s.resize(h_->bodies().size());
    store(s);
    return s;
}

void ViewerHermite::store(State& out) const {
    positions(out.pos_mass);
    out.velocity.resize(v_.size());
    for (std::size_t i = 0; i < v_.size(); ++i) out.velocity[i] = {float(v_[i].x), float(v_[i].y), float(v_[i].z), 0.0f};
    out.time = shown_;
}

HermiteSummary ViewerHermite::summary(const HermiteFrame& frame) const {
    HermiteSummary s;
    s.time = shown_;
    s.frame = frame;
    s.total = h_->stats();
    s.levels = h_->level_histogram();
    s.dt_max = h_->params().dt_max;
    s.bodies = h_->bodies().size();
    if (s.bodies <= HermiteSummary::kEnergyEverySummaryMaxN) s.energy_error = energy_error();
    return s;
}

void ViewerHermite::save_into(io::Snapshot& snap) const {
    const hermite::Bodies& b = h_->bodies();
    const bool at_a_block_end = h_->synchronised() && h_->time() == shown_;
    snap.precise = at_a_block_end ? PreciseState{b.x, b.v, b.mass} : PreciseState{x_, v_, b.mass};
    io::put_hermite_params(*h_, snap);
    if (at_a_block_end) io::put_hermite_state(*h_, snap);
    if (std::isfinite(e0_)) snap.energy0 = io::RunEnergy{e0_, t0_, io::kHermiteEnergySource};
}

void ViewerHermite::measure_energy() {
    const std::lock_guard lock(energy_mutex_);
    if (measuring_.valid()) return;
    const auto taken = std::chrono::steady_clock::now();
    measuring_ = std::async(std::launch::async, [engine = std::string(h_->engine().name()), m = h_->bodies().mass,
                                                 x = x_, v = v_, eps = h_->params().softening, e0 = e0_, t = shown_,
                                                 taken] {
        const double e = *hermite_energy_or_stop(engine, m, x, v, eps, {});
        return Measured{e0 != 0 ? (e - e0) / std::abs(e0) : 0.0, t, taken};
    });
    measuring_since_ = taken;
}

std::optional<double> ViewerHermite::measuring_seconds() const {
    const std::lock_guard lock(energy_mutex_);
    if (!measuring_.valid() || measuring_.wait_for(std::chrono::seconds(0)) == std::future_status::ready)
        return std::nullopt;
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - measuring_since_).count();
}

void ViewerHermite::poll_energy() {
    const std::lock_guard lock(energy_mutex_);
    if (measuring_.valid() && measuring_.wait_for(std::chrono::seconds(0)) == std::future_status::ready)
        measured_ = measuring_.get();
}

std::optional<ViewerHermite::Measured> ViewerHermite::measured() const {
    const std::lock_guard lock(energy_mutex_);
    return measured_;
}

void ViewerHermite::continue_run_energy(const io::RunEnergy& e0) {
    if (e0.source != io::kHermiteEnergySource) return;
    e0_ = e0.energy;
    t0_ = e0.time;
}

double ViewerHermite::energy_error() const {
    // HermiteIntegrator::energy() is at the block time; the difference to the time on screen is
    // below one step's truncation error.
    const double e = run_energy();
    return e0_ != 0 ? (e - e0_) / std::abs(e0_) : 0.0;
}

double ViewerHermite::run_energy() const { return *hermite_energy_or_stop(*h_, {}); }

double ViewerHermite::largest_displacement() const {
    double d = 0;
    for (std::size_t i = 0; i < x0_.size() && i < x_.size(); ++i) d = std::max(d, norm(x_[i] - x0_[i]));
    return d;
}

}  // namespace nbody::app
