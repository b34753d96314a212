// What is drawn over the scene rather than in a panel: the status bar (bottom middle), the
// backend badge (bottom right), the scale bar, colour legend and model time (bottom left); and the
// Debug and Help panels.
#include "ui_panels.hpp"
#include "ui_widgets.hpp"

#include <filesystem>

#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "nbody/render/annotations.hpp"
#include "viewer_input.hpp"

#if NBODY_HAVE_CUDA
#include "nbody/sim/cuda_backend.hpp"
#endif

namespace nbody::app {

void draw_debug_panel(const PanelContext& ctx, bool* open) {
    if (!ImGui::Begin("Debug", open, kPanelFlags)) {
        ImGui::End();
        return;
    }
    wrapped(kDim, "GL: " + ctx.gl.renderer);
    wrapped(kDim, ctx.gl.version + ", GLSL " + ctx.gl.glsl_version);
    wrapped(kDim, "Context: " + ctx.context_description);
    ImGui::Separator();
    ImGui::Text("Backend: %.*s", int(ctx.sim.backend().name().size()), ctx.sim.backend().name().data());
#if NBODY_HAVE_CUDA
    if (const CudaBackend* cuda = ctx.sim.cuda()) {
        ImGui::SameLine();
        ImGui::TextColored(kDim, "(%s, %d SMs)", cuda->device_info().name.c_str(),
                           cuda->device_info().sm_count);
    }
#endif
    ImGui::Text("Positions: %s", describe(ctx.sim.path()));
    const std::size_t d2h = ctx.perf.bytes_to_host_last_frame();
    ImGui::TextColored(d2h == 0 ? kGood : kWarn, "Device-to-host this frame: %s",
                       bytes_text(double(d2h)).c_str());
    tooltip("CudaBackend::bytes_copied_to_host() difference over the frame's steps: 0 on the interop path.");
    ImGui::Text("Uploaded to GL this frame: %s",
                bytes_text(double(ctx.perf.bytes_uploaded_last_frame())).c_str());
    ImGui::Text("Vertex buffers: 2 x %s + labels %s",
                bytes_text(double(ctx.sim.buffers().position_bytes())).c_str(),
                bytes_text(double(ctx.sim.size() * 4)).c_str());
    if (!ctx.messages.empty()) {
        ImGui::Separator();
        for (const auto& m : ctx.messages) wrapped(kWarn, m);
    }
    ImGui::End();
}

namespace {

struct StatusLine {
    std::string text;
    ImVec4 colour;
};

// The status bar's lines: scene, N, backend, time, fps; then the warnings and the toast.
std::vector<StatusLine> status_lines(const PanelContext& ctx, const ViewerParams& params) {
    char first[512];
    std::snprintf(first, sizeof first, "%s  |  N = %zu  |  %.*s  |  %s  |  %s%s", ctx.scene.name.c_str(), ctx.sim.size(),
                  int(ctx.sim.backend().name().size()), ctx.sim.backend().name().data(),
                  time_text(ctx.sim.time(), ctx.scene.units).c_str(), fps_text(ctx.perf.fps()).c_str(),
                  params.sim.paused ? "  |  PAUSED" : "");
    std::vector<StatusLine> lines{{first, ImGui::GetStyleColorVec4(ImGuiCol_Text)}};
    if (ctx.sim.path() == TransferPath::HostCopy)
        lines.push_back({"CUDA-GL interop unavailable: positions are copied through the host", kWarn});
    for (const auto& m : ctx.recent_messages)
        if (m != ctx.toast) lines.push_back({m, kWarn});
    if (!ctx.toast.empty()) lines.push_back({ctx.toast, kGood});
    return lines;
}

}  // namespace

float draw_status_bar(const PanelContext& ctx, const ViewerParams& params) {
    const ImGuiIO& io = ImGui::GetIO();
    const std::vector<StatusLine> lines = status_lines(ctx, params);
    // Sized to this frame's text before it is drawn: an auto-sized window takes its size from the
    // frame before, which cut the end off a line that had just grown ("t = 11.7 Myr | 3.9 fp").
    const ImGuiStyle& style = ImGui::GetStyle();
    float width = 0;
    for (const StatusLine& l : lines) width = std::max(width, ImGui::CalcTextSize(l.text.c_str()).x);
    const ImVec2 size(width + 2 * style.WindowPadding.x,
                      float(lines.size()) * ImGui::GetTextLineHeightWithSpacing() - style.ItemSpacing.y + 2 * style.WindowPadding.y);
    ImGui::SetNextWindowSize(size, ImGuiCond_Always);
    ImGui::SetNextWindowPos(ImVec2(io.DisplaySize.x * 0.5f, io.DisplaySize.y - em() * 0.5f), ImGuiCond_Always,
                            ImVec2(0.5f, 1.0f));
    ImGui::SetNextWindowBgAlpha(0.45f);
    if (ImGui::Begin("##status", nullptr, kOverlayFlags))
        for (const StatusLine& l : lines) ImGui::TextColored(l.colour, "%s", l.text.c_str());
    ImGui::End();
    return size.y + em() * 0.5f;
}

void draw_busy_indicator(const PanelContext& ctx) {
    if (ctx.busy.empty()) return;
    const ImGuiIO& io = ImGui::GetIO();
    ImGui::SetNextWindowPos(ImVec2(io.DisplaySize.x * 0.5f, em() * 2.5f), ImGuiCond_Always, ImVec2(0.5f, 0.0f));
    ImGui::SetNextWindowBgAlpha(0.7f);
    if (ImGui::Begin("##busy", nullptr, kOverlayFlags)) {
        // A spinner: an arc turning once a second, so that a frozen window would show as one.
        const float radius = em() * 0.45f;
        const ImVec2 corner = ImGui::GetCursorScreenPos();
        const ImVec2 centre(corner.x + radius, corner.y + ImGui::GetTextLineHeight() * 0.5f);
        const float turn = float(ImGui::GetTime()) * 6.2831853f;
        ImDrawList* draw = ImGui::GetWindowDrawList();
        draw->PathArcTo(centre, radius, turn, turn + 4.5f, 16);
        draw->PathStroke(ImGui::GetColorU32(kGood), false, em() * 0.15f);
        ImGui::Dummy(ImVec2(radius * 2.0f, ImGui::GetTextLineHeight()));
        ImGui::SameLine();
        ImGui::BeginGroup();
        for (const BusyWork& w : ctx.busy) ImGui::Text("%s ... %.1f s", w.what.c_str(), w.seconds);
        ImGui::EndGroup();
    }
    ImGui::End();
}

void draw_start_message(const std::string& text) {
    const ImGuiIO& io = ImGui::GetIO();
    ImGui::SetNextWindowPos(ImVec2(io.DisplaySize.x * 0.5f, io.DisplaySize.y * 0.45f), ImGuiCond_Always,
                            ImVec2(0.5f, 0.5f));
    ImGui::SetNextWindowBgAlpha(0.7f);
    if (ImGui::Begin("##start", nullptr, kOverlayFlags)) ImGui::TextUnformatted(text.c_str());
    ImGui::End();
}

void draw_quit_dialog(ViewerParams& params, Requests& requests, const PanelContext& ctx) {
    if (!params.confirm_quit) return;
    const ImGuiIO& io = ImGui::GetIO();
    ImGui::SetNextWindowPos(ImVec2(io.DisplaySize.x * 0.5f, io.DisplaySize.y * 0.4f), ImGuiCond_Always,
                            ImVec2(0.5f, 0.5f));
    ImGui::SetNextWindowFocus();
    if (ImGui::Begin("Quit?", nullptr, ImGuiWindowFlags_AlwaysAutoResize | ImGuiWindowFlags_NoCollapse)) {
        ImGui::Text("The simulation has run since it was last saved (%s).",
                    time_text(ctx.sim.time(), ctx.scene.units).c_str());
        std::error_code ec;  // the button says what it does to a file already there
        const bool exists = std::filesystem::exists(params.sim.snapshot_path, ec);
        if (ImGui::Button(((exists ? "Replace " : "Save ") + params.sim.snapshot_path + " and quit").c_str()))
            requests.save_and_quit = true;
        ImGui::SameLine();
        if (ImGui::Button("Quit without saving")) requests.quit_confirmed = true;
        ImGui::SameLine();
        if (ImGui::Button("Go on")) params.confirm_quit = false;
        ImGui::TextColored(kDim, "Esc again quits.");
    }
    ImGui::End();
}

// The backend badge, bottom right, GPU green, CPU amber: a small window, so that it goes with the
// panels (in frames recorded with them, never in frames saved without them).
void draw_backend_badge(const PanelContext& ctx) {
    const ImGuiIO& io = ImGui::GetIO();
    const std::string backend(ctx.sim.backend().name());
    const bool gpu = backend == "cuda";
    const float pad = em() * 0.6f;
    ImGui::SetNextWindowPos(ImVec2(io.DisplaySize.x - pad, io.DisplaySize.y - pad * 0.7f), ImGuiCond_Always,
                            ImVec2(1.0f, 1.0f));
    ImGui::PushStyleColor(ImGuiCol_WindowBg, gpu ? IM_COL32(30, 110, 60, 200) : IM_COL32(140, 95, 20, 200));
    ImGui::PushStyleVar(ImGuiStyleVar_WindowPadding, ImVec2(pad * 0.5f, pad * 0.3f));
    ImGui::PushStyleVar(ImGuiStyleVar_WindowBorderSize, 0.0f);
    ImGui::PushStyleVar(ImGuiStyleVar_WindowMinSize, ImVec2(1.0f, 1.0f));  // not the default 32 px: as tall as its text
    if (ImGui::Begin("##backend", nullptr, kOverlayFlags))
        ImGui::TextColored(ImVec4(1, 1, 1, 1), "%s", gpu ? "GPU (CUDA)" : ("CPU (" + backend + ")").c_str());
    ImGui::End();
    ImGui::PopStyleVar(3);
    ImGui::PopStyleColor();
}

// The scale bar, colour legend and (for saved frames) model time: render::draw_annotations.
float draw_annotations(const PanelContext& ctx, const ViewerParams& params) {
    const render::RenderSettings& r = params.render;
    // The halo is in the legend only where it is drawn.
    const unsigned halo = 1u << unsigned(Component::Halo);
    return render::draw_annotations({ctx.camera, ctx.scene.units, r.colour_mode, ctx.galaxies, ctx.scene.galaxy_names,
                                     params.recording.annotate ? std::optional<double>(ctx.sim.time()) : std::nullopt,
                                     r.speed_scale > 0 ? r.speed_scale : ctx.auto_speed_scale, r.colour_map,
                                     r.hide_halo ? ctx.components & ~halo : ctx.components, params.recording.annotate_size});
}

void draw_help_panel(bool* open) {
    const ImGuiIO& io = ImGui::GetIO();
    ImGui::SetNextWindowPos(ImVec2(io.DisplaySize.x * 0.5f, io.DisplaySize.y * 0.5f), ImGuiCond_Appearing,
                            ImVec2(0.5f, 0.5f));
    ImGui::SetNextWindowBgAlpha(0.97f);  // read over the panels behind it
    ImGui::SetNextWindowFocus();
    if (!ImGui::Begin("Help", open, ImGuiWindowFlags_AlwaysAutoResize | ImGuiWindowFlags_NoCollapse)) {
        ImGui::End();
        return;
    }
    if (ImGui::BeginTable("keys", 2, ImGuiTableFlags_RowBg | ImGuiTableFlags_SizingFixedFit)) {
        for (const auto& [key, action] : key_bindings()) {
            ImGui::TableNextRow();
            ImGui::TableSetColumnIndex(0);
            ImGui::TextColored(kWarn, "%s", key);
            ImGui::TableSetColumnIndex(1);
            ImGui::TextUnformatted(action);
        }
        ImGui::EndTable();
    }
    ImGui::End();
}
}  // namespace nbody::app
