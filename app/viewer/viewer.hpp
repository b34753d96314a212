#pragma once
// The viewer: one object that owns the systems (surface, simulation, renderer, UI, recorder)
// and runs the frame loop shared by the window and the headless modes. Each frame is a few
// named parts, each in its own file:
//
//   poll input              viewer.cpp            (the Surface: GLFW window or EGL headless)
//   act on requests         viewer_requests.cpp   (scene, N, kernel, snapshots, recording)
//   step                    viewer_step.cpp       (the simulation and the energy monitor)
//                           viewer_hermite_step.cpp (hermite4: block steps to the frame's model time)
//   draw, panels, capture   viewer_draw.cpp       (particles, ImGui panels, screenshots)
//   recording               viewer_recording.cpp  (start, capture, stop)
//   end-of-run report       viewer_report.cpp
//
// Members are declared in the order they must be built: the GL context first, so that it is
// destroyed after everything that owns GL objects.

#include <chrono>
#include <deque>
#include <future>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "centre_of_mass.hpp"
#include "frame_pacer.hpp"
#include "viewer_autotune.hpp"
#include "machine_defaults.hpp"
#include "viewer_camera.hpp"
#include "nbody/render/body_picker.hpp"
#include "nbody/render/gpu_timer.hpp"
#include "nbody/render/imgui_layer.hpp"
#include "nbody/render/particle_renderer.hpp"
#include "nbody/render/trail_renderer.hpp"
#include "open_dialog.hpp"
#include "progress.hpp"
#include "recorder.hpp"
#include "recorder_interrupt.hpp"
#include "ui_panels.hpp"
#include "viewer_options.hpp"
#include "viewer_params.hpp"
#include "viewer_profile.hpp"
#include "viewer_scenes.hpp"
#include "viewer_sim.hpp"
#include "viewer_stats.hpp"
#include "viewer_surface.hpp"
#include "viewer_encounter.hpp"

namespace nbody::app {

// What the end-of-run report averages (frames after the first, which pays for shader
// compilation, the first force pass and buffer uploads).
struct RunTotals {
    long long frames = 0, steps = 0;
    double seconds = 0, ms_per_step_sum = 0;
    long long ms_samples = 0;
    // Screenshots (--screenshot, F) read back and written within the timed frames: left out of
    // the frame times (a 1080p PNG takes ~0.5 s, 2 ms a frame over 300 frames: device run 108).
    double screenshot_seconds = 0;
    std::size_t bytes_to_host = 0, bytes_uploaded = 0;
    FrameTimes frame_times;  // frames 2.., each from its start to the next one's
};

// True while `f`'s work runs on its own thread (a deferred future, not started, is not running).
template <class T>
bool still_running(const std::future<T>& f) {
    return f.valid() && f.wait_for(std::chrono::seconds(0)) == std::future_status::timeout;
}

// The frame while the simulation runs beside the frame loop and nothing else paces it (60 frames/s).
inline constexpr std::chrono::microseconds kBesideFrameTime{16667};

class Viewer {
  public:
    // Loads the scene (a bad file fails before any window opens), opens the surface, loads the
    // simulation. Throws what the user must fix.
    explicit Viewer(const ViewOptions& options);
    Viewer(const Viewer&) = delete;
    Viewer& operator=(const Viewer&) = delete;

    // The frame loop; returns the process exit code.
    int run();

  private:
    using Clock = std::chrono::steady_clock;

    // --- the parts of a frame, in order ----------------------------------------------------
    void act_on_requests(const Requests& requests, const render::DrawTarget& target);  // viewer_requests.cpp
    bool step(const Requests& requests, double dt_frame);  // viewer_step.cpp; true when this frame is recorded
    int steps_this_frame(double dt_frame);  // steps/frame, or what the playback speed asks for
    bool step_leapfrog(const Requests& requests, double dt_frame);  // viewer_step.cpp
    bool step_hermite(const Requests& requests, double dt_frame);   // viewer_hermite_step.cpp
    bool play_hermite_beside(const Requests& requests, double dt_frame);
    bool step_hermite_in_loop(const Requests& requests, double dt_frame);
    double hermite_increment(double dt_frame) const;
    void hermite_reached_t_end();
    void hermite_stopped(const std::exception& e);
    // Where in the frame's drawing a screenshot is taken: Image, before the panels (F, unless
    // the Rendering panel's "with panels" is ticked); Screen, as shown (and --screenshot).
    enum class ScreenshotAt { None, Image, Screen };
    void draw(const render::DrawTarget& target, bool capture_frame, double dt_frame, ScreenshotAt shot);  // viewer_draw.cpp
    void feed_trails();         // viewer_draw.cpp: the simulation's trail points into the ring
    void set_sampling_intervals(int trail_points);  // trails and cluster radii, by the scene's model time per frame
    bool is_final_frame() const {  // of a --frames run, or the closing frame after a stop
        return closing_frame_ || (frame_limit_ > 0 && frame_ + 1 >= frame_limit_);
    }
    // viewer_draw.cpp: `final_shot`: --screenshot (the last frame, or the one kept after a stop), else F's
    void save_screenshot(const render::DrawTarget& target, bool final_shot);
    bool stop_now();  // viewer.cpp: a stop signal between frames; true: the loop ends
    void end_frame(bool capture_frame, double dt_frame);                               // viewer.cpp
    void print_tree_report();
    // --- hermite4/6 (viewer_hermite_step.cpp) ------------------------------------------------
    void integrator_from_scene();   // a scene's [scene] integrator keys into the panel's params
    void start_integrator_from_options();  // at start: the scene's, then --integrator, --eta, ...
    // --sprites cuda needs the cuda backend with interop (an error otherwise); auto picks the CUDA
    // deposit where the cuda backend steps beside the frame loop through interop.
    void choose_cuda_sprites(const ViewOptions& o);
    HermiteSettings hermite_settings() const;  // of the panel's parameters
    HermiteSettings hermite_settings(const SimulationParams& s) const;
    // From the current state; on failure: paused, the error shown. Where Hermite runs beside the
    // window the start (a force evaluation and an energy sum of every body) runs on a worker and
    // the frames go on: true then means it started.
    bool start_hermite_run(const std::optional<io::RunEnergy>& energy0 = std::nullopt, bool announce = false);
    void begin_hermite_start(const std::optional<io::RunEnergy>& energy0, bool announce);
    bool hermite_start_pending();  // adopts a start that is done; true while one runs
    void drop_hermite_start();     // superseded (a new system, leapfrog again): not waited for
    void hermite_ready(const std::optional<io::RunEnergy>& energy0, bool announce);
    void hermite_start_failed(const std::exception& e);
    void apply_integrator();        // the panel's integrator, eta, dt_max, softening: switched live
    void print_hermite_report();
    // viewer_report.cpp: timings (the frames' up to `frames_done`, when their GL work had run: not the
    // stop of a simulation beside them), the recording's summary, the exit code
    int finish(Clock::time_point frames_done);
    // After a stop or a quit: ends the process with `status` at once when work is still running
    // (`unfinished`, or a scene build, an energy sum), rather than wait for it; else returns.
    void end_without_waiting(int status, std::string unfinished);

    // --- helpers -------------------------------------------------------------------------
    void say(const std::string& text, bool is_error);  // a toast, or an error notice
    void start_energy();
    // The energy sum's NaN/Inf guard: a state that went non-finite pauses the run with a notice.
    bool paused_for_non_finite(const State& state);
    // The simulation steps beside the frame loop at its own pace (a window run until closed), not
    // exactly each frame's steps (a scripted run's frames wait for theirs).
    bool free_running() const { return sim_.beside() && !exact_frames_; }
    void start_first_energy_sums();         // of a system just loaded: at once, on workers
    // A cuda tree run takes its potential from the GPU tree's walk, between two steps (issue 33):
    // O(N log N) on the GPU instead of a host tree walk over all N.
    bool energy_on_gpu() const;
    void start_energy_on_gpu();
    // kAutoEnergyMaxN, kGpuTreeAutoEnergyMaxN for a cuda tree run, or kHostAutoEnergyMaxN on the CPU
    std::size_t auto_energy_max_n() const;
    // Puts `next` in place of the running system; throws (leaving the running one) when invalid.
    // `started`: its Hermite run, started where the scene was built (used if its settings are still
    // the ones the panel asks for).
    void install_system(Scene next, const std::string& path, bool new_scene, bool keep_camera,
                        std::unique_ptr<ViewerHermite> started = nullptr);
    // The Hermite run `next` starts with `chosen`'s settings (resumed where it saved one for that
    // order). Reads only the options: called where a scene is built, beside the window too.
    std::unique_ptr<ViewerHermite> start_scene_hermite(const Scene& next, const SimulationParams& chosen) const;
    // Rebuilds from a scene file (reset, another scene, another N); on failure the old one runs on
    // and the reason is said. `reread`: from the file even when it is the scene on show (a file
    // picked, dropped or opened may have changed since). `opened`: said when it is on screen.
    // Beside the frame loop a new scene is built on another thread (finish_scene_build()).
    void replace_system(const std::string& path, std::optional<std::size_t> bodies, bool keep_camera,
                        bool reread = false, bool opened = false);
    // N for a listed scene file launched in the window, by the rule the first scene was fitted by
    // (fit_launched_bodies); nullopt: the file's own. Says the N chosen.
    std::optional<std::size_t> launched_bodies(const std::string& path);
    // The steps per frame a new scene runs at: the fit's (one on a GPU) for a galaxy, else its own.
    int steps_per_frame_for(const Scene& scene) const;
    // viewer_step.cpp: the drawing's GPU time, for the force pass's shares over several GPUs.
    void share_the_drawing_gpu();
    // viewer_step.cpp: --walk-room on the cuda backend while the CUDA sprites are drawn beside the
    // steps, else none (every frame: the panel may switch the drawing, a new scene the backend).
    void make_room_for_cuda_sprites();
    std::string walk_room_text() const;  // viewer_report.cpp: the report's line on it
    // viewer_defaults.cpp: a galaxy scene in a window (or with --bodies auto) runs the tree code
    // with the N that fits this machine (machine_defaults.hpp). Returns the gravity options the run
    // applies with the kernel's (--gravity's, or the tree where the fit chose it).
    GravityOptions fit_scene_to_machine(const ViewOptions& o, std::size_t listed_bodies);
    void fit_host_scene(std::size_t listed_bodies);
    void fit_gpu_scene(const ViewOptions& o);
    // One frame in a window with `text` and nothing else, before a start-up measurement that the
    // first frame waits for (a second or two on a GPU): no window left black and silent meanwhile.
    void show_start_message(const std::string& text);
    void show_fitted_scene(Scene fitted);
    void frame_scene_at_start();  // viewer.cpp: all the scene's galaxies in view, as a launch does
    CameraSpec framed_camera(const Scene& scene) const;  // the scene's camera, fitted to the surface
    // The Save button's: a failure is said, the simulation goes on; a file already there is
    // replaced only when `replace` (else the Simulation panel asks). True when saved.
    bool save_snapshot(bool replace);
    bool quit_now(bool asked, const Requests& requests);  // viewer.cpp: Esc / close, asked first
    // The state on screen with its scene (and a Hermite run's double state and block steps): --save-snapshot
    // and save_snapshot(). Throws for a file that cannot be written (none is left half-written).
    void write_snapshot_to(const std::string& path);
    void load_snapshot();
    void toggle_recording(const render::DrawTarget& target);
    void start_recording(const RecordingSettings& settings, int width, int height);  // viewer_recording.cpp
    RecordingSummary stop_recording();
    void capture(const render::DrawTarget& target, bool capture_frame);
    void update_recording_view(bool capture_frame);
    bool build_ui(const render::DrawTarget& target, double dt_frame);  // false: no UI this frame
    void apply_camera_preset(CameraPreset preset);  // viewer_camera.cpp
    void pick_body(glm::vec2 pixel, const render::DrawTarget& target);  // viewer_picking.cpp: a click
    // "body 17 (Milky Way, disk): position ... kpc, speed ... km/s, mass ..." for stderr (viewer_picking.cpp)
    std::string describe_selected(std::size_t index, const render::BodySample& sample);
    void refresh_selection();  // the selected body's data, read back (32 bytes) for this frame
    void draw_selection();     // its panel and highlight (inside the UI frame)
    void draw_open_dialog();   // Ctrl+O, when open (inside the UI frame)
    void apply_camera_path();  // record --camera path:FILE: this frame's pose
    void aim_camera();                              // follow the centre of mass or a galaxy
    void init_encounter_editor(bool open);          // viewer_encounter.cpp: presets, the CPU cap
    void act_on_encounter();                        // the Encounter panel's preset, Launch, Save
    // Beside the frame loop a scene is built on another thread (replace_system) and installed by
    // this, once per frame, when it is ready; the window shows what is being built meanwhile.
    void finish_scene_build();
    std::vector<BusyWork> busy_work() const;  // what the window says is under way (viewer_draw.cpp)
    std::shared_ptr<AutotuneProgressText> autotune_progress_;  // while the Kernel panel's auto-tune runs

    // --- what the run was asked to do ---------------------------------------------------------
    const ViewOptions o_;
    const long long frame_limit_;  // 0: until closed
    const bool record_run_;        // `nbody record`
    std::optional<RecordingSettings> record_settings_;

    // --- the systems, in construction order -----------------------------------------------------
    std::string scene_path_;
    Scene scene_;
    std::unique_ptr<Surface> surface_;
    Clock::time_point surface_opened_ = Clock::now();  // right after surface_ is built
    SimulationDriver sim_;
    render::ParticleRenderer renderer_;
    render::TrailRenderer trails_;
    std::deque<TrailPoint> trail_points_;  // sampled ahead of the state drawn: appended once it catches up
    render::BodyPicker picker_;
    render::OrbitCamera camera_;
    std::unique_ptr<render::ImGuiLayer> ui_;
    std::unique_ptr<Recorder> recorder_;  // after the renderer and the UI: destroyed first

    // --- state the panels edit or show ----------------------------------------------------------
    ViewerParams params_;
    Requests pending_;  // raised by the UI during a frame, acted on at the start of the next
    CentreOfMassTrack com_;
    double playback_debt_ = 0;
    HermitePlayback hermite_play_;
    int galaxy_count_ = 1;
    unsigned component_bits_ = 0;  // component_bits of the scene on show
    GalaxyTrack galaxy_track_;  // the followed galaxy, refreshed a few times a second  // model time the fixed playback speed owes (less than one step)
    PerfStats perf_;
    EnergyMonitor energy_;
    bool gpu_energy_queued_ = false;  // start_energy_on_gpu's sum waits for its turn between steps
    PanelVisibility visible_;
    std::optional<render::BodySample> selected_sample_;  // params_.selected as read this frame
    OpenDialog open_dialog_;  // Ctrl+O
    std::vector<SceneChoice> scenes_;
    std::optional<SceneSpec> launched_encounter_;  // what Launch built, for Reset and another N
    std::vector<std::string> app_messages_;
    std::vector<Clock::time_point> notice_seen_;  // when each notice first appeared
    std::string toast_;
    Clock::time_point toast_until_{};

    // --- recording ---------------------------------------------------------------------------
    RecordingView recording_view_;
    bool first_recorded_frame_ = false;  // the first frame of a recording shows the state as it was
    bool recording_failed_ = false;      // any recording that could not start or lost frames
    std::optional<RecordingSummary> record_summary_;
    std::optional<Progress> progress_;

    // --- long work shown while the window draws (issue 33) -----------------------------------
    struct BuiltSystem {
        Scene scene;
        std::unique_ptr<ViewerHermite> hermite;  // its Hermite run started, where it runs one
    };
    struct SceneBuild {
        std::future<BuiltSystem> scene;
        std::string path, what;  // what: "building antennae.toml, 65,536 bodies"
        bool new_scene = true, keep_camera = false, opened = false;
        Clock::time_point started;
    };
    std::optional<SceneBuild> scene_build_;
    std::vector<std::future<BuiltSystem>> superseded_builds_;  // a newer request came: dropped when done
    // A Hermite run starting beside the window: the state on screen stays, nothing steps, the
    // spinner says what runs (its first forces and energy: about a second at 8,192 stars on two cores).
    struct HermiteStart {
        std::future<std::unique_ptr<ViewerHermite>> run;
        std::optional<io::RunEnergy> energy0;  // the E0 of the run that a snapshot continues
        bool announce = false;                 // switched to from the panel: said once it runs
        std::string what;
        Clock::time_point started;
    };
    std::optional<HermiteStart> hermite_start_;
    std::vector<std::future<std::unique_ptr<ViewerHermite>>> superseded_starts_;
    std::optional<MachineFit> machine_fit_;  // how the first scene was fitted (galaxy scenes in a window)

    // --- timing ------------------------------------------------------------------------------
    render::GpuFrameTimer gpu_timer_;
    render::GpuFrameTimer* gpu_timing_ = nullptr;  // null: NBODY_GPU_TIMERS=0 leaves queries out
    FrameProfile profile_;
    RunTotals totals_;
    long long frame_ = 0;
    int interrupted_ = 0;      // the stop signal that ended the loop (main installs the handlers)
    bool exact_frames_ = false;  // scripted on the simulation thread: each frame waits for exactly its steps
    bool frame_cut_short_ = false;  // a stop came while this frame waited for its steps
    bool user_quit_ = false;        // Esc, File > Quit or the close button ended the loop
    Clock::time_point stop_seen_{};  // when the loop saw the stop or the quit
    bool last_frame_kept_ = false;  // headless: --screenshot is the last frame drawn before the stop
    bool closing_frame_ = false;  // --screenshot (or a first recorded frame) after a stop: one more frame, not stepped
    Clock::time_point last_frame_start_, measure_start_;
    FramePacer pacer_{kBesideFrameTime};  // beside the simulation, without vsync: 60 frames/s
    double saved_time_ = 0;  // model time of the last save or load: quitting later asks first
    double first_frame_seconds_ = 0;                    // from surface_opened_ to the first present
    WalkRoom walk_room_;  // what make_room_for_cuda_sprites() last gave the backend
    double gl_ms_per_frame_ = -1;  // share_the_drawing_gpu(): GL's recent mean a frame; < 0: none yet
};

// A scene's [scene] integrator keys (hermite4/6, eta, dt_max, time per frame) into `s`.
void choose_scene_integrator(const Scene& scene, SimulationParams& s);
// What `next` runs with after `now`: a new scene its own step and integrator, a reset `now`'s
// (the steps per frame apart, which the viewer chooses).
SimulationParams params_for(SimulationParams now, const Scene& next, bool new_scene);

// "nbody-frames-20260101-120000": the Recording panel's first folder.
std::string default_recording_folder();
// `nbody record`'s opening line on stderr: frames, size, folder, steps (or `spacing`, when given), MP4.
void announce_recording(const RecordingSettings& settings, long long frames, int width, int height,
                        const std::string& spacing = "");

// Without a GPU the galaxy scenes (65K bodies) would take seconds per step: the viewer shows them
// at this N unless N was asked for (start-up, and scenes picked from the list).
inline constexpr std::size_t kHostViewerBodies = kHostMinBodies;

// After a stop, how long the step in progress is given to end before the process ends without it
// (a stop is honoured within a second: the frame that notices it, this, the outputs).
inline constexpr std::chrono::milliseconds kStopPatience{250};

// Energy is for the Simulation panel: above this N the O(N^2) sum would compete with the frame
// loop for the CPU.
inline constexpr std::size_t kAutoEnergyMaxN = 65536;
// On a host backend the sum competes with the simulation itself for the same cores: at 65,536
// bodies it took longer than the first tree step on two cores (docs/VIEWER.md, issue 33).
inline constexpr std::size_t kHostAutoEnergyMaxN = 16384;
// A cuda tree run sums its potential with the GPU tree (at most two steps' time: the test
// GpuTreePotential.TheEnergyOfATreeRunCostsAtMostTwoSteps), every 3 s: up to 4M bodies (a ~25 ms
// step on an H100) that is under 2 % of the GPU's time.
inline constexpr std::size_t kGpuTreeAutoEnergyMaxN = 4194304;
// A cuda every-pair run from kGpuPotentialFrom bodies sums its potential on the GPU in double (the
// Hermite engine's fp64 kernel, diagnostics.hpp), every EnergyMonitor::automatic_period(): up to 1M
// bodies, where the first sum takes seconds (docs/VIEWER.md).
inline constexpr std::size_t kGpuDirectAutoEnergyMaxN = 1048576;

}  // namespace nbody::app
