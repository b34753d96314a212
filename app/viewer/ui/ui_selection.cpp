#include "ui_selection.hpp"

#include <imgui.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "nbody/render/particle_renderer.hpp"
#include "ui_panels.hpp"
#include "ui_widgets.hpp"

namespace nbody::app {

namespace {

std::string vector_text(const glm::vec3& v, const std::string& unit) { return render::vector_text(v.x, v.y, v.z, unit); }

}  // namespace

std::string describe_body(const SelectionView& v) {
    const UnitSystem units = v.units ? *v.units : UnitSystem{};
    std::string line = "body " + std::to_string(v.index) + " (" + v.galaxy_name + ", " + component_name(v.component) +
                       "): position " + vector_text(v.sample.position, units.length);
    if (v.sample.velocity_known)
        line += ", speed " + with_unit(glm::length(v.sample.velocity), units.velocity);
    line += ", mass " + with_unit(v.sample.mass, units.mass);
    return line;
}

void draw_selection_panel(std::optional<std::size_t>& selected, const SelectionView& v,
                          const render::OrbitCamera& camera) {
    const ImGuiIO& io = ImGui::GetIO();
    // The highlight: a ring round the body (in ImGui's background list: over the particles, under
    // the panels) and its number beside it.
    const float fb_x = io.DisplayFramebufferScale.x > 0 ? io.DisplayFramebufferScale.x : 1.0f;
    const float fb_y = io.DisplayFramebufferScale.y > 0 ? io.DisplayFramebufferScale.y : 1.0f;
    if (const auto at = camera.project_to_image(v.sample.position, v.framebuffer_width, v.framebuffer_height)) {
        const ImVec2 centre(at->x / fb_x, at->y / fb_y);
        const float r = ImGui::GetFontSize() * 0.8f;
        ImDrawList* list = ImGui::GetBackgroundDrawList();
        list->AddCircle(centre, r, IM_COL32(255, 255, 255, 220), 32, 1.5f);
        list->AddCircle(centre, r + 2.0f, IM_COL32(0, 0, 0, 140), 32, 1.0f);
        char label[32];
        std::snprintf(label, sizeof label, "#%zu", v.index);
        list->AddText(ImVec2(centre.x + r + 3.0f, centre.y - r - 2.0f), IM_COL32(255, 255, 255, 230), label);
    }

    // Placed by draw_ui with the other panels (panel_layout.hpp).
    bool open = true;
    if (!ImGui::Begin("Selected body", &open, ImGuiWindowFlags_AlwaysAutoResize)) {
        ImGui::End();
        if (!open) selected.reset();
        return;
    }
    const UnitSystem units = v.units ? *v.units : UnitSystem{};
    const glm::vec3 c = render::galaxy_colour(v.galaxy);
    ImGui::Text("Body %zu", v.index);
    ImGui::SameLine();
    ImGui::TextColored(ImVec4(c.x, c.y, c.z, 1.0f), "%s", v.galaxy_name.c_str());
    ImGui::SameLine();
    ImGui::TextColored(kDim, "%s", component_name(v.component));
    ImGui::Text("position  %s", vector_text(v.sample.position, units.length).c_str());
    if (v.sample.velocity_known) {
        ImGui::Text("velocity  %s", vector_text(v.sample.velocity, units.velocity).c_str());
        tooltip("The displacement between the last two position buffers over the time between them: for the "
                "leapfrog its drift velocity (half a step back), read from the GPU buffers on every path.");
        ImGui::Text("speed     %s", with_unit(glm::length(v.sample.velocity), units.velocity).c_str());
    } else {
        ImGui::TextColored(kDim, "velocity  known after the first step");
    }
    ImGui::Text("mass      %s", with_unit(v.sample.mass, units.mass).c_str());
    const float distance = glm::length(v.sample.position - camera.target());
    ImGui::TextColored(kDim, "%s from the view's centre", with_unit(distance, units.length).c_str());
    if (ImGui::SmallButton("Deselect")) selected.reset();
    ImGui::End();
    if (!open) selected.reset();
}

void draw_trail_controls(render::TrailSettings& t, std::size_t bodies) {
    ImGui::Checkbox("Trails (T)", &t.enabled);
    tooltip("Each body's recent path, fading with age, kept and drawn on the GPU. Points are spaced in model "
            "time, sampled where the simulation steps (its thread, a Hermite run), so a close encounter is a "
            "curve whatever the frame rate; on the CUDA paths a point is a buffer copy at a frame's end.");
    if (!t.enabled) return;
    ImGui::SameLine();
    ImGui::SetNextItemWidth(ImGui::GetFontSize() * 6.0f);
    ImGui::SliderInt("##trail_length", &t.length, 2, render::kMaxTrailLength, "%d points", ImGuiSliderFlags_Logarithmic);
    const int kept = render::capped_trail_length(t.length, bodies);
    ImGui::SetNextItemWidth(ImGui::GetFontSize() * 7.5f);
    const double lo = 1e-6, hi = 1e3;
    ImGui::SliderScalar("##trail_every", ImGuiDataType_Double, &t.interval, &lo, &hi, "every %.3g time units",
                        ImGuiSliderFlags_Logarithmic);
    ImGui::SameLine();
    ImGui::SetNextItemWidth(ImGui::GetFontSize() * 5.0f);
    ImGui::SliderFloat("##trail_brightness", &t.brightness, 0.01f, 5.0f, "light %.2f", ImGuiSliderFlags_Logarithmic);
    const std::string memory = bytes_text(double(kept) * double(bodies) * 16.0);
    if (kept < t.length)
        ImGui::TextColored(kDim, "%d points kept (%s cap), %s", kept, bytes_text(double(render::kMaxTrailBytes)).c_str(),
                           memory.c_str());
    else
        ImGui::TextColored(kDim, "GPU memory %s (16 B per body per point)", memory.c_str());
}

}  // namespace nbody::app
