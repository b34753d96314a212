#pragma once
// The viewer's Dear ImGui panels, one file each (kernel_panel.cpp, simulation_panel.cpp,
// rendering_panel.cpp, recording_panel.cpp; overlays.cpp: status bar, badge, legend, Debug, Help;
// ui_layout.cpp: the menu bar and the default layout). Each panel reads what it shows from a PanelContext and
// writes only the plain parameter structs of viewer_params.hpp and one-shot Requests; the frame
// loop acts on those. No panel steps the simulation or touches GL.

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "nbody/render/annotations.hpp"
#include "nbody/render/camera.hpp"
#include "nbody/render/context.hpp"
#include "recorder.hpp"
#include "ui_text.hpp"
#include "viewer_params.hpp"
#include "viewer_scenes.hpp"
#include "viewer_sim.hpp"
#include "viewer_stats.hpp"

namespace nbody::app {

// The recording as the panels see it.
struct RecordingView {
    bool active = false;
    RecorderStatus status;          // when active
    long long frame_on_screen = 0;  // the index of the frame this one is (or last was) recorded as
    int width = 0, height = 0;      // of the frames being recorded
    std::string folder;             // being recorded into
    std::string note;               // about the MP4 of the active recording (no ffmpeg, cropped)
    bool ffmpeg_found = false;
    std::string last_result;  // how the last recording ended, or why one could not start
    bool last_result_is_error = false;
};

// Long work under way (issue 33): shown with a spinner while the window keeps drawing.
struct BusyWork {
    std::string what;  // "building antennae.toml, 65536 bodies"
    double seconds = 0;
};

// Everything the panels display, read-only.
struct PanelContext {
    const SimulationDriver& sim;
    const PerfStats& perf;
    const EnergyMonitor& energy;
    const Scene& scene;             // as loaded (initial state, units, description)
    const std::string& scene_path;  // empty: built-in
    const std::vector<SceneChoice>& scenes;
    const render::GlInfo& gl;
    const std::string& context_description;  // "GLFW window" or the EGL device
    const render::OrbitCamera& camera;
    float auto_speed_scale = 1;
    int galaxies = 1;  // distinct galaxy labels in the scene
    const std::vector<std::string>& messages;         // fallbacks and errors, newest last
    const std::vector<std::string>& recent_messages;  // those still shown on screen
    std::string toast;                                // a short-lived message (screenshot saved), or empty
    bool headless = false;
    const RecordingView& recording;
    std::vector<BusyWork> busy;
    unsigned components = 0;  // component_bits of the scene: the component legend's entries
    std::function<void()> selection_panel;  // draws the Selected body panel; empty: nothing selected
    std::size_t energy_auto_max_n = 65536;  // above it the energy is summed only on request (the button)
    std::string sprites_refused;  // why CUDA sprites were asked for and drawn by compute; empty: they were not
};

struct PanelVisibility {
    bool kernel = true, simulation = true, rendering = true, recording = true;
    bool encounter = false;  // the encounter editor: opened from View (or view --encounter)
    // draw_ui stacks the open panels every frame (panel_layout.hpp) from their sizes in the last
    // one, except those the user dragged somewhere (pinned, by name); View > Reset layout and a
    // resized window unpin them all.
    std::vector<std::string> pinned, collapsed_by_layout;
    float layout_width = 0, layout_height = 0;  // the display size the pins were made in
    float bottom_band = 0;                      // last frame's scale bar, legend and status bar
    float ui_scale = 1.0f;                      // View > UI scale, on top of the display's own
    float base_font_scale = 0;                  // ImGui's FontGlobalScale before ui_scale
};

// The whole UI for one frame: menu bar, panels, status overlay, help.
void draw_ui(ViewerParams& params, PanelVisibility& visible, Requests& requests, const PanelContext& ctx);

// `bottom` / `height`, when given, receive the panel's lower edge / height (for the layout).
void draw_kernel_panel(KernelParams& kernel, Requests& requests, const PanelContext& ctx, bool* open,
                       float* bottom = nullptr);
void draw_simulation_panel(SimulationParams& sim, Requests& requests, const PanelContext& ctx, bool* open,
                           float* height = nullptr);
// `bottom`, when given, receives the panel's lower edge (for placing the next panel under it).
// `cache_panels`: ViewerParams::cache_panels.
void draw_rendering_panel(render::RenderSettings& render, CameraParams& camera, bool& cache_panels,
                          Requests& requests, const PanelContext& ctx, bool* open, float* bottom = nullptr);
void draw_debug_panel(const PanelContext& ctx, bool* open);
void draw_recording_panel(RecordingParams& recording, Requests& requests, const PanelContext& ctx,
                          bool* open);
// The REC indicator (red dot, frame count, encoder state), in ImGui's foreground draw list: on
// screen even with the panels hidden, and left out of recorded frames (ImGuiLayer::draw_layers).
void draw_recording_indicator(const PanelContext& ctx);
// The scale bar, the colour legend and (with params.recording.annotate) the model time, bottom
// left, under the panels: what saved frames carry when asked (--annotate). Returns the height
// they take from the bottom of the window.
float draw_annotations(const PanelContext& ctx, const ViewerParams& params);
void draw_help_panel(bool* open);
// Bottom middle: scene, N, backend, model time, fps, and the messages still on screen. Returns
// the height it takes from the bottom of the window.
float draw_status_bar(const PanelContext& ctx, const ViewerParams& params);
// Centre, while params.confirm_quit: the simulation ran since it was saved; save and quit, quit,
// or go on (quit_guard.hpp).
void draw_quit_dialog(ViewerParams& params, Requests& requests, const PanelContext& ctx);
// Top middle, while there is long work: what it is and how long it has taken, with a spinner.
void draw_busy_indicator(const PanelContext& ctx);
// Before the first frame, while the start-up measures the machine (no scene drawn yet): `text` in
// the middle of the window.
void draw_start_message(const std::string& text);
// Bottom right: where the simulation runs (GPU green, CPU amber), a small window, so that it goes
// with the panels (in frames recorded with them, never in frames saved without them).
void draw_backend_badge(const PanelContext& ctx);

// "t = 51.0 Myr", "t = 1.25 Gyr" where the scene has physical units; "t = 12.35 (N-body units)"
// otherwise (also what saved frames' annotations show).
using render::time_text;

}  // namespace nbody::app
