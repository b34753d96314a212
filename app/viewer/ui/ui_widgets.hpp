#pragma once
// Small Dear ImGui helpers, colours and window flags shared by the panels (ui_widgets.cpp). The text
// formats of numbers with units (si, time_text, ...) are in ui_panels.hpp.

#include <imgui.h>

#include <cstddef>
#include <string>
#include <vector>

#include "nbody/sim/kernel_config.hpp"

namespace nbody::app {

extern const ImVec4 kWarn, kError, kGood, kDim;

// Panels size themselves to their content (nothing is ever cut off behind a scroll bar); draw_ui
// places them for the first frames and after View > Reset layout, then they go where they are dragged.
constexpr ImGuiWindowFlags kPanelFlags = ImGuiWindowFlags_AlwaysAutoResize;
// Status windows drawn over the scene (the status bar, the backend badge): fixed, not
// interactive, sized to their text.
constexpr ImGuiWindowFlags kOverlayFlags = ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_AlwaysAutoResize |
                                           ImGuiWindowFlags_NoSavedSettings | ImGuiWindowFlags_NoFocusOnAppearing |
                                           ImGuiWindowFlags_NoNav | ImGuiWindowFlags_NoMove | ImGuiWindowFlags_NoInputs;

// The font size: widths in "em" follow the UI scale.
float em();
// Shows `text` while the last item is hovered.
void tooltip(const char* text);
// A "(?)" beside the last item that shows `text` when hovered.
void help_marker(const char* text);
// Text wrapped at `width_em`, never inside a number or between a number and its unit (wrap_words):
// wrapped text in an auto-sized window needs a fixed wrap width, or the window and the text would
// each wait for the other to decide.
void wrapped(const ImVec4& colour, const std::string& text, float width_em = 21.0f);
// A combo over `values`; returns true when the choice changed.
bool int_combo(const char* label, int* value, const std::vector<int>& values);
// The current window's lower edge and height, for placing the next panel (either may be null).
void report_extent(float* bottom, float* height);
// "U8 p1024 q1 B4", "U8 p512 q2 B2 ds", "sym-bb L8": a kernel configuration in a few characters.
std::string config_label(const KernelConfig& c);

// A combo over the names of an enum whose values are 0 .. K-1.
template <typename Enum, std::size_t K>
bool enum_combo(const char* label, Enum& value, const char* const (&names)[K]) {
    int index = int(value);
    ImGui::SetNextItemWidth(em() * 13.0f);
    if (!ImGui::Combo(label, &index, names, int(K))) return false;
    value = Enum(index);
    return true;
}

}  // namespace nbody::app
