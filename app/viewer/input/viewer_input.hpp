#pragma once
// Mouse and keyboard for the window mode. GLFW callbacks only record what happened; the frame
// loop applies it once per frame (apply_input), so input never races the drawing.
//
//   left drag: orbit     right drag / shift + left drag / middle drag: pan     wheel: zoom
//   Space pause   N single step   R reset   F screenshot   V record   H hide UI   C reset camera
//   G follow centre of mass   T trails   F1 help   Esc quit   left click (no drag): select a body
//   Ctrl+O open a file   a file dropped: opened

#include <glm/vec2.hpp>
#include <optional>
#include <string>
#include <vector>

#include "nbody/render/camera.hpp"
#include "short_press_latch.hpp"
#include "viewer_params.hpp"

struct GLFWwindow;

namespace nbody::app {

struct InputState {
    glm::vec2 orbit{0.0f};  // cursor units dragged since the last frame
    glm::vec2 pan{0.0f};    // framebuffer pixels dragged since the last frame
    float zoom = 0;         // wheel steps since the last frame
    std::vector<int> keys;  // GLFW key codes pressed since the last frame
    bool orbiting = false, panning = false;
    double last_x = 0, last_y = 0;
    float cursor_to_pixels = 1;                              // framebuffer pixels per cursor unit (HiDPI)
    bool ui_wants_mouse = false, ui_wants_keyboard = false;  // from the previous UI frame
    // A left press that has not moved further than kClickSlop: a click when released.
    bool maybe_click = false;
    double press_x = 0, press_y = 0;
    std::optional<glm::vec2> click;  // framebuffer pixels, y down: a click since the last frame
    bool open_dialog = false;              // Ctrl+O
    std::vector<std::string> dropped;      // files dropped onto the window since the last frame
    ShortPressLatch taps;                  // keys pressed and released between two frames
};

// Cursor units a press may move and still count as a click (not an orbit drag).
inline constexpr double kClickSlop = 3.0;

// What the window's drop callback does with the files dropped on it (also `view --drop FILE`,
// so that a test takes the same path): keeps them for apply_input.
void receive_dropped_files(InputState& state, int count, const char** paths);

// Installs the callbacks (before Dear ImGui installs its own, which chain to these).
void install_input_callbacks(GLFWwindow* window, InputState* state);

// The key bindings, for the Help panel and the README: {key, action}.
struct KeyBinding {
    const char* key;
    const char* action;
};
const std::vector<KeyBinding>& key_bindings();

// Turns the input gathered since the last frame into parameter changes, requests and camera
// moves, then clears it. A dropped file becomes Requests::load_scene (the first one the viewer
// can open, by extension; else the first), opened like a scene picked from the list.
void apply_input(InputState& input, ViewerParams& params, Requests& requests, render::OrbitCamera& camera,
                 int framebuffer_height);

}  // namespace nbody::app
