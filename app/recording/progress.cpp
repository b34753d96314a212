#include "progress.hpp"

#include "progress_line.hpp"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace nbody::app {

Progress::Progress(long long total) : total_(total), tty_(isatty(fileno(stderr)) != 0), start_(Clock::now()) {}

void Progress::update(long long done) {
    const auto now = Clock::now();
    const bool last = done >= total_;
    const auto seconds = [](Clock::time_point a, Clock::time_point b) {
        return std::chrono::duration<double>(b - a).count();
    };
    if (tty_) {
        if (!last && seconds(last_print_, now) < 0.2) return;
    } else if (!last && seconds(last_print_, now) < 2.0) {
        return;  // logs: a line every 2 s
    }
    printed_ = done;
    last_print_ = now;
    const double elapsed = seconds(start_, now);
    const double fps = elapsed > 0 ? double(done) / elapsed : 0.0;
    const double eta = fps > 0 ? double(total_ - done) / fps : 0.0;
    std::fprintf(stderr, "%sframe %lld/%lld  %.1f frames/s  elapsed %s  ETA %s%s", tty_ ? "\r\033[K" : "", done,
                 total_, fps, format_hms(elapsed).c_str(), format_hms(eta).c_str(),
                 tty_ && !last ? "" : "\n");
    std::fflush(stderr);
}

void Progress::interrupt_line() {
    if (tty_) std::fprintf(stderr, "\n");
}

}  // namespace nbody::app
