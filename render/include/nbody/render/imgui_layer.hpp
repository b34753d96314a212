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
    // Renders the UI built since begin_frame() into the bound framebuffer `framebuffer`.
    // `hold_foreground`: leaves out the foreground draw list (status overlays such as a REC
    // indicator that belong on screen but not in a recorded frame); render_foreground() then
    // draws it, after the frame has been captured.
    void end_frame(unsigned int framebuffer, int framebuffer_w, int framebuffer_h,
                   bool hold_foreground = false);
    void render_foreground(unsigned int framebuffer, int framebuffer_w, int framebuffer_h);

    // Whether the UI is using the mouse (a drag over a panel must not orbit the camera) / the
    // keyboard (only while a text field is being edited: shortcuts work everywhere else).
    bool wants_mouse() const;
    bool wants_keyboard() const;

  private:
    bool glfw_ = false;
    bool foreground_held_ = false;
};

}  // namespace nbody::render
