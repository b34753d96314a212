#pragma once
// `nbody record`'s progress on stderr: rewritten in place on a terminal, a line every 2 s
// otherwise (logs and test output stay readable).

#include <chrono>
#include <string>

namespace nbody::app {

class Progress {
  public:
    explicit Progress(long long total);
    void update(long long done);  // frames done so far
    void interrupt_line();        // ends the in-place line before an "interrupted" message

  private:
    using Clock = std::chrono::steady_clock;
    long long total_, printed_ = -1;
    bool tty_;
    Clock::time_point start_, last_print_{};
};

}  // namespace nbody::app
