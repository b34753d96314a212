#include "simulation_thread.hpp"

#include <pthread.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <exception>
#include <utility>

#include "nbody/sim/cpu_workers.hpp"
#include "nbody/sim/memory_check.hpp"

namespace nbody::app {

SimulationThread::SimulationThread(Backend& backend, Describe describe, AfterStep after_step, Publish publish,
                                   Start start)
    : backend_(backend),
      describe_(std::move(describe)),
      after_step_(std::move(after_step)),
      publish_(std::move(publish)),
      start_(std::move(start)),
      gravity_(backend.gravity()) {
    thread_ = std::thread([this] { loop(); });
}

SimulationThread::~SimulationThread() {
    {
        const std::lock_guard lock(mutex_);
        stopping_ = true;
    }
    wake_.notify_all();
    thread_.join();
}

void SimulationThread::grant(int steps, const StepParams& params, int most_pending) {
    if (steps <= 0) return;
    {
        const std::lock_guard lock(mutex_);
        credit_ = std::min(credit_ + steps, std::max(most_pending, steps));
        params_ = params;
    }
    wake_.notify_all();
}

void SimulationThread::hold() {
    const std::lock_guard lock(mutex_);
    credit_ = 0;
}

void SimulationThread::post(Task task, Done done, std::string what) {
    {
        const std::lock_guard lock(mutex_);
        jobs_.push_back({std::move(task), std::move(done), false, std::move(what)});
    }
    wake_.notify_all();
}

void SimulationThread::load(const State& state) {
    {
        const std::lock_guard lock(mutex_);
        credit_ = 0;  // steps owed belonged to the old system
        ++loads_posted_;
        progress_ = {};
        jobs_.push_back({[state](Backend& b) {
                             b.load(state);
                             return std::string();
                         },
                         {}, true, "loading " + std::to_string(state.size()) + " bodies"});
    }
    wake_.notify_all();
}

// A stop signal cannot wake a condition variable: `give_up` is polled this often, well inside
// the second a stop must be honoured in (docs/VIEWER.md).
constexpr auto kGiveUpPoll = std::chrono::milliseconds(20);

template <class Ready>
bool SimulationThread::wait_unless(std::unique_lock<std::mutex>& lock, Ready ready,
                                   const std::function<bool()>& give_up) {
    if (!give_up) {
        settled_.wait(lock, ready);
        return true;
    }
    while (!settled_.wait_for(lock, kGiveUpPoll, ready))
        if (give_up()) {
            credit_ = 0;  // what is owed is dropped; the step in progress ends on its own
            return false;
        }
    return true;
}

bool SimulationThread::run_exactly(int steps, const StepParams& params,
                                   const std::function<bool()>& give_up) {
    std::unique_lock lock(mutex_);
    credit_ = 0;
    // A step granted earlier, a load posted: done first.
    if (!wait_unless(
            lock, [&] { return !busy_ && jobs_.empty(); }, give_up))
        return false;
    if (steps <= 0) return true;
    credit_ = steps;
    params_ = params;
    wake_.notify_all();
    return wait_unless(
        lock, [&] { return (credit_ == 0 && !busy_) || !progress_.error.empty(); }, give_up);
}

bool SimulationThread::settle_within(std::chrono::milliseconds patience) {
    std::unique_lock lock(mutex_);
    credit_ = 0;
    return settled_.wait_for(lock, patience, [&] { return !busy_ && jobs_.empty(); });
}

bool SimulationThread::take_latest(State& state) {
    const std::lock_guard lock(mutex_);
    if (!latest_fresh_ || latest_load_ != loads_posted_) return false;
    std::swap(state.pos_mass, latest_.pos_mass);
    std::swap(state.velocity, latest_.velocity);
    state.time = latest_.time;
    latest_fresh_ = false;
    return true;
}

bool SimulationThread::take_fresh() {
    const std::lock_guard lock(mutex_);
    if (!latest_fresh_ || latest_load_ != loads_posted_) return false;
    latest_fresh_ = false;
    return true;
}

SimulationThread::Progress SimulationThread::take_progress() {
    const std::lock_guard lock(mutex_);
    return std::exchange(progress_, Progress{});
}

void SimulationThread::finish_tasks() {
    std::vector<std::pair<Done, Outcome>> finished;
    {
        const std::lock_guard lock(mutex_);
        finished.swap(finished_);
    }
    for (auto& [done, outcome] : finished)
        if (done) done(outcome);
}

GravityConfig SimulationThread::gravity() const {
    const std::lock_guard lock(mutex_);
    return gravity_;
}

SimulationThread::StepNote SimulationThread::description() const {
    const std::lock_guard lock(mutex_);
    return description_;
}

void SimulationThread::yield_cores() {
    if (const int tid = tid_.load(); tid != 0) setpriority(PRIO_PROCESS, id_t(tid), 19);  // may only fail
    lower_cpu_worker_priority();
}

std::optional<SimulationThread::Activity> SimulationThread::activity() const {
    const std::lock_guard lock(mutex_);
    if (!busy_) return std::nullopt;
    return Activity{busy_what_, std::chrono::duration<double>(std::chrono::steady_clock::now() - busy_since_).count()};
}

bool SimulationThread::idle() const {
    const std::lock_guard lock(mutex_);
    return !busy_ && jobs_.empty() && credit_ == 0;
}

void SimulationThread::loop() {
    pthread_setname_np(pthread_self(), "nbody-sim");  // for top -H
    tid_ = int(gettid());
    if (start_) {
        try {
            start_();
        } catch (const std::exception& e) {
            const std::lock_guard lock(mutex_);
            progress_.error = error_text(e, "starting the simulation thread");
        }
    }
    std::unique_lock lock(mutex_);
    for (;;) {
        wake_.wait(lock, [&] { return stopping_ || !jobs_.empty() || credit_ > 0; });
        if (stopping_) return;
        if (!jobs_.empty()) {
            Job job = std::move(jobs_.front());
            jobs_.pop_front();
            run_job(job, lock);
        } else {
            run_step(lock);
        }
        settled_.notify_all();
    }
}

// Called and returns with `lock` held; the task itself runs without it.
void SimulationThread::run_job(Job& job, std::unique_lock<std::mutex>& lock) {
    busy_ = true;
    busy_what_ = job.what;
    busy_since_ = std::chrono::steady_clock::now();
    lock.unlock();
    Outcome outcome;
    try {
        outcome.text = job.task(backend_);
    } catch (const std::exception& e) {
        outcome.error = error_text(e, job.what);
    }
    const GravityConfig gravity = backend_.gravity();
    lock.lock();
    busy_ = false;
    gravity_ = gravity;
    if (job.is_load) {
        ++loads_done_;
        latest_fresh_ = false;
    }
    finished_.emplace_back(std::move(job.done), std::move(outcome));
}

// One step, then its state published. Called and returns with `lock` held.
void SimulationThread::run_step(std::unique_lock<std::mutex>& lock) {
    --credit_;
    busy_ = true;
    busy_what_ = "step";
    busy_since_ = std::chrono::steady_clock::now();
    const StepParams params = params_;
    lock.unlock();
    const auto start = std::chrono::steady_clock::now();
    std::string error;
    try {
        backend_.step(params, 1);
        if (publish_) {
            publish_(backend_);
        } else {
            backend_.store(scratch_);
            if (after_step_) after_step_(scratch_);
        }
    } catch (const std::exception& e) {
        error = error_text(e, "stepping the simulation");
    }
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    StepNote description = describe_ && error.empty() ? describe_(backend_) : StepNote{};
    lock.lock();
    busy_ = false;
    if (!error.empty()) {
        credit_ = 0;
        progress_.error = error;
        return;
    }
    if (!publish_) std::swap(scratch_, latest_);
    latest_load_ = loads_done_;
    latest_fresh_ = true;
    progress_.steps += 1;
    progress_.step_seconds += seconds;
    if (describe_) description_ = std::move(description);
}

}  // namespace nbody::app
