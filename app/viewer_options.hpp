#pragma once
// What `nbody view` was asked to do, parsed from the command line.

#include <cstddef>
#include <optional>
#include <string>

#include "nbody/render/particle_renderer.hpp"
#include "nbody/sim/backend.hpp"
#include "run_options.hpp"

namespace nbody::app {

struct ViewOptions {
    std::optional<std::string> scene;  // a scene file; none: the built-in collision
    BackendKind backend = BackendKind::Auto;
    std::optional<std::size_t> bodies;
    bool headless = false;                  // EGL, no window and no input
    std::optional<long long> frames;        // stop after this many frames (exit 0)
    std::optional<std::string> screenshot;  // PNG of the last frame
    bool no_ui = false;
    int width = 1280, height = 720;
    bool vsync = true;
    std::optional<int> steps_per_frame;
    std::optional<render::ColourMode> colour;  // none: by galaxy, or by component for one galaxy
    bool hide_halo = false;
    KernelOptions kernel;
};

// Runs the viewer (window or headless) and returns the process exit code. Errors a user can
// act on (no display, bad scene, a GPU problem) are printed as one message and give 1.
int run_viewer(const ViewOptions& options);

}  // namespace nbody::app
