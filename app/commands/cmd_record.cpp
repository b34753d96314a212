// `nbody record`: a frame sequence (and optionally an MP4) rendered headless through EGL, with
// the viewer's own renderer and frame loop (run_viewer), so what is recorded is what `view` shows.

#include <cmath>
#include <limits>
#include <memory>
#include <string>
#include <tuple>

#include "commands.hpp"
#include "display_options.hpp"
#include "distributed_run.hpp"
#include "nbody/sim/memory_check.hpp"
#include "number_text.hpp"
#include "output_paths.hpp"
#include "viewer_options.hpp"

namespace nbody::app {

void add_record_command(CLI::App& app, int& exit_code) {
    struct Args {
        ViewOptions view;
        std::string backend = "auto", size = "1920x1080", camera = "fixed", out, colour;
        std::optional<std::string> mp4;
        long long bodies = 0, frames = 0;
        int steps_per_frame = 0, fps = 30, encoders = 0;
        bool overwrite = false, ui = false;
    };
    auto a = std::make_shared<Args>();
    CLI::App* cmd = app.add_subcommand("record",
                                       "Render a frame sequence headless (EGL): numbered PNGs "
                                       "frame_000000.png ... in --out, and an MP4 with "
                                       "--mp4 when ffmpeg is installed");
    cmd->add_option("--scene", a->view.scene,
                    "Scene file (scenes/*.toml); default: the built-in galaxy collision");
    cmd->add_option("--bodies,-n", a->bodies, "Number of bodies, e.g. 16384, 64K, 1M (default: the scene's)")
        ->transform(body_count());
    cmd->add_option("--frames", a->frames, "Frames to record (frame 0 is the initial state)")
        ->required()
        ->check(whole_number(1, std::numeric_limits<long long>::max()));
    cmd->add_option("--steps-per-frame", a->steps_per_frame,
                    "Simulation steps between consecutive frames (default: the scene's steps per frame)");
    add_state_options(*cmd, a->view);
    cmd->add_option("--size", a->size, "Frame size WxH in pixels")->capture_default_str();
    cmd->add_option("--out", a->out, "Folder for the PNGs (created if missing)")->required()->check(output_path_check());
    cmd->add_option("--camera", a->camera,
                    "fixed, orbit:DEG_PER_FRAME to turn the camera round the target each frame, or path:FILE to "
                    "fly along keyframes interpolated smoothly (docs/CAMERA-PATHS.md; example: "
                    "assets/camera-paths/figure-eight-flyby.txt)")
        ->capture_default_str();
    cmd->add_option(
        "--mp4", a->mp4,
        "Also write this H.264 MP4 (pipes the frames to ffmpeg; without ffmpeg the PNGs are still "
        "written). Odd sizes lose their last row/column in the MP4 (yuv420p needs even sizes)")
        ->check(output_path_check());
    cmd->add_option("--fps", a->fps, "Frame rate of the MP4")->capture_default_str();
    cmd->add_flag("--overwrite", a->overwrite,
                  "Replace an earlier recording (its frames and MP4): the new one is built beside it and swapped in "
                  "at the end, so an interrupted run leaves the old one or the new one, never a mix; also allows "
                  "replacing a file of another kind, or an input, as in every command");
    cmd->add_option("--backend", a->backend, "reference | cpu | cuda | auto (cuda when a GPU is usable)")
        ->capture_default_str();
    cmd->add_flag("--ui", a->ui, "Include the panels in the frames (default: the particles alone)");
    cmd->add_flag("--annotate", a->view.annotate,
                  "Frames carry the colour legend, a scale bar (in the scene's length unit) and the model time");
    add_annotate_size_option(*cmd, a->view.annotate_size);
    add_colour_option(*cmd, a->colour);
    add_sprites_option(*cmd, a->view);
    add_looks_options(*cmd, a->view);
    cmd->add_flag("--show-halo", a->view.show_halo, "Draw the dark-matter halo particles too (hidden by default)");
    cmd->add_flag("--hide-halo")->description("Do not draw the dark-matter halo (the default; kept for old scripts)");
    cmd->add_option("--encoders", a->encoders,
                    "PNG encoder threads (default: one per hardware thread but one)");
    add_trail_option(*cmd, a->view);
    add_kernel_options(*cmd, a->view.kernel);
    add_integrator_options(*cmd, a->view.integrator,
                           "hermite4, hermite6: the model time of the last frame; the frames are spaced evenly from the start "
                           "(default spacing: the scene's time_per_frame)");
    cmd->footer(
        "Ctrl-C (SIGTERM, SIGHUP) stops after the frame in progress: every frame queued is written, the sequence "
        "stays complete and the MP4 is closed properly (exit status 130 / 143 / 129); a second Ctrl-C, 1 s or "
        "more after the first was acknowledged, aborts without finishing the MP4. Progress goes to stderr; at the end, frames "
        "written, "
        "elapsed time and frames per second (a record_report line), and the per-stage frame timing of `view "
        "--frames` (an fps_report line).");

    const auto gpus = add_gpus_option(*cmd);
    cmd->callback([a, gpus, &exit_code]() {
        ViewOptions o = a->view;
        o.gpus = check_gpus_request(*gpus);
        o.command = "record";
        o.headless = true;
        o.no_ui = !a->ui;
        o.backend = parse_backend_kind(a->backend);
        if (a->bodies < 0) throw CLI::ValidationError("--bodies", "must be >= 1");
        if (a->bodies > 0) o.bodies = std::size_t(a->bodies);
        if (a->frames < 1) throw CLI::ValidationError("--frames", "must be >= 1");
        o.frames = a->frames;
        if (a->steps_per_frame < 0) throw CLI::ValidationError("--steps-per-frame", "must be >= 1" + got(a->steps_per_frame));
        if (a->fps < 1 || a->fps > 1000) throw CLI::ValidationError("--fps", "must be between 1 and 1000" + got(a->fps));
        if (a->encoders < 0) throw CLI::ValidationError("--encoders", "must be >= 1" + got(a->encoders));
        std::tie(o.width, o.height) = parse_size_option(a->size, "--size");
        if (!a->colour.empty()) o.colour = parse_colour_option(a->colour, "--colour");
        apply_camera_option(a->camera, o);
        if (a->out.empty()) throw CLI::ValidationError("--out", "needs a folder name");

        RecordingSettings r;
        r.folder = a->out;
        r.steps_per_frame = a->steps_per_frame;  // 0: the scene's, settled by run_viewer
        r.include_ui = a->ui;
        r.overwrite = a->overwrite;
        r.mp4 = a->mp4;
        r.mp4_fps = a->fps;
        r.encoder_threads = a->encoders;
        o.record = r;
        if (a->steps_per_frame > 0) o.steps_per_frame = a->steps_per_frame;
        resolve_view_integrator(o);
        const MemoryActivity activity("recording", o.bodies.value_or(0), check_view_outputs(o, a->overwrite));
        warn_about_run_time_folders();
        exit_code = run_viewer(o);
    });
}

}  // namespace nbody::app
