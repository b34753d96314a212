#pragma once
// What saved frames carry when asked to (`--annotate`, the Recording panel, the Python module's
// render(annotate=True)): a scale bar in the scene's length unit, the colour legend (one swatch
// per galaxy when colouring by galaxy) and the model time, bottom left. Drawn with Dear ImGui into
// its background draw list, so between ImGuiLayer::begin_frame and finish_frame, under any panels.

#include <optional>
#include <string>
#include <vector>

#include "nbody/render/camera.hpp"
#include "nbody/render/particle_renderer.hpp"
#include "nbody/sim/scene.hpp"

namespace nbody::render {

struct FrameAnnotations {
    const OrbitCamera& camera;
    const UnitSystem& units;
    ColourMode colour_mode = ColourMode::Galaxy;
    int galaxies = 1;                              // distinct galaxy labels
    const std::vector<std::string>& galaxy_names;  // a scene's [[galaxy]] names; empty: "galaxy k"
    std::optional<double> time;                    // the model time, when the frame is to show it
};

// Returns the height they take from the bottom of the frame (for keeping panels off them).
float draw_annotations(const FrameAnnotations& annotations);

// "t = 51.0 Myr", "t = 1.25 Gyr" where the scene has physical units; "t = 12.35 (N-body units)"
// otherwise.
std::string time_text(double t, const UnitSystem& units);

}  // namespace nbody::render
