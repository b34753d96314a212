#include "nbody/sim/trail_sampler.hpp"

#include <algorithm>
#include <cmath>
#include <utility>

namespace nbody {

void TrailSampler::set_interval(double interval) {
    const std::lock_guard lock(mutex_);
    if (interval == interval_) return;
    interval_ = interval > 0 ? interval : 0;
    next_ = last_ + interval_;  // the new spacing from the newest point
    if (interval_ == 0) held_.clear();
}

double TrailSampler::interval() const {
    const std::lock_guard lock(mutex_);
    return interval_;
}

void TrailSampler::restart() {
    const std::lock_guard lock(mutex_);
    started_ = false;
    held_.clear();
}

bool TrailSampler::due(double time) const {
    const std::lock_guard lock(mutex_);
    return interval_ > 0 && (!started_ || time >= next_);
}

bool TrailSampler::record(double time, const std::vector<Vec4f>& positions) {
    const std::lock_guard lock(mutex_);
    if (!(interval_ > 0) || (started_ && time < next_)) return false;
    // Due times advance by whole intervals from the first point, so the spacing does not creep
    // by the step that overshot each one.
    next_ = started_ ? next_ + interval_ * std::max(1.0, std::floor((time - next_) / interval_) + 1) : time + interval_;
    started_ = true;
    last_ = time;
    const std::size_t point_bytes = std::max<std::size_t>(positions.size() * sizeof(Vec4f), 1);
    const std::size_t most = std::clamp<std::size_t>(kMaxHeldBytes / point_bytes, 2, kMaxHeld);
    while (held_.size() >= most) held_.erase(held_.begin());
    held_.push_back({time, positions});
    return true;
}

std::vector<TrailPoint> TrailSampler::take() {
    const std::lock_guard lock(mutex_);
    return std::exchange(held_, {});
}

double TrailSampler::next_time() const {
    const std::lock_guard lock(mutex_);
    return !(interval_ > 0) ? 1e300 : started_ ? next_ : -1e300;
}

}  // namespace nbody
