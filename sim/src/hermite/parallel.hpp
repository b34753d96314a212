#pragma once
// Threads for the Hermite host loops. nbody_hermite does not use nbody_sim's pool so that it can
// be linked into libg6.so alone.
//
// One pool per process (HostThreads::shared), its threads kept for the process's life: a block step
// of a few thousand active bodies has ~0.1-1 ms of host work in four or five loops (predictor, the
// engine's staging, the corrector, the write-back), so a loop cannot pay a thread start (~20-50 us
// each) but can pay a wake-up. Workers spin a few tens of microseconds after a loop before they
// sleep, so that the next loop of the same block finds them awake.
//
// Loops from several threads at once (a program driving two integrators, libg6 from threads of its
// own, nested loops) share the workers: each loop is cut into chunks that any idle worker takes, and its
// caller takes chunks of its own loop until none are left. A loop shorter than `min_parallel`, and
// every loop in a forked child, runs on its caller alone. Which thread computes an index never
// changes a result here: each index is computed alone.

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

namespace nbody::hermite {

class HostThreads {
public:
    // The process's pool: min(hardware threads, kMaxThreads) threads, the caller's included, or
    // NBODY_HERMITE_THREADS where set (1: every loop on the caller's thread).
    static HostThreads& shared();
    // The pool for the O(N^2) pair sums (the energy, the cpu engine's forces): the shared pool, or,
    // where NBODY_HERMITE_THREADS made that smaller than the default, a second pool of the default
    // size, made at its first use. The variable is for measuring the block steps' host loops; a
    // 128K-body energy sum on one thread takes about a minute (1.7e10 pairs), twice per run.
    static HostThreads& every_core();

    explicit HostThreads(unsigned threads);
    ~HostThreads();
    HostThreads(const HostThreads&) = delete;
    HostThreads& operator=(const HostThreads&) = delete;

    unsigned size() const { return unsigned(workers_.size()) + 1; }

    // body(begin, end) over contiguous chunks covering [0, n); returns when all are done and
    // rethrows a chunk's exception. Serial where n < min_parallel, where the pool has one thread or
    // kMaxLoops loops are running already.
    template <class Body>
    void parallel_for(std::size_t n, const Body& body, std::size_t min_parallel = 1) {
        if (n == 0) return;
        if (n < std::max<std::size_t>(min_parallel, 2) || workers_.empty() || forked() ||
            !run(n, [](const void* b, std::size_t begin, std::size_t end) { (*static_cast<const Body*>(b))(begin, end); },
                 &body))
            body(std::size_t(0), n);
    }

    static constexpr unsigned kMaxThreads = 16;
    static constexpr unsigned kMaxLoops = 8;  // loops running at once; a ninth runs on its caller alone

private:
    using Trampoline = void (*)(const void*, std::size_t, std::size_t);
    // A loop in flight, on its caller's stack.
    struct Loop {
        Trampoline call;
        const void* body;
        std::size_t n, chunks;
        std::atomic<std::size_t> next{0};  // the next chunk to take
        std::atomic<std::size_t> done{0};  // chunks finished
        std::atomic<bool> failed{false};
        std::exception_ptr error;          // the first chunk's exception (written by whoever set failed)
    };
    // Where workers find loops. `visitors` counts the workers looking at `loop`, so that its caller
    // does not return (and free the loop) while one may still touch it.
    struct Slot {
        std::atomic<Loop*> loop{nullptr};
        std::atomic<unsigned> visitors{0};
    };

    // false where every slot is taken (the caller then runs the loop itself).
    bool run(std::size_t n, Trampoline call, const void* body);
    void serve();
    // Takes and runs chunks of `loop` until none are left; true if it ran any.
    static bool work_on(Loop& loop);
    // In a child of fork() the workers are gone: its loops run on its one thread.
    static bool forked();

    Slot slots_[kMaxLoops];
    std::atomic<std::uint64_t> generation_{0};  // bumped when a loop is posted (workers sleep on it)
    std::atomic<bool> stop_{false};
    std::vector<std::thread> workers_;
};

// The shared pool's loop over [0, n); see HostThreads::parallel_for.
template <class Body>
void parallel_for(std::size_t n, const Body& body, std::size_t min_parallel = 1) {
    HostThreads::shared().parallel_for(n, body, min_parallel);
}

// The same on HostThreads::every_core(): for the O(N^2) sums, which NBODY_HERMITE_THREADS leaves on
// every core.
template <class Body>
void parallel_for_every_core(std::size_t n, const Body& body, std::size_t min_parallel = 1) {
    HostThreads::every_core().parallel_for(n, body, min_parallel);
}

// The smallest k < n with pred(k) (n where none), searched in parallel from min_parallel.
template <class Pred>
std::size_t first_where(std::size_t n, const Pred& pred, std::size_t min_parallel = 1) {
    std::atomic<std::size_t> first{n};
    parallel_for(
        n,
        [&](std::size_t begin, std::size_t end) {
            for (std::size_t k = begin; k < end && k < first.load(std::memory_order_relaxed); ++k)
                if (pred(k)) {
                    for (std::size_t seen = first.load(); k < seen && !first.compare_exchange_weak(seen, k);) {
                    }
                    return;
                }
        },
        min_parallel);
    return first.load();
}

// Host loops over a block's active bodies go parallel from this many (1,024; NBODY_HERMITE_THREADS_FROM
// where set, for measurements): below, waking the pool's threads (a few us while they spin, 10-30 us
// once asleep) costs about what the loop does (~50-150 ns a body).
std::size_t host_threads_from();

}  // namespace nbody::hermite
