// `nbody view`: the interactive viewer (a window), or the same renderer headless through EGL.

#include <cstdio>
#include <regex>
#include <stdexcept>
#include <string>
#include <tuple>

#include "commands.hpp"
#include "nbody/render/glfw_window.hpp"
#include "viewer_options.hpp"

namespace nbody::app {

std::pair<int, int> parse_size_option(const std::string& text, const std::string& option) {
    std::smatch m;
    const std::regex wxh(R"((\d{1,5})x(\d{1,5}))");
    if (!std::regex_match(text, m, wxh))
        throw CLI::ValidationError(option, "expected WIDTHxHEIGHT, e.g. 1920x1080 (got '" + text + "')");
    return {std::stoi(m[1].str()), std::stoi(m[2].str())};
}

render::ColourMode parse_colour_option(const std::string& text, const std::string& option) {
    static const char* names[] = {"galaxy", "component", "speed", "plain"};
    for (int i = 0; i < 4; ++i)
        if (text == names[i]) return render::ColourMode(i);
    throw CLI::ValidationError(option, "'" + text + "'; supported: galaxy, component, speed, plain");
}

void add_view_command(CLI::App& app, int& exit_code) {
    auto options = std::make_shared<ViewOptions>();
    auto backend = std::make_shared<std::string>("auto");
    auto size = std::make_shared<std::string>("1280x720");
    auto bodies = std::make_shared<long long>(0);
    CLI::App* cmd = app.add_subcommand(
        "view",
        "Open the viewer (the default with no arguments); --headless renders through EGL without a display");
    cmd->add_option("--scene", options->scene,
                    "Scene file (scenes/*.toml); default: the built-in galaxy collision");
    cmd->add_option("--backend", *backend, "reference | cpu | cuda | auto (cuda when a GPU is usable)")
        ->capture_default_str();
    cmd->add_option("--bodies,-n", *bodies, "Number of bodies (default: the scene's)");
    cmd->add_flag("--headless", options->headless,
                  "Render offscreen through EGL (no display needed); renders --frames frames (default 1)");
    cmd->add_option("--frames", options->frames, "Render this many frames, then exit 0 (window or headless)");
    cmd->add_option("--screenshot", options->screenshot,
                    "Write the last frame to this PNG (needs --frames or --headless)");
    cmd->add_flag("--no-ui", options->no_ui, "No panels (screenshots of the particles alone)");
    cmd->add_option(
        "--record", options->record_folder,
        "Start recording frames into this folder at once (as the V key does; see also `nbody record`)");
    cmd->add_flag("--record-ui", options->record_ui, "With --record: include the panels in the frames");
    cmd->add_option("--size", *size, "Window or image size WxH in pixels")->capture_default_str();
    cmd->add_option("--steps-per-frame", options->steps_per_frame,
                    "Leapfrog steps per frame (default: the scene's)");
    auto colour = std::make_shared<std::string>();
    cmd->add_option("--colour", *colour,
                    "Colour by galaxy | component | speed | plain (default: galaxy, or component "
                    "for a single galaxy)");
    cmd->add_flag("--show-halo", options->show_halo,
                  "Draw the dark-matter halo particles too (a faint haze; hidden by default, toggle in Rendering)");
    cmd->add_flag("--hide-halo")->description("Do not draw the dark-matter halo (the default; kept for old scripts)");
    auto no_vsync = std::make_shared<bool>(false);
    cmd->add_flag("--no-vsync", *no_vsync, "Do not wait for the display's refresh (window mode)");
    add_kernel_options(*cmd, options->kernel);
    cmd->footer(
        "Keys: Space pause, N single step, R reset, F screenshot, V record, H hide UI, C reset camera, G "
        "follow "
        "centre of mass,\n"
        "F1 help, Esc quit. Mouse: left drag orbit, right drag pan, wheel zoom.\n"
        "A --frames run prints average frames/s, ms/step and interactions/s at the end (and an fps_report "
        "line).");

    cmd->callback([options, backend, size, bodies, no_vsync, colour, &exit_code]() {
        ViewOptions o = *options;
        o.vsync = !*no_vsync;
        if (!colour->empty()) o.colour = parse_colour_option(*colour, "--colour");
        o.backend = parse_backend_kind(*backend);
        if (*bodies < 0) throw CLI::ValidationError("--bodies", "must be >= 1");
        if (*bodies > 0) o.bodies = static_cast<std::size_t>(*bodies);
        std::tie(o.width, o.height) = parse_size_option(*size, "--size");
        if (o.screenshot && !o.frames && !o.headless)
            throw CLI::ValidationError("--screenshot", "needs --frames K in window mode (or use --headless)");
        try {
            exit_code = run_viewer(o);
        } catch (const render::NoDisplayError& e) {
            std::fprintf(stderr, "nbody: %s\n", e.what());
            exit_code = 1;
        }
    });
}

}  // namespace nbody::app
