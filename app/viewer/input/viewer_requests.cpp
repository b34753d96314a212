// Acting on the one-shot requests that keys and panel buttons raised during the last frame:
// another scene or N, a kernel configuration, the auto-tuner, snapshots, the recording.

#include <algorithm>
#include <filesystem>
#include <iostream>

#include "nbody/sim/io/scene_metadata.hpp"
#include "nbody/sim/io/snapshot.hpp"
#include "viewer.hpp"
#include "viewer_autotune.hpp"
#include "viewer_gravity.hpp"

namespace nbody::app {

void Viewer::act_on_requests(const Requests& requests, const render::DrawTarget& target) {
    const HostStageTimer timing(profile_, HostStage::Events);
    finish_scene_build();
    if (const auto& path = requests.load_scene)  // picked from the list, dropped, or from the Open dialog
        replace_system(*path, launched_bodies(*path), false, /*reread=*/true, /*opened=*/true);
    if (requests.apply_bodies) replace_system(scene_path_, std::size_t(params_.sim.bodies), true);
    if (requests.reset) replace_system(scene_path_, std::nullopt, true);
    if (requests.pick) pick_body(*requests.pick, target);
    if (requests.apply_integrator) apply_integrator();
    if (requests.apply_kernel) {
        params_.kernel.invalid_reason = sim_.apply_kernel_config(params_.kernel.edited);
        if (params_.kernel.invalid_reason.empty())
            std::cerr << "nbody: kernel " << params_.kernel.edited.to_string() << "\n";
    }
    sim_.finish_tasks();  // the outcomes of what earlier frames posted (below)
    if (requests.apply_gravity) {
        const GravityConfig asked = params_.kernel.gravity;
        apply_gravity(sim_, asked, [this, asked](const SimulationThread::Outcome& o) {
            params_.kernel.gravity_reason = o.error;
            if (o.error.empty()) {
                std::cerr << "nbody: gravity " << asked.to_string() << "\n";
                params_.kernel.force_error.clear();  // it described the previous solver
            } else {
                params_.kernel.gravity = sim_.gravity();
            }
        });
    }
    if (requests.estimate_force_error)
        estimate_force_error(sim_, params_.sim.step.softening, [this](const SimulationThread::Outcome& o) {
            if (o.error.empty())
                params_.kernel.force_error = o.text;
            else
                say("force error estimate failed: " + o.error, true);
        });
    if (requests.autotune && autotune_progress_) say("the auto-tune is running already", false);
    if (requests.autotune && !autotune_progress_) {
        autotune_progress_ = std::make_shared<AutotuneProgressText>();
        params_.kernel.autotune_running = true;
        start_autotune(sim_, params_.sim.step, autotune_progress_, [this](const ViewerAutotuneOutcome& r) {
            autotune_progress_.reset();
            params_.kernel.autotune_running = false;
            params_.kernel.autotune_ok = r.ok;
            params_.kernel.autotune_result = r.message;
            if (r.config) {
                params_.kernel.edited = *r.config;
                params_.kernel.invalid_reason.clear();
            }
            say(r.message, !r.ok);
        });
    }
    act_on_encounter();
    if (requests.save_snapshot) save_snapshot(requests.replace_snapshot);
    if (requests.load_snapshot) load_snapshot();
    if (requests.reset_camera) camera_.reset(scene_.camera);
    if (requests.camera_preset) apply_camera_preset(*requests.camera_preset);
    if (requests.reload_shaders) {
        const std::string error = renderer_.reload_shaders();
        say(error.empty() ? "shaders reloaded" : error, !error.empty());
    }
    if (requests.toggle_recording && !record_run_) toggle_recording(target);
    // A frame sequence (and a movie) keeps one size: a resized window ends the recording.
    if (recorder_ && !record_run_ && (target.width != recorder_->width() || target.height != recorder_->height())) {
        say("the window was resized, so the recording stopped (a frame sequence keeps one size)", true);
        stop_recording();
    }
    try {
        energy_.poll();
        if (ViewerHermite* h = sim_.hermite()) h->poll_energy();
        if (const auto& d = energy_.latest(); d && energy_.latest_time() >= com_.time)
            com_.anchor(d->centre_of_mass, d->centre_of_mass_velocity, energy_.latest_time());
        if (requests.compute_energy) start_energy();
    } catch (const std::exception& e) {
        say(std::string("energy computation failed: ") + e.what(), true);
    }
}

std::optional<std::size_t> Viewer::launched_bodies(const std::string& path) {
    const auto choice = std::find_if(scenes_.begin(), scenes_.end(), [&](const SceneChoice& c) { return c.path == path; });
    if (choice == scenes_.end()) return std::nullopt;
    const bool gpu = sim_.backend().name() == "cuda";
    const auto n = fit_launched_bodies(machine_fit_, gpu, choice->bodies, listed_steps_per_frame(path), choice->galaxy);
    if (n && gpu)
        say("a galaxy on this GPU: showing " + std::to_string(*n) + " bodies, the most whose tree steps fit a frame (N in the Simulation panel)", false);
    else if (n)
        say("the " + std::string(sim_.backend().name()) + " backend would take seconds per step at N = " +
                std::to_string(choice->bodies) + ": showing " + std::to_string(*n) + " bodies (N in the Simulation panel)",
            false);
    return n;
}

int Viewer::steps_per_frame_for(const Scene& scene) const {
    return machine_fit_ && machine_fit_->steps_per_frame && is_galaxy_scene(scene.state) ? *machine_fit_->steps_per_frame
                                                                                          : scene.steps_per_frame;
}

bool Viewer::save_snapshot(bool replace) {
    std::error_code ec;
    params_.sim.confirm_replace = !replace && std::filesystem::exists(params_.sim.snapshot_path, ec);
    if (params_.sim.confirm_replace) return false;  // the Simulation panel asks
    try {
        write_snapshot_to(params_.sim.snapshot_path);
        saved_time_ = sim_.time();
        say("snapshot saved to " + params_.sim.snapshot_path, false);
        return true;
    } catch (const std::exception& e) {
        say(std::string("snapshot not saved: ") + e.what(), true);
        return false;
    }
}

void Viewer::write_snapshot_to(const std::string& path) {
    io::Snapshot snap;
    snap.state = sim_.snapshot();
    snap.energy0 = energy_.run_energy();  // drift measured from the run's first state when continued
    if (sim_.hermite() && !sim_.save_hermite_into(snap))  // double, the block steps, its E0
        say("the Hermite run's block step in progress was not waited for: the snapshot has the floats drawn last", true);
    snap.params = params_.sim.step;
    snap.steps_per_frame = params_.sim.steps_per_frame;
    snap.scene_name = scene_.name;
    snap.scene_source = scene_.source.empty() ? scene_path_ : scene_.source;  // a snapshot's: its scene's
    // The units, camera, galaxy names and the colouring on screen, so that the snapshot is
    // viewed as this scene (io/scene_metadata.hpp).
    // Colouring by mass is not written: builds before it refuse a snapshot naming it, and a star
    // cluster, the scene it is for, opens in it anyway.
    const render::ColourMode mode = params_.render.colour_mode;
    scene_.colour_by = mode == render::ColourMode::Mass ? "" : colour_option_name(mode);
    io::put_scene_metadata(scene_, snap.metadata);
    io::write_snapshot(path, snap);
}

void Viewer::load_snapshot() {
    try {
        if (const std::string why = not_a_readable_file(params_.sim.snapshot_path); !why.empty())
            throw std::runtime_error(params_.sim.snapshot_path + ": " + why);
        io::Snapshot snap = io::read_snapshot(params_.sim.snapshot_path);
        Scene restored = scene_;
        restored.state = snap.state;
        take_snapshot_run(snap, params_.sim.snapshot_path, restored);
        restored.params = snap.params;
        restored.steps_per_frame = snap.steps_per_frame;
        if (!snap.scene_name.empty()) restored.name = snap.scene_name;
        // A snapshot that records its scene brings its units and camera (the camera stays where it
        // is when that is the scene on show); an older one is taken for the scene on show.
        const bool recorded = io::apply_scene_metadata(snap.metadata, restored, params_.sim.snapshot_path);
        if (recorded && !snap.scene_source.empty()) restored.source = snap.scene_source;
        install_system(std::move(restored), scene_path_, true, !recorded || snap.scene_source == scene_.source);
        say("snapshot restored from " + params_.sim.snapshot_path, false);
    } catch (const std::exception& e) {
        say(std::string("snapshot not loaded (the simulation goes on): ") + e.what(), true);
    }
}

}  // namespace nbody::app
