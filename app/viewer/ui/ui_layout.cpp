// The whole UI of one frame: the menu bar, then the panels placed in the default layout (the
// middle of the window free) until the user moves them, then what is drawn over the scene.
#include "ui_panels.hpp"
#include "ui_widgets.hpp"

#include <imgui.h>

#include <algorithm>
#include <cfloat>
#include <cstdio>

namespace nbody::app {

void draw_ui(ViewerParams& params, PanelVisibility& visible, Requests& requests, const PanelContext& ctx) {
    if (ImGui::BeginMainMenuBar()) {
        if (ImGui::BeginMenu("File")) {
            if (ImGui::MenuItem("Open...", "Ctrl+O")) params.show_open_dialog = true;
            ImGui::EndMenu();
        }
        if (ImGui::BeginMenu("View")) {
            if (ImGui::MenuItem("Reset layout")) visible.layout_frames = 0;
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
    // The default layout: Kernel (collapsed) top left with Simulation under it, Rendering top
    // right, Recording (collapsed) under whichever column is shorter, Debug bottom left; the
    // middle of the window stays free. Placed for the first few frames (auto-sized panels learn
    // their size from a frame of content) and after View > Reset layout or a resize; in between,
    // the panels stay where they are dragged. Collapse, close (or H) to clear the view.
    ImGuiIO& io = ImGui::GetIO();
    if (visible.base_font_scale <= 0) visible.base_font_scale = io.FontGlobalScale;
    io.FontGlobalScale = visible.base_font_scale * std::clamp(visible.ui_scale, 0.5f, 3.0f);
    if (io.DisplaySize.x != visible.layout_width || io.DisplaySize.y != visible.layout_height) {
        visible.layout_frames = 0;
        visible.layout_width = io.DisplaySize.x;
        visible.layout_height = io.DisplaySize.y;
    }
    const bool place = visible.layout_frames < 4;
    if (place) ++visible.layout_frames;
    const ImGuiCond cond = place ? ImGuiCond_Always : ImGuiCond_Once;

    const float margin = em() * 0.5f, top = ImGui::GetFrameHeight() + margin;
    float left_y = top;
    if (visible.kernel) {
        ImGui::SetNextWindowPos(ImVec2(margin, top), cond);
        // For tuning a GPU: out of the way until opened, unless the run started on the tree code,
        // whose theta and force error live here.
        ImGui::SetNextWindowCollapsed(params.kernel.gravity.gravity != Gravity::Tree, ImGuiCond_Once);
        draw_kernel_panel(params.kernel, requests, ctx, &visible.kernel, &left_y);
        left_y += margin;
    }
    float right_y = top;
    if (visible.rendering) {
        ImGui::SetNextWindowPos(ImVec2(io.DisplaySize.x - margin, top), cond, ImVec2(1.0f, 0.0f));
        draw_rendering_panel(params.render, params.camera, requests, ctx, &visible.rendering, &right_y);
        right_y += margin;
    }
    if (visible.simulation) {
        // Under Kernel when it fits there (its height is last frame's) above the scale bar, legend
        // and badge of the bottom rows, else under Rendering.
        const float bottom = io.DisplaySize.y - margin - ImGui::GetFontSize() * 3.2f;
        const bool fits_right = right_y + visible.simulation_height <= bottom;
        const bool fits_left = left_y + visible.simulation_height <= bottom;
        if (fits_left || !fits_right) {
            // Where it fits in neither column (hermite4 adds its level histogram), it scrolls
            // rather than cover the legend and the scale bar.
            ImGui::SetNextWindowPos(ImVec2(margin, left_y), cond);
            ImGui::SetNextWindowSizeConstraints(ImVec2(0, 0), ImVec2(FLT_MAX, std::max(bottom - left_y, em() * 10.0f)));
            left_y += visible.simulation_height + margin;
        } else {
            ImGui::SetNextWindowPos(ImVec2(io.DisplaySize.x - margin, right_y), cond, ImVec2(1.0f, 0.0f));
            right_y += visible.simulation_height + margin;
        }
        draw_simulation_panel(params.sim, requests, ctx, &visible.simulation, &visible.simulation_height);
    }
    if (visible.recording) {
        // Next in whichever column has more room left (its height is last frame's); it starts
        // collapsed, being used less than the others.
        const bool left = left_y <= right_y;
        if (left)
            ImGui::SetNextWindowPos(ImVec2(margin, left_y), cond);
        else
            ImGui::SetNextWindowPos(ImVec2(io.DisplaySize.x - margin, right_y), cond, ImVec2(1.0f, 0.0f));
        ImGui::SetNextWindowCollapsed(!ctx.recording.active, ImGuiCond_Appearing);
        draw_recording_panel(params.recording, requests, ctx, &visible.recording);
    }
    if (visible.encounter) {  // a tool opened on purpose: top centre, in front
        ImGui::SetNextWindowPos(ImVec2(io.DisplaySize.x * 0.5f, top), place ? cond : ImGuiCond_Appearing, ImVec2(0.5f, 0.0f));
        draw_encounter_panel(params.encounter, &visible.encounter);
    }
    if (params.show_debug) {
        ImGui::SetNextWindowPos(ImVec2(margin, io.DisplaySize.y - margin * 4.0f), cond, ImVec2(0.0f, 1.0f));
        draw_debug_panel(ctx, &params.show_debug);
    }
    if (params.show_help) draw_help_panel(&params.show_help);
    draw_status_bar(ctx, params);
    draw_annotations(ctx, params);
    draw_backend_badge(ctx);
    draw_recording_indicator(ctx);
    draw_busy_indicator(ctx);
    draw_quit_dialog(params, requests, ctx);
}
}  // namespace nbody::app
