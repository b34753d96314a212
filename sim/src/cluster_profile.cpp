#include "nbody/sim/cluster_profile.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>

namespace nbody {
namespace {

Vec3d centre_of_mass(const State& s) {
    Vec3d c{};
    double m = 0;
    for (const Vec4f& p : s.pos_mass) {
        c = c + double(p.w) * xyz(p);
        m += p.w;
    }
    return m > 0 ? (1.0 / m) * c : c;
}

struct Shell {
    double r2 = 0, m = 0;
    std::size_t body = 0;
};

// rho0 and sigma (1-D, mass-weighted about the inner bodies' mean velocity) inside the radius of
// the first `inner` shells.
double king_core(const State& s, const std::vector<Shell>& shells, std::size_t inner) {
    double m = 0;
    Vec3d mv{};
    for (std::size_t k = 0; k < inner; ++k) {
        m += shells[k].m;
        mv = mv + shells[k].m * xyz(s.velocity[shells[k].body]);
    }
    const Vec3d mean = (1.0 / m) * mv;
    double mv2 = 0;
    for (std::size_t k = 0; k < inner; ++k) {
        const Vec3d d = xyz(s.velocity[shells[k].body]) - mean;
        mv2 += shells[k].m * dot(d, d);
    }
    const double r = std::sqrt(shells[inner - 1].r2);
    const double rho0 = m / (4.0 / 3.0 * std::numbers::pi * r * r * r);
    const double sigma2 = mv2 / (3.0 * m);
    return rho0 > 0 ? std::sqrt(9.0 * sigma2 / (4.0 * std::numbers::pi * rho0)) : 0.0;
}

}  // namespace

ClusterProfile measure_cluster(const State& s) {
    ClusterProfile p;
    p.time = s.time;
    if (s.size() < 2) return p;
    const Vec3d c = centre_of_mass(s);
    std::vector<Shell> shells(s.size());
    double total = 0;
    for (std::size_t i = 0; i < s.size(); ++i) {
        const Vec3d d = xyz(s.pos_mass[i]) - c;
        shells[i] = {dot(d, d), double(s.pos_mass[i].w), i};
        total += shells[i].m;
    }
    std::sort(shells.begin(), shells.end(), [](const Shell& a, const Shell& b) { return a.r2 < b.r2; });
    double* const radii[] = {&p.r10, &p.r50, &p.r90};
    const double fractions[] = {0.1, 0.5, 0.9};
    double m = 0;
    std::size_t next = 0, inner = 0;
    for (std::size_t k = 0; k < shells.size() && next < 3; ++k) {
        m += shells[k].m;
        if (inner == 0 && m >= 0.01 * total && k + 1 >= std::min<std::size_t>(64, shells.size())) inner = k + 1;
        while (next < 3 && m >= fractions[next] * total) *radii[next++] = std::sqrt(shells[k].r2);
    }
    p.core = king_core(s, shells, inner > 0 ? inner : std::min<std::size_t>(64, shells.size()));
    return p;
}

void ClusterHistory::set_interval(double model_time) {
    const std::lock_guard lock(mutex_);
    interval_ = model_time > 0 ? model_time : 0;
}

bool ClusterHistory::active() const {
    const std::lock_guard lock(mutex_);
    return interval_ > 0;
}

bool ClusterHistory::due(double time) const {
    const std::lock_guard lock(mutex_);
    return interval_ > 0 && (!started_ || time >= next_);
}

bool ClusterHistory::observe(const State& state) {
    if (!due(state.time)) return false;
    const ClusterProfile p = measure_cluster(state);  // outside the lock: the UI reads meanwhile
    const std::lock_guard lock(mutex_);
    next_ = state.time + interval_;
    started_ = true;
    if (samples_.size() >= capacity_) {  // every other one goes: the history keeps its whole span
        std::vector<ClusterProfile> kept;
        for (std::size_t k = 0; k < samples_.size(); k += 2) kept.push_back(samples_[k]);
        samples_ = std::move(kept);
        interval_ *= 2;
        next_ = state.time + interval_;
    }
    samples_.push_back(p);
    return true;
}

double ClusterHistory::next_time() const {
    const std::lock_guard lock(mutex_);
    return !(interval_ > 0) ? 1e300 : started_ ? next_ : -1e300;
}

void ClusterHistory::clear() {
    const std::lock_guard lock(mutex_);
    samples_.clear();
    started_ = false;
}

std::vector<ClusterProfile> ClusterHistory::samples() const {
    const std::lock_guard lock(mutex_);
    return samples_;
}

}  // namespace nbody
