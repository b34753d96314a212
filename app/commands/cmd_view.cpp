// `nbody view`: the interactive viewer (a window), or the same renderer headless through EGL.

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <iterator>
#include <regex>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

#include "commands.hpp"
#include "display_options.hpp"
#include "distributed_run.hpp"
#include "nbody/sim/memory_check.hpp"
#include "nbody/sim/scene.hpp"
#include "output_paths.hpp"
#include "render_quality.hpp"
#include "nbody/render/glfw_window.hpp"
#include "viewer_options.hpp"

namespace nbody::app {

std::pair<int, int> parse_size_option(const std::string& text, const std::string& option) {
    std::smatch m;
    const std::regex wxh(R"((\d+)x(\d+))");
    const std::string shown = text.size() > 40 ? text.substr(0, 40) + "..." : text;
    if (!std::regex_match(text, m, wxh))
        throw CLI::ValidationError(option, "expected WIDTHxHEIGHT, e.g. 1920x1080 (got '" + shown + "')");
    // The limit is stated here, not left to a pattern that would call 20000x20000 malformed.
    const auto side = [](const std::string& digits) { return digits.size() > 6 ? 1000000 : std::stoi(digits); };
    const int w = side(m[1].str()), h = side(m[2].str());
    if (w < kMinSide || h < kMinSide || w > kMaxSide || h > kMaxSide)
        throw CLI::ValidationError(option, "'" + shown + "' is outside the supported sizes " +
                                               std::to_string(kMinSide) + "x" + std::to_string(kMinSide) + " to " +
                                               std::to_string(kMaxSide) + "x" + std::to_string(kMaxSide));
    return {w, h};
}

namespace {

// Bytes --save-snapshot will take: from N where it is known before the scene is built, else the
// size of the particle file it comes from (a snapshot of the same bodies is about as large).
std::uint64_t snapshot_bytes(const ViewOptions& o, std::optional<std::uint64_t> bodies) {
    const std::string backend = backend_name_for(o.backend);
    const Precision precision = requested_precision(o.kernel);
    const bool precise = o.hermite || backend == "reference" || precision == Precision::Ds || precision == Precision::Fp64;
    if (bodies) return particle_file_bytes(OutputKind::Snapshot, *bodies, precise, o.hermite);
    std::error_code ec;
    const std::uintmax_t size = o.scene ? std::filesystem::file_size(*o.scene, ec) : 0;
    return ec ? 0 : std::uint64_t(size);
}

}  // namespace

std::uint64_t check_view_outputs(const ViewOptions& o, bool overwrite) {
    // A refused N leaves nothing behind: checked before any output folder is created, and before
    // a scene of that many bodies is built.
    const std::optional<std::uint64_t> bodies =
        planned_bodies(o.scene.value_or(""), o.bodies ? std::optional<long long>(*o.bodies) : std::nullopt);
    // Without a known N the renderer's own need is still checked (N = 0).
    // A Hermite run keeps its double arrays on the host beside the renderer's.
    const Workload work{backend_name_for(o.backend), requested_precision(o.kernel), /*viewer=*/true,
                        parse_gravity(o.kernel.gravity.gravity), o.hermite ? o.hermite_order : 0};
    const std::uint64_t estimate = check_memory_for(bodies.value_or(0), work);
    std::vector<OutputRequest> outputs;
    if (o.screenshot) outputs.push_back({"--screenshot", *o.screenshot, OutputKind::Png});
    if (o.save_snapshot)
        outputs.push_back({"--save-snapshot", *o.save_snapshot, OutputKind::Snapshot, snapshot_bytes(o, bodies)});
    if (o.record_folder) outputs.push_back({"--record", *o.record_folder, OutputKind::Folder});
    if (o.record) {
        outputs.push_back({"--out", o.record->folder.string(), OutputKind::Folder});
        if (o.record->mp4) outputs.push_back({"--mp4", *o.record->mp4, OutputKind::Mp4});
    }
    check_outputs(outputs, {o.scene.value_or("")}, overwrite);
    return estimate;
}

void warn_about_run_time_folders() {
    std::error_code ec;
    for (const char* variable : {"NBODY_SHADER_DIR", "NBODY_ASSET_DIR"}) {
        const char* dir = std::getenv(variable);
        if (dir == nullptr || *dir == '\0' || std::filesystem::is_directory(dir, ec)) continue;
        std::fprintf(stderr, "nbody: warning: %s '%s' %s; it is not used (files are looked for next to the "
                             "executable and in the source tree)\n",
                     variable, dir, std::filesystem::exists(dir, ec) ? "is not a folder" : "does not exist");
    }
}

namespace {
const char* const kColourNames[] = {"galaxy", "component", "speed", "plain", "mass"};  // render::ColourMode's order
constexpr int kColours = int(std::size(kColourNames));
}  // namespace

const char* colour_option_name(render::ColourMode mode) {
    const int i = int(mode);
    return i >= 0 && i < kColours ? kColourNames[i] : "galaxy";
}

void add_state_options(CLI::App& cmd, ViewOptions& options) {
    cmd.add_option("--softening", options.softening,
                   "Plummer softening length epsilon (default: the scene's or snapshot's; a particle file's is a "
                   "guess from its size). 0 for few-body systems with hermite4/6");
    cmd.add_option("--save-snapshot", options.save_snapshot,
                   "When the run ends (the last of --frames, Ctrl-C, the window closed), write the state reached to "
                   "this .nbsnap, as the Save button does: a Hermite run's in double with the block steps that "
                   "`nbody run -i` and the viewer resume exactly where every body is at that time (checked before "
                   "the viewer starts)")
        ->check(output_path_check());
}

void resolve_view_integrator(ViewOptions& o) {
    const std::string from_scene = integrator_of_file(o.scene.value_or(""));
    const Integrator chosen =
        resolve_integrator(o.integrator, from_scene, {{"--steps-per-frame", o.steps_per_frame.has_value()}});
    o.hermite = is_hermite(chosen);
    o.hermite_order = hermite_order(chosen);
    if (!o.hermite && o.integrator.t_end)
        throw std::invalid_argument("--t-end in " + o.command + " belongs to --integrator hermite4 or hermite6 (leapfrog plays "
                                    "--steps-per-frame steps of the scene's dt per frame)");
}

std::optional<render::ColourMode> colour_mode_named(const std::string& name) {
    for (int i = 0; i < kColours; ++i)
        if (name == kColourNames[i]) return render::ColourMode(i);
    return std::nullopt;
}

render::ColourMode parse_colour_option(const std::string& text, const std::string& option) {
    if (const auto mode = colour_mode_named(text)) return *mode;
    throw CLI::ValidationError(option, "'" + text + "'; supported: galaxy, component, speed, plain, mass");
}

void add_view_command(CLI::App& app, int& exit_code) {
    auto options = std::make_shared<ViewOptions>();
    auto backend = std::make_shared<std::string>("auto");
    auto size = std::make_shared<std::string>("1280x720");
    auto bodies = std::make_shared<std::string>();
    CLI::App* cmd = app.add_subcommand(
        "view",
        "Open the viewer (the default with no arguments); --headless renders through EGL without a display");
    cmd->add_option("--scene", options->scene,
                    "Scene file (.toml, as in scenes/) or particles (.csv, .tipsy/.std/.bin, .nbsnap; a "
                    "snapshot shows the camera and units of the scene it was run from); default: the "
                    "Milky Way - Andromeda collision");
    cmd->add_flag("--open-dialog", options->open_dialog,
                  "Start with the Open dialog (Ctrl+O) listing the working folder");
    cmd->add_option("--drop", options->drop,
                    "After the first frame, open this file as if it were dropped onto the window (a file "
                    "that cannot be opened is reported and the running scene kept): for scripts and tests");
    cmd->add_option("--backend", *backend, "reference | cpu | cuda | auto (cuda when a GPU is usable)")
        ->capture_default_str();
    cmd->add_option("--bodies,-n", *bodies,
                    "Number of bodies, or auto: a galaxy scene gets the largest N whose steps fit a frame's budget "
                    "here, a tree step timed at start-up (on a GPU one step per frame within 8 ms, a power of two: "
                    "1,048,576 on an H100 or H200; on the CPU the scene's steps per frame at 5 frames/s). "
                    "Default: auto for a galaxy scene in a window, else the scene's (on the CPU at most 8,192 of "
                    "a scene file's)")
        ->transform(auto_or(body_count()));
    cmd->add_flag("--headless", options->headless,
                  "Render offscreen through EGL (no display needed); renders --frames frames (default 1)");
    cmd->add_option("--frames", options->frames, "Render this many frames, then exit 0 (window or headless)");
    cmd->add_option("--screenshot", options->screenshot,
                    "Write the last frame to this PNG (needs --frames or --headless); checked before the "
                    "viewer starts")
        ->check(output_path_check());
    auto overwrite = std::make_shared<bool>(false);
    add_overwrite_flag(*cmd, *overwrite);
    cmd->add_flag("--no-ui", options->no_ui, "No panels (screenshots of the particles alone)");
    cmd->add_flag("--annotate", options->annotate,
                  "Saved frames without the panels (--no-ui screenshots, recordings, F) carry the colour legend, a "
                  "scale bar and the model time (also in the Recording panel)");
    add_annotate_size_option(*cmd, options->annotate_size);
    cmd->add_option(
        "--record", options->record_folder,
        "Start recording frames into this folder at once (as the V key does; see also `nbody record`)")
        ->check(output_path_check());
    cmd->add_flag("--record-ui", options->record_ui, "With --record: include the panels in the frames");
    cmd->add_option("--size", *size, "Window or image size WxH in pixels")->capture_default_str();
    cmd->add_option("--steps-per-frame", options->steps_per_frame,
                    "Leapfrog steps per frame (default: the scene's)");
    add_state_options(*cmd, *options);
    auto colour = std::make_shared<std::string>();
    add_colour_option(*cmd, *colour);
    add_sprites_option(*cmd, *options);
    add_walk_room_option(*cmd, *options);
    cmd->add_flag("--autotune", options->autotune,
                  "Auto-tune the CUDA kernel from the first frame, as the Kernel panel's Auto-tune does: about 60 "
                  "configurations timed between two steps while the window draws, the fastest applied and cached "
                  "for this GPU and N (the cuda backend only)");
    add_looks_options(*cmd, *options);
    cmd->add_flag("--show-halo", options->show_halo,
                  "Draw the dark-matter halo particles too (a faint haze; hidden by default, toggle in Rendering)");
    cmd->add_flag("--hide-halo")->description("Do not draw the dark-matter halo (the default; kept for old scripts)");
    cmd->add_flag("--encounter", options->encounter,
                  "Open the Encounter panel (set up a collision of two galaxies: mass ratio, pericentre, e, disk "
                  "orientations; Launch, Save), starting from --scene when it is a two-galaxy scene");
    auto no_vsync = std::make_shared<bool>(false);
    cmd->add_flag("--no-vsync", *no_vsync, "Do not wait for the display's refresh (window mode)");
    auto render_scale = std::make_shared<std::string>("auto");
    cmd->add_option("--render-scale", *render_scale,
                    "Draw the particles, glow and tone mapping at this fraction of the window's width and height, "
                    "enlarged onto it (0.25 to 1). auto: 0.5 in a window on a software renderer (Mesa llvmpipe, no "
                    "GPU), where every pixel costs CPU time, with a coarser glow; 1 on a GPU, for headless frames "
                    "and for `nbody record`")
        ->capture_default_str();
    auto ui_cache = std::make_shared<std::string>("auto");
    cmd->add_option("--ui-cache", *ui_cache,
                    "on: keep the panels as a picture, drawn again only when they change (at once after a "
                    "key, click or mouse move over a panel; their numbers at most 4 times a second) and "
                    "blended over each frame. off: draw them every frame. auto: on in a window on a software "
                    "renderer (Mesa llvmpipe), where drawing them costs CPU time every frame; off on a GPU, "
                    "for headless frames and for `nbody record`")
        ->capture_default_str();
    auto particle_cache = std::make_shared<std::string>("on");
    cmd->add_option("--particle-cache", *particle_cache,
                    "on: a frame whose particles would look as in the frame before (no new step shown, the "
                    "camera, size and looks unchanged, no new trail point) keeps their light, tone mapped, and "
                    "draws only the panels over it: the GPU (or the CPU, on a software renderer) goes to the "
                    "simulation. off: draw every particle every frame (timing the drawing itself)")
        ->check(CLI::IsMember({"on", "off"}))
        ->capture_default_str();
    auto camera = std::make_shared<std::string>("fixed");
    cmd->add_option("--camera", *camera,
                    "fixed (the scene's camera, moved by the mouse), orbit:DEG_PER_FRAME to turn it round the "
                    "target each frame, or path:FILE to fly along keyframes, one pose a frame (as `nbody record "
                    "--camera`; docs/CAMERA-PATHS.md)")
        ->capture_default_str();
    add_trail_option(*cmd, *options);
    cmd->add_option("--select", options->select,
                    "Select body I at start (as a click on it does): its data in the Selected body panel, "
                    "highlighted, and a line on stderr")
        ->check(whole_number(0, kMaxBodiesOption));
    auto pick = std::make_shared<std::string>();
    cmd->add_option("--pick", *pick,
                    "Click at X,Y (image pixels from the top-left) on the first frame: selects the body drawn "
                    "nearest that point (scripts, tests)");
    add_kernel_options(*cmd, options->kernel);
    add_integrator_options(*cmd, options->integrator,
                           "hermite4, hermite6: the model time to reach. With --frames K the frames are spaced evenly to it (the "
                           "last shows t = T); in a window the simulation pauses there");
    cmd->footer(
        "Keys: Space pause, N single step, R reset, F screenshot, V record, H hide UI, C reset camera, G "
        "follow "
        "centre of mass,\n"
        "T trails, Ctrl+O open a file (or drop one on the window), F1 help, Esc quit.\n"
        "Mouse: left drag orbit, right drag pan, wheel zoom, click a body to select it.\n"
        "A --frames run prints average frames/s, ms/step and interactions/s at the end (and an fps_report "
        "line).");

    const auto gpus = add_gpus_option(*cmd);
    cmd->callback([cmd, options, backend, size, bodies, no_vsync, render_scale, ui_cache, particle_cache, camera,
                   colour, overwrite, pick, gpus, &exit_code]() {
        ViewOptions o = *options;
        o.gpus = check_gpus_request(*gpus);
        o.gravity_given = cmd->count("--gravity") > 0;
        if (!pick->empty()) o.pick = parse_pixel_option(*pick, "--pick");
        o.vsync = !*no_vsync;
        try {
            o.render_scale = parse_render_scale(*render_scale);
        } catch (const std::invalid_argument& e) {
            throw CLI::ValidationError("--render-scale", e.what());
        }
        try {
            o.ui_cache = parse_ui_cache(*ui_cache);
        } catch (const std::invalid_argument& e) {
            throw CLI::ValidationError("--ui-cache", e.what());
        }
        o.particle_cache = *particle_cache == "on";
        apply_camera_option(*camera, o);
        if (!colour->empty()) o.colour = parse_colour_option(*colour, "--colour");
        o.backend = parse_backend_kind(*backend);
        o.bodies_auto = *bodies == "auto";
        if (!o.bodies_auto && !bodies->empty() && std::stoll(*bodies) > 0) o.bodies = std::stoull(*bodies);
        std::tie(o.width, o.height) = parse_size_option(*size, "--size");
        if (o.screenshot && !o.frames && !o.headless)
            throw CLI::ValidationError("--screenshot", "needs --frames K in window mode (or use --headless)");
        resolve_view_integrator(o);
        const MemoryActivity activity("running the viewer", o.bodies.value_or(0), check_view_outputs(o, *overwrite));
        warn_about_run_time_folders();
        try {
            exit_code = run_viewer(o);
        } catch (const render::NoDisplayError& e) {
            std::fprintf(stderr, "nbody: %s\n", e.what());
            exit_code = 1;
        }
    });
}

}  // namespace nbody::app
