// The whole UI of one frame: the menu bar, then the panels stacked in two columns (panel_layout.hpp:
// none over another, the middle of the window and the bottom band free), then what is drawn over
// the scene.
#include "ui_panels.hpp"
#include "ui_widgets.hpp"

#include <imgui.h>
#include <imgui_internal.h>  // the window being dragged, a window's size by name

#include <algorithm>
#include <cfloat>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>

#include "panel_layout.hpp"

namespace nbody::app {

namespace {

void draw_menu_bar(ViewerParams& params, PanelVisibility& visible, Requests& requests, const PanelContext& ctx) {
    if (ImGui::BeginMainMenuBar()) {
        if (ImGui::BeginMenu("File")) {
            if (ImGui::MenuItem("Open...", "Ctrl+O")) params.show_open_dialog = true;
            ImGui::EndMenu();
        }
        if (ImGui::BeginMenu("View")) {
            if (ImGui::MenuItem("Reset layout")) visible.pinned.clear();
            ImGui::SetNextItemWidth(em() * 8.0f);
            ImGui::SliderFloat("UI scale", &visible.ui_scale, 0.6f, 2.5f, "%.2f");
            ImGui::Separator();
            ImGui::MenuItem("Kernel", nullptr, &visible.kernel);
            ImGui::MenuItem("Simulation", nullptr, &visible.simulation);
            ImGui::MenuItem("Rendering", nullptr, &visible.rendering);
            ImGui::MenuItem("Recording", nullptr, &visible.recording);
            ImGui::MenuItem("Encounter", nullptr, &visible.encounter);
            ImGui::MenuItem("Debug", nullptr, &params.show_debug);
            ImGui::Separator();
            if (ImGui::MenuItem("Hide UI", "H")) params.show_ui = false;
            ImGui::EndMenu();
        }
        if (ImGui::BeginMenu("Simulation")) {
            if (ImGui::MenuItem(params.sim.paused ? "Resume" : "Pause", "Space"))
                params.sim.paused = !params.sim.paused;
            if (ImGui::MenuItem("Single step", "N")) {
                params.sim.paused = true;
                requests.single_step = true;
            }
            if (ImGui::MenuItem("Reset", "R")) requests.reset = true;
            if (ImGui::MenuItem("Screenshot", "F")) requests.screenshot = true;
            if (ImGui::MenuItem(ctx.recording.active ? "Stop recording" : "Record", "V"))
                requests.toggle_recording = true;
            ImGui::Separator();
            if (ImGui::MenuItem("Quit", "Esc")) requests.quit = true;
            ImGui::EndMenu();
        }
        if (ImGui::BeginMenu("Help")) {
            ImGui::MenuItem("Keys and mouse", "F1", &params.show_help);
            ImGui::EndMenu();
        }
        // Bytes copied device-to-host by this frame's steps: 0 on the interop path.
        char right[160];
        std::snprintf(right, sizeof right, "%s   %s   %s D2H/frame", fps_text(ctx.perf.fps()).c_str(),
                      describe(ctx.sim.path()),
                      bytes_text(double(ctx.perf.bytes_to_host_last_frame())).c_str());
        ImGui::SameLine(ImGui::GetWindowWidth() - ImGui::CalcTextSize(right).x - em());
        ImGui::TextColored(kDim, "%s", right);
        ImGui::EndMainMenuBar();
    }
}

// The panels in the order they are stacked (panel_layout.hpp): Kernel (left), Encounter (right:
// a tool opened on purpose comes before the rest), Simulation (left), Rendering, Recording
// (right), Debug, Selected body (left); a panel goes to the other column when its own is full.
// Each follows a panel above it that grows, shrinks or collapses; one the user dragged stays put.
struct Slot {
    const char* name;  // the panel's window title
    Column column;
    std::function<void()> draw;
    bool start_collapsed = false;  // with start_when: how the panel first appears
    ImGuiCond start_when = 0;      // 0: no initial state
};

std::vector<Slot> open_panels(ViewerParams& params, PanelVisibility& visible, Requests& requests, const PanelContext& ctx) {
    std::vector<Slot> slots;
    // Kernel is for tuning a GPU: out of the way until opened, unless the run started on the tree
    // code, whose theta and force error live here.
    if (visible.kernel)
        slots.push_back({"Kernel", Column::Left, [&] { draw_kernel_panel(params.kernel, requests, ctx, &visible.kernel); },
                         params.kernel.gravity.gravity != Gravity::Tree, ImGuiCond_Once});
    if (visible.encounter)
        slots.push_back({"Encounter", Column::Right, [&] { draw_encounter_panel(params.encounter, &visible.encounter); }});
    if (visible.simulation)
        slots.push_back({"Simulation", Column::Left, [&] { draw_simulation_panel(params.sim, requests, ctx, &visible.simulation); }});
    if (visible.rendering)
        slots.push_back({"Rendering", Column::Right, [&] {
                             draw_rendering_panel(params.render, params.camera, params.cache_panels, requests,
                                                  ctx, &visible.rendering);
                         }});
    // Recording is collapsed at first, being used less than the others.
    if (visible.recording)
        slots.push_back({"Recording", Column::Right,
                         [&] { draw_recording_panel(params.recording, requests, ctx, &visible.recording); },
                         !ctx.recording.active, ImGuiCond_Appearing});
    if (params.show_debug) slots.push_back({"Debug", Column::Left, [&] { draw_debug_panel(ctx, &params.show_debug); }});
    if (ctx.selection_panel) slots.push_back({"Selected body", Column::Left, ctx.selection_panel});
    return slots;
}

bool contains(const std::vector<std::string>& names, const char* name) {
    return std::find(names.begin(), names.end(), name) != names.end();
}

// Where the user drags a panel, it stays (ImGui's moving window is internal state: no public call
// says a window is being dragged).
void pin_dragged_panel(PanelVisibility& visible, const std::vector<Slot>& slots) {
    const ImGuiWindow* moving = GImGui->MovingWindow ? GImGui->MovingWindow->RootWindow : nullptr;
    if (!moving || !ImGui::IsMouseDragging(ImGuiMouseButton_Left)) return;
    for (const Slot& s : slots)
        if (std::strcmp(moving->Name, s.name) == 0 && !contains(visible.pinned, s.name)) visible.pinned.push_back(s.name);
}

void place_panel(PanelVisibility& visible, const Slot& slot, const PanelSize& size, const PanelPlace& place) {
    const bool right = place.column == Column::Right;
    ImGui::SetNextWindowPos(ImVec2(right ? place.x + size.width : place.x, place.y), ImGuiCond_Always,
                            ImVec2(right ? 1.0f : 0.0f, 0.0f));
    ImGui::SetNextWindowSizeConstraints(ImVec2(0, 0), ImVec2(FLT_MAX, place.max_height));
    // Collapsed once when the room runs out, not every frame: the user may open it again. (One
    // SetNextWindowCollapsed per Begin: the last call wins, so this one replaces the first-look one.)
    const bool was = contains(visible.collapsed_by_layout, slot.name);
    if (place.collapsed && !was) {
        ImGui::SetNextWindowCollapsed(true, ImGuiCond_Always);
        visible.collapsed_by_layout.push_back(slot.name);
    } else if (!place.collapsed && was) {
        std::erase(visible.collapsed_by_layout, std::string(slot.name));
    }
}

// The panels' sizes as ImGui has them now: this frame's for those already drawn, else the last.
std::vector<PanelSize> sizes_now(const std::vector<const Slot*>& slots) {
    std::vector<PanelSize> sizes;
    for (const Slot* s : slots) {
        const ImGuiWindow* w = ImGui::FindWindowByName(s->name);
        sizes.push_back({w ? w->Size.x : 0.0f, w ? w->Size.y : 0.0f, s->column});
    }
    return sizes;
}

// NBODY_LOG_PANELS=1: each new layout on stderr, one line ("panels: area W H top T band B; Name X Y
// W H [collapsed] [pinned]; ..."), so that a window test driven by xdotool can check that no panel
// covers another after a menu click or a drag (tests/render/render_test.cpp). Off: one getenv.
void log_layout_if_asked(const std::vector<Slot>& slots, const PanelVisibility& visible, const LayoutArea& area) {
    static const bool asked = [] {
        const char* env = std::getenv("NBODY_LOG_PANELS");
        return env && *env && std::strcmp(env, "0") != 0;
    }();
    if (!asked) return;
    static std::string last;
    char item[256];
    std::snprintf(item, sizeof item, "panels: area %.0f %.0f top %.0f band %.0f", area.width, area.height, area.top,
                  area.bottom_band);
    std::string line = item;
    for (const Slot& s : slots) {
        const ImGuiWindow* w = ImGui::FindWindowByName(s.name);
        if (!w) continue;
        std::snprintf(item, sizeof item, "; %s %.0f %.0f %.0f %.0f%s%s", s.name, w->Pos.x, w->Pos.y, w->Size.x,
                      w->Size.y, w->Collapsed ? " collapsed" : "", contains(visible.pinned, s.name) ? " pinned" : "");
        line += item;
    }
    if (line == last) return;
    last = line;
    std::fprintf(stderr, "%s\n", line.c_str());
}

void draw_panels(ViewerParams& params, PanelVisibility& visible, Requests& requests, const PanelContext& ctx) {
    const ImGuiIO& io = ImGui::GetIO();
    const std::vector<Slot> slots = open_panels(params, visible, requests, ctx);
    pin_dragged_panel(visible, slots);
    const float margin = em() * 0.5f;
    const LayoutArea area{io.DisplaySize.x,
                          io.DisplaySize.y,
                          ImGui::GetFrameHeight() + margin,
                          visible.bottom_band + margin,
                          margin,
                          ImGui::GetFrameHeight(),
                          em() * 8.0f};
    std::vector<const Slot*> stacked;
    for (const Slot& s : slots)
        if (!contains(visible.pinned, s.name)) stacked.push_back(&s);
    // Placed one at a time, right before each is drawn (SetNextWindow* applies to the next Begin),
    // from the sizes of those above as they are now: a panel resizes itself in its Begin, so one
    // that just grew would be overlapped for a frame by a place taken from its old size.
    std::size_t k = 0;
    for (const Slot& s : slots) {
        if (s.start_when != 0) ImGui::SetNextWindowCollapsed(s.start_collapsed, s.start_when);
        if (k < stacked.size() && stacked[k] == &s) {
            const std::vector<PanelSize> sizes = sizes_now(stacked);
            place_panel(visible, s, sizes[k], stack_panels(area, sizes)[k]);
            ++k;
        }
        s.draw();
    }
    log_layout_if_asked(slots, visible, area);
}

}  // namespace

void draw_ui(ViewerParams& params, PanelVisibility& visible, Requests& requests, const PanelContext& ctx) {
    draw_menu_bar(params, visible, requests, ctx);
    ImGuiIO& io = ImGui::GetIO();
    if (visible.base_font_scale <= 0) visible.base_font_scale = io.FontGlobalScale;
    io.FontGlobalScale = visible.base_font_scale * std::clamp(visible.ui_scale, 0.5f, 3.0f);
    if (io.DisplaySize.x != visible.layout_width || io.DisplaySize.y != visible.layout_height) {
        visible.pinned.clear();
        visible.layout_width = io.DisplaySize.x;
        visible.layout_height = io.DisplaySize.y;
    }
    draw_panels(params, visible, requests, ctx);
    if (params.show_help) draw_help_panel(&params.show_help);
    const float status = draw_status_bar(ctx, params);
    visible.bottom_band = std::max(status, draw_annotations(ctx, params));
    draw_backend_badge(ctx);
    draw_recording_indicator(ctx);
    draw_busy_indicator(ctx);
    draw_quit_dialog(params, requests, ctx);
}
}  // namespace nbody::app
