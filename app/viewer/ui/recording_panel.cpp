// The Recording panel (a take's folder, steps per frame, MP4, what saved frames carry) and the REC
// indicator drawn while a take runs.
#include "ui_panels.hpp"
#include "ui_widgets.hpp"

#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace nbody::app {

// What saved frames show besides the particles; applies at once, also while recording.
void draw_saved_frame_options(RecordingParams& rec) {
    ImGui::Checkbox("Legend, scale bar, time", &rec.annotate);
    tooltip("Recorded frames and screenshots carry the colour legend, the scale bar and the model time "
            "(bottom left), without the panels (`--annotate`).");
    ImGui::SameLine();
    ImGui::Checkbox("Panels in screenshots", &rec.screenshot_ui);
    tooltip("F / Screenshot save the window as shown, panels included; off: the picture alone.");
}

void draw_recording_panel(RecordingParams& rec, Requests& requests, const PanelContext& ctx, bool* open) {
    if (!ImGui::Begin("Recording", open, kPanelFlags)) {
        ImGui::End();
        return;
    }
    draw_saved_frame_options(rec);
    const RecordingView& view = ctx.recording;
    if (view.active) {
        const RecorderStatus& s = view.status;
        ImGui::TextColored(kError, "REC");
        ImGui::SameLine();
        ImGui::Text("frame %lld: %lld recorded, %lld written", view.frame_on_screen, s.captured, s.written);
        wrapped(kDim,
                view.folder + "  (" + std::to_string(view.width) + "x" + std::to_string(view.height) + ")");
        ImGui::TextColored(kDim, "Encoder queue %d / %d", s.queued, s.capacity);
        if (s.waited_last_frame || s.wait_ms_recent > 0.5)
            wrapped(kWarn, "PNG encoding is behind: the simulation waits for it (" +
                               std::to_string(int(s.wait_ms_recent + 0.5)) +
                               " ms per frame); no frame is dropped.");
        if (!view.note.empty()) wrapped(kWarn, view.note);
        if (!s.error.empty()) wrapped(kError, s.error);
        if (ImGui::Button("Stop recording (V)", ImVec2(em() * 12.0f, 0))) requests.toggle_recording = true;
        ImGui::End();
        return;
    }

    ImGui::SetNextItemWidth(em() * 16.0f);
    char folder[512];
    std::snprintf(folder, sizeof folder, "%s", rec.folder.c_str());
    if (ImGui::InputText("Folder", folder, sizeof folder)) rec.folder = folder;
    tooltip("Frames are written here as frame_000000.png, frame_000001.png, ... (created if missing).");
    ImGui::SetNextItemWidth(em() * 6.0f);
    ImGui::InputInt("steps per frame", &rec.steps_per_frame, 1, 10);
    rec.steps_per_frame = std::clamp(rec.steps_per_frame, 1, 100000);
    tooltip(
        "Simulation steps between two recorded frames, whatever the display's frame rate: the movie "
        "is the same on any machine. While recording, this replaces the Simulation panel's steps/frame.");
    ImGui::Checkbox("Include the UI", &rec.include_ui);
    tooltip("Record the panels too (the REC indicator itself never is).");
    ImGui::SameLine();
    ImGui::Checkbox("Overwrite", &rec.overwrite);
    tooltip("Allow replacing frames (and the MP4) of an earlier recording with the same names.");
    ImGui::BeginDisabled(!view.ffmpeg_found);
    ImGui::Checkbox("MP4", &rec.mp4);
    ImGui::EndDisabled();
    if (ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled))
        ImGui::SetTooltip(
            "%s", view.ffmpeg_found
                      ? "Also pipe the frames to ffmpeg for an H.264 MP4 (30 fps)."
                      : "ffmpeg was not found on PATH: install it for MP4s. The PNGs do not need it.");
    if (rec.mp4 && view.ffmpeg_found) {
        ImGui::SameLine();
        ImGui::SetNextItemWidth(em() * 11.0f);
        char file[512];
        std::snprintf(file, sizeof file, "%s", rec.mp4_file.c_str());
        if (ImGui::InputTextWithHint("##mp4", "<folder>.mp4", file, sizeof file)) rec.mp4_file = file;
    }
    if (ImGui::Button("Record (V)", ImVec2(em() * 12.0f, 0))) requests.toggle_recording = true;
    if (!view.last_result.empty()) wrapped(view.last_result_is_error ? kError : kGood, view.last_result);
    ImGui::End();
}

void draw_recording_indicator(const PanelContext& ctx) {
    const RecordingView& view = ctx.recording;
    if (!view.active) return;
    const ImGuiIO& io = ImGui::GetIO();
    ImDrawList* draw = ImGui::GetForegroundDrawList();
    char text[128];
    std::snprintf(text, sizeof text, "REC  frame %lld", view.frame_on_screen);
    const bool behind = view.status.waited_last_frame;
    const char* extra = behind ? "   encoder behind: simulation waiting" : "";
    const float pad = em() * 0.45f, r = em() * 0.38f;
    const ImVec2 size = ImGui::CalcTextSize(text);
    const ImVec2 extra_size = ImGui::CalcTextSize(extra);
    const float width = pad * 3 + 2 * r + size.x + extra_size.x;
    const ImVec2 min(io.DisplaySize.x * 0.5f - width * 0.5f, ImGui::GetFrameHeight() + em() * 0.4f);
    const ImVec2 max(min.x + width, min.y + size.y + 2 * pad);
    draw->AddRectFilled(min, max, IM_COL32(10, 10, 14, 190), em() * 0.3f);
    // The dot blinks once a second, like a camera's.
    const bool lit = std::fmod(ImGui::GetTime(), 1.0) < 0.65;
    draw->AddCircleFilled(ImVec2(min.x + pad + r, (min.y + max.y) * 0.5f), r,
                          lit ? IM_COL32(235, 45, 45, 255) : IM_COL32(120, 30, 30, 255));
    draw->AddText(ImVec2(min.x + pad * 2 + 2 * r, min.y + pad), IM_COL32(240, 240, 240, 255), text);
    if (behind)
        draw->AddText(ImVec2(min.x + pad * 2 + 2 * r + size.x, min.y + pad), IM_COL32(255, 200, 80, 255),
                      extra);
}
}  // namespace nbody::app
