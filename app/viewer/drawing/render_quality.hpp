#pragma once
// How large a frame the renderer draws, chosen from the GL renderer (issue 33). A software
// rasteriser (Mesa's llvmpipe on a machine without a GPU) pays for every pixel of every
// full-frame pass on the CPU, and for every pass: at 1280x720 the tone mapping alone took 90 ms of
// a 135 ms frame on two cores. There the window draws the accumulation, glow and tone mapping at
// half the window's width and height and enlarges the result (RenderSettings::render_scale), with
// the glow pyramid starting a level coarser (RenderSettings::coarse_glow); on a GPU nothing
// changes. `--render-scale` and the Rendering panel override the choice either way. There the
// panels are also kept as a picture, drawn again only when they change (render/ui_cache.hpp;
// `--ui-cache`).

#include <optional>
#include <string>
#include <string_view>

namespace nbody::app {

// The window's render scale on a software renderer: a quarter of the pixels.
inline constexpr float kSoftwareRenderScale = 0.5f;


struct RenderScaleChoice {
    float scale = 1.0f;
    bool coarse_glow = false;  // with a smaller frame on a software renderer
    bool automatic = false;    // chosen for a software renderer, not asked for
};

// `asked`: --render-scale S (clamped to kMinRenderScale..1); none: automatic, that is
// kSoftwareRenderScale in a window on a software renderer and 1 everywhere else (a GPU; headless
// frames and recordings, which are looked at later, not waited for). The glow is coarse where a
// software renderer draws below full size, asked for or not.
RenderScaleChoice choose_render_scale(std::string_view gl_renderer, std::optional<float> asked, bool window);

// The Rendering panel's line on the frame drawn at `scale` (and with a coarse glow) on
// `gl_renderer`: what a software renderer does and how to change it; empty on a GPU at full size.
// `panels_cached`: the panels are kept as a picture (choose_ui_cache), said too.
std::string render_scale_note(std::string_view gl_renderer, float scale, bool coarse_glow,
                              bool panels_cached = false);

// --render-scale's text: "auto" -> none, "0.5" -> 0.5. Throws std::invalid_argument with the
// range for anything else.
std::optional<float> parse_render_scale(const std::string& text);

// Whether the panels are kept as a picture and drawn again only when they change (their numbers a
// few times a second, at once after input). `asked`: --ui-cache on / off; none (auto): in a
// window on a software renderer, where rasterising them costs a quarter of a frame; never on a
// GPU, nor for headless frames and recordings (every frame's numbers are wanted there).
bool choose_ui_cache(std::string_view gl_renderer, std::optional<bool> asked, bool window);

// --ui-cache's text: "auto" -> none, "on" -> true, "off" -> false. Throws std::invalid_argument
// for anything else.
std::optional<bool> parse_ui_cache(const std::string& text);

}  // namespace nbody::app
