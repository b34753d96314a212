// The small helpers, colours and text formats that the panels share (ui_widgets.hpp).
#include "ui_panels.hpp"
#include "ui_widgets.hpp"

#include <imgui.h>

#include <cmath>
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
    ImGui::PushTextWrapPos(ImGui::GetCursorPosX() + em() * width_em);
    ImGui::PushStyleColor(ImGuiCol_Text, colour);
    ImGui::TextUnformatted(text.c_str());
    ImGui::PopStyleColor();
    ImGui::PopTextWrapPos();
}

std::string si(double value) {
    static const char* prefixes[] = {"", " k", " M", " G", " T", " P", " E"};
    int k = 0;
    double v = std::abs(value);
    while (v >= 1000.0 && k < 6) {
        v /= 1000.0;
        ++k;
    }
    char buf[32];
    std::snprintf(buf, sizeof buf,
                  v >= 100  ? "%.0f%s"
                  : v >= 10 ? "%.1f%s"
                            : "%.2f%s",
                  value < 0 ? -v : v, prefixes[k]);
    return buf;
}

std::string fps_text(double fps) {
    char buf[32];
    std::snprintf(buf, sizeof buf, fps < 10 ? "%.1f fps" : "%.0f fps", fps);
    return buf;
}

std::string bytes_text(double bytes) {
    static const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    int k = 0;
    while (bytes >= 1024.0 && k < 4) {
        bytes /= 1024.0;
        ++k;
    }
    char buf[32];
    std::snprintf(buf, sizeof buf, k == 0 ? "%.0f %s" : "%.1f %s", bytes, units[k]);
    return buf;
}
}  // namespace nbody::app
