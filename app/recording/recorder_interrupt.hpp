#pragma once
// Ctrl-C (SIGINT) and SIGTERM as a request to stop after the current frame, so that a recording
// ends with every queued frame written, the PNG sequence complete and the MP4 closed properly.
// A second Ctrl-C while the first is being honoured kills the process the ordinary way.
//
// While a guard is alive:
//   SIGINT, SIGTERM  set a flag the frame loop polls (interrupt_requested()).
//   SIGPIPE          ignored: a dead ffmpeg makes write() fail with EPIPE, which is reported,
//                    instead of killing the simulator.
//   SIGXFSZ          ignored: a file-size limit makes write() fail with EFBIG, reported like a
//                    full disk, instead of killing the simulator with a core dump.

#include <csignal>

namespace nbody::app {

class InterruptGuard {
  public:
    InterruptGuard();
    ~InterruptGuard();
    InterruptGuard(const InterruptGuard&) = delete;
    InterruptGuard& operator=(const InterruptGuard&) = delete;

    // The signal that asked to stop (SIGINT or SIGTERM), 0 when none did.
    static int requested();

  private:
    struct sigaction old_int_ {
    }, old_term_{}, old_pipe_{}, old_xfsz_{};
};

// "SIGINT (Ctrl-C)", "SIGTERM": the signal a stop message names.
const char* signal_name(int sig);

}  // namespace nbody::app
