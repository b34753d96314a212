#pragma once
// Trail points sampled by model time on the simulation side (issue 33, item 7): whoever steps the
// system (the viewer's simulation thread after each step, a Hermite run at each sample time)
// records the positions once the model time reaches the next sample time, so a trail is spaced
// along the orbit, not by the frames the window happened to draw: a close encounter stepped
// within one frame is still a curve of many points. The window takes the points recorded since
// its last frame and adds them to the trail it draws.
//
// Thread-safe: recorded on the stepping thread, taken on the UI thread. Points not taken are
// held up to kMaxHeld of them and kMaxHeldBytes in all (the oldest go first), so a window that
// stops drawing does not grow memory.

#include <cstddef>
#include <mutex>
#include <vector>

#include "nbody/sim/types.hpp"

namespace nbody {

struct TrailPoint {
    double time = 0;
    std::vector<Vec4f> positions;  // x, y, z, m of every body, in the state's order
};

class TrailSampler {
  public:
    // Model time between points; <= 0 switches sampling off (and drops what is held).
    void set_interval(double interval);
    double interval() const;
    // A new system or a jump (load, reset): the next point is the first state recorded after it.
    void restart();
    // Whether a state at model time `time` is to be recorded (cheap: one comparison under a lock).
    bool due(double time) const;
    // Records `positions` at `time` when due(time); returns whether it did.
    bool record(double time, const std::vector<Vec4f>& positions);
    // The points recorded since the last take, oldest first.
    std::vector<TrailPoint> take();
    // The model time at which the next point falls due (for stepping up to it): -inf-like before
    // the first, +inf-like when off.
    double next_time() const;

    static constexpr std::size_t kMaxHeld = 256, kMaxHeldBytes = std::size_t(64) << 20;

  private:
    mutable std::mutex mutex_;
    double interval_ = 0, next_ = 0, last_ = 0;
    bool started_ = false;
    std::vector<TrailPoint> held_;
};

}  // namespace nbody
