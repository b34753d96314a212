#include "nbody/render/annotations.hpp"

#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace nbody::render {

std::string time_text(double t, const UnitSystem& units) {
    char buf[64];
    const double myr = t * units.time_unit_myr;
    if (!(units.time_unit_myr > 0))
        std::snprintf(buf, sizeof buf, "t = %.2f (N-body units)", t);
    else if (std::abs(myr) >= 1000.0)
        std::snprintf(buf, sizeof buf, "t = %.3f Gyr", myr * 1e-3);
    else
        std::snprintf(buf, sizeof buf, "t = %.1f Myr", myr);
    return buf;
}

// A scale bar (a round length that is about 120 pixels at the camera's target), the colour legend
// and the model time, bottom left, in the background draw list: under the panels.
float draw_annotations(const FrameAnnotations& a) {
    const ImGuiIO& io = ImGui::GetIO();
    ImDrawList* draw = ImGui::GetBackgroundDrawList();
    const float em = ImGui::GetFontSize();
    const float pad = em * 0.6f;
    const ImU32 text = IM_COL32(225, 228, 235, 230), dim = IM_COL32(160, 166, 180, 220);
    float y = io.DisplaySize.y - pad - em;

    // Scale bar.
    const float px_per_unit = a.camera.focal_pixels(io.DisplaySize.y) / std::max(a.camera.distance(), 1e-6f);
    if (px_per_unit > 0 && std::isfinite(px_per_unit)) {
        const double want = 120.0 / px_per_unit;
        const double decade = std::pow(10.0, std::floor(std::log10(want)));
        double len = decade;
        for (double f : {2.0, 5.0, 10.0})
            if (decade * f <= want) len = decade * f;
        const float w = float(len * px_per_unit);
        const bool physical = a.units.time_unit_myr > 0;
        char label[64];
        std::snprintf(label, sizeof label, "%g %s", len, physical ? a.units.length.c_str() : "length units");
        const float x = pad, bar_y = y + em * 0.5f;
        draw->AddLine(ImVec2(x, bar_y), ImVec2(x + w, bar_y), text, 2.0f);
        draw->AddLine(ImVec2(x, bar_y - 4), ImVec2(x, bar_y + 4), text, 2.0f);
        draw->AddLine(ImVec2(x + w, bar_y - 4), ImVec2(x + w, bar_y + 4), text, 2.0f);
        draw->AddText(ImVec2(x + w + pad * 0.6f, y), text, label);
        y -= em * 1.5f;
    }

    // Legend.
    if (a.colour_mode == ColourMode::Galaxy && a.galaxies > 1) {
        float x = pad;
        for (int k = 0; k < a.galaxies && k < 8; ++k) {
            const glm::vec3 c = galaxy_colour(k);
            const ImU32 col = IM_COL32(int(255 * std::pow(c.r, 1 / 2.2f)), int(255 * std::pow(c.g, 1 / 2.2f)),
                                       int(255 * std::pow(c.b, 1 / 2.2f)), 255);
            const float s = em * 0.7f;
            draw->AddRectFilled(ImVec2(x, y + s * 0.2f), ImVec2(x + s, y + s * 1.2f), col, 2.0f);
            const std::size_t kk = std::size_t(k);
            const std::string name = kk < a.galaxy_names.size() && !a.galaxy_names[kk].empty()
                                         ? a.galaxy_names[kk]
                                         : "galaxy " + std::to_string(k + 1);
            draw->AddText(ImVec2(x + s + pad * 0.4f, y), dim, name.c_str());
            x += s + pad * 1.4f + ImGui::CalcTextSize(name.c_str()).x;
        }
        y -= em * 1.5f;
    }

    // The model time, for frames saved without the status bar that shows it on screen.
    if (a.time) {
        draw->AddText(ImVec2(pad, y), text, time_text(*a.time, a.units).c_str());
        y -= em * 1.5f;
    }
    return io.DisplaySize.y - y - em;
}

}  // namespace nbody::render
