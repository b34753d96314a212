#pragma once
// A small persistent pool for the CPU backends: parallel_for splits [0, n) into one contiguous
// chunk per worker. Persistent because a force pass at small N is shorter than a thread start.

#include <atomic>
#include <condition_variable>
#include <exception>
#include <cstddef>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace nbody {

class ThreadPool {
public:
    explicit ThreadPool(unsigned threads = 0);  // 0: hardware_concurrency
    ~ThreadPool();
    ThreadPool(const ThreadPool&) = delete;
    ThreadPool& operator=(const ThreadPool&) = delete;

    unsigned size() const { return static_cast<unsigned>(workers_.size()) + 1; }

    // The workers drop to the lowest scheduling priority (nice 19), the chunks they run included:
    // for work that is being abandoned (nbody/sim/cpu_workers.hpp).
    void lower_priority();

    // Calls body(begin, end) on disjoint chunks covering [0, n); returns when all are done.
    // The calling thread takes a chunk too. Exceptions from a chunk are rethrown here.
    void parallel_for(std::size_t n, const std::function<void(std::size_t, std::size_t)>& body);

private:
    void worker_loop(unsigned index);

    std::vector<std::thread> workers_;
    std::vector<std::atomic<int>> tids_;  // each worker's kernel thread id, once it runs (0 before)
    std::atomic<bool> lowered_{false};    // lower_priority() was called
    std::mutex mutex_;
    std::condition_variable wake_, done_;
    const std::function<void(std::size_t, std::size_t)>* job_ = nullptr;
    std::size_t job_n_ = 0;
    unsigned generation_ = 0;
    unsigned pending_ = 0;
    bool stop_ = false;
    std::exception_ptr error_;
};

// The pool shared by every CPU-side computation in the process.
ThreadPool& shared_thread_pool();

}  // namespace nbody
