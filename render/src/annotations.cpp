#include "nbody/render/annotations.hpp"

#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <utility>

#include "nbody/render/stellar_colours.hpp"
#include "nbody/sim/ic/stellar.hpp"

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

std::vector<std::size_t> legend_rows(const std::vector<float>& widths, float room) {
    std::vector<std::size_t> starts;
    float used = 0;
    for (std::size_t k = 0; k < widths.size(); ++k) {
        if (starts.empty() || used + widths[k] > room) {  // an entry wider than the room has a row alone
            starts.push_back(k);
            used = 0;
        }
        used += widths[k];
    }
    return starts;
}

ImFont* annotation_font(float text_px) {
    const ImFontAtlas* atlas = ImGui::GetIO().Fonts;
    // Text shrunk from a face more than twice its size loses strokes; below that the UI's face.
    const bool large = atlas->Fonts.Size > 1 && text_px >= 0.5f * kLargeAnnotationFontPx;
    return large ? atlas->Fonts[1] : atlas->Fonts[0];
}

float annotation_text_px(float asked, float frame_height) { return asked > 0 ? asked : std::max(frame_height / 40.0f, 13.0f); }

std::string galaxy_name(const std::vector<std::string>& names, int k) {
    const std::size_t kk = std::size_t(k);
    return k >= 0 && kk < names.size() && !names[kk].empty() ? names[kk] : "galaxy " + std::to_string(k + 1);
}

const char* component_name(Component c) {
    switch (c) {
        case Component::Disk: return "disk";
        case Component::Bulge: return "bulge";
        case Component::Halo: return "halo";
        case Component::Star: return "star";
        case Component::Unspecified: break;
    }
    return "unspecified";
}

std::pair<double, std::string> split_unit(const std::string& unit) {
    const char* begin = unit.c_str();
    char* end = nullptr;
    const double factor = std::strtod(begin, &end);
    if (end == begin || !std::isfinite(factor)) return {0.0, std::string()};
    std::string rest(end);
    while (!rest.empty() && rest.front() == ' ') rest.erase(rest.begin());
    return {factor, rest};
}

namespace {

// A unit that is not a multiple of a named one: "(N-body units)" for the N-body ones, else as is.
std::string plain_unit(const std::string& unit) { return unit.rfind("N-body", 0) == 0 ? "(N-body units)" : unit; }

}  // namespace

std::string with_unit(double value, const std::string& unit) {
    const auto [factor, name] = split_unit(unit);
    char buf[96];
    if (!name.empty())
        std::snprintf(buf, sizeof buf, "%.4g %s", value * factor, name.c_str());
    else
        std::snprintf(buf, sizeof buf, "%.4g %s", value, plain_unit(unit).c_str());
    return buf;
}

std::string vector_text(double x, double y, double z, const std::string& unit) {
    const auto [factor, name] = split_unit(unit);
    const double f = name.empty() ? 1.0 : factor;
    char buf[160];
    std::snprintf(buf, sizeof buf, "(%.4g, %.4g, %.4g) %s", x * f, y * f, z * f, name.empty() ? plain_unit(unit).c_str() : name.c_str());
    return buf;
}

std::uint32_t display_colour(const glm::vec3& linear) {
    const auto c = [](float v) { return int(255 * std::pow(std::clamp(v, 0.0f, 1.0f), 1 / 2.2f)); };
    return IM_COL32(c(linear.r), c(linear.g), c(linear.b), 255);
}

namespace {

// Draws text and says how wide it was, in the annotations' own size and the face for it.
struct Pen {
    ImDrawList* draw;
    float size;
    ImFont* font = annotation_font(size);
    float width(const std::string& s) const { return font->CalcTextSizeA(size, FLT_MAX, 0.0f, s.c_str()).x; }
    float text(float x, float y, ImU32 colour, const std::string& s) const {
        draw->AddText(font, size, ImVec2(x, y), colour, s.c_str());
        return width(s);
    }
};

constexpr ImU32 kText = IM_COL32(225, 228, 235, 230), kDimText = IM_COL32(160, 166, 180, 220);

// A round length about 6.7 text heights long at the camera's target, with its label.
void draw_scale_bar(const Pen& pen, const FrameAnnotations& a, float x, float y) {
    const ImGuiIO& io = ImGui::GetIO();
    const float px_per_unit = a.camera.focal_pixels(io.DisplaySize.y) / std::max(a.camera.distance(), 1e-6f);
    if (!(px_per_unit > 0) || !std::isfinite(px_per_unit)) return;
    const double want = 6.7 * pen.size / px_per_unit;
    const double decade = std::pow(10.0, std::floor(std::log10(want)));
    double len = decade;
    for (double f : {2.0, 5.0, 10.0})
        if (decade * f <= want) len = decade * f;
    const float w = float(len * px_per_unit), tick = pen.size * 0.22f, thick = std::max(2.0f, pen.size / 9.0f);
    const bool physical = a.units.time_unit_myr > 0;
    char label[64];
    std::snprintf(label, sizeof label, "%g %s", len, physical ? a.units.length.c_str() : "length units");
    const float bar_y = y + pen.size * 0.5f;
    pen.draw->AddLine(ImVec2(x, bar_y), ImVec2(x + w, bar_y), kText, thick);
    pen.draw->AddLine(ImVec2(x, bar_y - tick), ImVec2(x, bar_y + tick), kText, thick);
    pen.draw->AddLine(ImVec2(x + w, bar_y - tick), ImVec2(x + w, bar_y + tick), kText, thick);
    pen.text(x + w + pen.size * 0.36f, y, kText, label);
}

// Swatches and names in rows as wide as the frame allows (long galaxy names in large text on a
// narrow frame take a second row), the last row at `y`, the others above it; returns the rows.
int draw_swatches(const Pen& pen, float x, float y, float line,
                  const std::vector<std::pair<glm::vec3, std::string>>& entries) {
    const float s = pen.size * 0.7f, before_name = s + pen.size * 0.24f, after_name = pen.size * 0.6f;
    std::vector<float> widths;
    for (const auto& entry : entries) widths.push_back(before_name + pen.width(entry.second) + after_name);
    const std::vector<std::size_t> starts = legend_rows(widths, ImGui::GetIO().DisplaySize.x - 2 * x + after_name);
    for (std::size_t row = 0; row < starts.size(); ++row) {
        const std::size_t end = row + 1 < starts.size() ? starts[row + 1] : entries.size();
        const float row_y = y - float(starts.size() - 1 - row) * line;
        float row_x = x;
        for (std::size_t k = starts[row]; k < end; ++k) {
            const auto& [colour, name] = entries[k];
            pen.draw->AddRectFilled(ImVec2(row_x, row_y + s * 0.2f), ImVec2(row_x + s, row_y + s * 1.2f),
                                    display_colour(colour), 2.0f);
            pen.text(row_x + before_name, row_y, kDimText, name);
            row_x += widths[k];
        }
    }
    return int(starts.size());
}

// The speed colour map as the particles use it (from 12% up: slow particles stay visible), 0 at
// its left end and the speed at its top in the scene's velocity unit at its right.
void draw_colour_bar(const Pen& pen, const FrameAnnotations& a, float x, float y) {
    const std::vector<glm::vec3> table = colormap_table(a.colour_map, 256);
    const std::string left = "speed  0", right = with_unit(a.speed_scale, a.units.velocity) + " and above";
    // 10 text heights long, shorter where the frame is too narrow for it and its labels (3 at least).
    const float gap = pen.size * 0.3f, room = ImGui::GetIO().DisplaySize.x - 2 * x - pen.width(left) - pen.width(right) - 2 * gap;
    const float w = std::clamp(room, pen.size * 3.0f, pen.size * 10.0f), h = pen.size * 0.7f;
    x += pen.text(x, y, kDimText, left) + gap;
    constexpr int kSegments = 48;
    for (int i = 0; i < kSegments; ++i) {
        const auto at = [&](int k) { return table[std::size_t((0.12 + 0.88 * k / double(kSegments)) * 255.0)]; };
        const ImU32 left = display_colour(at(i)), right = display_colour(at(i + 1));
        pen.draw->AddRectFilledMultiColor(ImVec2(x + w * i / kSegments, y + h * 0.2f),
                                          ImVec2(x + w * (i + 1) / kSegments, y + h * 1.2f), left, right, right, left);
    }
    pen.text(x + w + gap, y, kDimText, right);
}

// Main-sequence stars of 0.1 to 30 solar masses (ColourMode::Mass), each in its colour and as
// wide as its sprite relative to the others (the heaviest a text height across), then what the
// numbers are: shorter where the frame is too narrow for the whole sentence.
void draw_mass_legend(const Pen& pen, float x, float y) {
    const float largest = pen.size * 0.5f;
    for (double m : {0.1, 0.3, 1.0, 3.0, 10.0, 30.0}) {
        const float r = std::max(largest * stellar_size_factor(m) / stellar_size_factor(30.0), 2.0f);
        pen.draw->AddCircleFilled(ImVec2(x + r, y + pen.size * 0.55f), r,
                                  display_colour(blackbody_colour(ic::main_sequence_temperature(m))));
        char label[16];
        std::snprintf(label, sizeof label, "%g", m);
        x += 2 * r + pen.size * 0.2f;
        x += pen.text(x, y, kDimText, label) + pen.size * 0.5f;
    }
    const float room = ImGui::GetIO().DisplaySize.x - x;
    for (const char* unit : {"solar masses (main sequence)", "solar masses", "Msun"})
        if (pen.width(unit) <= room || unit[0] == 'M') {
            pen.text(x, y, kDimText, unit);
            break;
        }
}

// The legend of the colouring in use; returns false when it has none (plain, one galaxy).
// The legend's rows, the last at `y` (0: no legend).
int draw_legend(const Pen& pen, const FrameAnnotations& a, float x, float y, float line) {
    std::vector<std::pair<glm::vec3, std::string>> entries;
    switch (a.colour_mode) {
        case ColourMode::Galaxy:
            for (int k = 0; a.galaxies > 1 && k < a.galaxies && k < 8; ++k)
                entries.emplace_back(galaxy_colour(k), galaxy_name(a.galaxy_names, k));
            return draw_swatches(pen, x, y, line, entries);
        case ColourMode::Component:
            for (int c = 0; c <= int(Component::Star); ++c)
                if (a.components & (1u << c)) entries.emplace_back(component_colour(c), component_name(Component(c)));
            return draw_swatches(pen, x, y, line, entries);
        case ColourMode::Speed:
            if (!(a.speed_scale > 0)) return 0;
            draw_colour_bar(pen, a, x, y);
            return 1;
        case ColourMode::Mass:
            draw_mass_legend(pen, x, y);
            return 1;
        case ColourMode::Plain: break;
    }
    return 0;
}

}  // namespace

// Bottom up: the scale bar, the legend, the model time; in the background draw list (under the panels).
float draw_annotations(const FrameAnnotations& a) {
    const ImGuiIO& io = ImGui::GetIO();
    const Pen pen{ImGui::GetBackgroundDrawList(), annotation_text_px(a.text_px, io.DisplaySize.y)};
    const float pad = pen.size * 0.6f, line = pen.size * 1.5f;
    float y = io.DisplaySize.y - pad - pen.size;
    draw_scale_bar(pen, a, pad, y);
    y -= line;
    y -= line * float(draw_legend(pen, a, pad, y, line));
    if (a.time) {
        pen.text(pad, y, kText, time_text(*a.time, a.units));
        y -= line;
    }
    return io.DisplaySize.y - y - pen.size;
}

}  // namespace nbody::render
