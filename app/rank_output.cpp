#include "rank_output.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <thread>

namespace nbody::app {

RankOutput::RankOutput(int rank, int ranks) : rank_(rank), ranks_(ranks) {
    if (rank_ == 0) return;
    std::fflush(nullptr);
    saved_stderr_ = ::dup(STDERR_FILENO);
    const int null = ::open("/dev/null", O_WRONLY | O_CLOEXEC);
    if (null < 0) return;  // the rank stays audible: noisier, never silent on an error
    ::dup2(null, STDOUT_FILENO);
    ::dup2(null, STDERR_FILENO);
    ::close(null);
}

RankOutput::~RankOutput() {
    if (saved_stderr_ >= 0) ::close(saved_stderr_);
}

void RankOutput::report_error(const std::string& message) const {
    std::string line = ranks_ > 1 ? "nbody: error on rank " + std::to_string(rank_) + " of " +
                                        std::to_string(ranks_) + ": " + message + "\n"
                                  : "nbody: error: " + message + "\n";
    if (rank_ != 0) std::this_thread::sleep_for(std::chrono::milliseconds(500));
    const int fd = saved_stderr_ >= 0 ? saved_stderr_ : STDERR_FILENO;
    std::fflush(stderr);
    if (::write(fd, line.data(), line.size()) < 0) std::fputs(line.c_str(), stderr);
}

}  // namespace nbody::app
