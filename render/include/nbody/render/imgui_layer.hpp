#pragma once
// Dear ImGui set up for this program: one per process (ImGui has a global context). With a
// window it uses the GLFW platform backend for input; headless it has none, and the frame loop
// supplies the display size and time step itself. Drawing goes through imgui_impl_opengl3 in
// both cases.

#include <memory>
#include <vector>

#include "nbody/render/ui_cache.hpp"

struct GLFWwindow;
struct ImDrawData;

namespace nbody::render {

class ImGuiLayer {
  public:
    // `window` null: headless. `content_scale`: the display's UI scale (2 on most HiDPI).
    ImGuiLayer(GLFWwindow* window, float content_scale);
    ~ImGuiLayer();  // out of line: PanelCache is complete there
    ImGuiLayer(const ImGuiLayer&) = delete;
    ImGuiLayer& operator=(const ImGuiLayer&) = delete;

    // Starts a UI frame. Headless: the display is framebuffer_w x framebuffer_h pixels and
    // `dt` seconds passed since the last frame.
    void begin_frame(int framebuffer_w, int framebuffer_h, float dt);
    // Ends the frame without drawing it. Auto-sized windows learn their size from a frame of
    // content, so a headless run that captures its first frames lays the UI out this way first.
    void discard_frame();
    // `passes` UI frames built by `draw` and discarded: auto-sized windows learn their size from a
    // frame of content, so a frame drawn after them shows them at their settled size and place.
    template <class Draw>
    void lay_out_unseen(int framebuffer_w, int framebuffer_h, int passes, const Draw& draw) {
        for (int pass = 0; pass < passes; ++pass) {
            begin_frame(framebuffer_w, framebuffer_h, 1.0f / 60.0f);
            draw();
            discard_frame();
        }
    }
    // Ends the UI frame built since begin_frame(); draw_layers() then draws it, in parts when
    // a saved frame must hold some of it and not the rest.
    void finish_frame();
    // The parts of a finished frame, in the order they are drawn.
    enum Layer : unsigned {
        kBackground = 1,  // annotations drawn under the panels (scale bar, legend, time stamp)
        kWindows = 2,     // the panels
        kForeground = 4,  // on-screen status (the REC indicator): never in a saved frame
        kAllLayers = 7,
    };
    // Draws the layers of `layers` not drawn yet this frame into `framebuffer`. Drawing the
    // background after the windows would cover them, so asking for a layer below one already
    // drawn is a logic error (std::logic_error).
    void draw_layers(unsigned int framebuffer, int framebuffer_w, int framebuffer_h, unsigned layers);

    // Whether the UI is using the mouse (a drag over a panel must not orbit the camera) / the
    // keyboard (only while a text field is being edited: shortcuts work everywhere else).
    bool wants_mouse() const;
    bool wants_keyboard() const;

    // On: the panels (kWindows) are kept as a picture, drawn again when they change (at once after
    // input, else at most every timing.refresh_s) and blended over each frame (ui_cache.hpp): for
    // a software renderer. Off (the default): drawn every frame. Turning it on again keeps the
    // picture and its timing.
    void cache_panels(bool on, UiCacheTiming timing = {});
    bool panels_cached() const { return cache_ != nullptr; }
    // How many times the cached panels were drawn into their picture, and where it is blended
    // over the frame (empty when not cached).
    long long panel_redraws() const;
    std::vector<PixelRect> panel_area() const;

  private:
    struct PanelCache;
    void draw_panels_cached(const ImDrawData& panels, unsigned int framebuffer, int framebuffer_w,
                            int framebuffer_h);

    bool glfw_ = false;
    unsigned drawn_ = kAllLayers;  // layers of the finished frame already drawn
    std::unique_ptr<PanelCache> cache_;
    bool input_ = false;          // this frame brought input the panels may answer
    bool mouse_over_ui_ = false;  // the previous frame's WantCaptureMouse
};

}  // namespace nbody::render
