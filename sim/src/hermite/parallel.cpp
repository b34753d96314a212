// The Hermite host loops' pool: see parallel.hpp.

#include "parallel.hpp"

#include <pthread.h>

#include <chrono>
#include <cstdlib>

namespace nbody::hermite {
namespace {

// How long a worker looks for the next loop before it sleeps: the loops of one block step follow
// each other within microseconds, except across the wait for the GPU (about a millisecond).
constexpr std::chrono::microseconds kSpin{50};

inline void relax() {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#else
    std::this_thread::yield();
#endif
}

std::atomic<bool> in_forked_child{false};

}  // namespace

bool HostThreads::forked() { return in_forked_child.load(std::memory_order_relaxed); }

HostThreads& HostThreads::shared() {
    static HostThreads pool([] {
        // NBODY_HERMITE_THREADS=N: N threads (1: every loop serial), for measurements.
        if (const char* env = std::getenv("NBODY_HERMITE_THREADS"); env != nullptr && std::atoi(env) > 0)
            return unsigned(std::min(std::atoi(env), 256));
        return std::min(std::max(1u, std::thread::hardware_concurrency()), kMaxThreads);
    }());
    return pool;
}

HostThreads::HostThreads(unsigned threads) {
    static const int registered = pthread_atfork(nullptr, nullptr, [] { in_forked_child.store(true); });
    (void)registered;
    errors_.resize(std::max(1u, threads));
    for (unsigned k = 1; k < threads; ++k) workers_.emplace_back([this, k] { serve(k); });
}

HostThreads::~HostThreads() {
    stop_.store(true);
    generation_.fetch_add(1, std::memory_order_release);
    generation_.notify_all();
    for (std::thread& t : workers_) t.join();
}

void HostThreads::chunk(unsigned part, std::exception_ptr& error) const {
    const std::size_t parts = size();
    const std::size_t begin = n_ * part / parts, end = n_ * (part + 1) / parts;
    if (begin >= end) return;
    try {
        call_(body_, begin, end);
    } catch (...) {
        error = std::current_exception();
    }
}

void HostThreads::run(std::size_t n, Trampoline call, const void* body) {
    call_ = call, body_ = body, n_ = n;
    std::fill(errors_.begin(), errors_.end(), nullptr);
    pending_.store(unsigned(workers_.size()), std::memory_order_relaxed);
    generation_.fetch_add(1, std::memory_order_release);  // publishes the job above
    generation_.notify_all();
    chunk(0, errors_[0]);
    const auto until = std::chrono::steady_clock::now() + kSpin;
    for (int k = 0; pending_.load(std::memory_order_acquire) != 0; ++k) {
        if ((k & 63) == 63 && std::chrono::steady_clock::now() > until) {
            for (unsigned left; (left = pending_.load(std::memory_order_acquire)) != 0;) pending_.wait(left, std::memory_order_acquire);
            break;
        }
        relax();
    }
    for (const std::exception_ptr& e : errors_)
        if (e) std::rethrow_exception(e);
}

void HostThreads::serve(unsigned index) {
    std::uint64_t seen = 0;
    for (;;) {
        std::uint64_t now = generation_.load(std::memory_order_acquire);
        if (now == seen) {
            const auto until = std::chrono::steady_clock::now() + kSpin;
            for (int k = 0; (now = generation_.load(std::memory_order_acquire)) == seen; ++k) {
                if ((k & 63) == 63 && std::chrono::steady_clock::now() > until) {
                    generation_.wait(seen, std::memory_order_acquire);
                    continue;
                }
                relax();
            }
        }
        seen = now;
        if (stop_.load()) return;
        chunk(index, errors_[index]);
        if (pending_.fetch_sub(1, std::memory_order_acq_rel) == 1) pending_.notify_one();
    }
}

}  // namespace nbody::hermite
