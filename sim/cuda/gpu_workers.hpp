#pragma once
// One thread per extra GPU, kept for the owner's life, that runs a task for each GPU at once: the
// multi-GPU Hermite engine and CudaBackend's peers queue every GPU's share of a call in parallel.
// Kept rather than started per call: a Hermite evaluation of a few hundred active bodies takes tens
// of microseconds on a GPU, about what starting a thread costs, and a new thread's first CUDA call
// binds it to the device's context again.

#include <condition_variable>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace nbody::cuda {

class GpuWorkers {
public:
    explicit GpuWorkers(int extra) {
        for (int k = 1; k <= extra; ++k) threads_.emplace_back([this, k] { serve(k); });
    }
    ~GpuWorkers() {
        {
            const std::lock_guard lock(mutex_);
            stop_ = true;
        }
        wake_.notify_all();
        threads_.clear();  // joins
    }
    GpuWorkers(const GpuWorkers&) = delete;
    GpuWorkers& operator=(const GpuWorkers&) = delete;

    // task(0) on the calling thread, task(k) on worker k; returns when all are done and rethrows the
    // first error (the caller's first).
    void run(const std::function<void(int)>& task) {
        {
            const std::lock_guard lock(mutex_);
            task_ = &task;
            pending_ = int(threads_.size());
            errors_.assign(threads_.size() + 1, nullptr);
            ++generation_;
        }
        wake_.notify_all();
        try {
            task(0);
        } catch (...) {
            errors_[0] = std::current_exception();
        }
        std::unique_lock lock(mutex_);
        done_.wait(lock, [this] { return pending_ == 0; });
        task_ = nullptr;
        for (const std::exception_ptr& e : errors_)
            if (e) std::rethrow_exception(e);
    }

private:
    void serve(int k) {
        long long seen = 0;
        for (;;) {
            std::unique_lock lock(mutex_);
            wake_.wait(lock, [&] { return stop_ || generation_ != seen; });
            if (stop_) return;
            seen = generation_;
            const std::function<void(int)>* task = task_;
            lock.unlock();
            std::exception_ptr error;
            try {
                (*task)(k);
            } catch (...) {
                error = std::current_exception();
            }
            lock.lock();
            errors_[std::size_t(k)] = error;
            if (--pending_ == 0) done_.notify_one();
        }
    }

    std::mutex mutex_;
    std::condition_variable wake_, done_;
    const std::function<void(int)>* task_ = nullptr;
    long long generation_ = 0;
    int pending_ = 0;
    bool stop_ = false;
    std::vector<std::exception_ptr> errors_;
    std::vector<std::jthread> threads_;  // last: joined before the members above go
};

}  // namespace nbody::cuda
