// hermite4/6 in the viewer: which integrator runs (the scene's, --integrator, the Simulation
// panel), playback to a model time per frame, errors that pause instead of ending the viewer, and
// the scripted run's report. The integrator itself is ViewerHermite (viewer_hermite.hpp).

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <future>
#include <iostream>
#include <stdexcept>

#include "viewer.hpp"

namespace nbody::app {

namespace {

// A window keeps drawing while a dense phase needs more block steps than a frame can hold: the
// block steps of one frame stop after this long and the model time on screen falls behind.
constexpr double kWindowStepBudgetSeconds = 0.03;

hermite::EngineKind engine_for(BackendKind backend) {
    switch (backend) {
        case BackendKind::Cuda: return hermite::EngineKind::Cuda;
        case BackendKind::Auto: return hermite::EngineKind::Auto;
        default: return hermite::EngineKind::Cpu;  // reference, cpu: the double cpu engine
    }
}

}  // namespace

void choose_scene_integrator(const Scene& scene, SimulationParams& s) {
    const SceneIntegrator& i = scene.integrator;
    const Integrator chosen = parse_integrator(i.name);  // a scene's name was checked when it loaded
    s.hermite = is_hermite(chosen);
    s.hermite_order = hermite_order(chosen);
    s.eta = i.eta.value_or(hermite::default_eta(s.hermite_order));
    s.dt_max = i.dt_max.value_or(0.125);
    s.time_per_frame = i.time_per_frame.value_or(scene.steps_per_frame * scene.params.dt);
    if (s.hermite) s.model_time_per_second = 60.0 * s.time_per_frame;
    s.integrator_error.clear();
}

SimulationParams params_for(SimulationParams now, const Scene& next, bool new_scene) {
    if (new_scene) {
        now.step = next.params;
        choose_scene_integrator(next, now);
    }
    return now;
}

void Viewer::integrator_from_scene() {
    choose_scene_integrator(scene_, params_.sim);
    hermite_play_ = {};
}

void Viewer::start_integrator_from_options() {
    integrator_from_scene();
    SimulationParams& s = params_.sim;
    s.hermite = o_.hermite;
    if (o_.hermite && o_.hermite_order != s.hermite_order) {  // the scene's eta is for its own integrator
        s.hermite_order = o_.hermite_order;
        s.eta = hermite::default_eta(s.hermite_order);
    }
    if (o_.integrator.eta) s.eta = *o_.integrator.eta;
    if (o_.integrator.dt_max) s.dt_max = *o_.integrator.dt_max;
    if (!s.hermite) return;
    if (const auto& t_end = o_.integrator.t_end) {
        if (!(*t_end >= scene_.state.time))
            throw std::invalid_argument("--t-end " + std::to_string(*t_end) + " is before the start time " +
                                        std::to_string(scene_.state.time));
        hermite_play_.t_end = t_end;
        // Frames evenly spaced to t_end: `view` steps before its first frame, `record`'s first frame
        // is the initial state.
        const long long stepping_frames = frame_limit_ - (record_run_ ? 1 : 0);
        if (stepping_frames > 0) s.time_per_frame = (*t_end - scene_.state.time) / double(stepping_frames);
    }
    s.model_time_per_second = 60.0 * s.time_per_frame;
    start_hermite_run(scene_.energy0);
}

HermiteSettings Viewer::hermite_settings() const { return hermite_settings(params_.sim); }

HermiteSettings Viewer::hermite_settings(const SimulationParams& s) const {
    HermiteSettings h;
    h.order = s.hermite_order;
    h.eta = s.eta;
    h.dt_max = s.dt_max;
    h.softening = s.step.softening;
    h.engine = engine_for(o_.backend);
    if (o_.kernel.precision) h.precision = *o_.kernel.precision;
    return h;
}

bool Viewer::start_hermite_run(const std::optional<io::RunEnergy>& energy0, bool announce) {
    // A recording (`view --record DIR` from the first frame, or one running) takes each frame after
    // exactly its model time from the run's start: the start is made here, as the frames wait.
    const bool recording = recorder_ || pending_.toggle_recording || (frame_ == 0 && o_.record_folder);
    if (sim_.hermite_runs_beside() && !recording) {
        begin_hermite_start(energy0, announce);
        return true;
    }
    try {
        sim_.start_hermite(hermite_settings());
    } catch (const std::exception& e) {
        hermite_start_failed(e);
        return false;
    }
    hermite_ready(energy0, announce);
    return true;
}

void Viewer::begin_hermite_start(const std::optional<io::RunEnergy>& energy0, bool announce) {
    drop_hermite_start();
    const HermiteSettings settings = hermite_settings();
    SimulationDriver::HermiteStartFrom from = sim_.hermite_start_from(settings.order);  // the backend held
    HermiteStart start;
    start.what = "starting " + std::string(params_.sim.integrator_name()) + ": the forces and energy of " +
                 std::to_string(from.state.size()) + " bodies";
    start.run = std::async(std::launch::async, [settings, from = std::move(from)] { return from.start(settings, std::cerr); });
    start.energy0 = energy0;
    start.announce = announce;
    start.started = Clock::now();
    hermite_start_ = std::move(start);
}

bool Viewer::hermite_start_pending() {
    std::erase_if(superseded_starts_, [](const auto& f) { return !still_running(f); });
    if (!hermite_start_) return false;
    if (still_running(hermite_start_->run)) return true;
    HermiteStart start = std::move(*hermite_start_);
    hermite_start_.reset();
    try {
        sim_.adopt_hermite(start.run.get());
    } catch (const std::exception& e) {
        hermite_start_failed(e);
        return false;
    }
    hermite_ready(start.energy0, start.announce);
    return false;
}

void Viewer::drop_hermite_start() {
    if (hermite_start_) superseded_starts_.push_back(std::move(hermite_start_->run));
    hermite_start_.reset();
}

void Viewer::hermite_ready(const std::optional<io::RunEnergy>& energy0, bool announce) {
    params_.sim.integrator_error.clear();
    if (energy0) {
        const auto parked = sim_.park_hermite();
        sim_.hermite()->continue_run_energy(*energy0);
    }
    // Its energy line at once: started beside the window, or switched to (a start in the constructor,
    // not beside, is summed with the system's first sums).
    if ((announce || sim_.hermite_beside()) && params_.sim.auto_energy && sim_.size() <= auto_energy_max_n())
        sim_.measure_hermite_energy();
    if (announce) say(std::string("integrator: ") + params_.sim.integrator_name() + " (block time steps, double)", false);
}

void Viewer::hermite_start_failed(const std::exception& e) {
    // Leapfrog keeps the (unchanged) state, paused; the panel shows leapfrog and the reason.
    const std::string name = params_.sim.integrator_name();
    params_.sim.hermite = false;
    params_.sim.paused = true;
    hermite_play_.failed = true;
    params_.sim.integrator_error = e.what();
    say(name + " could not start, paused: " + e.what(), true);
}

void Viewer::apply_integrator() {
    SimulationParams& s = params_.sim;
    ViewerHermite* running = sim_.hermite();
    if (!s.hermite) {
        drop_hermite_start();  // the leapfrog run it would have taken over goes on
        if (running) {
            sim_.stop_hermite(s.step.dt);  // positions and velocities at the time on screen
            say("integrator: leapfrog, dt " + std::to_string(s.step.dt), false);
        }
        return;
    }
    if (!running) {
        // A start still running was for the settings before this change: it starts again.
        start_hermite_run(hermite_start_ ? hermite_start_->energy0 : std::nullopt, /*announce=*/true);
        return;
    }
    try {
        const auto parked = sim_.park_hermite();  // between two runs of block steps
        running->change(hermite_settings());
        params_.sim.integrator_error.clear();
    } catch (const std::exception& e) {
        s.paused = true;
        s.eta = running->settings().eta;  // the panel shows what runs
        s.dt_max = running->settings().dt_max;
        s.step.softening = running->settings().softening;
        hermite_play_.failed = true;
        params_.sim.integrator_error = e.what();
        s.hermite_order = running->settings().order;
        say(std::string(s.integrator_name()) + " settings not applied, paused: " + e.what(), true);
    }
}

// The model time a frame asks for: the playback speed's share of the frame's wall time, or
// time_per_frame.
double Viewer::hermite_increment(double dt_frame) const {
    const SimulationParams& s = params_.sim;
    return s.fixed_rate && s.model_time_per_second > 0 ? s.model_time_per_second * std::min(dt_frame, 0.25)
                                                       : s.time_per_frame;
}

bool Viewer::step_hermite(const Requests& requests, double dt_frame) {
    perf_.add_steps(StepReport{}, sim_.size(), nullptr);  // the Kernel panel's rates are leapfrog's
    if (sim_.hermite_beside() && !recorder_) return play_hermite_beside(requests, dt_frame);
    // A recording in a window: each frame after exactly its time, stepped here with the thread
    // parked, and asked for nothing more between two frames.
    sim_.hold_hermite();
    const auto parked = sim_.park_hermite();
    return step_hermite_in_loop(requests, dt_frame);
}

// Free-running in a window: the thread steps toward the time asked for while the window draws what
// it published last. The time asked for runs at most two frames ahead of the time shown, so that a
// dense phase plays slower instead of piling up model time to catch up.
bool Viewer::play_hermite_beside(const Requests& requests, double dt_frame) {
    SimulationParams& s = params_.sim;
    const double shown = sim_.time();
    std::optional<double> target;
    if (s.paused) {
        sim_.hold_hermite();
        if (requests.single_step) sim_.step_hermite_block();
        hermite_play_.target = shown;
    } else {
        const double increment = hermite_increment(dt_frame);
        hermite_play_.target = std::min(std::max(hermite_play_.target, shown) + increment, shown + 2 * increment);
        if (hermite_play_.t_end) hermite_play_.target = std::min(hermite_play_.target, *hermite_play_.t_end);
        target = hermite_play_.target;
    }
    try {
        const StepReport r = sim_.play_hermite_to(target);
        profile_.add(HostStage::Upload, r.host_upload_ms);
        if (frame_ >= 1) totals_.bytes_uploaded += r.bytes_uploaded;
        if (hermite_play_.t_end && sim_.time() >= *hermite_play_.t_end) {
            const auto parked = sim_.park_hermite();
            hermite_reached_t_end();
        }
    } catch (const std::exception& e) {
        hermite_stopped(e);
    }
    return false;
}

bool Viewer::step_hermite_in_loop(const Requests& requests, double dt_frame) {
    SimulationParams& s = params_.sim;
    ViewerHermite& h = *sim_.hermite();
    // Recorded frames are always time_per_frame apart (the first shows the state the recording
    // started from); paused, only a single step (N) moves, by one block.
    double increment = hermite_increment(dt_frame);
    bool one_block = s.paused && requests.single_step;
    if (s.paused) increment = 0;
    bool capture_frame = false;
    if (recorder_) {
        capture_frame = !s.paused || requests.single_step || first_recorded_frame_;
        if (!s.paused) increment = s.time_per_frame;
        if (first_recorded_frame_) increment = 0, one_block = false;
        first_recorded_frame_ = false;
    }
    const bool at_end = hermite_play_.t_end && h.time() >= *hermite_play_.t_end;
    if (at_end || (!one_block && !(increment > 0))) return capture_frame;

    // Headless and recorded frames reach their time exactly, however long it takes.
    const double budget = surface_->headless() || recorder_ ? 0.0 : kWindowStepBudgetSeconds;
    double target = h.time() + increment;
    // The last frame lands on t_end exactly, not a rounding error short of it (K additions of
    // (t_end - t0) / K need not sum to t_end).
    if (hermite_play_.t_end && target > *hermite_play_.t_end - 1e-6 * increment) target = *hermite_play_.t_end;
    try {
        const StepReport r = sim_.advance_hermite(target, budget, one_block);
        profile_.add(HostStage::Launch, r.host_launch_ms);
        profile_.add(HostStage::Upload, r.host_upload_ms);
        if (frame_ >= 1) totals_.bytes_uploaded += r.bytes_uploaded;
        if (hermite_play_.t_end && h.time() >= *hermite_play_.t_end) hermite_reached_t_end();
    } catch (const std::exception& e) {
        hermite_stopped(e);
    }
    return capture_frame;
}

// Every body exactly at t_end, in double; a window pauses there (Resume goes on past it).
void Viewer::hermite_reached_t_end() {
    const double t_end = *hermite_play_.t_end;
    sim_.hermite()->synchronise_at(t_end);
    char text[96];
    std::snprintf(text, sizeof text, "reached --t-end %.17g%s", t_end, surface_->headless() ? "" : ": paused");
    say(text, false);
    if (!surface_->headless()) {
        params_.sim.paused = true;
        hermite_play_.t_end.reset();
    }
}

// Bad input (zero separation with zero softening, a step underflow, a NaN) or a failed engine: the
// integrator kept its last completed block, which stays on screen, paused.
void Viewer::hermite_stopped(const std::exception& e) {
    params_.sim.paused = true;
    hermite_play_.failed = true;
    params_.sim.integrator_error = e.what();
    say(std::string(params_.sim.integrator_name()) + " stopped, paused: " + e.what(), true);
}

void Viewer::print_hermite_report() {
    const auto parked = sim_.park_hermite();
    ViewerHermite& h = *sim_.hermite();
    try {
        h.synchronise_at(h.time());  // the energy of the state on screen, every body at its time
    } catch (const std::exception&) {
        // The last good state, not synchronised: its energy is that at the last block time.
    }
    const hermite::HermiteIntegrator& in = h.integrator();
    const hermite::HermiteStats& st = in.stats();
    std::string levels;
    const std::vector<std::size_t> hist = in.level_histogram();
    for (std::size_t k = 0; k < hist.size(); ++k)
        if (hist[k] > 0) levels += " " + std::to_string(k) + ":" + std::to_string(hist[k]);
    const double error = h.energy_error(), moved = h.largest_displacement();
    std::printf("  %s (%s): t = %.17g, %llu blocks, %llu force evaluations (%.1f per block), eta %g, dt_max %g, "
                "softening %g; block levels:%s\n",
                hermite::integrator_name(in.params().order), h.engine_line().c_str(), h.time(), (unsigned long long)st.blocks,
                (unsigned long long)st.body_steps, st.blocks ? double(st.body_steps) / double(st.blocks) : 0.0,
                in.params().eta, in.params().dt_max, in.params().softening, levels.c_str());
    std::printf("hermite_report t=%.17g blocks=%llu force_evaluations=%llu energy_error=%.3e largest_displacement=%.3e%s\n",
                h.time(), (unsigned long long)st.blocks, (unsigned long long)st.body_steps, error, moved,
                hermite_play_.failed ? " failed=1" : "");
    std::fflush(stdout);
}

}  // namespace nbody::app
