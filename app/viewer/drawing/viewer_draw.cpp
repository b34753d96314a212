// Drawing one frame: the particles, the recorded capture, the ImGui panels, screenshots.
// Frames are captured with or without the panels, never with the REC indicator.

#include <algorithm>
#include <ctime>
#include <iostream>
#include <filesystem>

#include "nbody/render/frame_capture.hpp"
#include "nbody/render/gl.hpp"
#include "viewer.hpp"

namespace nbody::app {

namespace {

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

// "Scenes" for the first scene folder; later ones (next to the executable, the source tree) by
// the folder that holds them, so the buttons say where they lead.
std::string scene_place_label(const std::string& dir, bool first) {
    if (first) return "Scenes";
    const std::filesystem::path parent = std::filesystem::path(dir).lexically_normal().parent_path();
    return "Scenes in " + parent.filename().string() + "/";
}

}  // namespace

// Trail points are sampled where the steps run (issue 33); each goes into the ring once the state
// drawn has reached its time, so the trail never runs ahead of its body.
void Viewer::feed_trails() {
    const render::TrailSettings& t = params_.render.trails;
    trails_.update(sim_.buffers(), t, !sim_.trails_on_host());
    for (TrailPoint& p : sim_.trail_sampler().take()) trail_points_.push_back(std::move(p));
    const double shown = sim_.buffers().current_time();
    while (!trail_points_.empty() && trail_points_.front().time <= shown) {
        trails_.append(trail_points_.front());
        trail_points_.pop_front();
    }
    if (!t.enabled) trail_points_.clear();
}

void Viewer::draw(const render::DrawTarget& target, bool capture_frame, double dt_frame, ScreenshotAt shot) {
    {
        const HostStageTimer timing(profile_, HostStage::Draw);
        aim_camera();
        apply_camera_path();
        feed_trails();
        renderer_.draw(sim_.buffers(), camera_, params_.render, target, gpu_timing_, &trails_);
        refresh_selection();
    }
    update_recording_view(capture_frame);
    const bool ui_built = build_ui(target, dt_frame);
    using Layer = render::ImGuiLayer;
    const auto draw_ui_layers = [&](unsigned layers) {
        if (ui_built) ui_->draw_layers(target.framebuffer, target.width, target.height, layers);
    };
    // A saved frame holds the particles, the annotations when asked (legend, scale bar, time),
    // and the panels only when a recording asks for them; the rest is drawn after it is taken.
    const bool ui_in_frame = recorder_ && recorder_->settings().include_ui;
    // A recorded frame with the panels holds this frame's numbers, not those of up to 1/4 s ago.
    if (ui_built) ui_->cache_panels(params_.cache_panels && !ui_in_frame);
    draw_ui_layers((params_.recording.annotate ? Layer::kBackground : 0u) | (ui_in_frame ? Layer::kBackground | Layer::kWindows : 0u));
    capture(target, capture_frame);
    const bool final_shot = o_.screenshot && is_final_frame();  // --screenshot
    if (shot == ScreenshotAt::Image) save_screenshot(target, final_shot);
    draw_ui_layers(Layer::kAllLayers);
    if (shot == ScreenshotAt::Screen) save_screenshot(target, final_shot);
}

// Work shorter than a few frames is not worth a spinner that flickers; the routine work (a step,
// the periodic energy sum) is named only when it is slow enough to notice.
std::vector<BusyWork> Viewer::busy_work() const {
    constexpr double kShowAfterSeconds = 0.25, kShowRoutineAfterSeconds = 1.0;
    std::vector<BusyWork> busy;
    const auto since = [](Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); };
    if (scene_build_ && since(scene_build_->started) > kShowAfterSeconds)
        busy.push_back({scene_build_->what, since(scene_build_->started)});
    if (hermite_start_ && since(hermite_start_->started) > kShowAfterSeconds)
        busy.push_back({hermite_start_->what, since(hermite_start_->started)});
    if (const auto a = sim_.activity(); a && a->what != "step" && a->seconds > kShowAfterSeconds) {
        const std::string timed = a->what == kAutotuneWhat && autotune_progress_ ? autotune_progress_->get() : "";
        busy.push_back({timed.empty() ? a->what : a->what + ": " + timed, a->seconds});
    }
    if (const auto a = sim_.activity(); a && a->what == "step" && a->seconds > kShowRoutineAfterSeconds) {
        const std::string solver = sim_.hermite() ? std::string(params_.sim.integrator_name()) + " block steps"
                                   : sim_.gravity().gravity == Gravity::Tree ? "tree code"
                                                                             : "every pair";
        busy.push_back({"simulating: a step of " + std::to_string(sim_.size()) + " bodies (" + solver + ")", a->seconds});
    }
    // The first sum of a system is waited for (the energy line has no value yet): shown as soon
    // as other long work is; later ones, every few seconds, only when they last.
    const bool first_sum = !energy_.latest();
    if (energy_.running() &&
        energy_.seconds_since_start() > (first_sum ? kShowAfterSeconds : kShowRoutineAfterSeconds))
        busy.push_back({"energy sum of " + std::to_string(sim_.size()) + " bodies", energy_.seconds_since_start()});
    if (const ViewerHermite* h = sim_.hermite())
        if (const auto s = h->measuring_seconds();
            s && *s > (h->measured() ? kShowRoutineAfterSeconds : kShowAfterSeconds))
            busy.push_back({"energy sum of " + std::to_string(sim_.size()) + " bodies in double", *s});
    return busy;
}

bool Viewer::build_ui(const render::DrawTarget& target, double dt_frame) {
    const bool draw_all = ui_ && params_.show_ui;
    // With the panels hidden the REC indicator still shows (not in headless runs: no one looks),
    // and the annotations when saved frames are to carry them.
    const bool indicator_only = ui_ && !params_.show_ui && recorder_ && !surface_->headless();
    const bool annotations_only = ui_ && !params_.show_ui && params_.recording.annotate;
    if (!draw_all && !indicator_only && !annotations_only) {
        surface_->set_ui_capture(false, false);
        return false;
    }
    const HostStageTimer timing(profile_, HostStage::Ui);
    const render::GpuStageScope gpu(gpu_timing_, render::GpuStage::Ui);
    std::vector<std::string> messages = sim_.notices();
    messages.insert(messages.end(), app_messages_.begin(), app_messages_.end());
    while (notice_seen_.size() < messages.size()) notice_seen_.push_back(Clock::now());
    std::vector<std::string> recent;  // notices stay on screen for a while after they appear
    for (std::size_t i = 0; i < messages.size(); ++i)
        if (std::chrono::duration<double>(Clock::now() - notice_seen_[i]).count() < 15.0) recent.push_back(messages[i]);
    const PanelContext ctx{sim_,
                           perf_,
                           energy_,
                           scene_,
                           scene_path_,
                           scenes_,
                           surface_->gl_info(),
                           surface_->description(),
                           camera_,
                           renderer_.auto_speed_scale(),
                           galaxy_count_,
                           messages,
                           recent,
                           Clock::now() < toast_until_ ? toast_ : std::string(),
                           surface_->headless(),
                           recording_view_,
                           busy_work(),
                           component_bits_,
                           params_.selected && selected_sample_ ? std::function<void()>([this] { draw_selection(); })
                                                                : std::function<void()>(),
                           auto_energy_max_n(),
                           renderer_.cuda_sprites_refused()};
    // The first frame is laid out a few times unseen, so that even a one-frame headless
    // screenshot shows the panels at their settled size and place.
    ui_->lay_out_unseen(target.width, target.height, draw_all && frame_ == 0 ? 3 : 0, [&] {
        Requests ignored;
        ViewerParams scratch = params_;
        draw_ui(scratch, visible_, ignored, ctx);
    });
    ui_->begin_frame(target.width, target.height, frame_ == 0 ? 1.0f / 60.0f : float(dt_frame));
    if (draw_all) {
        draw_ui(params_, visible_, pending_, ctx);  // the Selected body panel among the others
        draw_open_dialog();
    } else {
        if (params_.recording.annotate) draw_annotations(ctx, params_);
        if (indicator_only) draw_recording_indicator(ctx);
    }
    ui_->finish_frame();
    surface_->set_ui_capture(ui_->wants_mouse(), ui_->wants_keyboard());
    return true;
}

void Viewer::draw_open_dialog() {
    std::vector<OpenDialog::Place> places;  // the dialog's folder buttons
    if (params_.show_open_dialog) {
        std::error_code ec;
        places.push_back({"Working folder", std::filesystem::current_path(ec).string()});
        for (const std::string& dir : scene_directories())
            places.push_back({scene_place_label(dir, places.size() == 1), dir});
    }
    if (const auto file = open_dialog_.draw(&params_.show_open_dialog, places)) pending_.load_scene = *file;
}

void Viewer::save_screenshot(const render::DrawTarget& target, bool final_shot) {
    const std::string path = final_shot ? *o_.screenshot : timestamped_png_name();
    glFinish();  // the frame drawn (the frame's own work): what follows is the readback and the file alone
    const Clock::time_point start = Clock::now();
    // Left out of the frame times: not a frame's work.
    const auto set_aside = [&] {
        const double ms = std::chrono::duration<double, std::milli>(Clock::now() - start).count();
        profile_.set_aside(ms);
        if (frame_ >= 1) totals_.screenshot_seconds += ms / 1e3;  // frame 0 is not timed
        return ms;
    };
    try {
        render::write_png(path, render::read_framebuffer(target.framebuffer, target.width, target.height));
        const double ms = set_aside();
        say("saved " + path, false);
        // For scripts/measure-viewer-latency.py: a key's latency is the time to this line less this.
        std::cerr << "nbody: the screenshot took " << int(ms) << " ms to read back and write\n";
    } catch (const std::exception& e) {
        set_aside();
        if (final_shot) throw;  // the run was asked for this file: its absence is a failure
        say(std::string("screenshot failed: ") + e.what(), true);
    }
}

}  // namespace nbody::app
