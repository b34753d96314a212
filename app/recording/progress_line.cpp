#include "progress_line.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace nbody::app {

std::string format_hms(double seconds) {
    const long long s = std::llround(std::max(seconds, 0.0));
    char buf[32];
    if (s >= 3600)
        std::snprintf(buf, sizeof buf, "%lld:%02lld:%02lld", s / 3600, s / 60 % 60, s % 60);
    else
        std::snprintf(buf, sizeof buf, "%lld:%02lld", s / 60, s % 60);
    return buf;
}

ProgressLine::ProgressLine(std::string what, long long total, double interval_seconds)
    : what_(std::move(what)), total_(total), interval_(interval_seconds), start_(Clock::now()), last_(start_) {}

double ProgressLine::elapsed() const { return std::chrono::duration<double>(Clock::now() - start_).count(); }

void ProgressLine::update(long long done) {
    const auto now = Clock::now();
    if (std::chrono::duration<double>(now - last_).count() < interval_ || done >= total_) return;
    last_ = now;
    const double elapsed = std::chrono::duration<double>(now - start_).count();
    const double rate = elapsed > 0 ? double(done) / elapsed : 0.0;
    const std::string eta = rate > 0 ? format_hms(double(total_ - done) / rate) : std::string("?");
    std::fprintf(stderr, "  %s %lld / %lld (%.1f%%), %.3g %ss/s, elapsed %s, ETA %s\n", what_.c_str(), done, total_,
                 total_ > 0 ? 100.0 * double(done) / double(total_) : 0.0, rate, what_.c_str(),
                 format_hms(elapsed).c_str(), eta.c_str());
    std::fflush(stderr);
}

}  // namespace nbody::app
