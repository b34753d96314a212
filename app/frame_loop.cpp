// The viewer's frame loop, shared by the window and headless modes: gather input, act on
// requests, step, draw particles, draw the UI, capture, present.

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <iostream>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "nbody/render/camera.hpp"
#include "nbody/render/frame_capture.hpp"
#include "nbody/render/gl.hpp"
#include "nbody/render/gpu_timer.hpp"
#include "nbody/render/imgui_layer.hpp"
#include "nbody/render/particle_renderer.hpp"
#include "recorder.hpp"
#include "recorder_ffmpeg.hpp"
#include "progress_line.hpp"
#include "recorder_interrupt.hpp"
#include "ui_panels.hpp"
#include "viewer_options.hpp"
#include "viewer_params.hpp"
#include "viewer_profile.hpp"
#include "viewer_scenes.hpp"
#include "viewer_sim.hpp"
#include "viewer_autotune.hpp"
#include "nbody/sim/finite_guard.hpp"
#include "nbody/sim/io/snapshot.hpp"
#include "viewer_stats.hpp"
#include "viewer_surface.hpp"

namespace nbody::app {

namespace {

using Clock = std::chrono::steady_clock;

double seconds_between(Clock::time_point a, Clock::time_point b) {
    return std::chrono::duration<double>(b - a).count();
}

// The centre of mass moves uniformly in an isolated system, so following it needs no data
// from the GPU: it is extrapolated from the last host copy of the state.
struct CentreOfMassTrack {
    Vec3d position, velocity;
    double time = 0;

    void anchor(const Vec3d& x, const Vec3d& v, double t) {
        position = x;
        velocity = v;
        time = t;
    }
    void anchor(const State& s) {
        double m = 0;
        Vec3d x, v;
        for (std::size_t i = 0; i < s.size(); ++i) {
            const double w = s.pos_mass[i].w;
            m += w;
            x += xyz(s.pos_mass[i]) * w;
            v += xyz(s.velocity[i]) * w;
        }
        if (m > 0) anchor(x / m, v / m, s.time);
    }
    glm::vec3 at(double t) const {
        const Vec3d p = position + velocity * (t - time);
        return {float(p.x), float(p.y), float(p.z)};
    }
};

// Several galaxies: tell them apart. One galaxy with a disk, bulge and halo: show its parts.
render::ColourMode natural_colour_mode(const State& s) {
    bool several_galaxies = false, components = false;
    for (std::size_t i = 0; i < s.size(); ++i) {
        several_galaxies |= i < s.galaxy.size() && s.galaxy[i] != s.galaxy[0];
        components |= i < s.component.size() && s.component[i] != Component::Unspecified;
    }
    return !several_galaxies && components ? render::ColourMode::Component : render::ColourMode::Galaxy;
}

std::string timestamped_png_name() {
    const std::time_t now = std::time(nullptr);
    char stamp[32];
    std::strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", std::localtime(&now));
    std::string name = std::string("nbody-") + stamp + ".png";
    std::error_code ec;
    for (int k = 2; std::filesystem::exists(name, ec); ++k)
        name = std::string("nbody-") + stamp + "-" + std::to_string(k) + ".png";
    return name;
}

// What the end-of-run report averages (frames after the first, which pays for shader
// compilation, the first force pass and buffer uploads).
struct RunTotals {
    long long frames = 0, steps = 0;
    double seconds = 0, ms_per_step_sum = 0;
    long long ms_samples = 0;
    std::size_t bytes_to_host = 0, bytes_uploaded = 0;
};

void print_report(const std::string& command, const RunTotals& t, long long frames_total,
                  const SimulationDriver& sim, int flops, const FrameProfile& profile, const GpuTotals& gpu) {
    const double fps = t.seconds > 0 ? double(t.frames) / t.seconds : 0.0;
    const double ms_frame = t.frames > 0 ? 1e3 * t.seconds / double(t.frames) : 0.0;
    // The force pass as the backend timed it; when no pass time came back (the event queries are
    // not waited for), the GPU time of the frames' whole steps from the stream timer.
    double ms_step = t.ms_samples > 0 ? t.ms_per_step_sum / double(t.ms_samples) : 0.0;
    if (!(ms_step > 0) && gpu.cuda_frames > 0 && t.steps > 0 && t.frames > 0)
        ms_step = gpu.cuda_step_ms / double(gpu.cuda_frames) / (double(t.steps) / double(t.frames));
    const double n = double(sim.size());
    const double ips = ms_step > 0 ? n * n / (ms_step * 1e-3) : 0.0;
    std::printf("nbody %s: %lld frames, N = %zu, backend %.*s, positions: %s\n", command.c_str(),
                frames_total, sim.size(), int(sim.backend().name().size()), sim.backend().name().data(),
                describe(sim.path()));
    if (t.frames > 0)
        std::printf("  frames 2..%lld: %.2f fps, %.3f ms/frame, %lld steps\n", frames_total, fps, ms_frame,
                    t.steps);
    else
        std::printf("  (one frame: nothing to time; the first frame is warm-up, use --frames 2 or more)\n");
    if (ms_step > 0)
        std::printf("  step: %.3f ms (%s), %.3e interactions/s, %.1f GFLOP/s at %d flops/interaction\n",
                    ms_step, sim.cuda() ? "force pass, CUDA events" : "wall clock", ips, ips * flops * 1e-9,
                    flops);
    std::printf(
        "  device-to-host while stepping: %zu bytes (%.1f per frame); uploaded to GL: %zu bytes; "
        "energy snapshots: %zu bytes\n",
        t.bytes_to_host, t.frames ? double(t.bytes_to_host) / double(t.frames) : 0.0, t.bytes_uploaded,
        sim.snapshot_bytes());
    std::printf("%s\n", profile.report(gpu).c_str());
    std::printf(
        "fps_report frames=%lld fps=%.3f ms_per_frame=%.4f ms_per_step=%.4f interactions_per_s=%.4e "
        "n=%zu d2h_bytes=%zu path=%s%s\n",
        t.frames, fps, ms_frame, ms_step, ips, sim.size(), t.bytes_to_host,
        sim.path() == TransferPath::Interop    ? "interop"
        : sim.path() == TransferPath::HostCopy ? "host-copy"
                                               : "upload",
        profile.fields(gpu).c_str());
    std::fflush(stdout);
}

// `nbody record`'s progress on stderr: rewritten in place on a terminal, a line every 2 s
// otherwise (logs and test output stay readable).
class Progress {
  public:
    explicit Progress(long long total)
        : total_(total), tty_(isatty(fileno(stderr)) != 0), start_(Clock::now()) {}

    void update(long long done) {
        const auto now = Clock::now();
        const bool last = done >= total_;
        if (tty_) {
            if (!last && seconds_between(last_print_, now) < 0.2) return;
        } else if (!last && seconds_between(last_print_, now) < 2.0) {
            return;  // logs: a line every 2 s
        }
        printed_ = done;
        last_print_ = now;
        const double elapsed = seconds_between(start_, now);
        const double fps = elapsed > 0 ? double(done) / elapsed : 0.0;
        const double eta = fps > 0 ? double(total_ - done) / fps : 0.0;
        std::fprintf(stderr, "%sframe %lld/%lld  %.1f frames/s  elapsed %s  ETA %s%s", tty_ ? "\r\033[K" : "",
                     done, total_, fps, format_hms(elapsed).c_str(), format_hms(eta).c_str(),
                     tty_ && !last ? "" : "\n");
        std::fflush(stderr);
    }
    void interrupt_line() {
        if (tty_) std::fprintf(stderr, "\n");
    }

  private:
    long long total_, printed_ = -1;
    bool tty_;
    Clock::time_point start_, last_print_{};
};

std::string default_recording_folder() {
    const std::time_t now = std::time(nullptr);
    char stamp[32];
    std::strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", std::localtime(&now));
    return std::string("nbody-frames-") + stamp;
}

std::string describe_summary(const RecordingSummary& r) {
    std::ostringstream m;
    m << r.frames_written << " frame" << (r.frames_written == 1 ? "" : "s") << " written to "
      << r.folder.string();
    if (!r.mp4.empty()) m << "; MP4 " << r.mp4;
    if (r.stale_removed > 0) m << "; " << r.stale_removed << " frames of an older recording removed";
    if (!r.error.empty()) m << ". Recording stopped: " << r.error;
    if (!r.mp4_error.empty()) m << ". No MP4: " << r.mp4_error;
    return m.str();
}

}  // namespace

int run_viewer(const ViewOptions& o) {
    if (o.width < 16 || o.height < 16 || o.width > 16384 || o.height > 16384)
        throw std::invalid_argument("--size must be between 16x16 and 16384x16384 (got " +
                                    std::to_string(o.width) + "x" + std::to_string(o.height) + ")");
    if (o.frames && *o.frames < 1) throw std::invalid_argument("--frames must be >= 1");
    // 0: run until closed. Headless without --frames renders one frame.
    const long long frame_limit = o.frames ? *o.frames : (o.headless ? 1 : 0);
    const bool record_run = o.record.has_value();

    // The scene first: a bad scene file should not cost a window opening and closing.
    std::string scene_path = o.scene.value_or("");
    Scene scene = make_scene(scene_path, o.bodies);
    scene.state.validate();

    // Ctrl-C ends the loop after the frame in progress, so a recording is finished properly.
    InterruptGuard interrupt_guard;

    // Context before everything that owns GL objects, so it is destroyed after them.
    std::unique_ptr<Surface> surface = o.headless ? make_headless_surface(o.width, o.height)
                                                  : make_window_surface(o.width, o.height, o.vsync);
    std::cerr << "nbody: OpenGL " << surface->gl_info().version << " on " << surface->gl_info().renderer
              << " (" << surface->description() << ")\n";

    ViewerParams params;
    params.sim.step = scene.params;
    params.sim.steps_per_frame = o.steps_per_frame.value_or(scene.steps_per_frame);
    if (params.sim.steps_per_frame < 1) throw std::invalid_argument("--steps-per-frame must be >= 1");
    std::optional<RecordingSettings> record_settings = o.record;
    if (record_settings) record_settings->steps_per_frame = params.sim.steps_per_frame;
    params.sim.bodies = int(scene.state.size());
    params.show_ui = !o.no_ui;
    params.render.colour_mode = o.colour.value_or(natural_colour_mode(scene.state));
    params.render.hide_halo = o.hide_halo;
    params.recording.folder = default_recording_folder();
    params.recording.steps_per_frame = params.sim.steps_per_frame;

    SimulationDriver sim(o.backend, std::cerr);
    // The galaxy scenes hold 65K bodies: seconds per step on a CPU. Without a GPU, and unless N
    // was asked for, show a smaller version of the same scene (same proportions).
    constexpr std::size_t kHostViewerBodies = 8192;
    if (!o.bodies && sim.backend().name() != "cuda" && scene.state.size() > kHostViewerBodies) {
        std::cerr << "nbody: the " << sim.backend().name() << " backend would take seconds per step at N = "
                  << scene.state.size() << "; showing " << kHostViewerBodies << " bodies (choose with --bodies)\n";
        scene = make_scene(scene_path, kHostViewerBodies);
        params.sim.bodies = int(scene.state.size());
    }
    apply_kernel_options(sim.backend(), o.kernel);
    params.kernel.edited = sim.backend().kernel_config();
    sim.load(scene.state, scene.params.dt);
    std::cerr << "nbody: " << scene.state.size() << " bodies, backend " << sim.backend().name()
              << ", positions: " << describe(sim.path()) << "\n";
    // An earlier auto-tune for this GPU and N, unless the command line chose the kernel.
    if (!o.kernel.unroll && !o.kernel.block && !o.kernel.threads_per_body && !o.kernel.bodies_per_thread &&
        !o.kernel.pairs && !o.kernel.bodies_per_lane && !o.kernel.precision) {
        std::string note;
        if (const auto cached = cached_kernel_config(sim, &note);
            cached && sim.apply_kernel_config(*cached).empty())
            params.kernel.edited = *cached;
        if (!note.empty()) std::cerr << "nbody: " << note << "\n";
    }

    render::ParticleRenderer renderer;
    renderer.set_auto_speed_scale(render::typical_speed(scene.state));
    render::OrbitCamera camera(scene.camera);
    CentreOfMassTrack com;
    com.anchor(scene.state);

    std::unique_ptr<render::ImGuiLayer> ui;
    if (!o.no_ui) ui = std::make_unique<render::ImGuiLayer>(surface->window(), surface->content_scale());

    PerfStats perf;
    EnergyMonitor energy;
    PanelVisibility visible;
    const std::vector<SceneChoice> scenes = list_scene_choices();
    std::vector<std::string> app_messages;
    std::string toast;
    Clock::time_point toast_until{};
    // Errors join the notices (on screen for a while, then in the Debug panel); other news is a
    // short green line.
    auto say = [&](const std::string& text, bool is_error) {
        std::cerr << "nbody: " << text << "\n";
        if (is_error) {
            app_messages.push_back(text);
            return;
        }
        toast = text;
        toast_until = Clock::now() + std::chrono::seconds(4);
    };
    // Energy is for the Simulation panel: without a UI nobody would see it, and the O(N^2) sum
    // would compete with the frame loop for the CPU.
    constexpr std::size_t kAutoEnergyMaxN = 65536;
    params.sim.auto_energy = ui != nullptr && !record_run;
    // The energy snapshot doubles as the viewer's NaN/Inf guard (every few seconds): a state that
    // went non-finite pauses the simulation with a notice; the window, the UI and R (reset) go on.
    auto start_energy = [&]() {
        State now = sim.snapshot();
        if (const auto body = first_non_finite(now)) {
            params.sim.paused = true;
            say("the simulation became non-finite (NaN/Inf, first at body " + std::to_string(*body) +
                    "): paused. R resets; a smaller dt or a larger softening avoids it",
                true);
            return;
        }
        energy.start(std::move(now), params.sim.step.softening);
    };
    if (params.sim.auto_energy && scene.state.size() <= kAutoEnergyMaxN)
        energy.start(scene.state, params.sim.step.softening);
    // Fallback notices stay on screen for a while after they appear (and in the Debug panel).
    std::vector<Clock::time_point> notice_seen;

    // Replaces the running system (reset, a new scene or N). On failure the old one keeps running.
    // Puts `next` in place of the running system; throws (leaving the running one) when it is invalid.
    auto install_system = [&](Scene next, const std::string& path, bool new_scene, bool keep_camera) {
        next.state.validate();
        sim.load(next.state, next.params.dt);
        scene = std::move(next);
        scene_path = path;
        energy.reset();
        if (params.sim.auto_energy && scene.state.size() <= kAutoEnergyMaxN)
            energy.start(scene.state, params.sim.step.softening);
        com.anchor(scene.state);
        renderer.set_auto_speed_scale(render::typical_speed(scene.state));
        if (new_scene) {
            params.render.colour_mode = natural_colour_mode(scene.state);
            params.sim.step = scene.params;
            params.sim.steps_per_frame = scene.steps_per_frame;
            perf.clear_steps();
        }
        params.sim.bodies = int(scene.state.size());
        if (!keep_camera) camera.reset(scene.camera);
    };
    auto replace_system = [&](const std::string& path, std::optional<std::size_t> bodies, bool keep_camera) {
        try {
            Scene next = (path == scene_path && !bodies) ? scene : make_scene(path, bodies);
            install_system(std::move(next), path, path != scene_path || bodies.has_value(), keep_camera);
        } catch (const std::exception& e) {
            params.sim.bodies = int(sim.size());
            say(e.what(), true);
        }
    };

    // --- recording ---------------------------------------------------------------------------
    // Declared after the context and the renderer: destroyed first, while GL is still there.
    std::unique_ptr<Recorder> recorder;
    RecordingView recording_view;
    recording_view.ffmpeg_found = find_ffmpeg().has_value();
    bool first_recorded_frame = false;  // the first frame of a recording shows the state as it was
    bool recording_failed = false;      // any recording that could not start or lost frames
    std::optional<RecordingSummary> record_summary;
    auto start_recording = [&](const RecordingSettings& settings, int width, int height) {
        recorder = std::make_unique<Recorder>(settings, width, height);
        first_recorded_frame = true;
        recording_view.last_result.clear();
        if (!recorder->mp4_note().empty()) std::cerr << "nbody: " << recorder->mp4_note() << "\n";
    };
    auto stop_recording = [&]() {
        const RecordingSummary r = recorder->finish();
        recorder.reset();
        recording_view.last_result = describe_summary(r);
        recording_view.last_result_is_error = !r.error.empty() || !r.mp4_error.empty();
        recording_failed |= recording_view.last_result_is_error;
        if (!record_run)
            say(recording_view.last_result, recording_view.last_result_is_error);  // record prints its own
        return r;
    };
    if (record_run) {
        start_recording(*record_settings, o.width, o.height);
        const Mp4Size even = mp4_size(o.width, o.height);
        std::cerr << "nbody: recording " << frame_limit << " frames of " << o.width << "x" << o.height
                  << " into " << record_settings->folder.string() << ", " << record_settings->steps_per_frame
                  << " steps per frame"
                  << (record_settings->mp4 && find_ffmpeg()
                          ? ", MP4 " + *record_settings->mp4 + " (" + std::to_string(even.width) + "x" +
                                std::to_string(even.height) + ")"
                          : std::string())
                  << "\n";
    }
    std::optional<Progress> progress;
    if (record_run) progress.emplace(frame_limit);

    render::GpuFrameTimer gpu_timer;
    gpu_timer.set_count_from(1);
    // NBODY_GPU_TIMERS=0 leaves the GL timer queries out, to check that measuring costs nothing.
    const char* timers_env = std::getenv("NBODY_GPU_TIMERS");
    render::GpuFrameTimer* gpu_timing = timers_env && std::string(timers_env) == "0" ? nullptr : &gpu_timer;
#if NBODY_HAVE_CUDA
    auto cuda_timer = [&]() { return sim.gpu_step_timer(); };
#endif
    FrameProfile profile;

    RunTotals totals;
    long long frame = 0;
    int interrupted = 0;
    Requests pending;  // raised by the UI during a frame, acted on at the start of the next
    if (o.record_folder && !record_run) {
        params.recording.folder = *o.record_folder;
        params.recording.include_ui = o.record_ui;
        pending.toggle_recording = true;
    }
    Clock::time_point last = Clock::now(), measure_start = last;
    for (;;) {
        if ((interrupted = InterruptGuard::requested()) != 0) break;  // the previous frame is complete
        profile.begin_frame(frame >= 1);
        Requests requests = std::exchange(pending, Requests{});
        bool open = true;
        {
            const HostStageTimer timing(profile, HostStage::Events);
            open = surface->poll(params, requests, camera);
        }
        const bool final_frame = frame_limit > 0 && frame + 1 >= frame_limit;
        if (!open || requests.quit) break;
        const render::DrawTarget target = surface->target();
        if (target.width <= 0 || target.height <= 0) {
            surface->idle();  // minimised: nothing to draw
            continue;
        }
        const Clock::time_point now = Clock::now();
        const double dt_frame = seconds_between(last, now);
        last = now;
        if (frame == 1) measure_start = now;  // the first frame is warm-up
        gpu_timer.begin_frame(frame);

        // --- requests ---------------------------------------------------------------------
        {
            const HostStageTimer timing(profile, HostStage::Events);
            if (requests.load_scene) replace_system(*requests.load_scene, std::nullopt, false);
            if (requests.apply_bodies) replace_system(scene_path, std::size_t(params.sim.bodies), true);
            if (requests.reset) replace_system(scene_path, std::nullopt, true);
            if (requests.apply_kernel) {
                params.kernel.invalid_reason = sim.apply_kernel_config(params.kernel.edited);
                if (params.kernel.invalid_reason.empty())
                    std::cerr << "nbody: kernel " << params.kernel.edited.to_string() << "\n";
            }
            if (requests.autotune) {
                const ViewerAutotuneOutcome r = autotune_viewer(sim, params.sim.step);
                params.kernel.autotune_ok = r.ok;
                params.kernel.autotune_result = r.message;
                if (r.config) {
                    params.kernel.edited = *r.config;
                    params.kernel.invalid_reason.clear();
                }
                say(r.message, !r.ok);
            }
            if (requests.save_snapshot) {
                try {
                    State now = sim.snapshot();
                    io::write_snapshot(params.sim.snapshot_path, {std::move(now), params.sim.step,
                                                                  params.sim.steps_per_frame, scene.name, scene_path});
                    say("snapshot saved to " + params.sim.snapshot_path, false);
                } catch (const std::exception& e) {
                    say(std::string("snapshot not saved: ") + e.what(), true);
                }
            }
            if (requests.load_snapshot) {
                try {
                    io::Snapshot snap = io::read_snapshot(params.sim.snapshot_path);
                    Scene restored = scene;
                    restored.state = std::move(snap.state);
                    restored.params = snap.params;
                    restored.steps_per_frame = snap.steps_per_frame;
                    if (!snap.scene_name.empty()) restored.name = snap.scene_name;
                    install_system(std::move(restored), scene_path, true, true);
                    say("snapshot restored from " + params.sim.snapshot_path, false);
                } catch (const std::exception& e) {
                    say(std::string("snapshot not loaded (the simulation goes on): ") + e.what(), true);
                }
            }
            if (requests.reset_camera) camera.reset(scene.camera);
            if (requests.reload_shaders) {
                const std::string error = renderer.reload_shaders();
                say(error.empty() ? "shaders reloaded" : error, !error.empty());
            }
            if (requests.toggle_recording && !record_run) {
                if (recorder) {
                    stop_recording();
                } else {
                    const RecordingParams& r = params.recording;
                    RecordingSettings settings;
                    settings.folder = r.folder;
                    settings.steps_per_frame = r.steps_per_frame;
                    settings.include_ui = r.include_ui;
                    settings.overwrite = r.overwrite;
                    if (r.mp4) settings.mp4 = r.mp4_file.empty() ? r.folder + ".mp4" : r.mp4_file;
                    try {
                        start_recording(settings, target.width, target.height);
                        say("recording into " + r.folder, false);
                    } catch (const std::exception& e) {
                        recording_view.last_result = std::string("cannot record: ") + e.what();
                        recording_view.last_result_is_error = true;
                        recording_failed = true;
                        say(recording_view.last_result, true);
                    }
                }
            }
            // A frame sequence (and a movie) keeps one size: a resized window ends the recording.
            if (recorder && !record_run &&
                (target.width != recorder->width() || target.height != recorder->height())) {
                say("the window was resized, so the recording stopped (a frame sequence keeps one size)",
                    true);
                stop_recording();
            }
            try {
                energy.poll();
                if (const auto& d = energy.latest(); d && energy.latest_time() >= com.time)
                    com.anchor(d->centre_of_mass, d->centre_of_mass_velocity, energy.latest_time());
                if (requests.compute_energy) start_energy();
            } catch (const std::exception& e) {
                say(std::string("energy computation failed: ") + e.what(), true);
            }
        }

        // --- step ----------------------------------------------------------------------------
        // While recording, every recorded frame is the same number of steps after the one before
        // (the first shows the state the recording started from); paused, nothing is recorded
        // except what a single step (N) advances.
        bool capture_frame = false;
        int steps = params.sim.paused ? (requests.single_step ? 1 : 0) : params.sim.steps_per_frame;
        if (recorder) {
            capture_frame = !params.sim.paused || requests.single_step || first_recorded_frame;
            steps = capture_frame && !first_recorded_frame ? recorder->settings().steps_per_frame : 0;
            first_recorded_frame = false;
        }
        if (steps > 0) {
            try {
                const StepReport report = sim.advance(steps, params.sim.step, frame);
                profile.add(HostStage::Map, report.host_map_ms);
                profile.add(HostStage::Launch, report.host_launch_ms);
                profile.add(HostStage::Unmap, report.host_unmap_ms);
                profile.add(HostStage::Upload, report.host_upload_ms);
                const KernelConfig running = sim.backend().kernel_config();
                perf.add_steps(report, sim.size(), sim.tunable() ? &running : nullptr);
                if (frame >= 1) {
                    totals.steps += report.steps;
                    totals.bytes_to_host += report.bytes_to_host;
                    totals.bytes_uploaded += report.bytes_uploaded;
                    if (report.ms_per_step > 0) {
                        totals.ms_per_step_sum += report.ms_per_step;
                        ++totals.ms_samples;
                    }
                }
            } catch (const std::exception& e) {
                // Headless runs are scripted: fail loudly. A window keeps the last good frame
                // on screen, paused, with the reason.
                if (surface->headless()) throw;
                params.sim.paused = true;
                say(std::string("stepping failed, paused: ") + e.what(), true);
            }
        } else {
            perf.add_steps(StepReport{}, sim.size(), nullptr);
        }
        if (params.sim.auto_energy && !params.sim.paused && sim.size() <= kAutoEnergyMaxN && !energy.busy() &&
            energy.seconds_since_start() > 3.0) {
            try {
                start_energy();
            } catch (const std::exception& e) {
                say(std::string("energy snapshot failed: ") + e.what(), true);
                params.sim.auto_energy = false;
            }
        }

        // --- draw ----------------------------------------------------------------------------
        {
            const HostStageTimer timing(profile, HostStage::Draw);
            if (params.camera.follow_centre_of_mass) camera.set_target(com.at(sim.time()));
            renderer.draw(sim.buffers(), camera, params.render, target, gpu_timing);
        }

        // Frames are captured with or without the panels, never with the REC indicator.
        auto capture = [&]() {
            if (!recorder || !capture_frame || recorder->failed()) return;
            const HostStageTimer timing(profile, HostStage::Capture);
            const render::GpuStageScope gpu(gpu_timing, render::GpuStage::Readback);
            try {
                recorder->capture(target.framebuffer, target.width, target.height);
            } catch (const std::exception& e) {
                if (record_run) throw;
                say(std::string("recording stopped: ") + e.what(), true);
                stop_recording();
            }
        };
        const bool ui_in_frame = recorder && recorder->settings().include_ui;
        if (!ui_in_frame) capture();

        if (recorder) {
            recording_view.active = true;
            recording_view.status = recorder->status();
            // This frame is captured after the UI is drawn when the panels are in the frames (so
            // not counted yet), before it otherwise; a paused frame shows the last one captured.
            recording_view.frame_on_screen = std::max<long long>(
                0, recording_view.status.captured - (ui_in_frame && capture_frame ? 0 : 1));
            recording_view.width = recorder->width();
            recording_view.height = recorder->height();
            recording_view.folder = recorder->settings().folder.string();
            recording_view.note = recorder->mp4_note();
        } else {
            recording_view.active = false;
        }

        const bool draw_panels = ui && params.show_ui;
        // With the panels hidden the REC indicator still shows (not in headless runs: no one looks).
        const bool indicator_only = ui && !params.show_ui && recorder && !surface->headless();
        if (draw_panels || indicator_only) {
            const HostStageTimer timing(profile, HostStage::Ui);
            const render::GpuStageScope gpu(gpu_timing, render::GpuStage::Ui);
            std::vector<std::string> messages = sim.notices();
            messages.insert(messages.end(), app_messages.begin(), app_messages.end());
            while (notice_seen.size() < messages.size()) notice_seen.push_back(Clock::now());
            std::vector<std::string> recent;
            for (std::size_t i = 0; i < messages.size(); ++i)
                if (seconds_between(notice_seen[i], Clock::now()) < 15.0) recent.push_back(messages[i]);
            const PanelContext ctx{sim,
                                   perf,
                                   energy,
                                   scene,
                                   scene_path,
                                   scenes,
                                   surface->gl_info(),
                                   surface->description(),
                                   camera,
                                   renderer.auto_speed_scale(),
                                   messages,
                                   recent,
                                   Clock::now() < toast_until ? toast : std::string(),
                                   surface->headless(),
                                   recording_view};
            // The first frame is laid out a few times unseen, so that even a one-frame headless
            // screenshot shows the panels at their settled size and place.
            for (int pass = 0; draw_panels && frame == 0 && pass < 3; ++pass) {
                ui->begin_frame(target.width, target.height, 1.0f / 60.0f);
                Requests ignored;
                ViewerParams scratch = params;
                draw_ui(scratch, visible, ignored, ctx);
                ui->discard_frame();
            }
            ui->begin_frame(target.width, target.height, frame == 0 ? 1.0f / 60.0f : float(dt_frame));
            if (draw_panels)
                draw_ui(params, visible, pending, ctx);
            else
                draw_recording_indicator(ctx);
            ui->end_frame(target.framebuffer, target.width, target.height, /*hold_foreground=*/ui_in_frame);
            surface->set_ui_capture(ui->wants_mouse(), ui->wants_keyboard());
        } else {
            surface->set_ui_capture(false, false);
        }
        if (ui_in_frame) {
            capture();
            if (ui && (draw_panels || indicator_only))
                ui->render_foreground(target.framebuffer, target.width, target.height);
        }

        // --- screenshot --------------------------------------------------------------------------
        const bool final_shot = final_frame && o.screenshot;
        if (requests.screenshot || final_shot) {
            const std::string path = final_shot ? *o.screenshot : timestamped_png_name();
            try {
                render::write_png(path,
                                  render::read_framebuffer(target.framebuffer, target.width, target.height));
                say("saved " + path, false);
            } catch (const std::exception& e) {
                if (final_shot) throw;  // the run was asked for this file: its absence is a failure
                say(std::string("screenshot failed: ") + e.what(), true);
            }
        }

        // A frame that could not be written stops the recording; the simulation goes on.
        if (recorder && recorder->failed()) {
            if (record_run) break;
            stop_recording();
        }

        {
            const HostStageTimer timing(profile, HostStage::Present);
            surface->present();
        }
        gpu_timer.end_frame();
        profile.end_frame();
        if (frame > 0) perf.add_frame(dt_frame);  // frame 0 has no previous frame to time from
        if (capture_frame && o.orbit_deg_per_frame != 0) camera.turn(o.orbit_deg_per_frame);
        ++frame;
        if (progress) progress->update(frame);
        if (final_frame) break;
    }
    if (progress && interrupted) progress->interrupt_line();

    // Everything queued has run: the timings are complete and honest.
    glFinish();
    gpu_timer.drain();
    GpuTotals gpu;
    gpu.gl_ms = gpu_timer.total_ms();
    gpu.gl_frames = gpu_timer.frames_counted();
#if NBODY_HAVE_CUDA
    if (render::CudaStreamTimer* t = cuda_timer()) {
        t->set_count_from(1);  // frame 0's steps are warm-up (initial force pass included)
        t->poll(true);
        gpu.cuda_step_ms = t->total_ms();
        gpu.cuda_frames = t->frames_counted();
    }
#endif
    const double loop_seconds = seconds_between(measure_start, Clock::now());

    if (recorder) record_summary = stop_recording();

    const bool complete = frame_limit > 0 && frame >= frame_limit;
    if (frame_limit > 0 && (complete || record_run)) {
        totals.frames = std::max<long long>(frame - 1, 0);
        totals.seconds = loop_seconds;
        print_report(o.command, totals, frame, sim, params.kernel.flops_per_interaction, profile, gpu);
    }
    if (record_run && record_summary) {
        const RecordingSummary& r = *record_summary;
        const double fps = r.seconds > 0 ? double(r.frames_written) / r.seconds : 0.0;
        std::printf("nbody record: %lld frames written to %s in %.2f s (%.1f frames/s)%s\n", r.frames_written,
                    r.folder.string().c_str(), r.seconds, fps, interrupted ? ", interrupted" : "");
        if (!r.mp4.empty())
            std::printf("  MP4: %s (%lld frames at %d fps)\n", r.mp4.c_str(), r.mp4_frames,
                        record_settings->mp4_fps);
        if (!r.mp4_note.empty()) std::printf("  note: %s\n", r.mp4_note.c_str());
        if (r.wait_seconds > 0.05)
            std::printf("  the simulation waited %.2f s in all for the PNG/MP4 encoders to catch up\n",
                        r.wait_seconds);
        if (r.stale_removed > 0)
            std::printf("  removed %lld frames beyond this recording left by an older one (--overwrite)\n",
                        r.stale_removed);
        std::printf("record_report frames=%lld seconds=%.3f fps=%.3f mp4=%s interrupted=%d\n",
                    r.frames_written, r.seconds, fps, r.mp4.empty() ? "none" : r.mp4.c_str(),
                    interrupted ? 1 : 0);
        std::fflush(stdout);
        if (!r.error.empty()) {
            std::fprintf(stderr, "nbody: error: %s\n", r.error.c_str());
            return 1;
        }
        if (!r.mp4_error.empty()) {
            std::fprintf(stderr, "nbody: error: the MP4 could not be made: %s\n", r.mp4_error.c_str());
            return 1;
        }
    }
    if (interrupted) {
        std::fprintf(stderr, "nbody: interrupted after %lld frame%s\n", frame, frame == 1 ? "" : "s");
        return 128 + interrupted;  // 130 for SIGINT, 143 for SIGTERM
    }
    if (frame_limit > 0 && frame < frame_limit) {
        std::fprintf(stderr, "nbody: the window was closed after %lld of %lld frames%s\n", frame, frame_limit,
                     o.screenshot ? "; no screenshot written" : "");
        return 1;
    }
    // A scripted run asked to record (view --frames K --record DIR) fails if the recording did.
    if (frame_limit > 0 && o.record_folder && recording_failed) return 1;
    return 0;
}

}  // namespace nbody::app
