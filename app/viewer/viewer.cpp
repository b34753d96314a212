// The viewer's set-up and its frame loop: poll input, act on requests, step, draw, present.
// Each part lives in its own file (see viewer.hpp).

#include "viewer.hpp"

#include "nbody/sim/finite_guard.hpp"

#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <stdexcept>
#include <utility>

#include "recorder_ffmpeg.hpp"
#include "viewer_autotune.hpp"

namespace nbody::app {

namespace {

double seconds_between(std::chrono::steady_clock::time_point a, std::chrono::steady_clock::time_point b) {
    return std::chrono::duration<double>(b - a).count();
}

// Several galaxies: tell them apart. One galaxy with a disk, bulge and halo: show its parts.
render::ColourMode natural_colour_mode(const State& s) {
    bool several_galaxies = false, components = false;
    for (std::size_t i = 0; i < s.size(); ++i) {
        several_galaxies |= i < s.galaxy.size() && s.galaxy[i] != s.galaxy[0];
        components |= i < s.component.size() && s.component[i] != Component::Unspecified;
    }
    return !several_galaxies && components ? render::ColourMode::Component : render::ColourMode::Galaxy;
}

// Trails as a scene (or --trails) asks: `points` > 0 switches them on with that length.
void apply_scene_trails(render::TrailSettings& trails, int points) {
    trails.enabled = points > 0;
    if (points > 0) trails.length = points;
}

// The colouring a snapshot was saved with (Scene::colour_by), else the natural one.
render::ColourMode scene_colour_mode(const Scene& scene) {
    return colour_mode_named(scene.colour_by).value_or(natural_colour_mode(scene.state));
}

Scene load_valid_scene(const std::string& path, std::optional<std::size_t> bodies) {
    Scene scene = make_scene(path, bodies);
    scene.state.validate();
    return scene;
}

std::unique_ptr<Surface> open_surface(const ViewOptions& o) {
    std::unique_ptr<Surface> surface =
        o.headless ? make_headless_surface(o.width, o.height) : make_window_surface(o.width, o.height, o.vsync);
    std::cerr << "nbody: OpenGL " << surface->gl_info().version << " on " << surface->gl_info().renderer << " ("
              << surface->description() << ")\n";
    return surface;
}

}  // namespace

int run_viewer(const ViewOptions& o) {
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
      sim_(o.backend, std::cerr),
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
    params_.render.hide_halo = !o.show_halo;
    apply_scene_trails(params_.render.trails, o.trails.value_or(scene_.trails));
    params_.show_open_dialog = o.open_dialog && !o.no_ui;
    if (o.drop) surface_->drop_after_first_frame({*o.drop});
    params_.recording.folder = default_recording_folder();
    params_.recording.steps_per_frame = params_.sim.steps_per_frame;

    // The galaxy scenes hold 65K bodies: seconds per step on a CPU. Without a GPU, and unless N
    // was asked for, show a smaller version of the same scene (same proportions).
    if (!o.bodies && sim_.backend().name() != "cuda" && scene_.state.size() > kHostViewerBodies) {
        std::cerr << "nbody: the " << sim_.backend().name() << " backend would take seconds per step at N = "
                  << scene_.state.size() << "; showing " << kHostViewerBodies << " bodies (choose with --bodies)\n";
        scene_ = make_scene(scene_path_, kHostViewerBodies);
        params_.sim.bodies = int(scene_.state.size());
        camera_.reset(scene_.camera);
    }
    const std::string kernel_origin = apply_kernel_options(sim_.backend(), o.kernel, scene_.state.size());
    params_.kernel.edited = sim_.backend().kernel_config();
    params_.kernel.started_with = params_.kernel.edited;
    params_.kernel.origin = kernel_origin;
    params_.kernel.gravity = sim_.backend().gravity();  // --gravity, --theta, ... as applied
    sim_.load(scene_.state, scene_.params.dt);
    sim_.set_exact_start(scene_.precise, scene_.hermite_state, scene_.hermite_state_order);
    std::cerr << "nbody: " << scene_.state.size() << " bodies, backend " << sim_.backend().name()
              << ", positions: " << describe(sim_.path()) << "\n";
    start_integrator_from_options();
    if (!kernel_origin.empty()) std::cerr << "nbody: " << kernel_origin << "\n";

    renderer_.set_auto_speed_scale(render::typical_speed(scene_.state));
    com_.anchor(scene_.state);
    galaxy_count_ = count_galaxies(scene_.state);
    if (o.select) {
        if (*o.select >= scene_.state.size())
            throw std::invalid_argument("--select " + std::to_string(*o.select) + ": the scene has bodies 0 to " +
                                        std::to_string(scene_.state.size() - 1));
        params_.selected = *o.select;
        const render::BodySample sample = render::read_body(sim_.buffers(), *o.select);
        std::cerr << "nbody: selected body " << *o.select << " at (" << sample.position.x << ", " << sample.position.y
                  << ", " << sample.position.z << ")\n";
    }
    if (o.pick) pending_.pick = glm::vec2(o.pick->first, o.pick->second);
    params_.recording.annotate = o.annotate;
    if (!o.no_ui || o.annotate) ui_ = std::make_unique<render::ImGuiLayer>(surface_->window(), surface_->content_scale());
    scenes_ = list_scene_choices();
    init_encounter_editor(o.encounter);

    // Energy is for the Simulation panel: without a UI nobody would see it, and the O(N^2) sum
    // would compete with the frame loop for the CPU.
    params_.sim.auto_energy = !o.no_ui && !record_run_;
    if (params_.sim.auto_energy && scene_.state.size() <= kAutoEnergyMaxN)
        energy_.start(scene_.state, params_.sim.step.softening, sim_.backend().gravity());

    recording_view_.ffmpeg_found = find_ffmpeg().has_value();
    if (record_run_) {
        start_recording(*record_settings_, o.width, o.height);
        char spacing[96];  // Hermite: frames a model time apart, not a step count
        std::snprintf(spacing, sizeof spacing, "%s, frames %.6g model time units apart", params_.sim.integrator_name(),
                      params_.sim.time_per_frame);
        announce_recording(*record_settings_, frame_limit_, o.width, o.height, sim_.hermite() ? spacing : "");
        progress_.emplace(frame_limit_);
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
    for (;;) {
        if ((interrupted_ = InterruptGuard::requested()) != 0) break;  // the previous frame is complete
        profile_.begin_frame(frame_ >= 1);
        Requests requests = std::exchange(pending_, Requests{});
        bool open = true;
        {
            const HostStageTimer timing(profile_, HostStage::Events);
            open = surface_->poll(params_, requests, camera_);
        }
        if (!open || requests.quit) break;
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
        const bool capture_frame = step(requests, dt_frame);
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
    if (progress_ && interrupted_) progress_->interrupt_line();
    if (o_.save_snapshot) {  // after the last frame, or an interrupt: the state reached is not lost
        write_snapshot_to(*o_.save_snapshot);
        std::cerr << "nbody: state at t = " << sim_.time() << " saved to " << *o_.save_snapshot << "\n";
    }
    return finish();
}

void Viewer::end_frame(bool capture_frame, double dt_frame) {
    {
        const HostStageTimer timing(profile_, HostStage::Present);
        surface_->present();
    }
    gpu_timer_.end_frame();
    profile_.end_frame();
    if (frame_ > 0) perf_.add_frame(dt_frame);  // frame 0 has no previous frame to time from
    if (capture_frame && o_.orbit_deg_per_frame != 0) camera_.turn(o_.orbit_deg_per_frame);
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

// The energy snapshot doubles as the viewer's NaN/Inf guard (every few seconds): a state that went
// non-finite pauses the simulation with a notice; the window, the UI and R (reset) go on.
void Viewer::start_energy() {
    State now = sim_.snapshot();
    if (const auto body = first_non_finite(now)) {
        params_.sim.paused = true;
        say("the simulation became non-finite (NaN/Inf, first at body " + std::to_string(*body) +
                "): paused. R resets; a smaller dt or a larger softening avoids it",
            true);
        return;
    }
    energy_.start(std::move(now), params_.sim.step.softening, sim_.backend().gravity());
}

void Viewer::install_system(Scene next, const std::string& path, bool new_scene, bool keep_camera) {
    next.state.validate();
    sim_.load(next.state, next.params.dt);
    sim_.set_exact_start(next.precise, next.hermite_state, next.hermite_state_order);
    scene_ = std::move(next);
    scene_path_ = path;
    energy_.reset();
    if (params_.sim.auto_energy && scene_.state.size() <= kAutoEnergyMaxN)
        energy_.start(scene_.state, params_.sim.step.softening, sim_.backend().gravity());
    com_.anchor(scene_.state);
    galaxy_count_ = count_galaxies(scene_.state);
    params_.camera.follow_galaxy = -1;
    trails_.clear();  // the bodies jumped: old history would join unrelated places
    if (new_scene) params_.selected.reset();
    renderer_.set_auto_speed_scale(render::typical_speed(scene_.state));
    if (new_scene) {
        params_.render.colour_mode = scene_colour_mode(scene_);
        params_.sim.step = scene_.params;
        params_.sim.steps_per_frame = scene_.steps_per_frame;
        params_.sim.model_time_per_second = 60.0 * scene_.steps_per_frame * scene_.params.dt;
        apply_scene_trails(params_.render.trails, scene_.trails);
        perf_.clear_steps();
    }
    if (new_scene) integrator_from_scene();  // a new scene starts on its own integrator
    if (params_.sim.hermite) start_hermite_run();
    params_.sim.bodies = int(scene_.state.size());
    if (!keep_camera) camera_.reset(scene_.camera);
}

bool Viewer::replace_system(const std::string& path, std::optional<std::size_t> bodies, bool keep_camera,
                            bool reread) {
    try {
        Scene next = (path == scene_path_ && !bodies && !reread) ? scene_ : scene_at(path, bodies);
        install_system(std::move(next), path, path != scene_path_ || bodies.has_value() || reread, keep_camera);
        return true;
    } catch (const std::exception& e) {
        params_.sim.bodies = int(sim_.size());
        say(e.what(), true);
        return false;
    }
}

}  // namespace nbody::app
