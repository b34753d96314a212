// The end of a run: timings that are complete (everything queued has run), the report that
// scripts parse (fps_report, record_report), and the exit code.

#include <algorithm>
#include <cstdio>

#include "nbody/render/gl.hpp"
#include "ui_hermite.hpp"
#include "viewer.hpp"
#include "viewer_gravity.hpp"

namespace nbody::app {

namespace {

void print_report(const std::string& command, const RunTotals& t, long long frames_total,
                  const SimulationDriver& sim, int flops, const FrameProfile& profile, const GpuTotals& gpu,
                  render::SpriteDrawing sprites) {
    const double fps = t.seconds > 0 ? double(t.frames) / t.seconds : 0.0;
    const double ms_frame = t.frames > 0 ? 1e3 * t.seconds / double(t.frames) : 0.0;
    // The force pass as the backend timed it; when no pass time came back (the event queries are
    // not waited for), the GPU time of the frames' whole steps from the stream timer.
    double ms_step = t.ms_samples > 0 ? t.ms_per_step_sum / double(t.ms_samples) : 0.0;
    if (!(ms_step > 0) && gpu.cuda_frames > 0 && t.steps > 0 && t.frames > 0)
        ms_step = gpu.cuda_step_ms / double(gpu.cuda_frames) / (double(t.steps) / double(t.frames));
    const double n = double(sim.size());
    const double ips = ms_step > 0 ? n * n / (ms_step * 1e-3) : 0.0;
    std::printf("nbody %s: %lld frames, N = %zu, backend %.*s, positions: %s\n", command.c_str(), frames_total,
                sim.size(), int(sim.backend().name().size()), sim.backend().name().data(), describe(sim.path()));
    if (t.frames > 0)
        std::printf("  frames 2..%lld: %.2f fps, %.3f ms/frame, %s\n", frames_total, fps, ms_frame,
                    sim.hermite() ? "Hermite (its blocks: the hermite line below)"
                                  : (std::to_string(t.steps) + " steps").c_str());
    else
        std::printf("  (one frame: nothing to time; the first frame is warm-up, use --frames 2 or more)\n");
    if (t.frame_times.count() > 0) std::printf("  frame times: %s\n", t.frame_times.summary().c_str());
    if (t.screenshot_seconds > 0)
        std::printf("  screenshots: %.0f ms to read back and write, left out of the frame times\n",
                    1e3 * t.screenshot_seconds);
    const char* timed_by = sim.cuda() ? "force pass, CUDA events" : "wall clock";
    if (ms_step > 0 && sim.backend().gravity().gravity == Gravity::Tree)  // N^2 / step: what the direct sum would need
        std::printf("  step: %.3f ms (%s), %.3e interactions/s computed by the tree, %.3e N^2/s (the direct-sum "
                    "equivalent)\n",
                    ms_step, timed_by, tree_interactions(sim) / (ms_step * 1e-3), ips);
    else if (ms_step > 0)
        std::printf("  step: %.3f ms (%s), %.3e interactions/s, %.1f GFLOP/s at %d flops/interaction\n", ms_step,
                    timed_by, ips, ips * flops * 1e-9, flops);
    std::printf(
        "  device-to-host while stepping: %zu bytes (%.1f per frame); uploaded to GL: %zu bytes; "
        "energy snapshots: %zu bytes\n",
        t.bytes_to_host, t.frames ? double(t.bytes_to_host) / double(t.frames) : 0.0, t.bytes_uploaded,
        sim.snapshot_bytes());
    std::printf("  sprites drawn by %s (--sprites)%s\n", render::sprite_drawing_name(sprites),
                sprites == render::SpriteDrawing::Cuda
                    ? ": light added by CUDA kernels on their own stream, resolved by GL (GPU: cuda sprites)"
                    : "");
    std::printf("%s\n", profile.report(gpu).c_str());
    std::printf(
        "fps_report frames=%lld fps=%.3f ms_per_frame=%.4f ms_per_step=%.4f interactions_per_s=%.4e "
        "n=%zu d2h_bytes=%zu path=%s sprites=%s%s\n",
        t.frames, fps, ms_frame, ms_step, ips, sim.size(), t.bytes_to_host,
        sim.path() == TransferPath::Interop    ? "interop"
        : sim.path() == TransferPath::HostCopy ? "host-copy"
                                               : "upload",
        render::sprite_drawing_name(sprites), profile.fields(gpu).c_str());
    std::fflush(stdout);
}

// Returns 1 when the recording lost frames or its MP4.
int print_record_summary(const RecordingSummary& r, int mp4_fps, bool interrupted) {
    const double fps = r.seconds > 0 ? double(r.frames_written) / r.seconds : 0.0;
    std::printf("nbody record: %lld frames written to %s in %.2f s (%.1f frames/s)%s\n", r.frames_written,
                r.folder.string().c_str(), r.seconds, fps, interrupted ? ", interrupted" : "");
    if (!r.mp4.empty()) std::printf("  MP4: %s (%lld frames at %d fps)\n", r.mp4.c_str(), r.mp4_frames, mp4_fps);
    if (!r.mp4_note.empty()) std::printf("  note: %s\n", r.mp4_note.c_str());
    if (r.wait_seconds > 0.05)
        std::printf("  the simulation waited %.2f s in all for the PNG/MP4 encoders to catch up\n", r.wait_seconds);
    if (r.stale_removed > 0)
        std::printf("  removed %lld frames beyond this recording left by an older one (--overwrite)\n",
                    r.stale_removed);
    std::printf("record_report frames=%lld seconds=%.3f fps=%.3f mp4=%s interrupted=%d\n", r.frames_written,
                r.seconds, fps, r.mp4.empty() ? "none" : r.mp4.c_str(), interrupted ? 1 : 0);
    std::fflush(stdout);
    if (!r.error.empty()) {
        std::fprintf(stderr, "nbody: error: %s\n", r.error.c_str());
        return 1;
    }
    if (!r.mp4_error.empty()) {
        std::fprintf(stderr, "nbody: error: the MP4 could not be made: %s\n", r.mp4_error.c_str());
        return 1;
    }
    return 0;
}

// A star cluster's radii as the Simulation panel plots them (issue 33): how many measurements the
// simulation took, and the newest.
void print_cluster_report(const std::vector<ClusterProfile>& samples) {
    if (samples.empty()) return;
    const ClusterProfile& p = samples.back();
    std::printf("  cluster: %zu measurements; at t = %.4g: r10 %.4g, r50 %.4g, r90 %.4g, core %.4g\n", samples.size(),
                p.time, p.r10, p.r50, p.r90, p.core);
}

// "looks: point size 2.38 px, exposure 1.59, glow 0.75 given (chosen for N = 262144 unless given ...)".
void print_looks(const render::RenderSettings& r, std::size_t bodies) {
    const render::LooksChosen& c = r.looks_chosen;
    const auto origin = [](bool chosen) { return chosen ? " given" : ""; };
    std::printf("  looks: point size %.2f px%s, exposure %.2f%s, glow %.2f%s (chosen for N = %zu unless given: "
                "--point-size, --exposure, --glow)\n",
                r.point_size, origin(c.point_size), r.exposure, origin(c.exposure), r.glow, origin(c.glow), bodies);
}

}  // namespace

// Under --gravity tree a scripted run also says what the tree cost and what theta bought: the
// same figures as the Kernel panel (viewer_gravity.hpp).
std::string Viewer::walk_room_text() const {
    switch (walk_room_.kind) {
        case WalkRoom::Kind::Block:
            return "block: the walk one resident block per SM short, room for the CUDA sprites' deposit on every SM";
        case WalkRoom::Kind::Slices:
            return walk_room_name(walk_room_) + ": each walk queued as " + std::to_string(walk_room_.slices) +
                   " launches, the CUDA sprites' deposit scheduled between them";
        case WalkRoom::Kind::None: break;
    }
    if (o_.walk_room.kind == WalkRoom::Kind::None) return "none";
    // Not whether the steps ran beside the loop: the report comes after the simulation's thread ended.
    return "none (" + walk_room_name(o_.walk_room) + " is for CUDA sprites drawn beside the steps; this run drew them by " +
           render::sprite_drawing_name(renderer_.last_sprite_drawing()) + ")";
}

void Viewer::print_tree_report() {
    std::printf("  gravity: %s; tree: %s\n", sim_.gravity().to_string().c_str(), tree_timing_text(sim_).c_str());
    if (sim_.cuda() != nullptr) std::printf("  tree walk room (--walk-room): %s\n", walk_room_text().c_str());
    estimate_force_error(sim_, params_.sim.step.softening, [](const SimulationThread::Outcome& o) {
        if (o.error.empty())
            std::printf("  force error against the direct sum, %s\n", o.text.c_str());
        else
            std::printf("  force error against the direct sum: not measured (%s)\n", o.error.c_str());
    });
    sim_.finish_tasks();  // beside the frame loop: waits for nothing, the line comes when it is done
    std::fflush(stdout);
}

int Viewer::finish(Clock::time_point frames_done) {
    // Everything queued has run: the timings are complete and honest.
    glFinish();
    gpu_timer_.drain();
    GpuTotals gpu;
    gpu.gl_ms = gpu_timer_.total_ms();
    gpu.gl_frames = gpu_timer_.frames_counted();
    gpu.gl_stage_frames = gpu_timer_.stage_frames();
#if NBODY_HAVE_CUDA
    if (render::CudaStreamTimer* t = sim_.gpu_step_timer()) {
        t->set_count_from(1);  // frame 0's steps are warm-up (initial force pass included)
        t->poll(true);
        gpu.cuda_step_ms = t->total_ms();
        gpu.cuda_frames = t->frames_counted();
    }
    if (render::CudaStreamTimer* t = renderer_.cuda_sprite_timer()) {
        t->set_count_from(1);  // the first deposit is warm-up, as frame 0 is
        t->poll(true);
        gpu.cuda_sprites_ms = t->total_ms();
        gpu.cuda_sprite_frames = t->frames_counted();
    }
#endif
    // The frames to the end of the last one, not the stop of a simulation stepping beside them, which
    // waits for the step in flight (at 16M: 0.4 s over 600 frames, 57.4 frames/s reported where every
    // frame took 16.7 ms, device run 143).
    const double loop_seconds = std::chrono::duration<double>(frames_done - measure_start_).count();

    if (recorder_) record_summary_ = stop_recording();

    const bool complete = frame_limit_ > 0 && frame_ >= frame_limit_;
    if (frame_limit_ > 0 && (complete || record_run_)) {
        totals_.frames = std::max<long long>(frame_ - 1, 0);
        totals_.seconds = loop_seconds - totals_.screenshot_seconds;
        print_report(o_.command, totals_, frame_, sim_, params_.kernel.flops_per_interaction, profile_, gpu,
                     renderer_.last_sprite_drawing());
        if (!renderer_.cuda_sprites_refused().empty())
            std::printf("  CUDA sprites drawn by compute: %s\n", renderer_.cuda_sprites_refused().c_str());
        print_looks(params_.render, sim_.size());
        if (params_.render.cache_particles)
            std::printf("  particles: drawn in %lld of %lld frames, kept in the others: nothing they show had "
                        "changed (--particle-cache)\n",
                        renderer_.particle_draws(), renderer_.particle_draws() + renderer_.particle_keeps());
        if (ui_ && ui_->panels_cached())
            std::printf("  panels: kept as a picture, drawn into it %lld times in %lld frames (--ui-cache)\n",
                        ui_->panel_redraws(), frame_);
        if (sim_.gravity().gravity == Gravity::Tree) print_tree_report();
        if (const std::string shares = sim_.gpu_shares_text(); !shares.empty())
            std::printf("  gpus: %s\n", shares.c_str());
        // Where the run ended, in the scene's own time unit (what the status bar showed).
        std::printf("  scene: %s, %s\n", scene_.name.c_str(), time_text(sim_.time(), scene_.units).c_str());
        std::printf("  first frame drawn %.2f s after the %s opened\n", first_frame_seconds_,
                    surface_->headless() ? "surface" : "window");
        if (sim_.hermite()) print_hermite_report();
        print_cluster_report(sim_.cluster_history().samples());
        // What the Simulation panel's energy line read on the last frame (issue 33: a value from
        // the first second or so on, not "not computed yet").
        if (params_.sim.auto_energy) {
            const EnergyLine line = energy_line(sim_, energy_, scene_.units, sim_.size() <= auto_energy_max_n());
            char took[64] = "";
            if (!sim_.hermite() && energy_.last_sum_seconds() > 0)
                std::snprintf(took, sizeof took, " (the last sum took %.2f s; one every %.0f s)", energy_.last_sum_seconds(),
                              energy_.automatic_period());
            std::printf("  energy line: %s%s%s%s\n", line.value.c_str(), line.when.empty() ? "" : ", ",
                        line.when.c_str(), took);
        }
    }
    if (record_run_ && record_summary_ &&
        print_record_summary(*record_summary_, record_settings_->mp4_fps, interrupted_ != 0) != 0)
        return 1;
    if (interrupted_) {
        std::fprintf(stderr, "nbody: interrupted by %s after %lld frame%s%s\n", signal_name(interrupted_), frame_,
                     frame_ == 1 ? "" : "s",
                     closing_frame_     ? " (the last one drawn after the stop, not stepped)"
                     : last_frame_kept_ ? " (--screenshot: the last one drawn, as it was)"
                                        : "");
        return stopped_exit_status(interrupted_);
    }
    if (frame_limit_ > 0 && frame_ < frame_limit_) {
        std::fprintf(stderr, "nbody: the window was closed after %lld of %lld frames%s\n", frame_, frame_limit_,
                     o_.screenshot ? "; no screenshot written" : "");
        return 1;
    }
    // A scripted hermite4 run that met bad input kept going, paused, and ends with the reason.
    if (frame_limit_ > 0 && hermite_play_.failed) {
        std::fprintf(stderr, "nbody: error: hermite: %s\n", params_.sim.integrator_error.c_str());
        return 1;
    }
    // A scripted run asked to record (view --frames K --record DIR) fails if the recording did.
    if (frame_limit_ > 0 && o_.record_folder && recording_failed_) return 1;
    return 0;
}

}  // namespace nbody::app
