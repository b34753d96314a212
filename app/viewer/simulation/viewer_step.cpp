// Stepping the simulation for one frame, and the energy monitor's periodic snapshot.

#include <algorithm>
#include <cstdlib>
#include <cmath>
#include <numeric>
#include <string>

#include "viewer.hpp"
#include "viewer_gravity.hpp"
#if NBODY_HAVE_CUDA
#include "nbody/sim/cuda_backend.hpp"
#endif

namespace nbody::app {

int Viewer::steps_this_frame(double dt_frame) {
    const SimulationParams& s = params_.sim;
    if (!s.fixed_rate || !(s.model_time_per_second > 0) || !(s.step.dt > 0)) {
        playback_debt_ = 0;
        return s.steps_per_frame;
    }
    // A slow frame is not paid back in full (at most a quarter second of it): on a machine that
    // cannot keep up, catching up would make every next frame slower still.
    playback_debt_ += s.model_time_per_second * std::min(dt_frame, 0.25);
    const int steps = int(std::min(std::floor(playback_debt_ / s.step.dt), 4096.0));
    playback_debt_ = std::min(playback_debt_ - steps * s.step.dt, s.step.dt);
    return steps;
}

bool Viewer::step(const Requests& requests, double dt_frame) {
    // Before the steps: they sample the trail points (the first frame's steps too).
    const render::TrailSettings& trails = params_.render.trails;
    sim_.trail_sampler().set_interval(trails.enabled ? trails.interval : 0.0);
    if (hermite_start_pending()) return false;  // the state on screen waits for the Hermite run to take it over
    const bool capture_frame = sim_.hermite() ? step_hermite(requests, dt_frame) : step_leapfrog(requests, dt_frame);
    if (params_.sim.auto_energy && !params_.sim.paused && sim_.size() <= auto_energy_max_n() && !energy_.busy() &&
        energy_.seconds_since_start() > energy_.automatic_period()) {
        try {
            start_energy();
        } catch (const std::exception& e) {
            say(std::string("energy snapshot failed: ") + e.what(), true);
            params_.sim.auto_energy = false;
        }
    }
    return capture_frame;
}

bool Viewer::step_leapfrog(const Requests& requests, double dt_frame) {
    // While recording, every recorded frame is the same number of steps after the one before
    // (the first shows the state the recording started from); paused, nothing is recorded
    // except what a single step (N) advances.
    bool capture_frame = false;
    int steps = params_.sim.paused ? (requests.single_step ? 1 : 0) : steps_this_frame(dt_frame);
    // The first frame (shaders, layout, the first upload) is drawn before any step starts: on a
    // CPU a step of a large system would take the cores it needs.
    if (frame_ == 0 && free_running()) steps = 0;
    if (recorder_) {
        capture_frame = !params_.sim.paused || requests.single_step || first_recorded_frame_;
        steps = capture_frame && !first_recorded_frame_ ? recorder_->settings().steps_per_frame : 0;
        first_recorded_frame_ = false;
    }
    // Beside the frame loop every frame looks for the newest state, stepping or not; a pause
    // drops the steps owed (the one running ends).
    if (sim_.beside() && params_.sim.paused && steps == 0) sim_.hold();
    if (steps > 0 || sim_.beside()) {
        try {
            const StepReport report =
                sim_.advance(steps, params_.sim.step, frame_, recorder_ != nullptr || exact_frames_);
            frame_cut_short_ = report.cut_short;
            profile_.add(HostStage::Map, report.host_map_ms);
            profile_.add(HostStage::Launch, report.host_launch_ms);
            profile_.add(HostStage::Unmap, report.host_unmap_ms);
            profile_.add(HostStage::Upload, report.host_upload_ms);
            const KernelConfig running = sim_.backend().kernel_config();
            perf_.add_steps(report, sim_.size(), sim_.tunable() ? &running : nullptr, tree_interactions(sim_));
            if (frame_ >= 1) {
                totals_.steps += report.steps;
                totals_.bytes_to_host += report.bytes_to_host;
                totals_.bytes_uploaded += report.bytes_uploaded;
                if (report.ms_per_step > 0) {
                    totals_.ms_per_step_sum += report.ms_per_step;
                    ++totals_.ms_samples;
                }
            }
        } catch (const std::exception& e) {
            // Headless runs are scripted: fail loudly. A window keeps the last good frame on
            // screen, paused, with the reason.
            if (surface_->headless()) throw;
            params_.sim.paused = true;
            say(std::string("stepping failed, paused: ") + e.what(), true);
        }
    } else {
        perf_.add_steps(StepReport{}, sim_.size(), nullptr);
    }
    return capture_frame;
}

// On several GPUs the first one also draws: its GL time per step is the other work the force
// pass's shares are cut around (CudaBackend::set_other_work_ms), so that it is not the one every
// step waits for (device run 107: 1M tree, 1.6 ms of drawing beside a 4 ms step on two H100s).
// In the frame loop a step is drawn once per steps_per_frame steps; beside it the window draws at
// its own rate, frames/s x seconds a step frames per step (device run 133: at 16M on two H100s
// about four, 8 ms of GL each, against one counted: the first GPU kept 40 % of the walk and the
// window 54 frames/s).
void Viewer::share_the_drawing_gpu() {
#if NBODY_HAVE_CUDA
    CudaBackend* cuda = sim_.cuda();
    if (cuda == nullptr || cuda->gpu_count() < 2 || gpu_timing_ == nullptr) return;
    const auto& gl = gpu_timer_.latest_ms();
    // A mean over the last ten frames or so: with the particles kept between steps
    // (--particle-cache) one frame a step draws them and the others copy the kept frame.
    const double latest_ms = std::accumulate(gl.begin(), gl.end(), 0.0);
    gl_ms_per_frame_ = gl_ms_per_frame_ < 0 ? latest_ms : 0.9 * gl_ms_per_frame_ + 0.1 * latest_ms;
    const double frame_ms = gl_ms_per_frame_;
    double frames_per_step = 1.0 / std::max(params_.sim.steps_per_frame, 1);
    if (free_running() && perf_.fps() > 0 && perf_.ms_per_step() > 0)
        frames_per_step = perf_.fps() * perf_.ms_per_step() / 1000.0;
    // NBODY_DRAWING_GPU_WALKS=0, for measurements: the drawing GPU takes the smallest share the cut
    // gives (2 %), as if drawing filled it.
    static const bool drawing_gpu_walks = [] {
        const char* env = std::getenv("NBODY_DRAWING_GPU_WALKS");
        return !(env && std::string(env) == "0");
    }();
    cuda->set_other_work_ms(drawing_gpu_walks ? frame_ms * frames_per_step : 1e6);
#endif
}

// The CUDA sprites' deposit beside the steps waits for SMs the persistent tree walk fills for its
// whole length (device run 117: at 16M bodies 31 frames/s); in the frame loop it waits for the
// step's positions anyway, and GL's drawings come from another context.
void Viewer::make_room_for_cuda_sprites() {
#if NBODY_HAVE_CUDA
    CudaBackend* cuda = sim_.cuda();
    if (cuda == nullptr) return;
    const bool beside = sim_.beside() && renderer_.last_sprite_drawing() == render::SpriteDrawing::Cuda;
    walk_room_ = beside ? o_.walk_room : WalkRoom{};
    cuda->set_walk_room(walk_room_);
#endif
}

}  // namespace nbody::app
