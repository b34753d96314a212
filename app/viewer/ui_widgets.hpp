#pragma once
// Small Dear ImGui helpers and colours shared by the panels (defined in ui_panels.cpp).

#include <imgui.h>

#include <string>

namespace nbody::app {

extern const ImVec4 kWarn, kError, kGood, kDim;

// The font size: widths in "em" follow the UI scale.
float em();
// Shows `text` while the last item is hovered.
void tooltip(const char* text);
// A "(?)" beside the last item that shows `text` when hovered.
void help_marker(const char* text);
// Text wrapped at `width_em` (auto-sized panels need a fixed wrap width).
void wrapped(const ImVec4& colour, const std::string& text, float width_em);

}  // namespace nbody::app
