#include "viewer_input.hpp"

#include <cmath>
#include <algorithm>

#include "nbody/render/gl.hpp"
#include "nbody/render/glfw.hpp"
#include "open_dialog.hpp"

namespace nbody::app {

namespace {

InputState* state_of(GLFWwindow* window) {
    return static_cast<InputState*>(glfwGetWindowUserPointer(window));
}

void on_mouse_button(GLFWwindow* window, int button, int action, int mods) {
    InputState* s = state_of(window);
    if (!s) return;
    if (action == GLFW_RELEASE) {
        if (s->maybe_click && button == GLFW_MOUSE_BUTTON_LEFT)
            s->click = glm::vec2(float(s->press_x), float(s->press_y)) * s->cursor_to_pixels;
        s->orbiting = s->panning = s->maybe_click = false;
        return;
    }
    if (s->ui_wants_mouse) return;  // a click on a panel is the panel's
    glfwGetCursorPos(window, &s->last_x, &s->last_y);
    s->press_x = s->last_x;
    s->press_y = s->last_y;
    s->maybe_click = button == GLFW_MOUSE_BUTTON_LEFT && !(mods & GLFW_MOD_SHIFT);
    const bool pan = button == GLFW_MOUSE_BUTTON_RIGHT || button == GLFW_MOUSE_BUTTON_MIDDLE ||
                     (button == GLFW_MOUSE_BUTTON_LEFT && (mods & GLFW_MOD_SHIFT));
    s->panning = pan;
    s->orbiting = !pan && button == GLFW_MOUSE_BUTTON_LEFT;
}

void on_cursor(GLFWwindow* window, double x, double y) {
    InputState* s = state_of(window);
    if (!s) return;
    const glm::vec2 delta(float(x - s->last_x), float(y - s->last_y));
    s->last_x = x;
    s->last_y = y;
    if (s->maybe_click && std::abs(x - s->press_x) + std::abs(y - s->press_y) > kClickSlop) s->maybe_click = false;
    if (s->orbiting) s->orbit += delta;  // degrees per cursor unit: same feel at any DPI
    if (s->panning) s->pan += delta * s->cursor_to_pixels;
}

void on_scroll(GLFWwindow* window, double /*dx*/, double dy) {
    InputState* s = state_of(window);
    if (s && !s->ui_wants_mouse) s->zoom += float(dy);
}

void on_key(GLFWwindow* window, int key, int /*scancode*/, int action, int mods) {
    InputState* s = state_of(window);
    if (s && action == GLFW_PRESS) s->taps.pressed(key);
    if (s && action == GLFW_RELEASE) s->taps.released(key);
    if (!s || action == GLFW_RELEASE || s->ui_wants_keyboard) return;
    if (key == GLFW_KEY_O && (mods & GLFW_MOD_CONTROL)) {
        s->open_dialog = true;
        return;
    }
    if (action == GLFW_REPEAT && key != GLFW_KEY_N) return;  // holding N keeps stepping
    s->keys.push_back(key);
}

void on_drop(GLFWwindow* window, int count, const char** paths) {
    if (InputState* s = state_of(window)) receive_dropped_files(*s, count, paths);
}

}  // namespace

void receive_dropped_files(InputState& state, int count, const char** paths) {
    for (int i = 0; i < count; ++i)
        if (paths[i]) state.dropped.emplace_back(paths[i]);
}

void install_input_callbacks(GLFWwindow* window, InputState* state) {
    glfwSetWindowUserPointer(window, state);
    glfwSetMouseButtonCallback(window, on_mouse_button);
    glfwSetCursorPosCallback(window, on_cursor);
    glfwSetScrollCallback(window, on_scroll);
    glfwSetKeyCallback(window, on_key);
    glfwSetDropCallback(window, on_drop);
}

const std::vector<KeyBinding>& key_bindings() {
    static const std::vector<KeyBinding> bindings{
        {"Space", "pause / resume"},
        {"N", "single step (pauses; hold to keep stepping)"},
        {"R", "reset the scene"},
        {"F", "screenshot (PNG in the working folder)"},
        {"V", "start / stop recording frames (Recording panel)"},
        {"H", "hide / show the UI"},
        {"C", "reset the camera"},
        {"G", "follow the centre of mass"},
        {"T", "trails on / off (Rendering panel: length)"},
        {"Click", "select the body under the cursor (Selected body panel); click empty space to clear"},
        {"Ctrl+O", "open a scene or particle file (or drop one on the window)"},
        {"F1", "this help"},
        {"Esc", "quit"},
        {"Left drag", "orbit"},
        {"Right / middle / Shift+left drag", "pan"},
        {"Wheel", "zoom"},
    };
    return bindings;
}

void apply_input(InputState& input, ViewerParams& params, Requests& requests, render::OrbitCamera& camera,
                 int framebuffer_height) {
    for (const int key : input.keys) {
        switch (key) {
            case GLFW_KEY_SPACE:
                params.sim.paused = !params.sim.paused;
                break;
            case GLFW_KEY_N:
                params.sim.paused = true;
                requests.single_step = true;
                break;
            case GLFW_KEY_R:
                requests.reset = true;
                break;
            case GLFW_KEY_F:
                requests.screenshot = true;
                break;
            case GLFW_KEY_V:
                requests.toggle_recording = true;
                break;
            case GLFW_KEY_H:
                params.show_ui = !params.show_ui;
                break;
            case GLFW_KEY_C:
                requests.reset_camera = true;
                break;
            case GLFW_KEY_G:
                params.camera.follow_centre_of_mass = !params.camera.follow_centre_of_mass;
                break;
            case GLFW_KEY_T:
                params.render.trails.enabled = !params.render.trails.enabled;
                break;
            case GLFW_KEY_F1:
                params.show_help = !params.show_help;
                break;
            case GLFW_KEY_ESCAPE:
                if (params.show_open_dialog)
                    params.show_open_dialog = false;  // Esc closes the dialog, never the viewer behind it
                else
                    requests.quit = true;
                break;
            default:
                break;
        }
    }
    if (input.open_dialog) {
        params.show_open_dialog = true;
        params.show_ui = true;  // the dialog is part of the UI
    }
    if (!input.dropped.empty()) {
        const auto openable = std::find_if(input.dropped.begin(), input.dropped.end(),
                                           [](const std::string& p) { return is_openable_file(p); });
        requests.load_scene = openable != input.dropped.end() ? *openable : input.dropped.front();
    }
    if (input.orbit != glm::vec2(0.0f)) camera.orbit(input.orbit.x, input.orbit.y);
    if (input.pan != glm::vec2(0.0f)) camera.pan(input.pan.x, input.pan.y, float(framebuffer_height));
    if (input.zoom != 0) camera.zoom(input.zoom);
    if (input.click) requests.pick = *input.click;
    input.click.reset();
    input.keys.clear();
    input.dropped.clear();
    input.open_dialog = false;
    input.orbit = input.pan = glm::vec2(0.0f);
    input.zoom = 0;
}

}  // namespace nbody::app
