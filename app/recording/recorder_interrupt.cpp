#include "recorder_interrupt.hpp"

#include <pthread.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <initializer_list>

#include "nbody/sim/atomic_file.hpp"

namespace nbody::app {

namespace {

std::atomic<int> g_requested{0};
static_assert(std::atomic<int>::is_always_lock_free, "the signal handler needs a lock-free flag");

// When the first signal was acknowledged (CLOCK_MONOTONIC, ns); 0 until then. A second signal
// aborts only from kAbortAfterNs later.
std::atomic<long long> g_acknowledged_ns{0};
constexpr long long kAbortAfterNs = 1'000'000'000;
static_assert(std::atomic<long long>::is_always_lock_free, "the signal handler needs a lock-free clock");

bool g_stderr_is_tty = false;  // set before the handlers are installed: then only read
sigset_t g_mask_before;        // the signal mask main started with (one InterruptGuard per process)

// Texts the handler writes, prepared outside it. A new text goes into the next of a ring of slots
// and is then published by index, so the handler never reads a slot being written (that would
// take kSlots new texts while one handler runs).
constexpr std::size_t kSlots = 8;
constexpr std::size_t kMessageBytes = 512;
struct Message {
    char text[kMessageBytes];
    std::size_t length;
};
Message g_slots[kSlots];
std::atomic<unsigned> g_next_slot{0};
std::atomic<int> g_on_stop{-1}, g_on_abort{-1}, g_at_once{-1};  // slot indices; -1: the default text

int publish(std::string_view text) {
    const int slot = int(g_next_slot.fetch_add(1) % kSlots);
    Message& m = g_slots[slot];
    m.length = std::min(text.size(), kMessageBytes);
    std::memcpy(m.text, text.data(), m.length);
    return slot;
}

// write(2) until done; a failure (stderr closed after SIGHUP: EIO, EPIPE) is ignored.
void say(const char* text, std::size_t length) {
    while (length > 0) {
        const ssize_t written = ::write(STDERR_FILENO, text, length);
        if (written < 0 && errno == EINTR) continue;
        if (written <= 0) return;
        text += written;
        length -= std::size_t(written);
    }
}
void say(const char* text) { say(text, std::strlen(text)); }
void say(const std::atomic<int>& slot, const char* fallback) {
    const int index = slot.load();
    if (index < 0)
        say(fallback);
    else
        say(g_slots[index].text, g_slots[index].length);
}

long long monotonic_ns() {
    timespec t{};
    clock_gettime(CLOCK_MONOTONIC, &t);  // async-signal-safe
    return (long long)t.tv_sec * 1'000'000'000LL + t.tv_nsec;
}

constexpr const char* kDefaultOnStop = "stopping at the next safe point";
constexpr const char* kDefaultOnAbort = "nothing more is written";

[[noreturn]] void end_at_once(int sig) {
    say("nbody: interrupted by ");
    say(signal_name(sig));
    say(": ");
    say(g_at_once, kDefaultOnAbort);
    say("\n");
    remove_pending_temporary_files();
    _exit(stopped_exit_status(sig));
}

// Only async-signal-safe calls from here on (write, clock_gettime, unlink, sigaction, raise).
extern "C" void on_stop_signal(int sig) {
    const int saved_errno = errno;
    int none = 0;
    if (g_requested.compare_exchange_strong(none, sig)) {
        if (g_at_once.load() >= 0) end_at_once(sig);
        g_acknowledged_ns = monotonic_ns();  // before the message: a signal meanwhile counts as the same
        say(g_stderr_is_tty ? "\nnbody: " : "nbody: ");  // after the terminal's "^C"
        say(signal_name(sig));
        say(": ");
        say(g_on_stop, kDefaultOnStop);
        say(". A second Ctrl-C (or signal) 1 s from now or later aborts: ");
        say(g_on_abort, kDefaultOnAbort);
        say("\n");
    } else if (const long long at = g_acknowledged_ns.load(); at != 0 && monotonic_ns() - at >= kAbortAfterNs) {
        say("nbody: aborted by a second ");
        say(signal_name(sig));
        say(": ");
        say(g_on_abort, kDefaultOnAbort);
        say("\n");
        remove_pending_temporary_files();  // no partial *.tmpPID left behind
        struct sigaction dfl {};
        dfl.sa_handler = SIG_DFL;
        sigemptyset(&dfl.sa_mask);
        sigaction(sig, &dfl, nullptr);
        raise(sig);  // blocked in this handler: delivered, with its default action, when it returns
    }
    // Otherwise the same request delivered twice (a process group's copy, or two presses within
    // a second): one user action never aborts.
    errno = saved_errno;
}

void install(int sig, void (*handler)(int), struct sigaction* old) {
    struct sigaction sa;
    std::memset(&sa, 0, sizeof sa);
    sa.sa_handler = handler;
    sigemptyset(&sa.sa_mask);
    for (int stop : {SIGINT, SIGTERM, SIGHUP}) sigaddset(&sa.sa_mask, stop);  // one handler at a time per thread
    sa.sa_flags = SA_RESTART;  // reads and writes in progress carry on; the commands poll the flag
    sigaction(sig, &sa, old);
}


bool ignored_by_the_parent(int sig) {
    struct sigaction current {};
    return sigaction(sig, nullptr, &current) == 0 && current.sa_handler == SIG_IGN;
}

}  // namespace

InterruptGuard::InterruptGuard() {
    g_requested = 0;
    g_acknowledged_ns = 0;
    g_stderr_is_tty = isatty(STDERR_FILENO) != 0;
    install(SIGPIPE, SIG_IGN, &old_pipe_);
    install(SIGXFSZ, SIG_IGN, &old_xfsz_);
    install(SIGINT, on_stop_signal, &old_int_);
    install(SIGTERM, on_stop_signal, &old_term_);
    // Under nohup a hang-up is meant to pass unnoticed: an ignored SIGHUP stays ignored.
    if (!ignored_by_the_parent(SIGHUP)) install(SIGHUP, on_stop_signal, &old_hup_);
    else sigaction(SIGHUP, nullptr, &old_hup_);
    // A parent (a thread that blocked them, a scheduler) may hand the stop signals on blocked: one
    // sent before these handlers were in place is pending, and is delivered and honoured now.
    sigset_t stops;
    sigemptyset(&stops);
    for (int stop : {SIGINT, SIGTERM, SIGHUP}) sigaddset(&stops, stop);
    pthread_sigmask(SIG_UNBLOCK, &stops, &g_mask_before);
}

InterruptGuard::~InterruptGuard() {
    if (g_requested.load() != 0) {
        // The command is ending because of a stop: a copy of the same request still on its way (a
        // process group's, sent a millisecond later) must not find the default action and kill
        // the process after its state was written (CI, 2026-11-27: a run that stopped within a
        // millisecond of the first SIGINT died by the second). The process exits from here on.
        struct sigaction ignore {};
        ignore.sa_handler = SIG_IGN;
        sigemptyset(&ignore.sa_mask);
        for (int stop : {SIGINT, SIGTERM, SIGHUP}) sigaction(stop, &ignore, nullptr);
    } else {
        sigaction(SIGINT, &old_int_, nullptr);
        sigaction(SIGTERM, &old_term_, nullptr);
        sigaction(SIGHUP, &old_hup_, nullptr);
    }
    pthread_sigmask(SIG_SETMASK, &g_mask_before, nullptr);
    sigaction(SIGPIPE, &old_pipe_, nullptr);
    sigaction(SIGXFSZ, &old_xfsz_, nullptr);
}

int InterruptGuard::requested() { return g_requested.load(); }

void set_stop_messages(std::string_view on_stop, std::string_view on_abort) {
    g_on_stop = publish(on_stop);
    g_on_abort = publish(on_abort);
}

StopEndsAtOnce::StopEndsAtOnce(std::string_view what_is_lost) : outer_(g_at_once.load()) {
    g_at_once = publish(what_is_lost);
    if (const int sig = InterruptGuard::requested(); sig != 0) {
        std::fflush(stdout);  // what was printed so far stays (outside a handler this is allowed)
        end_at_once(sig);
    }
}

StopEndsAtOnce::~StopEndsAtOnce() { g_at_once = outer_; }

const char* signal_name(int sig) {
    switch (sig) {
        case SIGINT: return "SIGINT (Ctrl-C)";
        case SIGTERM: return "SIGTERM";
        case SIGHUP: return "SIGHUP (terminal closed)";
        default: return "a signal";
    }
}

}  // namespace nbody::app
