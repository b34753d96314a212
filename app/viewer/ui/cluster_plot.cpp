#include "cluster_plot.hpp"

#include <imgui.h>

#include <algorithm>
#include <array>
#include <cmath>

#include "ui_widgets.hpp"

namespace nbody::app {
namespace {

struct Series {
    const char* name;
    double ClusterProfile::*radius;
    ImU32 colour;
};

constexpr std::array<Series, 4> kSeries{{{"core", &ClusterProfile::core, IM_COL32(255, 120, 90, 255)},
                                         {"r10", &ClusterProfile::r10, IM_COL32(255, 210, 110, 255)},
                                         {"r50", &ClusterProfile::r50, IM_COL32(140, 220, 140, 255)},
                                         {"r90", &ClusterProfile::r90, IM_COL32(120, 170, 255, 255)}}};

// The log10 range of every series, widened to at least a decade's tenth so a flat line sits mid-plot.
std::pair<double, double> log_range(const std::vector<ClusterProfile>& samples) {
    double lo = 1e300, hi = -1e300;
    for (const ClusterProfile& p : samples)
        for (const Series& s : kSeries)
            if (p.*s.radius > 0) {
                lo = std::min(lo, std::log10(p.*s.radius));
                hi = std::max(hi, std::log10(p.*s.radius));
            }
    if (lo > hi) return {0.0, 1.0};  // nothing measured yet
    if (hi - lo < 0.1) return {lo - 0.05, hi + 0.05};
    return {lo, hi};
}

}  // namespace

// Five lines of text tall: with the energy line above it, it fits under the Simulation panel's
// controls at 1280x720 (issue 33).
ImVec2 cluster_plot_size(float em) { return ImVec2(em * 18.0f, em * 5.0f); }

void draw_cluster_plot(const ClusterHistory& history) {
    if (!history.active()) return;
    const std::vector<ClusterProfile> samples = history.samples();
    const float em = ImGui::GetFontSize();
    const ImVec2 size = cluster_plot_size(em);
    const ImVec2 at = ImGui::GetCursorScreenPos();
    ImDrawList* draw = ImGui::GetWindowDrawList();
    draw->AddRectFilled(
        at, ImVec2(at.x + size.x, at.y + size.y),
        IM_COL32(kClusterPlotBackground[0], kClusterPlotBackground[1], kClusterPlotBackground[2], 255));
    if (samples.size() < 2) {
        draw->AddText(ImVec2(at.x + em * 0.5f, at.y + em * 0.5f), IM_COL32(160, 166, 180, 220),
                      "Lagrangian radii: measuring as the cluster runs");
        ImGui::Dummy(size);
        ImGui::TextColored(kDim, "core -  r10 -  r50 -  r90 -");
        return;
    }
    const auto [lo, hi] = log_range(samples);
    const double t0 = samples.front().time, t1 = std::max(samples.back().time, t0 + 1e-12);
    for (const Series& s : kSeries) {
        std::vector<ImVec2> line;
        for (const ClusterProfile& p : samples) {
            if (!(p.*s.radius > 0)) continue;
            const float x = float((p.time - t0) / (t1 - t0)) * size.x;
            const float y = float((std::log10(p.*s.radius) - lo) / (hi - lo)) * size.y;
            line.push_back(ImVec2(at.x + x, at.y + size.y - y));
        }
        draw->AddPolyline(line.data(), int(line.size()), s.colour, ImDrawFlags_None, 1.5f);
    }
    ImGui::Dummy(size);
    if (ImGui::IsItemHovered())
        ImGui::SetTooltip("Lagrangian radii (10, 50, 90 %% of the mass, about the centre of mass) and King's core "
                          "radius, log scale from %.3g to %.3g, t = %.3g to %.3g; measured by the simulation every "
                          "ten frames' worth of model time",
                          std::pow(10.0, lo), std::pow(10.0, hi), t0, t1);
    const ClusterProfile& now = samples.back();
    for (const Series& s : kSeries) {
        ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(s.colour), "%s %.3g", s.name, now.*s.radius);
        ImGui::SameLine();
    }
    ImGui::NewLine();
}

}  // namespace nbody::app
