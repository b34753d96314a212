// The Hermite host loops' pool: see parallel.hpp.

#include "parallel.hpp"

#include <pthread.h>

#include <chrono>
#include <cstdlib>

namespace nbody::hermite {
namespace {

// How long a worker looks for the next loop before it sleeps: the loops of one block step follow
// each other within microseconds, except across the wait for the GPU (about a millisecond).
// NBODY_HERMITE_SPIN_US overrides it, for measurements (a spin across the GPU's wait saves a wake-up
// per block and costs the cores' time).
std::chrono::microseconds spin_time() {
    static const std::chrono::microseconds spin{[] {
        const char* env = std::getenv("NBODY_HERMITE_SPIN_US");
        return env != nullptr && std::atoi(env) >= 0 ? std::atoi(env) : 50;
    }()};
    return spin;
}

inline void relax() {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#else
    std::this_thread::yield();
#endif
}

std::atomic<bool> in_forked_child{false};

}  // namespace

std::size_t host_threads_from() {
    static const std::size_t from = [] {
        const char* env = std::getenv("NBODY_HERMITE_THREADS_FROM");
        return env != nullptr && std::atoll(env) > 0 ? std::size_t(std::atoll(env)) : std::size_t(1024);
    }();
    return from;
}

bool HostThreads::forked() { return in_forked_child.load(std::memory_order_relaxed); }

namespace {
// min(hardware threads, kMaxThreads): the pools' size unless NBODY_HERMITE_THREADS says otherwise.
unsigned default_threads() { return std::min(std::max(1u, std::thread::hardware_concurrency()), HostThreads::kMaxThreads); }
}  // namespace

HostThreads& HostThreads::shared() {
    static HostThreads pool([] {
        // NBODY_HERMITE_THREADS=N: N threads (1: every block-step loop serial), for measurements.
        if (const char* env = std::getenv("NBODY_HERMITE_THREADS"); env != nullptr && std::atoi(env) > 0)
            return unsigned(std::min(std::atoi(env), 256));
        return default_threads();
    }());
    return pool;
}

HostThreads& HostThreads::every_core() {
    HostThreads& block_loops = shared();  // made first, so that it outlives the pool below
    if (block_loops.size() >= default_threads()) return block_loops;
    static HostThreads pool(default_threads());
    return pool;
}

HostThreads::HostThreads(unsigned threads) {
    static const int registered = pthread_atfork(nullptr, nullptr, [] { in_forked_child.store(true); });
    (void)registered;
    for (unsigned k = 1; k < threads; ++k) workers_.emplace_back([this] { serve(); });
}

HostThreads::~HostThreads() {
    stop_.store(true);
    generation_.fetch_add(1, std::memory_order_release);
    generation_.notify_all();
    for (std::thread& t : workers_) t.join();
}

bool HostThreads::work_on(Loop& loop) {
    bool any = false;
    for (;;) {
        const std::size_t c = loop.next.fetch_add(1, std::memory_order_acq_rel);
        if (c >= loop.chunks) return any;
        any = true;
        if (!loop.failed.load(std::memory_order_relaxed)) {  // after an exception the rest is skipped
            try {
                loop.call(loop.body, loop.n * c / loop.chunks, loop.n * (c + 1) / loop.chunks);
            } catch (...) {
                if (!loop.failed.exchange(true)) loop.error = std::current_exception();
            }
        }
        if (loop.done.fetch_add(1, std::memory_order_acq_rel) + 1 == loop.chunks) loop.done.notify_all();
    }
}

bool HostThreads::run(std::size_t n, Trampoline call, const void* body) {
    Loop loop;
    loop.call = call, loop.body = body, loop.n = n;
    loop.chunks = std::min<std::size_t>(n, std::size_t(size()) * 4);  // a few per thread: idle threads even out
    Slot* slot = nullptr;
    for (Slot& s : slots_) {
        Loop* expected = nullptr;
        if (s.loop.compare_exchange_strong(expected, &loop)) {
            slot = &s;
            break;
        }
    }
    if (slot == nullptr) return false;
    generation_.fetch_add(1, std::memory_order_release);
    generation_.notify_all();
    work_on(loop);
    const auto until = std::chrono::steady_clock::now() + spin_time();
    for (unsigned k = 0;; ++k) {
        const std::size_t done = loop.done.load(std::memory_order_acquire);
        if (done == loop.chunks) break;
        if ((k & 63) == 63 && std::chrono::steady_clock::now() > until)
            loop.done.wait(done, std::memory_order_acquire);
        else
            relax();
    }
    slot->loop.store(nullptr);
    while (slot->visitors.load() != 0) relax();  // a worker that saw the loop is about to let go of it
    if (loop.failed.load()) std::rethrow_exception(loop.error);
    return true;
}

void HostThreads::serve() {
    std::uint64_t seen = generation_.load(std::memory_order_acquire);
    auto idle_since = std::chrono::steady_clock::now();
    for (unsigned k = 0; !stop_.load(std::memory_order_relaxed); ++k) {
        bool worked = false;
        for (Slot& s : slots_) {
            if (s.loop.load(std::memory_order_relaxed) == nullptr) continue;
            s.visitors.fetch_add(1);
            if (Loop* loop = s.loop.load()) worked |= work_on(*loop);
            s.visitors.fetch_sub(1);
        }
        if (worked) {
            idle_since = std::chrono::steady_clock::now();
            continue;
        }
        const std::uint64_t now = generation_.load(std::memory_order_acquire);
        if (now != seen) {  // a loop was posted since the last look
            seen = now;
            continue;
        }
        if ((k & 63) == 63 && std::chrono::steady_clock::now() - idle_since > spin_time()) {
            generation_.wait(seen, std::memory_order_acquire);
            idle_since = std::chrono::steady_clock::now();
        } else {
            relax();
        }
    }
}

}  // namespace nbody::hermite
