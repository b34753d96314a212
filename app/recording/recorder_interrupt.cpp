#include "recorder_interrupt.hpp"

#include <atomic>
#include <cstring>

#include "nbody/sim/atomic_file.hpp"

namespace nbody::app {

namespace {

std::atomic<int> g_requested{0};
static_assert(std::atomic<int>::is_always_lock_free, "the signal handler needs a lock-free flag");

extern "C" void on_stop_signal(int sig) {
    // Second request: give the signal its default action (terminate) from now on. Only
    // async-signal-safe calls here.
    if (g_requested.exchange(sig) != 0) {
        remove_pending_temporary_files();  // no partial *.tmpPID left behind
        std::signal(sig, SIG_DFL);
        std::raise(sig);
    }
}

void install(int sig, void (*handler)(int), struct sigaction* old) {
    struct sigaction sa;
    std::memset(&sa, 0, sizeof sa);
    sa.sa_handler = handler;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_RESTART;  // reads and writes in progress carry on; the loop polls the flag
    sigaction(sig, &sa, old);
}

}  // namespace

InterruptGuard::InterruptGuard() {
    g_requested = 0;
    install(SIGINT, on_stop_signal, &old_int_);
    install(SIGTERM, on_stop_signal, &old_term_);
    install(SIGPIPE, SIG_IGN, &old_pipe_);
    install(SIGXFSZ, SIG_IGN, &old_xfsz_);
}

InterruptGuard::~InterruptGuard() {
    sigaction(SIGINT, &old_int_, nullptr);
    sigaction(SIGTERM, &old_term_, nullptr);
    sigaction(SIGPIPE, &old_pipe_, nullptr);
    sigaction(SIGXFSZ, &old_xfsz_, nullptr);
}

int InterruptGuard::requested() { return g_requested.load(); }

const char* signal_name(int sig) { return sig == SIGTERM ? "SIGTERM" : sig == SIGINT ? "SIGINT (Ctrl-C)" : "a signal"; }

}  // namespace nbody::app
