// The viewer's set-up and its frame loop: poll input, act on requests, step, draw, present.
// Each part lives in its own file (see viewer.hpp).

#include "viewer.hpp"

#include "nbody/sim/finite_guard.hpp"
#include "nbody/sim/ic/stellar.hpp"
#include "nbody/sim/memory_check.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <stdexcept>
#include <thread>
#include <utility>

#include "nbody/render/gl.hpp"
#include "recorder_ffmpeg.hpp"
#include "machine_defaults.hpp"
#include "quit_guard.hpp"
#include "render_quality.hpp"
#include "nbody/sim/diagnostics.hpp"
#include "viewer_autotune.hpp"
#include "viewer_gravity.hpp"

namespace nbody::app {

namespace {

double seconds_between(std::chrono::steady_clock::time_point a, std::chrono::steady_clock::time_point b) {
    return std::chrono::duration<double>(b - a).count();
}

// Several galaxies: tell them apart. One galaxy with a disk, bulge and halo: show its parts. One
// star cluster (every body a star: Plummer scenes): its stars by mass (issue 33).
render::ColourMode natural_colour_mode(const State& s) {
    bool several_galaxies = false, components = false, all_stars = s.size() > 0;
    for (std::size_t i = 0; i < s.size(); ++i) {
        several_galaxies |= i < s.galaxy.size() && s.galaxy[i] != s.galaxy[0];
        components |= i < s.component.size() && s.component[i] != Component::Unspecified;
        all_stars &= i < s.component.size() && s.component[i] == Component::Star;
    }
    if (several_galaxies) return render::ColourMode::Galaxy;
    if (all_stars) return render::ColourMode::Mass;
    return components ? render::ColourMode::Component : render::ColourMode::Galaxy;
}

// Trail points (bodies x points) below which trails are sampled finer than two frames apart.
constexpr double kTrailVertexBudget = 65536;

// Trails as a scene (or --trails) asks: `points` > 0 switches them on with that length.
void apply_scene_trails(render::TrailSettings& trails, int points) {
    trails.enabled = points > 0;
    if (points > 0) trails.length = points;
}

// The colouring a snapshot was saved with (Scene::colour_by), else the natural one.
render::ColourMode scene_colour_mode(const Scene& scene) {
    return colour_mode_named(scene.colour_by).value_or(natural_colour_mode(scene.state));
}

// --point-size, --exposure and --glow win over the rule of N (render/sprite_looks.hpp).
void choose_looks(render::RenderSettings& r, const ViewOptions& o) {
    const auto take = [](float& value, bool& chosen, const std::optional<float>& option) {
        chosen = option.has_value();
        if (option) value = *option;
    };
    take(r.point_size, r.looks_chosen.point_size, o.point_size);
    take(r.exposure, r.looks_chosen.exposure, o.exposure);
    take(r.glow, r.looks_chosen.glow, o.glow);
}

Scene load_valid_scene(const std::string& path, std::optional<std::size_t> bodies) {
    Scene scene = make_scene(path, bodies);
    validate_scene(scene, path);
    return scene;
}

std::unique_ptr<Surface> open_surface(const ViewOptions& o) {
    std::unique_ptr<Surface> surface =
        o.headless ? make_headless_surface(o.width, o.height) : make_window_surface(o.width, o.height, o.vsync);
    std::cerr << "nbody: OpenGL " << surface->gl_info().version << " on " << surface->gl_info().renderer << " ("
              << surface->description() << ")\n";
    return surface;
}

// Where the host backends step: beside the frame loop, free-running, in a window run until
// closed; beside it too in scripted runs (headless, --frames, record), but each frame waits for
// exactly its steps, so that a frame is taken after exactly its steps and a stop is honoured
// while a long step runs. NBODY_SIM_THREAD=1 (free-running) or 0 (in the loop) overrides, for
// measurements and tests.
enum class SimulationPlace { InTheLoop, Beside, BesideExact };
SimulationPlace where_the_simulation_steps(const ViewOptions& o, long long frame_limit) {
    if (const char* env = std::getenv("NBODY_SIM_THREAD"); env && *env)
        return std::string(env) != "0" ? SimulationPlace::Beside : SimulationPlace::InTheLoop;
    return !o.headless && frame_limit == 0 && !o.record ? SimulationPlace::Beside
                                                        : SimulationPlace::BesideExact;
}

// What a Ctrl-C does from now on, said by the signal handler the moment it comes.
void announce_stop_plan(const ViewOptions& o) {
    std::string on_stop = "stopping after the frame in progress, or at once during a long step (the last "
                          "complete frame is kept)";
    std::string not_written;
    const auto add = [](std::string& list, const std::string& item) { list += (list.empty() ? "" : ", ") + item; };
    if (o.screenshot) {
        on_stop += "; the screenshot of the state reached will be written to " + *o.screenshot;
        add(not_written, *o.screenshot);
    }
    if (o.save_snapshot) {
        on_stop += "; the state reached will be saved to " + *o.save_snapshot;
        add(not_written, *o.save_snapshot);
    }
    if (o.record) {
        on_stop += "; the recording ends with every frame queued written" +
                   std::string(o.record->mp4 ? " and " + *o.record->mp4 + " closed" : "");
        if (o.record->mp4) add(not_written, *o.record->mp4);
    }
    set_stop_messages(on_stop, not_written.empty() ? "nothing more is written" : not_written + " not written");
}

}  // namespace

int run_viewer(const ViewOptions& o) {
    announce_stop_plan(o);
    if (o.width < 16 || o.height < 16 || o.width > 16384 || o.height > 16384)
        throw std::invalid_argument("--size must be between 16x16 and 16384x16384 (got " +
                                    std::to_string(o.width) + "x" + std::to_string(o.height) + ")");
    if (o.frames && *o.frames < 1) throw std::invalid_argument("--frames must be >= 1");
    Viewer viewer(o);
    return viewer.run();
}

Viewer::Viewer(const ViewOptions& o)
    : o_(o),
      frame_limit_(o.frames ? *o.frames : (o.headless ? 1 : 0)),  // headless without --frames: one frame
      record_run_(o.record.has_value()),
      record_settings_(o.record),
      scene_path_(o.scene.value_or("")),
      scene_(load_valid_scene(scene_path_, o.bodies)),  // before the window: a bad file costs none
      surface_(open_surface(o)),
      sim_(o.backend, std::cerr, o.gpus),
      camera_(scene_.camera) {
    if (o.softening) {
        if (!(*o.softening >= 0) || !std::isfinite(*o.softening))
            throw std::invalid_argument("--softening must be >= 0 (got " + std::to_string(*o.softening) + ")");
        scene_.params.softening = *o.softening;
    }
    params_.sim.step = scene_.params;
    params_.sim.steps_per_frame = o.steps_per_frame.value_or(scene_.steps_per_frame);
    if (params_.sim.steps_per_frame < 1) throw std::invalid_argument("--steps-per-frame must be >= 1");
    if (record_settings_) record_settings_->steps_per_frame = params_.sim.steps_per_frame;
    params_.sim.bodies = int(scene_.state.size());
    params_.sim.model_time_per_second = 60.0 * params_.sim.steps_per_frame * params_.sim.step.dt;
    params_.show_ui = !o.no_ui;
    params_.render.colour_mode = o.colour.value_or(scene_colour_mode(scene_));
    params_.render.solar_masses_per_unit = float(ic::solar_masses_per_unit(scene_.units, scene_.state));
    params_.render.hide_halo = !o.show_halo;
    params_.render.sprites = o.sprites;
    choose_looks(params_.render, o);
    // A window on a software renderer draws a smaller frame and enlarges it, and keeps the panels
    // as a picture (render_quality.hpp).
    const bool window = !o.headless && !o.record;
    const RenderScaleChoice render_scale =
        choose_render_scale(surface_->gl_info().renderer, o.render_scale, window);
    params_.render.render_scale = render_scale.scale;
    params_.render.coarse_glow = render_scale.coarse_glow;
    params_.cache_panels = choose_ui_cache(surface_->gl_info().renderer, o.ui_cache, window);
    params_.render.cache_particles = o.particle_cache;
    if (render_scale.automatic || (params_.cache_panels && !o.ui_cache))
        std::cerr << "nbody: "
                  << render_scale_note(surface_->gl_info().renderer, render_scale.scale,
                                       render_scale.coarse_glow, params_.cache_panels && !o.no_ui)
                  << "\n";
    apply_scene_trails(params_.render.trails, o.trails.value_or(scene_.trails));
    params_.show_open_dialog = o.open_dialog && !o.no_ui;
    if (o.drop) surface_->drop_after_first_frame({*o.drop});
    params_.recording.folder = default_recording_folder();
    params_.recording.steps_per_frame = params_.sim.steps_per_frame;

    // The galaxy scenes hold 65K bodies: seconds per step on a CPU. Without a GPU, and unless N
    // was asked for, show a smaller version of the same scene (same proportions).
    const std::size_t listed_bodies = scene_.state.size();
    if (!o.bodies && sim_.backend().name() != "cuda" && scene_.state.size() > kHostViewerBodies &&
        scales_to_any_n(scene_path_)) {
        std::cerr << "nbody: the " << sim_.backend().name() << " backend would take seconds per step at N = "
                  << scene_.state.size() << "; showing " << kHostViewerBodies << " bodies (choose with --bodies)\n";
        show_fitted_scene(make_scene(scene_path_, kHostViewerBodies));
    }
    // Before the fit to the machine, whose measurement the first frame waits for: it says so meanwhile.
    if (!o.no_ui || o.annotate) ui_ = std::make_unique<render::ImGuiLayer>(surface_->window(), surface_->content_scale());
    KernelOptions kernel = o.kernel;
    if ((!o.headless && !record_run_) || o.bodies_auto) kernel.gravity = fit_scene_to_machine(o, listed_bodies);
    const std::string kernel_origin = apply_kernel_options(sim_.backend(), kernel, scene_.state.size());
    frame_scene_at_start();
    params_.kernel.edited = sim_.backend().kernel_config();
    params_.kernel.started_with = params_.kernel.edited;
    params_.kernel.origin = kernel_origin;
    params_.kernel.gravity = sim_.backend().gravity();  // --gravity, --theta, ... as applied
    sim_.load(scene_.state, scene_.params.dt);
    sim_.set_exact_start(scene_.precise, scene_.hermite_state, scene_.hermite_state_order);
    saved_time_ = sim_.time();
    std::cerr << "nbody: " << scene_.state.size() << " bodies, backend " << sim_.backend().name()
              << ", positions: " << describe(sim_.path()) << "\n";
    // The cuda backend goes beside the loop only free-running (a window; device run 97): its
    // scripted runs keep stepping in the loop, timed by CUDA events.
    const SimulationPlace place = where_the_simulation_steps(o, frame_limit_);
    if (place != SimulationPlace::InTheLoop && (place == SimulationPlace::Beside || !sim_.cuda()) &&
        sim_.run_beside([](const Backend& backend) {
            return SimulationThread::StepNote{tree_timing_text(backend), tree_interactions(backend), {}};
        })) {
        exact_frames_ = place == SimulationPlace::BesideExact;
        std::cerr
            << (exact_frames_
                    ? "nbody: the simulation steps on its own thread, each frame after exactly its steps\n"
                    : "nbody: the simulation steps on its own thread; the window draws its newest state\n");
    }
    // Hermite's block steps, on any backend, beside the loop free-running only: a scripted run's
    // frames are each at exactly its model time.
    if (place == SimulationPlace::Beside) sim_.run_hermite_beside();
    choose_cuda_sprites(o);
    sim_.set_give_up(&stop_requested);
    start_integrator_from_options();
    set_sampling_intervals(o.trails.value_or(scene_.trails));
    if (!kernel_origin.empty()) std::cerr << "nbody: " << kernel_origin << "\n";
    // apply_kernel_options said it on stderr already; the window says it too.
    if (const std::string given = kernel_tunables_given(o.kernel); !given.empty() && !sim_.tunable())
        app_messages_.push_back(kernel_tunables_unused(sim_.backend().name(), given));

    renderer_.set_auto_speed_scale(render::typical_speed(scene_.state));
    render::apply_looks_for_bodies(params_.render, scene_.state.size());
    com_.anchor(scene_.state);
    galaxy_count_ = count_galaxies(scene_.state);
    component_bits_ = component_bits(scene_.state);
    if (o.select) {
        if (*o.select >= scene_.state.size())
            throw std::invalid_argument("--select " + std::to_string(*o.select) + ": the scene has bodies 0 to " +
                                        std::to_string(scene_.state.size() - 1));
        params_.selected = *o.select;
        const render::BodySample sample = render::read_body(sim_.buffers(), *o.select);
        std::cerr << "nbody: selected " << describe_selected(*o.select, sample) << "\n";
    }
    if (o.pick) pending_.pick = glm::vec2(o.pick->first, o.pick->second);
    pending_.autotune = o.autotune;
    params_.recording.annotate = o.annotate;
    params_.recording.annotate_size = o.annotate_size;
    scenes_ = list_scene_choices();
    init_encounter_editor(o.encounter);

    // Energy is for the Simulation panel: without a UI nobody would see it, and the O(N^2) sum
    // would compete with the frame loop for the CPU.
    params_.sim.auto_energy = !o.no_ui && !record_run_;
    energy_.reset(scene_.energy0, scene_.params.softening);
    start_first_energy_sums();

    recording_view_.ffmpeg_found = find_ffmpeg().has_value();
    if (record_run_) {
        start_recording(*record_settings_, o.width, o.height);
        char spacing[96];  // Hermite: frames a model time apart, not a step count
        std::snprintf(spacing, sizeof spacing, "%s, frames %.6g model time units apart", params_.sim.integrator_name(),
                      params_.sim.time_per_frame);
        announce_recording(*record_settings_, frame_limit_, o.width, o.height, sim_.hermite() ? spacing : "");
        progress_.emplace(frame_limit_);
    } else if (o.headless && frame_limit_ > 1) {
        progress_.emplace(frame_limit_);  // view --headless --frames K: the same line as record's
    }
    if (o.record_folder && !record_run_) {  // view --record DIR: start on the first frame
        params_.recording.folder = *o.record_folder;
        params_.recording.include_ui = o.record_ui;
        pending_.toggle_recording = true;
    }

    gpu_timer_.set_count_from(1);
    const char* timers_env = std::getenv("NBODY_GPU_TIMERS");  // "0": check that measuring costs nothing
    gpu_timing_ = timers_env && std::string(timers_env) == "0" ? nullptr : &gpu_timer_;
}

int Viewer::run() {
    last_frame_start_ = measure_start_ = Clock::now();
    pacer_.start(last_frame_start_);
    for (;;) {
        if (stop_now()) break;
        profile_.begin_frame(frame_ >= 1);
        Requests requests = std::exchange(pending_, Requests{});
        bool open = true;
        {
            const HostStageTimer timing(profile_, HostStage::Events);
            open = surface_->poll(params_, requests, camera_);
        }
        if (quit_now(!open || requests.quit, requests)) {
            user_quit_ = true;
            stop_seen_ = Clock::now();
            sim_.yield_abandoned_step();
            break;
        }
        const render::DrawTarget target = surface_->target();
        if (target.width <= 0 || target.height <= 0) {
            surface_->idle();  // minimised: nothing to draw
            continue;
        }
        const Clock::time_point now = Clock::now();
        const double dt_frame = seconds_between(last_frame_start_, now);
        last_frame_start_ = now;
        if (frame_ == 1) measure_start_ = now;  // the first frame is warm-up
        gpu_timer_.begin_frame(frame_);

        const bool final_frame = is_final_frame();
        act_on_requests(requests, target);
        // A recording's first frame steps nothing: step() only captures it.
        const bool capture_frame = closing_frame_ && !first_recorded_frame_ ? false : step(requests, dt_frame);
        // A stop came while the frame's steps ran: nothing new to draw (the closing frame draws
        // the last complete one).
        if (std::exchange(frame_cut_short_, false) && !closing_frame_) {
            gpu_timer_.end_frame();
            continue;
        }
        const bool final_shot = final_frame && o_.screenshot.has_value();
        draw(target, capture_frame, dt_frame,
             final_shot || (requests.screenshot && params_.recording.screenshot_ui) ? ScreenshotAt::Screen
             : requests.screenshot                                        ? ScreenshotAt::Image
                                                                          : ScreenshotAt::None);

        // A frame that could not be written stops the recording; the simulation goes on.
        if (recorder_ && recorder_->failed()) {
            if (record_run_) break;
            stop_recording();
        }
        end_frame(capture_frame, dt_frame);
        if (final_frame) break;
    }
    // After a stop, or the user quitting, a long step is not waited for, and what is written is
    // the state drawn last (the screenshot's); the patience counts from the stop, the closing
    // frame having used part of it. Otherwise what follows reads the backend, all steps done.
    const bool hurry = interrupted_ || user_quit_;
    glFinish();  // the frames' GL work: the frame rate counts to here (finish())
    const Clock::time_point frames_done = Clock::now();
    bool settled = true;
    if (hurry)
        settled = sim_.settle_beside(std::max(std::chrono::milliseconds(0),
                                              kStopPatience - std::chrono::duration_cast<std::chrono::milliseconds>(
                                                                  Clock::now() - stop_seen_)));
    else
        sim_.stop_beside();
    if (progress_ && interrupted_) progress_->interrupt_line();
    if (o_.save_snapshot) {  // after the last frame, or an interrupt: the state reached is not lost
        write_snapshot_to(*o_.save_snapshot);
        std::cerr << "nbody: state at t = " << sim_.time() << " saved to " << *o_.save_snapshot << "\n";
    }
    const std::string unfinished =
        settled ? std::string() : "a step of " + std::to_string(sim_.size()) + " bodies";
    const int status = finish(frames_done);
    // A scene build or Hermite start still running at the last frame is not waited for either:
    // nothing drawn used it.
    const bool work_left = scene_build_ || !superseded_builds_.empty() || hermite_start_ || !superseded_starts_.empty();
    if (hurry || work_left) end_without_waiting(status, unfinished);
    return status;
}

// A stop signal, looked for between frames (the previous frame is complete): true when the loop
// ends now. What was asked for is still written: --screenshot (of the state reached, the same as
// --save-snapshot's) and a recording stopped before its first frame (the state it starts from:
// the MP4 gets one frame), in one more frame, not stepped (closing_frame_). Headless, the last
// frame drawn is still in the render target and is the screenshot as it is: drawing it again would
// take a second at 1080p on a software rasteriser whose cores the abandoned step still holds.
bool Viewer::stop_now() {
    if (closing_frame_ || (interrupted_ = InterruptGuard::requested()) == 0) return false;
    stop_seen_ = Clock::now();
    sim_.yield_abandoned_step();
    const bool first_frame_unrecorded = record_run_ && first_recorded_frame_;
    if (first_frame_unrecorded || (o_.screenshot && !(surface_->headless() && frame_ > 0))) {
        closing_frame_ = true;
        return false;
    }
    if (o_.screenshot) {
        save_screenshot(surface_->target(), /*final_shot=*/true);
        last_frame_kept_ = true;
    }
    return true;
}

void Viewer::choose_cuda_sprites(const ViewOptions& o) {
    const bool interop = sim_.cuda() && sim_.path() == TransferPath::Interop;
    // Beside the loop GL's compute passes and the steps' kernels come from two contexts, which
    // the GPU time-slices (device runs 97-99: at 16M on one GPU the steps/s halved); the CUDA
    // deposit's kernels share the simulation's context and run on SMs beside the walk.
    renderer_.prefer_cuda_sprites(interop && sim_.beside());
    if (o.sprites != render::SpriteDrawing::Cuda || interop) return;
#if NBODY_HAVE_CUDA
    throw std::invalid_argument(
        "--sprites cuda adds the sprites' light by CUDA kernels in the cuda backend's context, reading its "
        "positions through CUDA-GL interop: it needs --backend cuda with interop (this run: backend " +
        std::string(sim_.backend().name()) + ", positions: " + describe(sim_.path()) +
        "); --sprites compute draws the same picture by GL");
#else
    throw std::invalid_argument(
        "--sprites cuda: this build has no CUDA (configure with -DNBODY_CUDA=ON); --sprites compute draws the same "
        "picture by GL");
#endif
}

// After a stop or a quit, everything asked for is written by now. Work still running (a long step, a scene
// being built, an energy sum) would be joined by the destructors, holding the exit for as long as
// it takes (minutes, for a step at large N): the process ends here instead, without waiting.
void Viewer::end_without_waiting(int status, std::string unfinished) {
    const auto running = [](const auto& f) {
        return f.valid() && f.wait_for(std::chrono::seconds(0)) != std::future_status::ready;
    };
    const auto add = [&](const std::string& what) { unfinished += (unfinished.empty() ? "" : ", ") + what; };
    if ((scene_build_ && running(scene_build_->scene)) ||
        std::any_of(superseded_builds_.begin(), superseded_builds_.end(), running))
        add("a scene being built");
    if ((hermite_start_ && running(hermite_start_->run)) ||
        std::any_of(superseded_starts_.begin(), superseded_starts_.end(), running))
        add("a Hermite run starting");
    if (energy_.running() || (sim_.hermite() && sim_.hermite()->measuring_seconds())) add("an energy sum");
    if (unfinished.empty()) return;
    std::fprintf(stderr, "nbody: not waiting for %s: exiting with the last complete frame\n",
                 unfinished.c_str());
    std::fflush(nullptr);
    std::_Exit(status);
}

// Esc or the close button: asked first when the simulation ran since the last save (a window
// run until closed); the question's answers arrive as requests in a later frame.
bool Viewer::quit_now(bool asked, const Requests& requests) {
    if (requests.quit_confirmed) return true;
    if (requests.save_and_quit && save_snapshot(/*replace=*/true)) return true;
    const bool interactive = !surface_->headless() && frame_limit_ == 0 && !record_run_;
    switch (decide_quit(asked, params_.confirm_quit, sim_.time() != saved_time_, interactive)) {
        case QuitDecision::Stay:
            return false;
        case QuitDecision::Ask:
            params_.confirm_quit = true;
            surface_->cancel_close();
            return false;
        case QuitDecision::Quit:
            return true;
    }
    return true;
}

void Viewer::end_frame(bool capture_frame, double dt_frame) {
    {
        const HostStageTimer timing(profile_, HostStage::Present);
        surface_->present();
        // Beside the frame loop nothing else slows a frame: without vsync (Xvfb, Mesa) the loop
        // would spin and take a core from the simulation (a frame that waits for its exact steps
        // is paced by them).
        if (free_running()) std::this_thread::sleep_until(pacer_.next_start(Clock::now()));
    }
    gpu_timer_.end_frame();
    share_the_drawing_gpu();
    make_room_for_cuda_sprites();
    profile_.end_frame();
    if (frame_ > 0) perf_.add_frame(dt_frame);  // frame 0 has no previous frame to time from
    if (frame_ > 1) totals_.frame_times.add(dt_frame);  // the previous frame's length; frame 0 is warm-up
    // A recording turns once a recorded frame; the viewer once a frame drawn.
    if ((capture_frame || !record_run_) && o_.orbit_deg_per_frame != 0) camera_.turn(o_.orbit_deg_per_frame);
    if (frame_ == 0) first_frame_seconds_ = seconds_between(surface_opened_, Clock::now());
    ++frame_;
    if (progress_) progress_->update(frame_);
}

// Errors join the notices (on screen for a while, then in the Debug panel); other news is a
// short green line.
void Viewer::say(const std::string& text, bool is_error) {
    std::cerr << "nbody: " << text << "\n";
    if (is_error) {
        app_messages_.push_back(text);
        return;
    }
    toast_ = text;
    toast_until_ = Clock::now() + std::chrono::seconds(4);
}

// Trails keep the span of model time a scene's `trails` gives (its points two frames of playback
// apart), in up to 8 times as many points where that is cheap (few bodies: the cost is 2 K N
// vertices a frame), so a close encounter inside a frame is a curve. A star cluster's radii are
// measured every ten frames' worth of model time.
void Viewer::set_sampling_intervals(int trail_points) {
    const double per_frame = params_.sim.model_time_per_second / 60.0;
    render::TrailSettings& t = params_.render.trails;
    const int span = trail_points > 0 ? trail_points : render::TrailSettings{}.length;
    const double points = double(std::max<std::size_t>(sim_.size(), 1)) * span;
    const int finer = int(std::clamp(kTrailVertexBudget / points, 1.0, 8.0));
    t.length = std::min(span * finer, render::kMaxTrailLength);
    t.interval = 2.0 * per_frame / finer;
    const bool cluster = natural_colour_mode(scene_.state) == render::ColourMode::Mass;
    sim_.cluster_history().set_interval(cluster ? 10.0 * per_frame : 0.0);
}

// The energy snapshot doubles as the viewer's NaN/Inf guard (every few seconds): a state that went
// non-finite pauses the simulation with a notice; the window, the UI and R (reset) go on.
void Viewer::start_energy() {
    if (energy_on_gpu()) return start_energy_on_gpu();
    // Hermite's state is double: its error is summed from it (one energy line, issue 33); the
    // monitor still gives E, the virial ratio and the momentum.
    if (sim_.hermite()) sim_.measure_hermite_energy();
    State now = sim_.snapshot();
    if (paused_for_non_finite(now)) return;
    energy_.start(std::move(now), params_.sim.step.softening, sim_.backend().gravity());
}

bool Viewer::paused_for_non_finite(const State& state) {
    const auto body = first_non_finite(state);
    if (!body) return false;
    params_.sim.paused = true;
    say("the simulation became non-finite (NaN/Inf, first at body " + std::to_string(*body) +
            "): paused. R resets; a smaller dt or a larger softening avoids it",
        true);
    return true;
}

bool Viewer::energy_on_gpu() const {
    return sim_.cuda() != nullptr && sim_.hermite() == nullptr && sim_.backend().gravity().gravity == Gravity::Tree;
}

// The backend stores the state and sums the potential between two steps, on the simulation's thread
// (or at once in the frame loop); the monitor sums the rest on a worker when that is done. One sum at
// a time: while it waits for its turn, further requests are dropped.
void Viewer::start_energy_on_gpu() {
    if (gpu_energy_queued_) return;
    sim_.hand_positions_to_backend();
    struct Summed {
        State state;
        double potential = 0;
        GravityConfig gravity;
    };
    auto summed = std::make_shared<Summed>();
    const double softening = params_.sim.step.softening;
    gpu_energy_queued_ = true;
    sim_.between_steps(
        [summed, softening](Backend& backend) {
            backend.store(summed->state);
            summed->gravity = backend.gravity();
            const std::optional<double> potential = backend.tree_potential_energy(softening);
            if (!potential) throw std::logic_error("the backend gave no tree potential");
            summed->potential = *potential;
            return std::string();
        },
        [this, summed, softening, generation = energy_.generation()](const SimulationThread::Outcome& outcome) {
            gpu_energy_queued_ = false;
            if (!outcome.error.empty()) return say("energy sum on the GPU failed: " + outcome.error, true);
            if (paused_for_non_finite(summed->state)) return;
            energy_.start_known(std::move(summed->state), softening, summed->gravity, summed->potential, generation);
        },
        "summing the energy (the GPU tree's potential)");
}

// The energy line's first value from the start (issue 33): both sums run on workers from the
// state loaded, so the panel shows dE/|E0| within a second or so instead of after the monitor's
// first period (a Hermite run of thousands of bodies read "not computed yet" for 4 s and more).
void Viewer::start_first_energy_sums() {
    if (!params_.sim.auto_energy || scene_.state.size() > auto_energy_max_n()) return;
    if (energy_on_gpu()) return start_energy_on_gpu();
    if (sim_.hermite()) sim_.measure_hermite_energy();  // after a snapshot's E0 was taken
    energy_.start(scene_.state, params_.sim.step.softening, sim_.backend().gravity());
}

// The scene at start-up is framed as a launched one is (issue 33): its camera moved back, never
// closer, until all its galaxies are in view; said when it moves, since the file asked otherwise.
void Viewer::frame_scene_at_start() {
    const CameraSpec fitted = framed_camera(scene_);
    if (fitted.distance == scene_.camera.distance) return;
    std::fprintf(
        stderr,
        "nbody: the scene's camera moved back from %.4g to %.4g %s so that all its galaxies are in view\n",
        scene_.camera.distance, fitted.distance, scene_.units.length.c_str());
    scene_.camera = fitted;
    camera_.reset(scene_.camera);
}

// `scene`'s camera moved back until all its galaxies are in the surface's frame (render/camera).
// One galaxy or star cluster keeps its file's view: 99% of a Plummer cluster's stars reach twice
// as far as its designed view (scenes/star-cluster-kroupa.toml: 6 -> 10.9), which would draw the
// cluster at half the size for the sake of a few escapers.
CameraSpec Viewer::framed_camera(const Scene& scene) const {
    if (count_galaxies(scene.state) < 2) return scene.camera;
    const render::DrawTarget t = surface_->target();
    return render::fit_camera(scene.camera, scene.state,
                              t.height > 0 ? double(t.width) / t.height : 16.0 / 9.0);
}

std::size_t Viewer::auto_energy_max_n() const {
    if (energy_on_gpu()) return kGpuTreeAutoEnergyMaxN;
    // A cuda Hermite run sums its potential on the GPU too (hermite_energy_or_stop), unless its
    // engine is the cpu one.
    const bool gpu_sum = !sim_.hermite() || sim_.hermite()->settings().engine != hermite::EngineKind::Cpu;
    if (sim_.cuda() && gpu_sum && potential_on_gpu(sim_.size())) return kGpuDirectAutoEnergyMaxN;
    return sim_.cuda() ? kAutoEnergyMaxN : kHostAutoEnergyMaxN;
}

std::unique_ptr<ViewerHermite> Viewer::start_scene_hermite(const Scene& next, const SimulationParams& chosen) const {
    const bool resumes = next.precise && next.hermite_state && next.hermite_state_order == chosen.hermite_order;
    return make_viewer_hermite(hermite_settings(chosen), next.state, next.precise ? &*next.precise : nullptr,
                               resumes ? &*next.hermite_state : nullptr, std::cerr);
}

void Viewer::install_system(Scene next, const std::string& path, bool new_scene, bool keep_camera,
                            std::unique_ptr<ViewerHermite> started) {
    // Everything that can refuse `next` runs before the running system is touched: the checks of
    // its bodies and saved state, and the start of the integrator it will run (a Hermite run
    // resumes or evaluates its forces here), so that a bad file leaves the old simulation going.
    validate_scene(next, path);
    SimulationParams chosen = params_for(params_.sim, next, new_scene);
    if (new_scene) chosen.steps_per_frame = steps_per_frame_for(next);
    std::unique_ptr<ViewerHermite> hermite;
    if (chosen.hermite)
        hermite = started && started->settings() == hermite_settings(chosen) ? std::move(started)
                                                                             : start_scene_hermite(next, chosen);

    drop_hermite_start();  // of the system this one replaces
    sim_.load(next.state, next.params.dt);
    sim_.set_exact_start(next.precise, next.hermite_state, next.hermite_state_order);
    if (hermite && next.energy0) hermite->continue_run_energy(*next.energy0);
    if (hermite) sim_.adopt_hermite(std::move(hermite));
    scene_ = std::move(next);
    scene_path_ = path;
    saved_time_ = sim_.time();  // a system just loaded has nothing to lose yet
    energy_.reset(scene_.energy0, scene_.params.softening);
    start_first_energy_sums();
    com_.anchor(scene_.state);
    galaxy_count_ = count_galaxies(scene_.state);
    component_bits_ = component_bits(scene_.state);
    params_.camera.follow_galaxy = -1;
    trails_.clear();  // the bodies jumped: old history would join unrelated places
    trail_points_.clear();
    if (new_scene) params_.selected.reset();
    renderer_.set_auto_speed_scale(render::typical_speed(scene_.state));
    render::apply_looks_for_bodies(params_.render, scene_.state.size());
    if (new_scene) {
        params_.render.colour_mode = scene_colour_mode(scene_);
        params_.render.solar_masses_per_unit = float(ic::solar_masses_per_unit(scene_.units, scene_.state));
        params_.sim.step = scene_.params;
        params_.sim.steps_per_frame = chosen.steps_per_frame;
        params_.sim.model_time_per_second = 60.0 * chosen.steps_per_frame * scene_.params.dt;
        apply_scene_trails(params_.render.trails, scene_.trails);
        perf_.clear_steps();
        integrator_from_scene();  // a new scene starts on its own integrator
        set_sampling_intervals(scene_.trails);
    }
    params_.sim.integrator_error.clear();
    params_.sim.bodies = int(scene_.state.size());
    if (!keep_camera) {
        // A launched scene (picker, Open, the Encounter editor) shows all its galaxies: the
        // scene's view, moved back where it cut one off (a wider encounter than the preset's).
        if (new_scene) scene_.camera = framed_camera(scene_);
        camera_.reset(scene_.camera);
    }
}

void Viewer::replace_system(const std::string& path, std::optional<std::size_t> bodies, bool keep_camera, bool reread,
                            bool opened) {
    const bool new_scene = path != scene_path_ || bodies.has_value() || reread;
    SceneBuild build{{}, path, "", new_scene, keep_camera, opened, Clock::now()};
    // A reset takes the scene on show as it was loaded; scripted runs build in this thread, so
    // that the frame after the request shows the new system.
    const auto policy = new_scene && free_running() ? std::launch::async : std::launch::deferred;
    // A Hermite run's start (its forces and energy: seconds at 16K stars on two cores) is made here
    // too, after the checks install_system() makes first, so that the window keeps drawing.
    build.scene = std::async(policy, [this, path, bodies, new_scene, now = params_.sim, launched = launched_encounter_,
                                      loaded = new_scene ? std::optional<Scene>() : std::optional<Scene>(scene_)] {
        BuiltSystem built{loaded ? *loaded : scene_at(path, bodies, launched), nullptr};
        const SimulationParams chosen = params_for(now, built.scene, new_scene);
        if (chosen.hermite) {
            validate_scene(built.scene, path);
            built.hermite = start_scene_hermite(built.scene, chosen);
        }
        return built;
    });
    const std::string name = path.empty() ? std::string("the default scene") : std::filesystem::path(path).filename().string();
    build.what = (new_scene ? "building " : "resetting ") + name +
                 (bodies ? ", " + std::to_string(*bodies) + " bodies" : std::string());
    if (scene_build_) superseded_builds_.push_back(std::move(scene_build_->scene));
    scene_build_ = std::move(build);
    finish_scene_build();
}

void Viewer::finish_scene_build() {
    std::erase_if(superseded_builds_, [](const std::future<BuiltSystem>& f) { return !still_running(f); });
    if (!scene_build_ || still_running(scene_build_->scene)) return;
    SceneBuild build = std::move(*scene_build_);
    scene_build_.reset();
    try {
        BuiltSystem built = build.scene.get();
        install_system(std::move(built.scene), build.path, build.new_scene, build.keep_camera, std::move(built.hermite));
        if (build.opened)
            say("opened " + (build.path.empty() ? std::string("the default scene") : build.path) + ": " + scene_.name +
                    ", " + std::to_string(scene_.state.size()) + " bodies",
                false);
    } catch (const std::exception& e) {
        params_.sim.bodies = int(sim_.size());
        say(error_text(e, "opening " + (build.path.empty() ? std::string("the default scene") : build.path)), true);
    }
}

}  // namespace nbody::app
