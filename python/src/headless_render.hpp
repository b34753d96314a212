#pragma once
// Frames of a system drawn by the viewer's renderer on the headless EGL path (no display needed):
// what `nbody view --headless --screenshot` draws, handed back as pixels instead of a PNG.
// One EGL context per HeadlessRender, created on first use; GL objects are deleted before it.

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "nbody/render/particle_renderer.hpp"
#include "nbody/sim/scene.hpp"

namespace nbody::python {

struct FrameRequest {
    int width = 1280, height = 720;
    CameraSpec camera;
    render::ColourMode colour = render::ColourMode::Galaxy;
    bool show_halo = false;
    // None: chosen from N as the viewer does (render/sprite_looks.hpp).
    std::optional<float> point_size, exposure;
    // The scale bar, colour legend and model time of `nbody record --annotate` (nbody/render/annotations.hpp).
    bool annotate = false;
    UnitSystem units;
    std::vector<std::string> galaxy_names;
    double time = 0;
};

// "galaxy" | "component" | "speed" | "plain"; throws std::invalid_argument listing them.
render::ColourMode parse_colour_mode(const std::string& name);

class HeadlessRender {
  public:
    HeadlessRender();
    ~HeadlessRender();
    HeadlessRender(const HeadlessRender&) = delete;
    HeadlessRender& operator=(const HeadlessRender&) = delete;

    // RGB, 3 bytes a pixel, rows from the top. `dt` gives the speed colouring its drift.
    std::vector<std::uint8_t> draw(const State& state, double dt, const FrameRequest& request);
    std::string description() const;

  private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

}  // namespace nbody::python
