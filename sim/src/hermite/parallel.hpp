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
// A loop from a second thread while the pool is busy (the multi-GPU engine's GPU threads) runs on
// that thread alone; so does one shorter than `min_parallel`, and every loop in a forked child. Chunks are contiguous and fixed by n
// and the pool's size, and no result here depends on them: each index is computed alone.

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

    explicit HostThreads(unsigned threads);
    ~HostThreads();
    HostThreads(const HostThreads&) = delete;
    HostThreads& operator=(const HostThreads&) = delete;

    unsigned size() const { return unsigned(workers_.size()) + 1; }

    // body(begin, end) over contiguous chunks covering [0, n), one per thread; returns when all are
    // done and rethrows the first chunk's exception. Serial where n < min_parallel, where the pool
    // has one thread or is running another loop.
    template <class Body>
    void parallel_for(std::size_t n, const Body& body, std::size_t min_parallel = 1) {
        if (n == 0) return;
        std::unique_lock busy(busy_, std::try_to_lock);
        if (n < std::max<std::size_t>(min_parallel, 2) || workers_.empty() || !busy.owns_lock() || forked()) {
            body(std::size_t(0), n);
            return;
        }
        run(n, [](const void* b, std::size_t begin, std::size_t end) { (*static_cast<const Body*>(b))(begin, end); }, &body);
    }

    static constexpr unsigned kMaxThreads = 16;

private:
    // In a child of fork() the workers are gone: its loops run on its one thread.
    static bool forked();
    using Trampoline = void (*)(const void*, std::size_t, std::size_t);
    void run(std::size_t n, Trampoline call, const void* body);
    void serve(unsigned index);
    void chunk(unsigned part, std::exception_ptr& error) const;

    std::mutex busy_;  // held by the thread whose loop runs
    Trampoline call_ = nullptr;
    const void* body_ = nullptr;
    std::size_t n_ = 0;
    std::atomic<std::uint64_t> generation_{0};
    std::atomic<unsigned> pending_{0};
    std::atomic<bool> stop_{false};
    std::vector<std::exception_ptr> errors_;
    std::vector<std::thread> workers_;
};

// The shared pool's loop over [0, n); see HostThreads::parallel_for.
template <class Body>
void parallel_for(std::size_t n, const Body& body, std::size_t min_parallel = 1) {
    HostThreads::shared().parallel_for(n, body, min_parallel);
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

// Host loops over a block's active bodies go parallel from this many: below, the ~5-20 us of waking
// the pool's threads is more than the loop (~50-150 ns a body).
inline constexpr std::size_t kHostThreadsFrom = 2048;

}  // namespace nbody::hermite
