#include "thread_pool.hpp"

#include "nbody/sim/cpu_workers.hpp"

#include <pthread.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <exception>

namespace nbody {
namespace {
std::pair<std::size_t, std::size_t> chunk(std::size_t n, unsigned parts, unsigned index) {
    const std::size_t base = n / parts, extra = n % parts;
    const std::size_t begin = index * base + std::min<std::size_t>(index, extra);
    return {begin, begin + base + (index < extra ? 1 : 0)};
}
}  // namespace

ThreadPool::ThreadPool(unsigned threads)
    : tids_(std::max(1u, threads == 0 ? std::thread::hardware_concurrency() : threads) - 1) {  // the caller is one
    for (unsigned i = 1; i <= tids_.size(); ++i) workers_.emplace_back([this, i] { worker_loop(i); });
}

ThreadPool::~ThreadPool() {
    {
        std::lock_guard lock(mutex_);
        stop_ = true;
    }
    wake_.notify_all();
    for (auto& w : workers_) w.join();
}

void ThreadPool::worker_loop(unsigned index) {
    pthread_setname_np(pthread_self(), "nbody-pool");  // for top -H
    tids_[index - 1] = int(gettid());
    if (lowered_) setpriority(PRIO_PROCESS, 0, 19);  // asked before this worker ran: it lowers itself
    unsigned seen = 0;
    for (;;) {
        const std::function<void(std::size_t, std::size_t)>* job;
        std::size_t n;
        {
            std::unique_lock lock(mutex_);
            wake_.wait(lock, [&] { return stop_ || generation_ != seen; });
            if (stop_) return;
            seen = generation_;
            job = job_;
            n = job_n_;
        }
        try {
            const auto [b, e] = chunk(n, size(), index);
            if (b < e) (*job)(b, e);
        } catch (...) {
            std::lock_guard lock(mutex_);
            if (!error_) error_ = std::current_exception();
        }
        {
            std::lock_guard lock(mutex_);
            if (--pending_ == 0) done_.notify_one();
        }
    }
}

void ThreadPool::parallel_for(std::size_t n, const std::function<void(std::size_t, std::size_t)>& body) {
    if (n == 0) return;
    if (workers_.empty() || n < 2 * size()) {
        body(0, n);
        return;
    }
    // One job at a time: callers from several threads take turns.
    static std::mutex serial;
    std::lock_guard serial_lock(serial);
    {
        std::lock_guard lock(mutex_);
        job_ = &body;
        job_n_ = n;
        pending_ = static_cast<unsigned>(workers_.size());
        error_ = nullptr;
        ++generation_;
    }
    wake_.notify_all();
    std::exception_ptr mine;
    try {
        const auto [b, e] = chunk(n, size(), 0);
        body(b, e);
    } catch (...) {
        mine = std::current_exception();
    }
    std::unique_lock lock(mutex_);
    done_.wait(lock, [&] { return pending_ == 0; });
    if (mine) std::rethrow_exception(mine);
    if (error_) std::rethrow_exception(error_);
}

void ThreadPool::lower_priority() {
    lowered_ = true;
    for (const std::atomic<int>& tid : tids_)
        if (const int t = tid.load(); t != 0) setpriority(PRIO_PROCESS, id_t(t), 19);  // may only fail: nothing to undo
}

void lower_cpu_worker_priority() { shared_thread_pool().lower_priority(); }

ThreadPool& shared_thread_pool() {
    static ThreadPool pool;
    return pool;
}

}  // namespace nbody
