#pragma once
// What `nbody view` was asked to do, parsed from the command line.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "nbody/render/camera_path.hpp"
#include "nbody/render/particle_renderer.hpp"
#include "nbody/sim/backend.hpp"
#include "nbody/sim/tree/walk_room.hpp"
#include "integrator_options.hpp"
#include "recorder.hpp"
#include "run_options.hpp"

namespace nbody::app {

struct ViewOptions {
    std::optional<std::string> scene;  // a scene file; none: the built-in collision
    BackendKind backend = BackendKind::Auto;
    std::vector<int> gpus;  // --gpus: the cuda backend steps on these GPUs of this process (empty: one)
    std::optional<std::size_t> bodies;
    // --bodies auto: a galaxy scene gets the N that fits this machine (machine_defaults.hpp), as in
    // a window without --bodies, in a scripted run too.
    bool bodies_auto = false;
    bool headless = false;                  // EGL, no window and no input
    std::optional<long long> frames;        // stop after this many frames (exit 0)
    std::optional<std::string> screenshot;  // PNG of the last frame
    bool no_ui = false;
    bool annotate = false;  // legend, scale bar and model time in saved frames without the panels
    float annotate_size = 0;  // their text height in pixels; 0: 1/40 of the frame's height
    int width = 1280, height = 720;
    bool vsync = true;
    std::optional<float> render_scale;  // --render-scale; none: automatic (render_quality.hpp)
    std::optional<bool> ui_cache;       // --ui-cache on / off; none: automatic (render_quality.hpp)
    bool particle_cache = true;         // --particle-cache (RenderSettings::cache_particles)
    std::optional<int> steps_per_frame;
    std::optional<double> softening;  // --softening: replaces the scene's (a particle file's is a guess)
    std::optional<std::string> save_snapshot;  // --save-snapshot: the state at the end, as the Save button writes it
    std::optional<render::ColourMode> colour;  // none: by galaxy, or by component for one galaxy
    render::SpriteDrawing sprites = render::SpriteDrawing::Auto;  // --sprites
    // --walk-room: what the tree walk leaves of the GPU to the CUDA sprites' deposit drawn beside
    // the steps (a walk in the frame loop, or sprites drawn by GL, get none).
    WalkRoom walk_room{WalkRoom::Kind::Block, 1};
    // --point-size, --exposure, --glow; none: chosen from N (render/sprite_looks.hpp)
    std::optional<float> point_size, exposure, glow;
    bool encounter = false;  // open the Encounter panel at start (--encounter)
    bool show_halo = false;  // dark-matter particles are hidden unless asked for (--show-halo)
    bool open_dialog = false;          // start with the Open dialog showing (--open-dialog)
    std::optional<std::string> drop;   // opened after the first frame as if dropped on the window
    KernelOptions kernel;
    bool gravity_given = false;  // --gravity on the command line (else the CPU window picks the tree for galaxies)
    // --integrator, --t-end, --eta, --dt-max as given; `hermite`: the integrator resolved from them
    // and the scene's [scene] integrator (resolve_view_integrator).
    IntegratorOptions integrator;
    bool hermite = false;
    int hermite_order = 4;  // when `hermite`: 4 or 6

    // `nbody record`: record every frame (frame 0 is the initial state, then steps_per_frame
    // steps between frames), print progress, and finish the recording at the end.
    std::optional<RecordingSettings> record;
    // `nbody view --record DIR`: start recording into DIR on the first frame (the Recording
    // panel's other choices; `record_ui`: with the panels).
    std::optional<std::string> record_folder;
    bool record_ui = false;
    float orbit_deg_per_frame = 0;  // turn the camera this much round the target each frame
    std::optional<render::CameraPath> camera_path;  // record --camera path:FILE: the pose of each frame
    std::optional<int> trails;                      // --trails N: trail points per body (0: off); none: the scene's
    std::optional<std::size_t> select;              // --select I: body I selected from the start
    std::optional<std::pair<float, float>> pick;    // --pick X,Y: a click at that pixel on the first frame
    bool autotune = false;  // --autotune: the Kernel panel's Auto-tune from the first frame
    // The command's name in messages and the report ("view", "record").
    std::string command = "view";
};

// Frame sizes the viewer and the recorder take, per side in pixels.
inline constexpr int kMinSide = 16, kMaxSide = 16384;
// "1920x1080" -> {1920, 1080}; throws CLI::ValidationError naming `option` otherwise, with the
// supported range when the numbers are outside it.
std::pair<int, int> parse_size_option(const std::string& text, const std::string& option);
// Every output of view / record (--screenshot, --record, --out, --mp4) checked before anything
// starts (output_paths.hpp), and the memory for --bodies (or a scene file's N) with the renderer's
// address space. Throws with the problem; returns the host bytes estimated (0: N unknown).
std::uint64_t check_view_outputs(const ViewOptions& options, bool overwrite);
// A warning on stderr for NBODY_SHADER_DIR / NBODY_ASSET_DIR set to a path that is not a folder
// (they would be passed over without a word).
void warn_about_run_time_folders();
// Settles `options.hermite` from --integrator or the scene file's [scene] integrator, and refuses
// what belongs to the other integrator (--eta, --dt-max, --t-end to leapfrog; --steps-per-frame to
// hermite4), with run's words (integrator_options.hpp). Throws std::invalid_argument.
void resolve_view_integrator(ViewOptions& options);
// --softening and --save-snapshot of view and record (one help text each): --softening is checked
// >= 0 by the viewer, --save-snapshot with the other outputs (check_view_outputs).
void add_state_options(CLI::App& cmd, ViewOptions& options);
// "galaxy" | "component" | "speed" | "plain"; throws CLI::ValidationError naming `option`.
render::ColourMode parse_colour_option(const std::string& text, const std::string& option);
// The name parse_colour_option takes for `mode` ("galaxy", ...).
const char* colour_option_name(render::ColourMode mode);
// The mode of that name; none for any other text.
std::optional<render::ColourMode> colour_mode_named(const std::string& name);

// Runs the viewer (window or headless) and returns the process exit code. Errors a user can
// act on (no display, bad scene, a GPU problem) are printed as one message and give 1.
int run_viewer(const ViewOptions& options);

}  // namespace nbody::app
