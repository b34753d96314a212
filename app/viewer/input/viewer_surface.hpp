#pragma once
// What differs between the windowed and the headless viewer: where the GL context comes from,
// where frames go, and whether there is input. The frame loop is the same for both.

#include <memory>
#include <string>
#include <vector>

#include "nbody/render/context.hpp"
#include "nbody/render/particle_renderer.hpp"
#include "viewer_input.hpp"

struct GLFWwindow;

namespace nbody::app {

class Surface {
  public:
    virtual ~Surface() = default;
    // Gathers input (window) and applies it; false when the window was closed.
    virtual bool poll(ViewerParams& params, Requests& requests, render::OrbitCamera& camera) = 0;
    // Where this frame is drawn; width or height 0 when there is nothing to draw (minimised).
    virtual render::DrawTarget target() = 0;
    // Shows the frame (swap) or waits for it to finish (headless, so frame times are honest).
    virtual void present() = 0;
    // Waits a little for events when there is nothing to draw.
    virtual void idle() {}
    // The window's close button was pressed but the viewer asks first: keep the window open.
    virtual void cancel_close() {}
    // Tells the input handling whether the UI is using the mouse and keyboard.
    virtual void set_ui_capture(bool mouse, bool keyboard) { (void)mouse, (void)keyboard; }

    virtual GLFWwindow* window() const { return nullptr; }
    virtual float content_scale() const { return 1.0f; }
    virtual bool headless() const = 0;
    virtual const render::GlInfo& gl_info() const = 0;
    virtual std::string description() const = 0;

    // `view --drop FILE`: the files arrive at the second poll as if dropped onto the window,
    // through the drop callback's receive_dropped_files and apply_input (scripts and tests take
    // the path a real drop takes).
    void drop_after_first_frame(std::vector<std::string> paths) { scripted_drop_ = std::move(paths); }

  protected:
    // Called by poll before apply_input.
    void feed_scripted_drop(InputState& input);

  private:
    std::vector<std::string> scripted_drop_;
    int polls_ = 0;
};

// Throws render::NoDisplayError (pointing to --headless) when a window cannot be opened.
std::unique_ptr<Surface> make_window_surface(int width, int height, bool vsync);
// Throws std::runtime_error when no EGL device gives a 4.5 core context.
std::unique_ptr<Surface> make_headless_surface(int width, int height);

}  // namespace nbody::app
