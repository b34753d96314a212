#pragma once
// Stop signals, handled the same way in every command (issues 14 and 34):
//
//   SIGINT, SIGTERM, SIGHUP  a request to stop at the next safe point: the first one sets a flag
//                 the commands poll at every stage (InterruptGuard::requested()), and the handler
//                 says at once on stderr what the stop will do and that a second Ctrl-C aborts.
//                 The exit status is 128 + signal: 130, 143, 129.
//   a second one  aborts, but only 1 s or more after that acknowledgement: `timeout`, job
//                 schedulers and process-group kills deliver one signal twice within a
//                 millisecond, and one user action must never abort. An abort removes the
//                 temporaries in flight and says what was not written, then ends the process by
//                 the signal.
//   SIGPIPE       ignored: a dead ffmpeg, or stderr after SIGHUP closed the terminal, makes write()
//                 fail with EPIPE / EIO, which is reported (or, for a message, ignored) instead of
//                 killing the program.
//   SIGXFSZ       ignored: a file-size limit makes write() fail with EFBIG, reported like a full
//                 disk, instead of a core dump.
//
// main() installs the handlers before any work, so a signal in the first milliseconds is a
// request like any other. The handler calls only async-signal-safe functions: what it says is
// prepared beforehand (set_stop_messages, StopEndsAtOnce) and written with write(2).

#include <csignal>
#include <string_view>

namespace nbody::app {

// Installs the handlers for the life of the process (one, in main) and restores the old ones
// when it goes away.
class InterruptGuard {
  public:
    InterruptGuard();
    ~InterruptGuard();
    InterruptGuard(const InterruptGuard&) = delete;
    InterruptGuard& operator=(const InterruptGuard&) = delete;

    // The signal that asked to stop (SIGINT, SIGTERM or SIGHUP), 0 when none did.
    static int requested();

  private:
    struct sigaction old_int_ {
    }, old_term_{}, old_hup_{}, old_pipe_{}, old_xfsz_{};
};

// What the first signal's acknowledgement says the command will do ("stopping after the steps in
// progress; the state reached will be written to o.nbsnap") and what an abort would leave
// unwritten ("o.nbsnap is not written"). A command sets them once it knows its outputs; until
// then a stop is "at the next safe point" and an abort writes nothing. Long texts are cut.
void set_stop_messages(std::string_view on_stop, std::string_view on_abort);

// While one is alive, the first stop signal ends the process at once with status 128 + signal,
// saying "interrupted by SIGINT (Ctrl-C): <what_is_lost>": for stages whose work would be thrown
// away anyway (a force pass whose result is not ready, a measurement), so that they stop within
// a second however long they take. A request that came before it was made ends the process
// when it is made. Nested ones say their own text; the outer one's comes back when they end.
class StopEndsAtOnce {
  public:
    explicit StopEndsAtOnce(std::string_view what_is_lost);
    ~StopEndsAtOnce();
    StopEndsAtOnce(const StopEndsAtOnce&) = delete;
    StopEndsAtOnce& operator=(const StopEndsAtOnce&) = delete;

  private:
    int outer_;  // the enclosing one's text, -1: none (a stop is a request again)
};

// "SIGINT (Ctrl-C)", "SIGTERM", "SIGHUP (terminal closed)": the signal a stop message names.
const char* signal_name(int sig);

// 128 + signal: 130 for SIGINT, 143 for SIGTERM, 129 for SIGHUP.
inline int stopped_exit_status(int sig) { return 128 + sig; }

// For the commands' polls: true once a stop was asked for (any thread may call it).
inline bool stop_requested() { return InterruptGuard::requested() != 0; }

}  // namespace nbody::app
