#include "render_quality.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <stdexcept>

#include "nbody/render/context.hpp"
#include "nbody/render/particle_renderer.hpp"
#include "number_text.hpp"

namespace nbody::app {

namespace {

std::string lower(std::string_view s) {
    std::string out(s);
    std::transform(out.begin(), out.end(), out.begin(),
                   [](unsigned char c) { return char(std::tolower(c)); });
    return out;
}

// "llvmpipe" from "llvmpipe (LLVM 15.0.6, 256 bits)": the name before any detail in brackets.
std::string renderer_name(std::string_view gl_renderer) {
    const std::string_view name = gl_renderer.substr(0, gl_renderer.find(" ("));
    return std::string(name.empty() ? std::string_view("software renderer") : name);
}

std::string percent(float scale) { return std::to_string(int(std::lround(100.0 * scale))) + "%"; }

}  // namespace

RenderScaleChoice choose_render_scale(std::string_view gl_renderer, std::optional<float> asked, bool window) {
    const bool software = render::is_software_renderer(gl_renderer);
    if (asked) {
        const float scale = std::clamp(*asked, render::kMinRenderScale, 1.0f);
        return {scale, software && scale < 1.0f, false};
    }
    if (!software || !window) return {};
    return {kSoftwareRenderScale, true, true};
}

std::string render_scale_note(std::string_view gl_renderer, float scale, bool coarse_glow,
                              bool panels_cached) {
    const bool smaller = scale < 1.0f;
    const std::string drawn = "the frame is drawn at " + percent(scale) +
                              " of the window's size and enlarged" +
                              (coarse_glow ? ", the glow coarser" : "");
    const std::string cpu = renderer_name(gl_renderer) + " draws on the CPU (no GPU): ";
    std::string frame;
    if (!render::is_software_renderer(gl_renderer))
        frame = smaller ? "Render scale: " + drawn + "." : "";
    else if (smaller)
        frame = cpu + drawn + ", for the frame rate (--render-scale 1: full size).";
    else
        frame = cpu + "full size, each frame slower (--render-scale 0.5 draws a quarter of the pixels).";
    if (!panels_cached) return frame;
    const std::string panels = "The panels are redrawn only when they change (--ui-cache off: every frame).";
    return frame.empty() ? panels : frame + " " + panels;
}

std::optional<float> parse_render_scale(const std::string& text) {
    if (lower(text) == "auto") return std::nullopt;
    const std::optional<float> scale = whole_float(text);
    char range[64];
    std::snprintf(range, sizeof range, "%.2g to 1", double(render::kMinRenderScale));
    if (!scale || *scale < render::kMinRenderScale || *scale > 1.0f)
        throw std::invalid_argument("'" + text +
                                    "' is not a render scale: auto, or a fraction of the window from " +
                                    range + " (0.5: half its width and height)");
    return scale;
}

bool choose_ui_cache(std::string_view gl_renderer, std::optional<bool> asked, bool window) {
    if (asked) return *asked;
    return window && render::is_software_renderer(gl_renderer);
}

std::optional<bool> parse_ui_cache(const std::string& text) {
    const std::string t = lower(text);
    if (t == "auto") return std::nullopt;
    if (t == "on" || t == "off") return t == "on";
    throw std::invalid_argument("'" + text + "' is not a --ui-cache choice: auto, on or off");
}

}  // namespace nbody::app
