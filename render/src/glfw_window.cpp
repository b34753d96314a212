#include "nbody/render/glfw_window.hpp"

#include <algorithm>
#include <cstdlib>
#include <string>
#include <vector>

#include "nbody/render/assets.hpp"
#include "nbody/render/frame_capture.hpp"
#include "nbody/render/glfw.hpp"

namespace nbody::render {

namespace {

// GLFW reports errors through a callback; keep the last one so exceptions can carry it.
std::string& last_glfw_error() {
    static std::string message;
    return message;
}

void glfw_error_callback(int code, const char* description) {
    last_glfw_error() = "GLFW error " + std::to_string(code) + ": " + (description ? description : "");
}

const char* kHeadlessHint =
    "Use headless mode instead, e.g. `nbody view --headless --frames 100 --screenshot out.png`, "
    "or run under a virtual display: `xvfb-run -a nbody view`.";

// The window's icon from assets/icons (the window manager picks the size it needs). A missing
// or unreadable icon costs nothing but the icon: the window opens with the default one.
void set_icon(GLFWwindow* window) {
    std::vector<Image> images;
    for (const char* name : {"icons/nbody-32.png", "icons/nbody-64.png", "icons/nbody-128.png"}) {
        const auto path = find_asset(name);
        if (path.empty()) continue;
        try {
            images.push_back(read_png(path.string()));
        } catch (const std::exception&) {
        }
    }
    std::vector<GLFWimage> icons;
    for (auto& image : images) icons.push_back({image.width, image.height, image.rgba.data()});
    if (!icons.empty()) glfwSetWindowIcon(window, int(icons.size()), icons.data());
}

}  // namespace

GlfwWindow::GlfwWindow(const WindowOptions& options) {
    glfwSetErrorCallback(glfw_error_callback);
    const char* x11 = std::getenv("DISPLAY");
    const char* wayland = std::getenv("WAYLAND_DISPLAY");
    if ((!x11 || !*x11) && (!wayland || !*wayland))
        throw NoDisplayError(std::string("cannot open a window: no display (DISPLAY is not set). ") +
                             kHeadlessHint);
    if (!glfwInit())
        throw NoDisplayError("cannot open a window: " + last_glfw_error() + ". " + kHeadlessHint);

    glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, 4);
    glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, 5);
    glfwWindowHint(GLFW_OPENGL_PROFILE, GLFW_OPENGL_CORE_PROFILE);
    glfwWindowHint(GLFW_OPENGL_FORWARD_COMPAT, GLFW_TRUE);
    glfwWindowHint(GLFW_SCALE_TO_MONITOR, GLFW_TRUE);  // HiDPI: size in logical units
    glfwWindowHint(GLFW_DEPTH_BITS, 0);                // additive points need no depth buffer
    glfwWindowHint(GLFW_SAMPLES, 0);
    window_ = glfwCreateWindow(std::max(options.width, 64), std::max(options.height, 64),
                               options.title.c_str(), nullptr, nullptr);
    if (!window_) {
        const std::string why = last_glfw_error();
        glfwTerminate();
        throw std::runtime_error("cannot create an OpenGL 4.5 core window: " + why +
                                 ". The display's driver may not support OpenGL 4.5. " + kHeadlessHint);
    }
    set_icon(window_);
    glfwMakeContextCurrent(window_);
    glfwSwapInterval(options.vsync ? 1 : 0);
    try {
        info_ = load_gl(/*egl=*/false);
    } catch (...) {
        glfwDestroyWindow(window_);
        glfwTerminate();
        throw;
    }
}

GlfwWindow::~GlfwWindow() {
    if (window_) glfwDestroyWindow(window_);
    glfwTerminate();
}

bool GlfwWindow::should_close() const { return glfwWindowShouldClose(window_); }
void GlfwWindow::request_close() { glfwSetWindowShouldClose(window_, GLFW_TRUE); }
void GlfwWindow::swap_buffers() { glfwSwapBuffers(window_); }
void GlfwWindow::poll_events() { glfwPollEvents(); }
void GlfwWindow::set_vsync(bool on) { glfwSwapInterval(on ? 1 : 0); }
void GlfwWindow::set_title(const std::string& title) { glfwSetWindowTitle(window_, title.c_str()); }

glm::ivec2 GlfwWindow::framebuffer_size() const {
    glm::ivec2 s;
    glfwGetFramebufferSize(window_, &s.x, &s.y);
    return s;
}

glm::ivec2 GlfwWindow::window_size() const {
    glm::ivec2 s;
    glfwGetWindowSize(window_, &s.x, &s.y);
    return s;
}

float GlfwWindow::content_scale() const {
    float x = 1, y = 1;
    glfwGetWindowContentScale(window_, &x, &y);
    return std::max(1.0f, std::max(x, y));
}

}  // namespace nbody::render
