#pragma once
// Progress of long work on stderr: a line every `interval` seconds (2 s by default) with what is
// done, the elapsed time and an estimate of the time left. Nothing is printed for work that ends
// before the first interval, so short commands stay quiet.

#include <chrono>
#include <string>

namespace nbody::app {

class ProgressLine {
  public:
    // `what` names the units ("step", "run"); `total` is how many there are.
    ProgressLine(std::string what, long long total, double interval_seconds = 2.0);

    // Prints a line when the interval has passed since the last one (or the start).
    void update(long long done);
    // Seconds since construction.
    double elapsed() const;

  private:
    using Clock = std::chrono::steady_clock;
    std::string what_;
    long long total_;
    double interval_;
    Clock::time_point start_, last_;
};

// "1:05", "2:03:04": a duration for a progress line.
std::string format_hms(double seconds);

}  // namespace nbody::app
