#pragma once
// Paces a frame loop that nothing else paces (the simulation beside it, no vsync under Xvfb or
// headless) to the display's rate, as a swap chain does: frames fall due on a fixed schedule, so a
// frame that ends late is made up by the next ones instead of pushing every later frame back.
// Sleeping a fixed period after each frame's start made the mean frame the period plus the mean
// lateness: 17.5 ms (57 frames/s) at 16M bodies on two H100s, where frames take 12.6 ms of GPU
// time on average and a few run late (device run 138).

#include <chrono>

namespace nbody::app {

class FramePacer {
  public:
    using Clock = std::chrono::steady_clock;

    explicit FramePacer(Clock::duration period) : period_(period) {}

    // The loop's first frame started at `now`.
    void start(Clock::time_point now) { due_ = now + period_; }

    // After a frame that ended at `now`: when the next frame may start (in the past: at once).
    // More than a period behind (a stall, a scene load, a frame paced by something else), the
    // schedule starts again from now rather than running a burst of frames to catch up.
    Clock::time_point next_start(Clock::time_point now) {
        if (now - due_ > period_) due_ = now;
        const Clock::time_point start = due_;
        due_ += period_;
        return start;
    }

    Clock::duration period() const { return period_; }

  private:
    Clock::duration period_;
    Clock::time_point due_{};
};

}  // namespace nbody::app
