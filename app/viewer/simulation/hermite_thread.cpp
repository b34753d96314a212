#include "hermite_thread.hpp"

#include <pthread.h>

#include <exception>
#include <utility>

#include "nbody/sim/memory_check.hpp"

namespace nbody::app {

HermiteThread::HermiteThread(double now, Advance advance, Publish publish)
    : advance_(std::move(advance)), publish_(std::move(publish)), target_(now), reached_(now) {
    latest_.time = now;
    thread_ = std::thread([this] { loop(); });
}

HermiteThread::~HermiteThread() {
    {
        const std::lock_guard lock(mutex_);
        stopping_ = true;
    }
    wake_.notify_all();
    thread_.join();
}

void HermiteThread::play_to(double t) {
    {
        const std::lock_guard lock(mutex_);
        target_ = t;
    }
    wake_.notify_all();
}

void HermiteThread::hold() {
    const std::lock_guard lock(mutex_);
    target_ = reached_;
}

void HermiteThread::post(Job job, std::string what) {
    {
        const std::lock_guard lock(mutex_);
        jobs_.push_back({std::move(job), std::move(what)});
    }
    wake_.notify_all();
}

HermiteThread::Taken HermiteThread::take(State& state, HermiteSummary& summary) {
    const std::lock_guard lock(mutex_);
    Taken taken;
    taken.error = std::exchange(error_, std::string());
    if (!fresh_) return taken;
    std::swap(state.pos_mass, latest_.pos_mass);
    std::swap(state.velocity, latest_.velocity);
    state.time = latest_.time;
    summary = summary_;
    summary.frame = std::exchange(untaken_, HermiteFrame{});
    fresh_ = false;
    taken.fresh = true;
    return taken;
}

// A park first lets the jobs posted before it run (they were asked for first), then holds the
// thread: nothing runs until the last guard goes. Only the frame loop parks, so a nested park
// (the thread already held) returns at once.
HermiteThread::Parked HermiteThread::park() {
    std::unique_lock lock(mutex_);
    if (parked_++ > 0 && held_) return Parked(this);
    settled_.wait(lock, [&] { return !busy_ && jobs_.empty(); });
    held_ = true;
    return Parked(this);
}

HermiteThread::Parked::~Parked() {
    if (t_) t_->unpark();
}

// What the caller did to the run while it was parked (new settings, a synchronisation) is
// published by the thread, as a job that does nothing else.
void HermiteThread::unpark() {
    {
        const std::lock_guard lock(mutex_);
        if (--parked_ == 0) {
            held_ = false;
            jobs_.push_front({[] {}, "showing the run"});
        }
    }
    wake_.notify_all();
}

bool HermiteThread::settle_within(std::chrono::milliseconds patience) {
    std::unique_lock lock(mutex_);
    target_ = reached_;
    jobs_.clear();
    return settled_.wait_for(lock, patience, [&] { return !busy_; });
}

std::optional<HermiteThread::Activity> HermiteThread::activity() const {
    const std::lock_guard lock(mutex_);
    if (!busy_) return std::nullopt;
    return Activity{busy_what_, std::chrono::duration<double>(std::chrono::steady_clock::now() - busy_since_).count()};
}

bool HermiteThread::has_work() const {
    return (!held_ && !jobs_.empty()) || (parked_ == 0 && target_ > reached_);
}

void HermiteThread::loop() {
    pthread_setname_np(pthread_self(), "nbody-hermite");  // for top -H
    std::unique_lock lock(mutex_);
    for (;;) {
        wake_.wait(lock, [&] { return stopping_ || has_work(); });
        if (stopping_) return;
        if (!held_ && !jobs_.empty()) {
            const Posted posted = std::move(jobs_.front());
            jobs_.pop_front();
            run(lock, &posted);
        } else {
            run(lock, nullptr);
        }
        settled_.notify_all();
    }
}

// A job, or a run of blocks toward the target; then the state published. Called and returns with
// `lock` held; the work itself runs without it.
void HermiteThread::run(std::unique_lock<std::mutex>& lock, const Posted* posted) {
    busy_ = true;
    busy_what_ = posted ? posted->what : "block steps";
    busy_since_ = std::chrono::steady_clock::now();
    const double target = target_;
    lock.unlock();
    HermiteFrame frame;
    std::string error;
    HermiteSummary summary;
    try {
        if (posted)
            posted->job();
        else
            frame = advance_(target, kRunSeconds);
    } catch (const std::exception& e) {
        error = posted ? error_text(e, posted->what) : e.what();
    }
    try {
        publish_(scratch_, summary, frame);  // after a failure: the last completed block
    } catch (const std::exception& e) {
        if (error.empty()) error = error_text(e, "showing the Hermite run");
    }
    lock.lock();
    busy_ = false;
    std::swap(scratch_, latest_);
    summary_ = std::move(summary);
    untaken_.blocks += frame.blocks;
    untaken_.evaluations += frame.evaluations;
    untaken_.seconds += frame.seconds;
    if (!posted) untaken_.reached = frame.reached;
    fresh_ = true;
    reached_ = summary_.time;
    if (!error.empty()) {
        error_ = error;
        target_ = reached_;  // no more steps until a new target: the window pauses with the reason
    }
}

}  // namespace nbody::app
