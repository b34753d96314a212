#include "progress.hpp"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace nbody::app {

std::string format_duration(double seconds) {
    const long long s = std::llround(std::max(seconds, 0.0));
    char buf[32];
    if (s >= 3600)
        std::snprintf(buf, sizeof buf, "%lld:%02lld:%02lld", s / 3600, s / 60 % 60, s % 60);
    else
        std::snprintf(buf, sizeof buf, "%lld:%02lld", s / 60, s % 60);
    return buf;
}

Progress::Progress(long long total) : total_(total), tty_(isatty(fileno(stderr)) != 0), start_(Clock::now()) {}

void Progress::update(long long done) {
    const auto now = Clock::now();
    const bool last = done >= total_;
    const auto seconds = [](Clock::time_point a, Clock::time_point b) {
        return std::chrono::duration<double>(b - a).count();
    };
    if (tty_) {
        if (!last && seconds(last_print_, now) < 0.2) return;
    } else {
        const long long step = std::max<long long>(1, total_ / 10);
        if (!last && done / step == printed_ / step) return;
    }
    printed_ = done;
    last_print_ = now;
    const double elapsed = seconds(start_, now);
    const double fps = elapsed > 0 ? double(done) / elapsed : 0.0;
    const double eta = fps > 0 ? double(total_ - done) / fps : 0.0;
    std::fprintf(stderr, "%sframe %lld/%lld  %.1f frames/s  elapsed %s  ETA %s%s", tty_ ? "\r\033[K" : "", done,
                 total_, fps, format_duration(elapsed).c_str(), format_duration(eta).c_str(),
                 tty_ && !last ? "" : "\n");
    std::fflush(stderr);
}

void Progress::interrupt_line() {
    if (tty_) std::fprintf(stderr, "\n");
}

}  // namespace nbody::app
