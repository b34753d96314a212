#pragma once
// The Selected body panel and its highlight, and the trail controls of the Rendering panel.

#include <cstddef>
#include <optional>
#include <string>

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
    Component component = Component::Unspecified;
    const UnitSystem* units = nullptr;
    int framebuffer_width = 0, framebuffer_height = 0;  // for the highlight
};

// The panel (bottom right), a ring round the body and its number; "Deselect" clears `selected`.
void draw_selection_panel(std::optional<std::size_t>& selected, const SelectionView& view,
                          const render::OrbitCamera& camera);

// Trails: on/off, length, spacing, brightness, and what they cost at N = `bodies`.
void draw_trail_controls(render::TrailSettings& trails, std::size_t bodies);

// One line for stderr: "body 17 (galaxy 1, disk): position (1.2, -3.4, 0.1) kpc, speed 212 km/s, ...".
std::string describe_body(const SelectionView& view);

// "disk", "bulge", "halo", "star", "unspecified".
const char* component_name(Component c);
// A value in a unit as the scene names it: "100 km/s" x 2.12 -> "212 km/s"; "N-body velocity" ->
// "2.12 (N-body units)".
std::string with_unit(double value, const std::string& unit);

}  // namespace nbody::app
