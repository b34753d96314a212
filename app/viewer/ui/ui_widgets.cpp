// The small helpers, colours and text formats that the panels share (ui_widgets.hpp).
#include "ui_panels.hpp"
#include "ui_widgets.hpp"

#include <imgui.h>

#include <cstdio>

namespace nbody::app {

const ImVec4 kWarn(1.00f, 0.78f, 0.30f, 1.0f);
const ImVec4 kError(1.00f, 0.42f, 0.38f, 1.0f);
const ImVec4 kGood(0.45f, 0.90f, 0.55f, 1.0f);
const ImVec4 kDim(0.62f, 0.66f, 0.74f, 1.0f);

void tooltip(const char* text) {
    if (ImGui::IsItemHovered()) {
        ImGui::BeginTooltip();
        ImGui::PushTextWrapPos(ImGui::GetFontSize() * 28.0f);
        ImGui::TextUnformatted(text);
        ImGui::PopTextWrapPos();
        ImGui::EndTooltip();
    }
}

void help_marker(const char* text) {
    ImGui::SameLine();
    ImGui::TextDisabled("(?)");
    tooltip(text);
}

bool int_combo(const char* label, int* value, const std::vector<int>& values) {
    bool changed = false;
    char preview[32];
    std::snprintf(preview, sizeof preview, "%d", *value);
    if (ImGui::BeginCombo(label, preview)) {
        for (const int v : values) {
            char item[32];
            std::snprintf(item, sizeof item, "%d", v);
            const bool selected = v == *value;
            if (ImGui::Selectable(item, selected)) {
                changed = v != *value;
                *value = v;
            }
            if (selected) ImGui::SetItemDefaultFocus();
        }
        ImGui::EndCombo();
    }
    return changed;
}

std::string config_label(const KernelConfig& c) {
    char buf[64];
    if (c.pair_mode == PairMode::Full)
        std::snprintf(buf, sizeof buf, "U%d p%d q%d B%d%s%s", c.unroll, c.block, c.threads_per_body,
                      c.bodies_per_thread, c.precision == Precision::Fp32 ? "" : " ",
                      c.precision == Precision::Fp32 ? "" : std::string(to_string(c.precision)).c_str());
    else
        std::snprintf(buf, sizeof buf, "%s L%d", c.pair_mode == PairMode::Symmetric ? "sym" : "sym-bb",
                      c.bodies_per_lane);
    return buf;
}

float em() { return ImGui::GetFontSize(); }

void report_extent(float* bottom, float* height) {
    if (bottom) *bottom = ImGui::GetWindowPos().y + ImGui::GetWindowSize().y;
    if (height) *height = ImGui::GetWindowSize().y;
}

void wrapped(const ImVec4& colour, const std::string& text, float width_em) {
    // Broken by wrap_words, not ImGui's wrapping, which breaks after a '.' inside a number
    // ("walk 7." / "97 ms").
    const auto measure = [](const std::string& s) { return ImGui::CalcTextSize(s.c_str()).x; };
    ImGui::BeginGroup();
    ImGui::PushStyleVar(ImGuiStyleVar_ItemSpacing, ImVec2(ImGui::GetStyle().ItemSpacing.x, 0.0f));
    ImGui::PushStyleColor(ImGuiCol_Text, colour);
    for (const std::string& line : wrap_words(text, em() * width_em, measure)) ImGui::TextUnformatted(line.c_str());
    ImGui::PopStyleColor();
    ImGui::PopStyleVar();
    ImGui::EndGroup();
}

}  // namespace nbody::app
