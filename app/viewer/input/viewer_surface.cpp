#include "viewer_surface.hpp"

#include "nbody/render/egl_context.hpp"
#include "nbody/render/gl.hpp"
#include "nbody/render/gl_objects.hpp"
#include "nbody/render/glfw.hpp"
#include "nbody/render/glfw_window.hpp"

#include <imgui.h>

namespace nbody::app {

void Surface::feed_scripted_drop(InputState& input) {
    if (++polls_ != 2 || scripted_drop_.empty()) return;
    std::vector<const char*> paths;
    for (const std::string& p : scripted_drop_) paths.push_back(p.c_str());
    receive_dropped_files(input, int(paths.size()), paths.data());
}

namespace {

class WindowSurface final : public Surface {
  public:
    WindowSurface(int width, int height, bool vsync)
        : window_(render::WindowOptions{width, height, "nbody", vsync}) {
        install_input_callbacks(window_.handle(), &input_);
    }
    ~WindowSurface() override { glfwSetWindowUserPointer(window_.handle(), nullptr); }

    bool poll(ViewerParams& params, Requests& requests, render::OrbitCamera& camera) override {
        hold_taps_for_imgui();
        const glm::ivec2 fb = window_.framebuffer_size();
        const glm::ivec2 win = window_.window_size();
        input_.cursor_to_pixels = win.x > 0 ? float(fb.x) / float(win.x) : 1.0f;
        feed_scripted_drop(input_);
        apply_input(input_, params, requests, camera, fb.y);
        return !window_.should_close();
    }

    render::DrawTarget target() override {
        const glm::ivec2 fb = window_.framebuffer_size();
        return {0, fb.x, fb.y, window_.content_scale()};
    }

    void present() override { window_.swap_buffers(); }
    void idle() override { glfwWaitEventsTimeout(0.1); }
    void cancel_close() override { glfwSetWindowShouldClose(window_.handle(), GLFW_FALSE); }

    void set_ui_capture(bool mouse, bool keyboard) override {
        input_.ui_wants_mouse = mouse;
        input_.ui_wants_keyboard = keyboard;
    }

    GLFWwindow* window() const override { return window_.handle(); }
    float content_scale() const override { return window_.content_scale(); }
    bool headless() const override { return false; }
    const render::GlInfo& gl_info() const override { return window_.gl_info(); }
    std::string description() const override { return "GLFW window"; }

  private:
    // The events since the last frame; a key tapped in between is shown to Dear ImGui as held for
    // this one frame (short_press_latch.hpp), and released before the next frame's events.
    void hold_taps_for_imgui() {
        ImGuiIO* io = ImGui::GetCurrentContext() ? &ImGui::GetIO() : nullptr;
        for (int key : held_taps_)
            if (io && key >= 0 && key < IM_ARRAYSIZE(io->KeysDown)) io->KeysDown[key] = false;
        window_.poll_events();
        held_taps_ = input_.taps.take_taps();
        for (int key : held_taps_)
            if (io && key >= 0 && key < IM_ARRAYSIZE(io->KeysDown)) io->KeysDown[key] = true;
    }

    render::GlfwWindow window_;
    InputState input_;
    std::vector<int> held_taps_;
};

class HeadlessSurface final : public Surface {
  public:
    HeadlessSurface(int width, int height) : screen_(width, height, GL_RGBA8) {}

    // No input but a scripted drop (--drop).
    bool poll(ViewerParams& params, Requests& requests, render::OrbitCamera& camera) override {
        feed_scripted_drop(input_);
        apply_input(input_, params, requests, camera, screen_.height());
        return true;
    }
    render::DrawTarget target() override {
        return {screen_.framebuffer(), screen_.width(), screen_.height(), 1.0f};
    }
    // No swap and no glFinish: nothing is shown, so nothing needs the frame to be complete now.
    // Waiting for it here would idle the GPU while the CPU prepares the next frame (and the CPU
    // while the GPU draws). Instead the CPU may run kFramesAhead frames ahead, as a swap chain
    // would let it, and waits only when it gets further than that (else GL commands would queue
    // without bound). Whoever reads pixels or times a run waits for exactly what it needs.
    void present() override {
        fences_[next_].insert();
        glFlush();
        next_ = (next_ + 1) % kFences;
        fences_[next_].wait();  // the frame kFramesAhead frames back
    }

    bool headless() const override { return true; }
    const render::GlInfo& gl_info() const override { return egl_.gl_info(); }
    std::string description() const override { return egl_.description(); }

  private:
    static constexpr int kFramesAhead = 2;
    static constexpr int kFences = kFramesAhead + 1;
    render::EglContext egl_;       // first: the frame's render target below is deleted before it
    render::RenderTarget screen_;  // stands in for a window's back buffer
    render::GlFence fences_[kFences];
    int next_ = 0;
    InputState input_;
};

}  // namespace

std::unique_ptr<Surface> make_window_surface(int width, int height, bool vsync) {
    return std::make_unique<WindowSurface>(width, height, vsync);
}

std::unique_ptr<Surface> make_headless_surface(int width, int height) {
    return std::make_unique<HeadlessSurface>(width, height);
}

}  // namespace nbody::app
