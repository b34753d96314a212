#pragma once
// A GLFW window with an OpenGL 4.5 core context, HiDPI aware: the framebuffer size (pixels) and
// the window size (screen coordinates, what the cursor reports) are kept apart, and the content
// scale tells the UI how large to draw.

#include <glm/vec2.hpp>
#include <stdexcept>
#include <string>

#include "nbody/render/context.hpp"

struct GLFWwindow;

namespace nbody::render {

// No display to open a window on (no X server, DISPLAY unset, or GLFW cannot initialise). The
// message says so and points to headless mode.
class NoDisplayError : public std::runtime_error {
  public:
    using std::runtime_error::runtime_error;
};

struct WindowOptions {
    int width = 1280;  // screen coordinates; scaled by the monitor's content scale on HiDPI
    int height = 720;
    std::string title = "nbody";
    bool vsync = true;
};

class GlfwWindow {
  public:
    // Throws NoDisplayError when there is no display, std::runtime_error for other failures
    // (no 4.5 core context on this display, for instance).
    explicit GlfwWindow(const WindowOptions& options);
    ~GlfwWindow();
    GlfwWindow(const GlfwWindow&) = delete;
    GlfwWindow& operator=(const GlfwWindow&) = delete;

    GLFWwindow* handle() const { return window_; }
    const GlInfo& gl_info() const { return info_; }

    bool should_close() const;
    void request_close();
    void swap_buffers();
    void poll_events();
    void set_vsync(bool on);
    void set_title(const std::string& title);

    glm::ivec2 framebuffer_size() const;  // pixels
    glm::ivec2 window_size() const;       // screen coordinates (cursor space)
    float content_scale() const;          // 1 on ordinary displays, 2 on most HiDPI ones

  private:
    GLFWwindow* window_ = nullptr;
    GlInfo info_;
};

}  // namespace nbody::render
