#pragma once
// The Selected body panel and its highlight, and the trail controls of the Rendering panel.

#include <cstddef>
#include <optional>
#include <string>

#include "nbody/render/annotations.hpp"
#include "nbody/render/body_picker.hpp"
#include "nbody/render/camera.hpp"
#include "nbody/render/trail_renderer.hpp"
#include "nbody/sim/scene.hpp"

namespace nbody::app {

// What the panel shows about one body.
struct SelectionView {
    std::size_t index = 0;
    render::BodySample sample;
    int galaxy = 0;
    std::string galaxy_name;  // the scene's name for it ("Milky Way"), else "galaxy 1"
    Component component = Component::Unspecified;
    const UnitSystem* units = nullptr;
    int framebuffer_width = 0, framebuffer_height = 0;  // for the highlight
};

// The panel (placed by draw_ui with the others), a ring round the body and its number; "Deselect"
// clears `selected`.
void draw_selection_panel(std::optional<std::size_t>& selected, const SelectionView& view,
                          const render::OrbitCamera& camera);

// Trails: on/off, length, spacing, brightness, and what they cost at N = `bodies`.
void draw_trail_controls(render::TrailSettings& trails, std::size_t bodies);

// One line for stderr: "body 17 (Milky Way, disk): position (1.2, -3.4, 0.1) kpc, speed 212 km/s, ...".
std::string describe_body(const SelectionView& view);

using render::component_name;  // "disk", "bulge", ...
using render::with_unit;       // "100 km/s" x 2.12 -> "212 km/s"

}  // namespace nbody::app
