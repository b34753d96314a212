#pragma once
// The plain parameters the viewer's panels edit. The panels read and write these structs and
// nothing else; the frame loop acts on them. No behaviour lives here.

#include <optional>
#include <string>

#include "nbody/render/particle_renderer.hpp"
#include "nbody/sim/backend.hpp"
#include "nbody/sim/gravity.hpp"
#include "nbody/sim/hermite/integrator.hpp"
#include "nbody/sim/kernel_config.hpp"
#include "viewer_encounter.hpp"

namespace nbody::app {

struct SimulationParams {
    StepParams step;  // dt and softening, applied from the next step on
    int steps_per_frame = 1;
    // Playback at a fixed model time per wall-clock second instead of fixed steps per frame.
    bool fixed_rate = false;
    double model_time_per_second = 0;  // internal time units per second
    bool paused = false;
    int bodies = 0;           // N the panel shows; applying it rebuilds the scene
    bool auto_energy = true;  // recompute energy every few seconds (only N <= 65536)
    std::string snapshot_path = "nbody.nbsnap";  // the Save / Load snapshot buttons' file
    bool confirm_replace = false;  // Save found the file there: ask before replacing it
    // The integrator (--integrator, a scene's [scene] integrator, the panel): leapfrog steps dt
    // above; hermite4 takes block steps in double to model time, time_per_frame per frame.
    bool hermite = false;
    int hermite_order = 4;  // 4 (hermite4) or 6 (hermite6), when `hermite`
    double eta = 0.01, dt_max = 0.125;
    double time_per_frame = 0.01;
    std::string integrator_error;  // why the Hermite run stopped or did not start; empty while it runs
    const char* integrator_name() const { return hermite ? hermite::integrator_name(hermite_order) : "leapfrog"; }
};

struct KernelParams {
    KernelConfig edited;             // what the combo boxes show
    std::string invalid_reason;      // why `edited` cannot run; empty when it is running or valid
    int flops_per_interaction = 20;  // 20 (the usual count) or 38 (the astrophysics convention)
    std::string autotune_result;     // the last auto-tune's outcome, for the panel
    bool autotune_ok = true;
    bool autotune_running = false;   // between the request and its outcome (the button waits)
    KernelConfig started_with;       // the config chosen at start (default table, cache or options)
    std::string origin;              // where started_with came from (apply_kernel_options)
    GravityConfig gravity;           // the solver the panel shows (direct, or tree with its tunables)
    std::string gravity_reason;      // why `gravity` was refused; empty when it is running
    std::string force_error;         // the last force-error estimate against the direct sum
};

enum class CameraPreset { OrbitalPlane, EdgeOn, FaceOnDisk, EdgeOnDisk };

struct CameraParams {
    bool follow_centre_of_mass = false;
    int follow_galaxy = -1;  // keep galaxy k's centre of mass at the screen centre; -1: off
    int preset_galaxy = 0;   // the galaxy the disk presets look at
};

// The Recording panel's choices; they take effect when a recording starts.
struct RecordingParams {
    std::string folder;       // frame_000000.png ... go here
    int steps_per_frame = 1;  // simulation steps between recorded frames
    bool include_ui = false;  // the panels are in the frames
    // Saved frames (recordings and screenshots) without the panels carry the legend, the scale bar
    // and the model time (`--annotate`); they apply at once.
    bool annotate = false;
    float annotate_size = 0;  // their text height in pixels; 0: 1/40 of the frame's height (--annotate-size)
    bool screenshot_ui = false;  // F / Screenshot save the window as shown, panels included
    bool mp4 = false;         // also an MP4 (ffmpeg)
    std::string mp4_file;     // empty: <folder>.mp4
    bool overwrite = false;   // replace frames of an earlier recording in that folder
};

// One-shot requests raised by keys and buttons, consumed by the frame loop each frame.
struct Requests {
    bool reset = false;
    bool single_step = false;
    bool screenshot = false;
    bool quit = false;
    bool apply_kernel = false;  // KernelParams::edited changed
    bool apply_gravity = false;  // KernelParams::gravity changed
    bool estimate_force_error = false;  // compare the solver's forces with the direct sum on a sample
    bool apply_bodies = false;  // SimulationParams::bodies changed
    bool compute_energy = false;
    bool apply_integrator = false;  // SimulationParams::hermite, eta or dt_max changed
    bool reset_camera = false;
    bool reload_shaders = false;
    bool toggle_recording = false;          // start, or stop, recording (V)
    bool autotune = false;                  // time the kernel configs and apply the fastest
    bool save_snapshot = false;             // to SimulationParams::snapshot_path
    bool replace_snapshot = false;          // with save_snapshot: replacing the file was confirmed
    bool quit_confirmed = false;            // the quit question answered "Quit without saving"
    bool save_and_quit = false;             // ... or "Save snapshot and quit"
    bool load_snapshot = false;             // from SimulationParams::snapshot_path
    std::optional<std::string> load_scene;  // a path, or "" for the built-in scene
    std::optional<CameraPreset> camera_preset;
    std::optional<glm::vec2> pick;  // a click: select the body drawn nearest this framebuffer pixel (y down)
};

struct ViewerParams {
    SimulationParams sim;
    bool confirm_quit = false;  // the quit question is on screen (quit_guard.hpp)
    KernelParams kernel;
    render::RenderSettings render;
    CameraParams camera;
    RecordingParams recording;
    EncounterParams encounter;  // the Encounter panel (viewer_encounter.hpp)
    bool show_ui = true;
    // The panels kept as a picture, drawn again when they change (--ui-cache; render/ui_cache.hpp).
    bool cache_panels = false;
    bool show_help = false;
    bool show_debug = false;
    std::optional<std::size_t> selected;  // the body the Selected body panel shows (a click or --select)
    bool show_open_dialog = false;  // Ctrl+O, File > Open
};

}  // namespace nbody::app
