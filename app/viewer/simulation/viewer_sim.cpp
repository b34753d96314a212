#include "viewer_sim.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <ostream>
#include <sstream>
#include <stdexcept>

#if NBODY_HAVE_CUDA
#include "nbody/render/cuda_gl_interop.hpp"
#include "nbody/sim/cuda_backend.hpp"
#endif

namespace nbody::app {

const char* describe(TransferPath path) {
    switch (path) {
        case TransferPath::Interop:
            return "CUDA-GL interop (no host copy)";
        case TransferPath::HostCopy:
            return "CUDA, copied through the host";
        case TransferPath::Upload:
            return "host backend, uploaded per frame";
    }
    return "unknown";
}

SimulationDriver::SimulationDriver(BackendKind kind, std::ostream& log, const std::vector<int>& gpus) : log_(log) {
    std::ostringstream choice;
    backend_ = make_backend(kind, choice);
    std::istringstream lines(choice.str());
    for (std::string line; std::getline(lines, line);)
        if (!line.empty()) notice(line.rfind("nbody: ", 0) == 0 ? line.substr(7) : line);
#if NBODY_HAVE_CUDA
    cuda_ = dynamic_cast<CudaBackend*>(backend_.get());
#endif
    if (gpus.size() < 2) return;
#if NBODY_HAVE_CUDA
    if (cuda_) {
        cuda_->use_gpus(gpus);
        notice("stepping on " + std::to_string(gpus.size()) + " GPUs through NCCL; GPU " +
               std::to_string(gpus.front()) + " draws");
        return;
    }
#endif
    throw std::invalid_argument("--gpus " + std::to_string(gpus.size()) + ": several GPUs step the cuda backend; the "
                                "viewer runs the " + std::string(backend_->name()) + " backend (--backend cuda)");
}

SimulationDriver::~SimulationDriver() = default;

std::string SimulationDriver::gpu_shares_text() const {
#if NBODY_HAVE_CUDA
    if (beside_) return beside_->description().gpus;  // read on the simulation thread
    if (!cuda_ || cuda_->gpu_count() < 2) return {};
    return CudaBackend::describe(cuda_->gpu_shares());
#else
    return {};
#endif
}

void SimulationDriver::notice(const std::string& line) {
    notices_.push_back(line);
    log_ << "nbody: " << line << "\n" << std::flush;
}

void SimulationDriver::load(const State& state, double dt) {
    state.validate();
    end_hermite();
    exact_.reset();
    exact_resume_.reset();
    if (beside_)
        beside_->load(state);  // between two steps; the state is on screen at once
    else
        backend_->load(state);
    host_ = state;
    buffers_.load(state, dt);
    trails_.restart();
    cluster_.clear();
    d2h_seen_ = 0;
    snapshot_bytes_ = 0;
    path_ = TransferPath::Upload;
#if NBODY_HAVE_CUDA
    if (cuda_) {
        d2h_seen_ = cuda_->bytes_copied_to_host();
        path_ = TransferPath::HostCopy;
        const char* off = std::getenv("NBODY_NO_INTEROP");
        if (off && *off && std::strcmp(off, "0") != 0) {
            if (!interop_refused_)
                notice("CUDA-GL interop disabled by NBODY_NO_INTEROP; copying positions through the host");
            interop_refused_ = true;
        } else if (!interop_refused_) {
            const std::string why = buffers_.enable_cuda_interop();
            if (why.empty()) {
                path_ = TransferPath::Interop;
            } else {
                interop_refused_ = true;
                notice("CUDA-GL interop unavailable (" + why +
                       "); copying positions through the host every frame");
            }
        }
    }
#endif
}

bool SimulationDriver::run_beside(SimulationThread::Describe describe) {
    if (beside_) return true;
    if (cuda_) return run_beside_on_gpu(std::move(describe));
    beside_ = std::make_unique<SimulationThread>(*backend_, std::move(describe), [this](const State& s) { observe(s); });
    return true;
}

// The cuda backend steps its own buffers on the thread; each step's positions go to a device slot
// and from there into the vertex buffer not drawn (render::PublishedPositions). Only with interop:
// the host-copy path stays in the frame loop.
bool SimulationDriver::run_beside_on_gpu(SimulationThread::Describe describe) {
#if NBODY_HAVE_CUDA
    if (path_ != TransferPath::Interop) return false;
    published_ = std::make_unique<render::PublishedPositions>();
    auto publish = [this](Backend& backend) {
        published_->publish(backend.size() * sizeof(Vec4f), cuda_->stream(), cuda_->time(),
                            [this](void* slot) { cuda_->export_device_positions(slot); });
    };
    auto note = [this, describe = std::move(describe)](const Backend& backend) {
        SimulationThread::StepNote n = describe ? describe(backend) : SimulationThread::StepNote{};
        if (cuda_->gpu_count() > 1) n.gpus = CudaBackend::describe(cuda_->gpu_shares());
        return n;
    };
    beside_ = std::make_unique<SimulationThread>(*backend_, std::move(note), SimulationThread::AfterStep{}, publish,
                                                 [this] { published_->make_current(); });
    return true;
#else
    (void)describe;
    return false;
#endif
}

void SimulationDriver::pause_beside() {
    if (beside_) beside_->run_exactly(0, StepParams{});
}

void SimulationDriver::stop_beside() {
    if (!beside_) return;
    pause_beside();
    beside_->finish_tasks();
    beside_.reset();
#if NBODY_HAVE_CUDA
    if (published_) {
        // The frame loop's steps read the current vertex buffer: give it the backend's newest.
        render::ScopedCudaMap map = buffers_.map_current(cuda_->stream());
        cuda_->export_device_positions(map.pointer(0));
        map.unmap();
        published_.reset();
    }
#endif
    backend_->store(host_);
}

void SimulationDriver::show_newest_beside() {
#if NBODY_HAVE_CUDA
    if (published_ && beside_->take_fresh() && buffers_.show_published(*published_))
        host_.time = buffers_.current_time();
#endif
}

void SimulationDriver::hold() {
    if (beside_) beside_->hold();
}

bool SimulationDriver::settle_beside(std::chrono::milliseconds patience) {
    const auto until = std::chrono::steady_clock::now() + patience;
    const auto left = [&] {
        return std::max(std::chrono::milliseconds(0), std::chrono::duration_cast<std::chrono::milliseconds>(
                                                          until - std::chrono::steady_clock::now()));
    };
    const bool hermite_settled = !hermite_thread_ || hermite_thread_->settle_within(left());
    hermite_abandoned_ = !hermite_settled;
    return (!beside_ || beside_->settle_within(left())) && hermite_settled;
}

std::optional<SimulationThread::Activity> SimulationDriver::activity() const {
    if (hermite_thread_) {
        const auto a = hermite_thread_->activity();
        if (!a) return std::nullopt;
        return SimulationThread::Activity{a->what == "block steps" ? "step" : a->what, a->seconds};
    }
    return beside_ ? beside_->activity() : std::nullopt;
}

void SimulationDriver::between_steps(SimulationThread::Task task, SimulationThread::Done done, std::string what) {
    if (beside_) {
        beside_->post(std::move(task), std::move(done), std::move(what));
        return;
    }
    SimulationThread::Outcome outcome;
    try {
        outcome.text = task(*backend_);
    } catch (const std::exception& e) {
        outcome.error = e.what();
    }
    if (done) done(outcome);
}

void SimulationDriver::finish_tasks() {
    if (beside_) beside_->finish_tasks();
}

GravityConfig SimulationDriver::gravity() const { return beside_ ? beside_->gravity() : backend_->gravity(); }

StepReport SimulationDriver::advance_beside(int steps, const StepParams& params, bool exact) {
    StepReport report;
    const auto start = std::chrono::steady_clock::now();
    if (exact) {
        report.cut_short = !beside_->run_exactly(steps, params, give_up_);
        // The frame waited for its steps: what stepping in the loop cost it.
        report.host_launch_ms =
            std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    } else if (steps > 0) {
        beside_->grant(steps, params, 2 * steps);
    }
    const SimulationThread::Progress done = beside_->take_progress();
    if (!done.error.empty()) throw std::runtime_error(done.error);
    report.steps = done.steps;
    report.ms_per_step = done.steps > 0 ? 1e3 * done.step_seconds / done.steps : 0;
#if NBODY_HAVE_CUDA
    if (published_) {
        if (!report.cut_short) show_newest_beside();  // a frame cut short keeps the last complete state
        return report;
    }
#endif
    // A frame cut short shows the last complete frame's state, not one part of the way.
    if (report.cut_short || !beside_->take_latest(host_)) return report;
    const auto upload = std::chrono::steady_clock::now();
    report.bytes_uploaded = buffers_.upload(host_.pos_mass, host_.time);
    report.host_upload_ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - upload).count();
    return report;
}

StepReport SimulationDriver::advance(int steps, const StepParams& params, long long frame, bool exact) {
    if (beside_) return advance_beside(steps, params, exact);
    StepReport report;
    if (steps <= 0 || buffers_.size() == 0) return report;
    report.steps = steps;
    using Clock = std::chrono::steady_clock;
    const auto ms_since = [](Clock::time_point t) {
        return std::chrono::duration<double, std::milli>(Clock::now() - t).count();
    };
    const auto start = Clock::now();
#if NBODY_HAVE_CUDA
    if (cuda_ && !step_timer_) step_timer_ = std::make_unique<render::CudaStreamTimer>();
    if (cuda_ && path_ == TransferPath::Interop) {
        const std::size_t need = buffers_.position_bytes();
        // One mapping for all of this frame's steps: map and unmap each order CUDA after GL (and
        // back), which costs driver work and a wait per call; GL does not touch the buffers
        // between the steps of one frame, so once per frame is enough.
        auto t = Clock::now();
        render::ScopedCudaMap map = buffers_.map_both(cuda_->stream());
        report.host_map_ms = ms_since(t);
        if (map.bytes(0) < need || map.bytes(1) < need)
            throw std::runtime_error("mapped vertex buffer is smaller than the particle array");
        t = Clock::now();
        step_timer_->start(cuda_->stream(), frame);
        for (int s = 0; s < steps; ++s) {
            const int in = buffers_.current_index();
            cuda_->step_device(map.pointer(std::size_t(in)), map.pointer(std::size_t(1 - in)), params);
            buffers_.swap(cuda_->time());
        }
        step_timer_->stop(cuda_->stream());
        report.host_launch_ms = ms_since(t);
        t = Clock::now();
        map.unmap();
        report.host_unmap_ms = ms_since(t);
        step_timer_->poll();
    } else
#endif
    {
#if NBODY_HAVE_CUDA
        if (step_timer_) step_timer_->start(cuda_->stream(), frame);
#endif
        if (cuda_)
            backend_->step(params, steps);
        else
            step_host_sampled(steps, params);
        backend_->store(host_);  // CUDA host-copy path: counted by the backend as device-to-host
#if NBODY_HAVE_CUDA
        if (step_timer_) {
            step_timer_->stop(cuda_->stream());
            step_timer_->poll();
        }
#endif
        report.host_launch_ms = ms_since(start);
        const auto t = Clock::now();
        report.bytes_uploaded = buffers_.upload(host_.pos_mass, backend_->time());
        report.host_upload_ms = ms_since(t);
    }
#if NBODY_HAVE_CUDA
    if (cuda_) {
        if (cluster_.due(backend_->time())) cluster_.observe(snapshot());  // a device copy, when due only
        report.ms_per_step = cuda_->last_force_ms();
        report.ms_from_gpu_events = true;
        const std::size_t d2h = cuda_->bytes_copied_to_host();
        report.bytes_to_host = d2h - d2h_seen_;
        d2h_seen_ = d2h;
        return report;
    }
#endif
    report.ms_per_step = report.host_launch_ms / steps;
    return report;
}

void SimulationDriver::observe(const State& state) {
    trails_.record(state.time, state.pos_mass);
    cluster_.observe(state);
}

double SimulationDriver::next_sample_time() const {
    return std::min(trails_.next_time(), cluster_.next_time());
}

// Host backends in the frame loop: steps in runs that end where a sample falls due, so trails and
// cluster radii are spaced in model time as on the simulation thread (one step short of the
// estimate, then single steps: time is a sum of steps, and rounding must not skip the crossing).
void SimulationDriver::step_host_sampled(int steps, const StepParams& params) {
    while (steps > 0) {
        // Clamped in double: the first sample is due at once (-inf-like), none at all is +inf-like.
        const double to_next = (next_sample_time() - backend_->time()) / params.dt;
        const int run = int(std::clamp(std::ceil(to_next) - 1.0, 1.0, double(steps)));
        backend_->step(params, run);
        steps -= run;
        if (trails_.due(backend_->time()) || cluster_.due(backend_->time())) {
            backend_->store(host_);
            observe(host_);
        }
    }
}

bool SimulationDriver::hand_positions_to_backend() {
#if NBODY_HAVE_CUDA
    if (hermite_ || beside_ || !cuda_ || path_ != TransferPath::Interop) return false;
    // The newest positions are in the current vertex buffer; the velocities in the backend.
    render::ScopedCudaMap map = buffers_.map_current(cuda_->stream());
    cuda_->adopt_device_positions(map.pointer(0));
    map.unmap();  // on the backend's stream: ordered after the copy
    return true;
#else
    return false;
#endif
}

State SimulationDriver::snapshot() {
    if (hermite_thread_) return host_;  // what the thread published last, drawn: no wait for its blocks
    if (hermite_) return hermite_->state(host_);
#if NBODY_HAVE_CUDA
    if (beside_ && published_) {
        pause_beside();  // the thread is idle until the next advance(): the backend is this thread's
        return stored_from_cuda();
    }
#endif
    if (beside_) return host_;  // the newest complete state, taken by the last advance()
#if NBODY_HAVE_CUDA
    if (hand_positions_to_backend()) {
        State s = stored_from_cuda();
        d2h_seen_ = cuda_->bytes_copied_to_host();
        return s;
    }
#endif
    State s = host_;
    s.time = backend_->time();
    return s;
}

#if NBODY_HAVE_CUDA
State SimulationDriver::stored_from_cuda() {
    State s = host_;
    const std::size_t before = cuda_->bytes_copied_to_host();
    cuda_->store(s);
    snapshot_bytes_ += cuda_->bytes_copied_to_host() - before;
    s.time = backend_->time();
    return s;
}
#endif

void SimulationDriver::set_exact_start(const std::optional<PreciseState>& precise,
                                       const std::optional<hermite::Bodies>& resume, int resume_order) {
    exact_ = precise;
    exact_resume_ = precise ? resume : std::nullopt;
    exact_resume_order_ = resume_order;
}

namespace {

// Whether `now` is `exact` rounded: nothing has moved the bodies since the file was loaded.
bool rounds_to(const PreciseState& exact, const State& now) {
    if (exact.size() != now.size()) return false;
    State rounded = now;
    exact.round_into(rounded);
    const auto same = [](const Vec4f& a, const Vec4f& b, bool with_w) {
        return a.x == b.x && a.y == b.y && a.z == b.z && (!with_w || a.w == b.w);
    };
    for (std::size_t i = 0; i < now.size(); ++i)
        if (!same(rounded.pos_mass[i], now.pos_mass[i], true) || !same(rounded.velocity[i], now.velocity[i], false))
            return false;
    return true;
}

}  // namespace

std::unique_ptr<ViewerHermite> make_viewer_hermite(const HermiteSettings& settings, const State& state,
                                                  const PreciseState* precise, const hermite::Bodies* resume,
                                                  std::ostream& log) {
    std::unique_ptr<ViewerHermite> h = precise ? std::make_unique<ViewerHermite>(settings, *precise, state.time, resume)
                                               : std::make_unique<ViewerHermite>(settings, state);
    if (precise)
        log << "nbody: " << hermite::integrator_name(settings.order) << " starts from the file's double state"
            << (resume ? ", continuing its saved block steps exactly" : "") << "\n";
    log << "nbody: " << hermite::integrator_name(settings.order) << ": " << h->engine_line() << "\n"
        << std::flush;  // the panel shows it too
    return h;
}

SimulationDriver::HermiteStartFrom SimulationDriver::hermite_start_from(int order) {
    hold();  // Hermite takes over from the state on screen
    HermiteStartFrom from{snapshot(), std::nullopt, std::nullopt};
    if (exact_ && rounds_to(*exact_, from.state)) {
        from.precise = exact_;
        if (exact_resume_ && exact_resume_order_ == order) from.resume = exact_resume_;
    }
    return from;
}

std::unique_ptr<ViewerHermite> SimulationDriver::HermiteStartFrom::start(const HermiteSettings& settings,
                                                                        std::ostream& log) const {
    return make_viewer_hermite(settings, state, precise ? &*precise : nullptr, resume ? &*resume : nullptr, log);
}

void SimulationDriver::start_hermite(const HermiteSettings& settings) {
    adopt_hermite(hermite_start_from(settings.order).start(settings, log_));
}

void SimulationDriver::adopt_hermite(std::unique_ptr<ViewerHermite> run) {
    end_hermite();
    hermite_ = std::move(run);
    hermite_started();
}

void SimulationDriver::stop_hermite(double dt) {
    if (!hermite_) return;
    const State s = snapshot();
    load(s, dt);  // ends the Hermite run
}

void SimulationDriver::run_hermite_beside() {
    hermite_beside_wanted_ = true;
    if (hermite_ && !hermite_thread_) hermite_started();
}

void SimulationDriver::hermite_started() {
    hermite_summary_ = hermite_->summary({});
    if (!hermite_beside_wanted_ || hermite_thread_) return;
    log_ << "nbody: " << hermite::integrator_name(hermite_->settings().order)
         << " block steps run on their own thread; the window draws the newest state\n"
         << std::flush;
    hermite_thread_ = std::make_unique<HermiteThread>(
        hermite_->time(), [this](double t, double budget_s) { return advance_hermite_sampled(t, budget_s); },
        [this](State& state, HermiteSummary& summary, const HermiteFrame& frame) {
            hermite_->store(state);
            summary = hermite_->summary(frame);
        });
}

void SimulationDriver::end_hermite() {
    hermite_thread_.reset();  // after its run of blocks in progress
    hermite_.reset();
}

std::optional<HermiteThread::Parked> SimulationDriver::park_hermite() {
    if (!hermite_thread_) return std::nullopt;
    std::optional<HermiteThread::Parked> parked(hermite_thread_->park());
    show_hermite_published();  // on screen: the state the run holds now
    return parked;
}

std::size_t SimulationDriver::show_hermite_published() {
    const double before = hermite_summary_.time;
    const HermiteThread::Taken taken = hermite_thread_->take(host_, hermite_summary_);
    if (!taken.error.empty()) hermite_error_ = taken.error;
    // An upload at an unchanged time would zero the speed colouring.
    return taken.fresh && hermite_summary_.time != before ? buffers_.upload(host_.pos_mass, host_.time) : 0;
}

StepReport SimulationDriver::play_hermite_to(std::optional<double> t) {
    if (t) hermite_thread_->play_to(*t);
    StepReport report;
    const auto start = std::chrono::steady_clock::now();
    report.bytes_uploaded = show_hermite_published();
    report.host_upload_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    report.host_launch_ms = 1e3 * hermite_summary_.frame.seconds;
    if (!hermite_error_.empty()) throw hermite::HermiteError(std::exchange(hermite_error_, std::string()));
    return report;
}

bool SimulationDriver::save_hermite_into(io::Snapshot& snap) {
    if (!hermite_ || hermite_abandoned_) return false;
    const auto parked = park_hermite();
    snap.state = hermite_->state(host_);  // the floats of the double state saved, whatever was drawn
    hermite_->save_into(snap);
    return true;
}

void SimulationDriver::hold_hermite() {
    if (hermite_thread_) hermite_thread_->hold();
}

void SimulationDriver::step_hermite_block() {
    hermite_thread_->post([this] { hermite_->step_once(); }, "one block step");
}

void SimulationDriver::measure_hermite_energy() {
    if (hermite_thread_)
        hermite_thread_->post([this] { hermite_->measure_energy(); }, "copying the state for its energy sum");
    else
        hermite_->measure_energy();
}

StepReport SimulationDriver::advance_hermite(double t, double budget_s, bool one_block) {
    StepReport report;
    const double before = hermite_->time();
    const auto upload = [&] {
        if (hermite_->time() == before) return;  // an upload at an unchanged time would zero the speed colouring
        const auto start = std::chrono::steady_clock::now();
        hermite_->positions(host_.pos_mass);
        report.bytes_uploaded = buffers_.upload(host_.pos_mass, hermite_->time());
        report.host_upload_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    };
    HermiteFrame f;
    try {
        f = one_block ? hermite_->step_once() : advance_hermite_sampled(t, budget_s);
    } catch (...) {
        upload();  // the last good block, on screen
        hermite_summary_ = hermite_->summary({});
        throw;
    }
    report.host_launch_ms = 1e3 * f.seconds;
    upload();
    hermite_summary_ = hermite_->summary(f);
    return report;
}

// To each sample time before `t` in turn, the bodies predicted exactly to it (a close encounter
// inside one frame becomes a curve of trail points), then to `t`; within `budget_s` in all.
HermiteFrame SimulationDriver::advance_hermite_sampled(double t, double budget_s) {
    const auto start = std::chrono::steady_clock::now();
    const auto left = [&] {
        if (budget_s <= 0) return 0.0;
        return std::max(1e-6, budget_s - std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    };
    HermiteFrame total;
    // On the thread that steps the run: not host_, which the frame loop swaps the published state into.
    const auto sample = [&] {
        hermite_->store(hermite_sampled_);
        observe(hermite_sampled_);
    };
    if (next_sample_time() <= hermite_->time()) sample();
    for (double next = next_sample_time(); next < t; next = next_sample_time()) {
        const HermiteFrame f = hermite_->advance_to(next, left());
        total.blocks += f.blocks;
        total.evaluations += f.evaluations;
        if (!f.reached || hermite_->time() < next) {
            total.reached = false;
            total.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
            return total;
        }
        sample();
    }
    const HermiteFrame f = hermite_->advance_to(t, left());
    total.blocks += f.blocks;
    total.evaluations += f.evaluations;
    total.reached = f.reached;
    total.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return total;
}

std::string SimulationDriver::check_kernel_config(const KernelConfig& config) const {
#if NBODY_HAVE_CUDA
    if (cuda_) return cuda_->check_kernel_config(config);
#endif
    (void)config;
    return "the " + std::string(backend_->name()) + " backend has no tunable kernel";
}

std::string SimulationDriver::apply_kernel_config(const KernelConfig& config) {
    if (std::string why = check_kernel_config(config); !why.empty()) return why;
    pause_beside();  // not while the simulation thread steps
    try {
        backend_->set_kernel_config(config);  // takes effect at the next force pass
    } catch (const std::exception& e) {
        return e.what();
    }
    return {};
}

}  // namespace nbody::app
