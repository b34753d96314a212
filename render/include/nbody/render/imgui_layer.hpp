#pragma once
// Dear ImGui set up for this program: one per process (ImGui has a global context). With a
// window it uses the GLFW platform backend for input; headless it has none, and the frame loop
// supplies the display size and time step itself. Drawing goes through imgui_impl_opengl3 in
// both cases.

struct GLFWwindow;

namespace nbody::render {

class ImGuiLayer {
  public:
    // `window` null: headless. `content_scale`: the display's UI scale (2 on most HiDPI).
    ImGuiLayer(GLFWwindow* window, float content_scale);
    ~ImGuiLayer();
    ImGuiLayer(const ImGuiLayer&) = delete;
    ImGuiLayer& operator=(const ImGuiLayer&) = delete;

    // Starts a UI frame. Headless: the display is framebuffer_w x framebuffer_h pixels and
    // `dt` seconds passed since the last frame.
    void begin_frame(int framebuffer_w, int framebuffer_h, float dt);
    // Ends the frame without drawing it. Auto-sized windows learn their size from a frame of
    // content, so a headless run that captures its first frames lays the UI out this way first.
    void discard_frame();
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

  private:
    bool glfw_ = false;
    unsigned drawn_ = kAllLayers;  // layers of the finished frame already drawn
};

}  // namespace nbody::render
