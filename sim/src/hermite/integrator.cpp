// Fourth-order Hermite with block time steps: see integrator.hpp for the scheme.

#include "nbody/sim/hermite/integrator.hpp"
#include "nbody/sim/hermite/block_clock.hpp"
#include "nbody/sim/hermite/corrector4.hpp"
#include "nbody/sim/hermite/energy.hpp"

#include <algorithm>
#include <atomic>
#include <bit>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <utility>

#include "parallel.hpp"

namespace nbody::hermite {
namespace {

std::string fmt(double x) {
    char buf[40];
    std::snprintf(buf, sizeof buf, "%.17g", x);
    return buf;
}

bool finite(const Vec3d& v) { return std::isfinite(v.x) && std::isfinite(v.y) && std::isfinite(v.z); }

// A profile's stopwatch: each lap() adds the time since the last to a phase; off, it reads no clock.
class Laps {
public:
    explicit Laps(bool on) : on_(on) {
        if (on_) last_ = std::chrono::steady_clock::now();
    }
    void lap(double& phase) {
        if (!on_) return;
        const auto now = std::chrono::steady_clock::now();
        phase += std::chrono::duration<double>(now - last_).count();
        last_ = now;
    }

private:
    bool on_;
    std::chrono::steady_clock::time_point last_;
};

}  // namespace

void Bodies::resize(std::size_t n) {
    mass.resize(n);
    x.resize(n);
    v.resize(n);
    a.resize(n);
    jerk.resize(n);
    snap.resize(n);
    crackle.resize(n);
    pot.resize(n);
    t.resize(n);
    level.resize(n);
}

double floor_power_of_two(double x) {
    if (!(x > 0) || !std::isfinite(x)) throw std::invalid_argument("a step must be a positive number (got " + fmt(x) + ")");
    int e = 0;
    const double m = std::frexp(x, &e);  // x = m 2^e, m in [0.5, 1)
    (void)m;
    return std::ldexp(1.0, e - 1);
}

HermiteIntegrator::HermiteIntegrator(std::unique_ptr<ForceEngine> engine, const HermiteParams& params)
    : engine_(std::move(engine)), p_(params) {
    if (!engine_) throw std::invalid_argument("Hermite integrator: no force engine");
    if (p_.order != 4 && p_.order != 6)
        throw std::invalid_argument("Hermite order must be 4 or 6 (got " + std::to_string(p_.order) + ")");
    if (p_.eta == 0) p_.eta = default_eta(p_.order);
    if (!(p_.eta > 0) || !std::isfinite(p_.eta)) throw std::invalid_argument("--eta must be > 0 (got " + fmt(p_.eta) + ")");
    if (p_.eta_start == 0) p_.eta_start = p_.order == 4 ? p_.eta / 2 : kEtaStart6;
    if (!(p_.eta_start > 0)) throw std::invalid_argument("eta_start must be > 0");
    p_.dt_max = floor_power_of_two(p_.dt_max);
    if (p_.max_level < 0 || p_.max_level > 60)
        throw std::invalid_argument("max_level must be in 0..60 (got " + std::to_string(p_.max_level) + ")");
    if (!(p_.softening >= 0) || !std::isfinite(p_.softening))
        throw std::invalid_argument("softening must be >= 0 (got " + fmt(p_.softening) + ")");
    engine_->want_snap(p_.order == 6);
    // Every level a step can take, and the first beyond (the underflow test): a table rather than an
    // ldexp per level tried, which was a quarter of the host's work per body step (callgrind).
    level_dts_.resize(std::size_t(p_.max_level) + 2);
    for (std::size_t k = 0; k < level_dts_.size(); ++k) level_dts_[k] = std::ldexp(p_.dt_max, -int(k));
    // NBODY_HERMITE_BLOCKS_ON=host: the host takes the block steps the GPU would (the same bits; to
    // measure one against the other, docs/HERMITE.md "Block steps on the GPU").
    if (const char* on = std::getenv("NBODY_HERMITE_BLOCKS_ON"); on != nullptr && std::string_view(on) == "host")
        p_.blocks_on_device = false;
    device_blocks_ = device_blocks_unavailable().empty();
}

JParticle HermiteIntegrator::j_particle(std::size_t i) const {
    JParticle p;
    p.id = int(i);
    p.t = b_.t[i];
    p.mass = b_.mass[i];
    p.x = b_.x[i];
    p.v = b_.v[i];
    p.a2 = b_.a[i] * 0.5;
    p.j6 = b_.jerk[i] / 6.0;
    if (p_.order == 6) {  // the 4th order's are zero, as the JParticle's defaults
        p.s24 = b_.snap[i] / 24.0;
        p.c120 = b_.crackle[i] / 120.0;
    }
    return p;
}

void HermiteIntegrator::upload_all() {
    const std::size_t n = b_.size();
    std::vector<int> all(n);
    std::vector<JParticle> jp(n);
    parallel_for(
        n,
        [&](std::size_t begin, std::size_t end) {
            for (std::size_t i = begin; i < end; ++i) all[i] = int(i), jp[i] = j_particle(i);
        },
        host_threads_from());
    engine_->set_j_batch(all, jp);
}

void HermiteIntegrator::start(const std::vector<double>& mass, const std::vector<Vec3d>& x,
                              const std::vector<Vec3d>& v, double time) {
    const std::size_t n = mass.size();
    if (n == 0) throw std::invalid_argument("Hermite integrator: no bodies");
    if (x.size() != n || v.size() != n) throw std::invalid_argument("Hermite integrator: array sizes differ");
    if (n > std::size_t(INT32_MAX)) throw std::invalid_argument("Hermite integrator: too many bodies");
    for (std::size_t i = 0; i < n; ++i) {
        if (!(mass[i] >= 0) || !std::isfinite(mass[i]))
            throw HermiteError("body " + std::to_string(i) + " has an invalid mass " + fmt(mass[i]));
        if (!finite(x[i]) || !finite(v[i]))
            throw HermiteError("body " + std::to_string(i) + " has a non-finite position or velocity at t = " + fmt(time));
    }
    if (!std::isfinite(time)) throw std::invalid_argument("Hermite integrator: non-finite start time");
    b_ = {};
    b_.resize(n);
    b_.mass = mass;
    b_.x = x;
    b_.v = v;
    origin_ = time;
    now_ = 0;
    engine_->reserve(n);
    upload_all();  // a = j = 0: the prediction to t = 0 is x, v
    std::vector<int> all(n);
    for (std::size_t i = 0; i < n; ++i) all[i] = int(i);
    engine_->want_nearest(true);  // for the first-step fallback below
    evaluate(0.0, all);
    engine_->want_nearest(false);
    for (std::size_t k = 0; k < n; ++k) {
        b_.a[k] = force_[k].acc;
        b_.jerk[k] = force_[k].jerk;
        b_.pot[k] = force_[k].pot;
    }
    if (p_.order == 6) {
        // The snap needs every body's acceleration: a second pass with a known (the crackle of
        // the first step stays 0: its predictor is one order short).
        upload_all();
        engine_->want_nearest(true);
        evaluate(0.0, all);
        engine_->want_nearest(false);
        for (std::size_t k = 0; k < n; ++k) b_.snap[k] = force_[k].snap;
    }
    int shared_level = 0;
    for (std::size_t i = 0; i < n; ++i) {
        const double aa = norm(b_.a[i]), jj = norm(b_.jerk[i]);
        double dt = jj > 0 ? p_.eta_start * aa / jj : INFINITY;
        // A body at a point of symmetry (the middle of the figure eight) has a = 0 exactly: its
        // first step comes from the orbital time about its nearest neighbour instead.
        if (!(dt >= level_dt(p_.max_level)) && force_[i].nearest >= 0) {
            const double r2 = force_[i].nearest_r2, m = b_.mass[i] + b_.mass[std::size_t(force_[i].nearest)];
            if (r2 > 0 && m > 0) dt = p_.eta_start * std::sqrt(r2 * std::sqrt(r2) / m);
        }
        int k = 0;
        while (k <= p_.max_level && level_dt(k) > dt) ++k;
        if (k > p_.max_level)
            throw HermiteError("step underflow: body " + std::to_string(i) + " needs a first step of " + fmt(dt) +
                               " at t = " + fmt(time) + ", below dt_max 2^-" + std::to_string(p_.max_level) +
                               " (the nearest body is " + std::to_string(force_[i].nearest) + " at r = " +
                               fmt(std::sqrt(force_[i].nearest_r2)) + ")");
        b_.level[i] = k;
        shared_level = std::max(shared_level, k);
    }
    if (p_.shared_steps) std::fill(b_.level.begin(), b_.level.end(), shared_level);
    upload_all();
    build_levels();
}

void HermiteIntegrator::resume(const Bodies& bodies, double time) {
    const std::size_t n = bodies.size();
    if (n == 0) throw std::invalid_argument("Hermite resume: no bodies");
    if (bodies.x.size() != n || bodies.v.size() != n || bodies.a.size() != n || bodies.jerk.size() != n ||
        bodies.pot.size() != n || bodies.t.size() != n || bodies.level.size() != n)
        throw std::invalid_argument("Hermite resume: array sizes differ");
    const bool has_higher = bodies.snap.size() == n && bodies.crackle.size() == n;
    if (p_.order == 6 && !has_higher)
        throw std::invalid_argument("Hermite resume: the 6th-order integrator needs each body's snap and crackle, which this "
                                    "state lacks (saved by the 4th-order one?)");
    for (std::size_t i = 0; i < n; ++i) {
        if (bodies.t[i] != bodies.t[0])
            throw std::invalid_argument("Hermite resume: the state is not synchronised (body " + std::to_string(i) + ")");
        if (bodies.level[i] < 0 || bodies.level[i] > p_.max_level)
            throw std::invalid_argument("Hermite resume: body " + std::to_string(i) + " has block level " +
                                        std::to_string(bodies.level[i]) + " outside 0.." + std::to_string(p_.max_level));
    }
    b_ = bodies;
    if (p_.order == 4 || !has_higher) {  // the 4th order predicts with neither
        b_.snap.assign(n, {});
        b_.crackle.assign(n, {});
    }
    std::fill(b_.t.begin(), b_.t.end(), 0.0);  // times are relative to the new origin
    origin_ = time;
    now_ = 0;
    engine_->reserve(n);
    upload_all();
    build_levels();
}

void HermiteIntegrator::build_levels() {
    levels_.assign(std::size_t(p_.max_level) + 1, {});
    for (std::size_t i = 0; i < b_.size(); ++i) levels_[std::size_t(b_.level[i])].push_back(int(i));
}

bool HermiteIntegrator::synchronised() const {
    return std::all_of(b_.t.begin(), b_.t.end(), [&](double t) { return t == now_; });
}

void HermiteIntegrator::evaluate(double t, const std::vector<int>& active) {
    // Grown, never shrunk: a block passes the first active.size() entries (resizing them down and up
    // again would zero the regrown part every block).
    if (ip_.size() < active.size()) ip_.resize(active.size()), force_.resize(active.size());
    const std::span<const IParticle> in(ip_.data(), active.size());
    const std::span<IForce> out(force_.data(), active.size());
    Laps laps(profiling_);
    // Each body alone: the loops below give the same bits on any number of threads.
    parallel_for(
        active.size(),
        [&](std::size_t begin, std::size_t end) {
            for (std::size_t k = begin; k < end; ++k) {
                const std::size_t i = std::size_t(active[k]);
                const JParticle p = j_particle(i);
                ip_[k].id = int(i);
                ip_[k].x = predict_position(p, t - p.t);
                ip_[k].v = predict_velocity(p, t - p.t);
                if (p_.order == 6) ip_[k].a = predict_acceleration(p, t - p.t);
                ip_[k].h2 = 0;
            }
        },
        host_threads_from());
    laps.lap(profile_.predict);
    engine_->compute(t, b_.size(), in, p_.softening * p_.softening, out);
    laps.lap(profile_.force);
    const std::size_t bad = first_where(
        active.size(),
        [&](std::size_t k) { return !finite(force_[k].acc) || !finite(force_[k].jerk) || !std::isfinite(force_[k].pot); },
        host_threads_from());
    if (bad < active.size()) {
        find_nearest(t, active);  // again, to name the other body
        fail_force(t, active, bad);
    }
    laps.lap(profile_.check);
    if (profiling_) profile_.body_steps += active.size();
    stats_.body_steps += active.size();
    stats_.interactions += double(active.size()) * double(b_.size());
}

// The block's forces again, with each body's nearest neighbour (block steps do not search for it):
// for an error message that names the other body.
void HermiteIntegrator::find_nearest(double t, const std::vector<int>& active) {
    engine_->want_nearest(true);
    engine_->compute(t, b_.size(), std::span<const IParticle>(ip_.data(), active.size()), p_.softening * p_.softening,
                     std::span<IForce>(force_.data(), active.size()));
    engine_->want_nearest(false);
}

void HermiteIntegrator::fail_force(double t, const std::vector<int>& active, std::size_t k) const {
    const int i = active[k];
    const IForce& f = force_[k];
    std::ostringstream msg;
    msg << "Hermite: the force on body " << i << " is not finite at t = " << fmt(origin_ + t);
    if (f.nearest >= 0 && f.nearest_r2 == 0 && p_.softening == 0)
        msg << ": bodies " << i << " and " << f.nearest << " are at zero separation with zero softening";
    else if (f.nearest >= 0)
        msg << " (nearest body " << f.nearest << " at r = " << fmt(std::sqrt(f.nearest_r2)) << "; a NaN in the input?)";
    msg << "; the state of the last completed step (t = " << fmt(time()) << ") is kept";
    throw HermiteError(msg.str());
}

int HermiteIntegrator::level_for(double dt_crit, int old_level, double t) const {
    return block_level_for(dt_crit, old_level, t, level_dts_.data(), p_.max_level);
}

StepEnd HermiteIntegrator::end_of_step_4(std::size_t i, std::size_t k, double dt) const {
    const StepEnd4 e4 = hermite4_step_end(ip_[k].x, ip_[k].v, b_.a[i], b_.jerk[i], force_[k].acc, force_[k].jerk, dt, p_.eta);
    StepEnd e;
    e.x = e4.x, e.v = e4.v, e.dt_crit = e4.dt_crit;
    return e;
}

StepEnd HermiteIntegrator::end_of_step_6(std::size_t i, std::size_t k, double dt) const {
    const Vec3d x0 = b_.x[i], v0 = b_.v[i], a0 = b_.a[i], j0 = b_.jerk[i], s0 = b_.snap[i];
    const Vec3d a1 = force_[k].acc, j1 = force_[k].jerk, s1 = force_[k].snap;
    const double dt2 = dt * dt, dt3 = dt2 * dt;
    StepEnd e;
    e.v = v0 + (dt / 2) * (a0 + a1) - (dt2 / 10) * (j1 - j0) + (dt3 / 120) * (s1 + s0);
    e.x = x0 + (dt / 2) * (v0 + e.v) - (dt2 / 10) * (a1 - a0) + (dt3 / 120) * (j1 + j0);
    // The quintic a(t) = a0 + j0 t + s0 t^2/2 + c3 t^3 + c4 t^4 + c5 t^5 through a1, j1, s1 at dt
    // gives the 3rd, 4th and 5th derivatives at the end, for the next predictor and step.
    const Vec3d r0 = a1 - (a0 + dt * j0 + (dt2 / 2) * s0), r1 = j1 - (j0 + dt * s0), r2 = s1 - s0;
    const Vec3d c3 = (10.0 * r0 - (4.0 * dt) * r1 + (dt2 / 2) * r2) / dt3;
    const Vec3d c4 = (-15.0 * r0 + (7.0 * dt) * r1 - dt2 * r2) / (dt2 * dt2);
    const Vec3d c5 = (6.0 * r0 - (3.0 * dt) * r1 + (dt2 / 2) * r2) / (dt2 * dt3);
    e.crackle = 6.0 * c3 + (24.0 * dt) * c4 + (60.0 * dt2) * c5;
    const Vec3d pop = 24.0 * c4 + (120.0 * dt) * c5, d5 = 120.0 * c5;
    // Nitadori & Makino's generalised Aarseth criterion for order 6 (New Astron. 13, 498, 2008, eq. 13).
    const double aa = norm(a1), jj = norm(j1), ss = norm(s1);
    const double num = std::sqrt(aa * ss) + jj;
    const double den = std::sqrt(norm(e.crackle) * norm(d5)) + norm(pop);
    const double dt_6th = den > 0 ? p_.eta * std::cbrt(num / den) : INFINITY;
    // pop and d5 carry the rounding of a0 and a1 divided by dt^4 and dt^5. Where eta asks for steps whose
    // truncation lies below that rounding (a close pair at eta 0.01, a binary far from the origin), the
    // criterion reads the noise as structure and asks for a shorter step, whose noise is larger: the step
    // collapses to an underflow. The kernel's own a, j and s carry no such noise, so their time scale
    // bounds the step from below (kStepFloorOfTheLowTimeScale, integrator.hpp).
    const double low_den = std::sqrt(aa * ss + jj * jj);
    const double dt_floor = low_den > 0 ? p_.eta * kStepFloorOfTheLowTimeScale * aa / low_den : 0.0;
    e.dt_crit = std::max(dt_6th, dt_floor);
    return e;
}

void HermiteIntegrator::correct(double t, const std::vector<int>& active, bool block_grid) {
    if (corrected_.size() < active.size()) corrected_.resize(active.size()), jp_.resize(active.size());
    std::vector<Corrected>& nw = corrected_;  // every entry used below is written first
    Laps laps(profiling_);
    // The corrector of each body alone, in parallel; the first body (in the active order) whose
    // corrected state is not finite or whose step underflows stops the block, as a serial loop would.
    const std::size_t n = active.size();
    std::atomic<std::size_t> first_bad{n};
    std::atomic<int> shared_level{0};
    parallel_for(
        n,
        [&](std::size_t begin, std::size_t end) {
            int chunk_level = 0;
            for (std::size_t k = begin; k < end; ++k) {
                const std::size_t i = std::size_t(active[k]);
                const double dt = t - b_.t[i];
                static_cast<StepEnd&>(nw[k]) = p_.order == 6 ? end_of_step_6(i, k, dt) : end_of_step_4(i, k, dt);
                nw[k].level = level_for(nw[k].dt_crit, b_.level[i], block_grid ? t : 0.0);
                chunk_level = std::max(chunk_level, nw[k].level);
                if (!finite(nw[k].x) || !finite(nw[k].v) || nw[k].level > p_.max_level) {
                    for (std::size_t seen = first_bad.load(); k < seen && !first_bad.compare_exchange_weak(seen, k);) {
                    }
                    break;
                }
            }
            for (int seen = shared_level.load(); chunk_level > seen && !shared_level.compare_exchange_weak(seen, chunk_level);) {
            }
        },
        host_threads_from());
    if (const std::size_t k = first_bad.load(); k < n) {
        const std::size_t i = std::size_t(active[k]);
        if (!finite(nw[k].x) || !finite(nw[k].v))
            throw HermiteError("Hermite: body " + std::to_string(i) + " has a non-finite corrected state at t = " +
                               fmt(origin_ + t) + "; the state of the last completed step (t = " + fmt(time()) +
                               ") is kept");
        const double dt_crit = nw[k].dt_crit;
        if (force_[k].nearest < 0) find_nearest(t, active);
        throw HermiteError("Hermite: step underflow at t = " + fmt(origin_ + t) + ": body " + std::to_string(i) +
                           " needs a step of " + fmt(dt_crit) + ", below the smallest block step " +
                           fmt(level_dt(p_.max_level)) + " (level " + std::to_string(p_.max_level) +
                           "); its nearest body is " + std::to_string(force_[k].nearest) + " at r = " +
                           fmt(std::sqrt(force_[k].nearest_r2)) + ". The state of the last completed step (t = " +
                           fmt(time()) + ") is kept");
    }
    laps.lap(profile_.correct);
    // All checks passed: commit, and hand the engine the new j-particles in one batch.
    const int level_of_all = shared_level.load();
    parallel_for(
        n,
        [&](std::size_t begin, std::size_t end) {
            for (std::size_t k = begin; k < end; ++k) {
                const std::size_t i = std::size_t(active[k]);
                b_.x[i] = nw[k].x;
                b_.v[i] = nw[k].v;
                b_.a[i] = force_[k].acc;
                b_.jerk[i] = force_[k].jerk;
                if (p_.order == 6) b_.snap[i] = force_[k].snap, b_.crackle[i] = nw[k].crackle;  // order 4: zero, left so
                b_.pot[i] = force_[k].pot;
                b_.t[i] = t;
                b_.level[i] = p_.shared_steps ? level_of_all : nw[k].level;
                jp_[k] = j_particle(i);
            }
        },
        host_threads_from());
    engine_->set_j_batch(active, std::span<const JParticle>(jp_.data(), n));
    laps.lap(profile_.commit);
}

double HermiteIntegrator::level_start(std::size_t k) const {
    return levels_[k].empty() ? 0.0 : b_.t[std::size_t(levels_[k][0])];
}

double HermiteIntegrator::level_end(std::size_t k) const {
    return hermite::level_end(!levels_[k].empty(), level_start(k), level_dt(int(k)));
}

double HermiteIntegrator::step_block() {
    Laps laps(profiling_);
    const double t_next = next_block_time(levels_.size(), [this](std::size_t k) { return level_end(k); });
    // Whole levels are active (integrator.hpp); ascending body order keeps runs reproducible. The
    // active levels' bodies are marked in a bitmap and read back in order (sorting the levels' lists
    // cost ~40 ns a body step at 128K, nbody_hermite_host_bench).
    std::vector<int>& active = active_;
    active.clear();
    mark_.resize((b_.size() + 63) / 64);
    std::size_t first_word = mark_.size(), last_word = 0;
    for (std::size_t k = 0; k < levels_.size(); ++k)
        if (level_end(k) == t_next) {
            for (const int i : levels_[k]) {
                const std::size_t w = std::size_t(i) >> 6;
                mark_[w] |= std::uint64_t(1) << (unsigned(i) & 63);
                first_word = std::min(first_word, w), last_word = std::max(last_word, w);
            }
            levels_[k].clear();
        }
    for (std::size_t w = first_word; w <= last_word && w < mark_.size(); ++w)
        for (std::uint64_t bits = std::exchange(mark_[w], 0); bits != 0; bits &= bits - 1)
            active.push_back(int(w * 64 + std::size_t(std::countr_zero(bits))));
    laps.lap(profile_.select);
    try {
        evaluate(t_next, active);
        correct(t_next, active, true);
    } catch (...) {
        for (int i : active) levels_[std::size_t(b_.level[std::size_t(i)])].push_back(i);  // nothing was committed
        throw;
    }
    Laps requeue(profiling_);
    for (int i : active) levels_[std::size_t(b_.level[std::size_t(i)])].push_back(i);
    requeue.lap(profile_.requeue);
    if (profiling_) ++profile_.blocks;
    now_ = t_next;
    ++stats_.blocks;
    return time();
}

bool HermiteIntegrator::advance(double t_end) {
    const double t_next = next_block_time(levels_.size(), [this](std::size_t k) { return level_end(k); });
    if (!(t_next <= t_end - origin_)) return false;
    step_block();
    return true;
}

std::string HermiteIntegrator::device_blocks_unavailable() const {
    if (!p_.blocks_on_device) return "block steps on the host, as asked";
    if (p_.order != 4) return "the 6th order takes its block steps on the host";
    if (p_.shared_steps) return "shared steps are taken on the host";
    return engine_->device_blocks_unavailable();
}

bool HermiteIntegrator::advance_blocks(double t_end, double pair_budget) {
    if (!device_blocks_) return advance(t_end);
    DeviceBlocks run;
    run.level_count.resize(levels_.size());
    run.level_time.resize(levels_.size());
    for (std::size_t k = 0; k < levels_.size(); ++k) {
        run.level_count[k] = levels_[k].size();
        run.level_time[k] = level_start(k);
    }
    run.level_dts = level_dts_.data();
    run.max_level = p_.max_level;
    run.eta = p_.eta;
    run.eps2 = p_.softening * p_.softening;
    run.t_end = t_end - origin_;
    run.pair_budget = pair_budget;
    run.now = now_;
    Laps laps(profiling_);
    engine_->step_blocks(run, {b_.x, b_.v, b_.a, b_.jerk, b_.pot, b_.t, b_.level});
    laps.lap(profile_.device);
    if (run.blocks > 0) {
        now_ = run.now;
        stats_.blocks += run.blocks;
        stats_.body_steps += run.body_steps;
        stats_.interactions += run.interactions;
        if (profiling_) profile_.blocks += run.blocks, profile_.body_steps += run.body_steps;
        build_levels();
    }
    if (run.stopped) {
        step_block();  // the failing block again, on the host, which says what failed (it throws)
        return true;
    }
    return run.blocks > 0;
}

void HermiteIntegrator::evolve(double t_end) {
    if (b_.size() == 0) throw std::logic_error("Hermite integrator: evolve before start");
    const double rel_end = t_end - origin_;
    if (!(rel_end >= now_)) throw std::invalid_argument("Hermite: t_end " + fmt(t_end) + " is before the current time " + fmt(time()));
    while (advance_blocks(t_end, INFINITY)) {
    }
    if (synchronised() && now_ == rel_end) return;
    // Synchronise: one step of its own length for every body still behind t_end.
    std::vector<int> behind;
    for (std::size_t i = 0; i < b_.size(); ++i)
        if (b_.t[i] < rel_end) behind.push_back(int(i));
    evaluate(rel_end, behind);
    correct(rel_end, behind, false);
    ++stats_.blocks;
    origin_ = t_end;
    now_ = 0;
    std::fill(b_.t.begin(), b_.t.end(), 0.0);
    upload_all();
    build_levels();
}

void HermiteIntegrator::predicted(std::vector<Vec3d>& x, std::vector<Vec3d>& v) const { predict_all(now_, x, v); }

void HermiteIntegrator::predicted_at(double t, std::vector<Vec3d>& x, std::vector<Vec3d>& v) const {
    predict_all(t - origin_, x, v);
}

void HermiteIntegrator::predict_all(double rel, std::vector<Vec3d>& x, std::vector<Vec3d>& v) const {
    x.resize(b_.size());
    v.resize(b_.size());
    parallel_for(
        b_.size(),
        [&](std::size_t begin, std::size_t end) {
            for (std::size_t i = begin; i < end; ++i) {
                const JParticle p = j_particle(i);
                x[i] = predict_position(p, rel - p.t);
                v[i] = predict_velocity(p, rel - p.t);
            }
        },
        host_threads_from());
}

void HermiteIntegrator::set_profiling(bool on) {
    profiling_ = on;
    engine_->set_profiling(on);
}

std::string HermiteIntegrator::profile_report(double wall) const {
    const HermiteProfile& p = profile_;
    const double blocks = double(std::max<std::uint64_t>(1, p.blocks)), steps = double(std::max<std::uint64_t>(1, p.body_steps));
    std::string s;
    char line[200];
    std::snprintf(line, sizeof line, "profile: %llu blocks, %llu body steps (%.0f a block), %.3f s wall\n",
                  (unsigned long long)p.blocks, (unsigned long long)p.body_steps, double(p.body_steps) / blocks, wall);
    s += line;
    auto row = [&](const char* name, double seconds) {
        std::snprintf(line, sizeof line, "  %-34s %9.3f s %5.1f %% %10.1f us/block %8.1f ns/body step\n", name, seconds,
                      wall > 0 ? 100.0 * seconds / wall : 0.0, seconds / blocks * 1e6, seconds / steps * 1e9);
        s += line;
    };
    const double phases[] = {p.select, p.predict, p.force, p.check, p.correct, p.commit, p.requeue, p.device};
    const char* names[] = {"select (block time, active list)", "predict (i-batch)", "force (engine compute)",
                           "check (forces finite)", "correct (corrector, steps)", "commit (write back, set_j)",
                           "requeue (levels)", "block steps on the GPU (whole)"};
    double sum = 0;
    // A phase the run never entered (the host's phases where the GPU took the blocks, or the GPU's
    // where the host did) has no row.
    for (std::size_t k = 0; k < std::size(phases); ++k)
        if (phases[k] > 0) row(names[k], phases[k]), sum += phases[k];
    row("other (outside the phases)", wall - sum);
    const std::vector<PhaseTime> engine = engine_->profile();
    // Block steps on the GPU call none of the engine's host phases: no rows of zeros then.
    if (std::any_of(engine.begin(), engine.end(), [](const PhaseTime& e) { return e.seconds > 0; })) {
        std::snprintf(line, sizeof line, "  of which the %s engine's phases:\n", std::string(engine_->name()).c_str());
        s += line;
        for (const PhaseTime& e : engine) row(("  " + e.name).c_str(), e.seconds);
    }
    return s;
}

std::vector<std::size_t> HermiteIntegrator::level_histogram() const {
    std::vector<std::size_t> h(std::size_t(p_.max_level) + 1, 0);
    for (int l : b_.level) ++h[std::size_t(l)];
    return h;
}

double HermiteIntegrator::energy() const { return *energy_or_stop({}); }

std::optional<double> HermiteIntegrator::energy_or_stop(const std::function<bool()>& stop) const {
    std::vector<Vec3d> x, v;
    predicted(x, v);
    return total_energy(b_.mass, x, v, p_.softening, stop);
}

std::optional<double> total_energy(const std::vector<double>& mass, const std::vector<Vec3d>& x,
                                   const std::vector<Vec3d>& v, double softening,
                                   const std::function<bool()>& stop) {
    const std::size_t n = x.size();
    const double eps2 = softening * softening;
    std::vector<double> phi(n, 0.0);
    std::atomic<bool> stopped{false};
    // On every core even where NBODY_HERMITE_THREADS=1 makes the block steps' loops serial: at 128K
    // bodies this sum is 1.7e10 pairs, about a minute on one thread (before the run and after it).
    parallel_for_every_core(n, [&](std::size_t begin, std::size_t end) {
        for (std::size_t i = begin; i < end; ++i) {
            if (stop && (stopped.load(std::memory_order_relaxed) || stop())) {
                stopped = true;
                return;
            }
            double s = 0;
            for (std::size_t j = 0; j < n; ++j) {
                if (j == i) continue;
                const Vec3d d = x[j] - x[i];
                s += mass[j] / std::sqrt(dot(d, d) + eps2);
            }
            phi[i] = s;
        }
    });
    if (stopped) return std::nullopt;
    double kinetic = 0, potential = 0;
    for (std::size_t i = 0; i < n; ++i) {
        kinetic += 0.5 * mass[i] * dot(v[i], v[i]);
        potential -= 0.5 * mass[i] * phi[i];
    }
    return kinetic + potential;
}

}  // namespace nbody::hermite
