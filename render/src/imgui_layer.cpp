#include "nbody/render/imgui_layer.hpp"

#include "nbody/render/annotations.hpp"

#include <imgui.h>
#include <imgui_impl_glfw.h>
#include <imgui_impl_opengl3.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <stdexcept>
#include <string>
#include <vector>

#include "nbody/render/assets.hpp"
#include "nbody/render/gl.hpp"
#include "nbody/render/glfw.hpp"

namespace nbody::render {

namespace {

// Why `path` cannot be a TrueType / OpenType font, or "" when its table directory is sound.
// ImGui asserts (aborting the program) on a file stb_truetype cannot parse, so a font named by
// the user is checked first: the sfnt tag and every table inside the file.
std::string font_file_problem(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) return "cannot be opened";
    const std::string data((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    auto u32 = [&](std::size_t at) {
        return (std::uint32_t(std::uint8_t(data[at])) << 24) | (std::uint32_t(std::uint8_t(data[at + 1])) << 16) |
               (std::uint32_t(std::uint8_t(data[at + 2])) << 8) | std::uint32_t(std::uint8_t(data[at + 3]));
    };
    if (data.size() < 12) return "is too short for a font";
    const std::uint32_t tag = u32(0);
    if (tag != 0x00010000u && tag != 0x74727565u /* true */ && tag != 0x4F54544Fu /* OTTO */)
        return "is not a TrueType/OpenType font (no sfnt header)";
    const std::size_t tables = (std::size_t(std::uint8_t(data[4])) << 8) | std::uint8_t(data[5]);
    if (tables == 0 || 12 + 16 * tables > data.size()) return "has a damaged table directory";
    bool has_cmap = false, has_head = false;
    for (std::size_t t = 0; t < tables; ++t) {
        const std::size_t rec = 12 + 16 * t;
        const std::uint64_t offset = u32(rec + 8), length = u32(rec + 12);
        if (offset + length > data.size()) return "is truncated (a table runs past the end of the file)";
        has_cmap |= data.compare(rec, 4, "cmap") == 0;
        has_head |= data.compare(rec, 4, "head") == 0;
    }
    if (!has_cmap || !has_head) return "lacks the cmap/head tables a font needs";
    return "";
}

// A proportional TTF reads better than ImGui's built-in 13 px bitmap font, especially scaled:
// the one in assets/fonts (DejaVu Sans), else the system's. NBODY_UI_FONT overrides; one that is
// not a usable font falls back to the built-in font with a notice on stderr.
std::string find_ui_font() {
    std::error_code ec;
    if (const char* env = std::getenv("NBODY_UI_FONT"); env && *env) {
        std::string problem = std::filesystem::is_directory(env, ec)    ? "is a folder"
                              : !std::filesystem::exists(env, ec)       ? "does not exist"
                                                                        : font_file_problem(env);
        if (problem.empty()) return env;
        std::fprintf(stderr, "nbody: NBODY_UI_FONT '%s' %s; using the built-in font\n", env, problem.c_str());
        return {};
    }
    if (const auto bundled = find_asset("fonts/DejaVuSans.ttf"); !bundled.empty()) return bundled.string();
    for (const char* candidate :
         {"/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf", "/usr/share/fonts/TTF/DejaVuSans.ttf",
          "/usr/share/fonts/dejavu/DejaVuSans.ttf"}) {
        if (std::filesystem::is_regular_file(candidate, ec)) return candidate;
    }
    return {};
}

void apply_style(float scale) {
    ImGui::StyleColorsDark();
    ImGuiStyle& style = ImGui::GetStyle();
    style.WindowRounding = 6.0f;
    style.ChildRounding = 4.0f;
    style.FrameRounding = 4.0f;
    style.GrabRounding = 4.0f;
    style.PopupRounding = 4.0f;
    style.ScrollbarRounding = 6.0f;
    style.TabRounding = 4.0f;
    style.WindowBorderSize = 0.0f;
    style.FramePadding = ImVec2(6, 4);
    style.ItemSpacing = ImVec2(8, 5);
    style.WindowPadding = ImVec2(10, 8);
    ImVec4* c = style.Colors;
    // Translucent, slightly blue panels: the particles stay visible behind them.
    c[ImGuiCol_WindowBg] = ImVec4(0.06f, 0.07f, 0.10f, 0.82f);
    c[ImGuiCol_TitleBg] = ImVec4(0.08f, 0.10f, 0.15f, 0.90f);
    c[ImGuiCol_TitleBgActive] = ImVec4(0.12f, 0.17f, 0.28f, 0.95f);
    c[ImGuiCol_TitleBgCollapsed] = ImVec4(0.08f, 0.10f, 0.15f, 0.70f);
    c[ImGuiCol_FrameBg] = ImVec4(0.14f, 0.17f, 0.24f, 0.85f);
    c[ImGuiCol_FrameBgHovered] = ImVec4(0.20f, 0.26f, 0.38f, 0.90f);
    c[ImGuiCol_FrameBgActive] = ImVec4(0.24f, 0.32f, 0.48f, 1.00f);
    c[ImGuiCol_Button] = ImVec4(0.20f, 0.30f, 0.48f, 0.80f);
    c[ImGuiCol_ButtonHovered] = ImVec4(0.28f, 0.42f, 0.66f, 0.90f);
    c[ImGuiCol_ButtonActive] = ImVec4(0.33f, 0.50f, 0.80f, 1.00f);
    c[ImGuiCol_Header] = ImVec4(0.20f, 0.30f, 0.48f, 0.60f);
    c[ImGuiCol_HeaderHovered] = ImVec4(0.28f, 0.42f, 0.66f, 0.80f);
    c[ImGuiCol_HeaderActive] = ImVec4(0.33f, 0.50f, 0.80f, 1.00f);
    // A thin, translucent grab: the value printed on the slider stays readable behind it.
    style.GrabMinSize = 6.0f;
    c[ImGuiCol_SliderGrab] = ImVec4(0.98f, 0.66f, 0.30f, 0.45f);
    c[ImGuiCol_SliderGrabActive] = ImVec4(1.00f, 0.76f, 0.42f, 1.00f);
    c[ImGuiCol_CheckMark] = ImVec4(0.98f, 0.66f, 0.30f, 1.00f);
    c[ImGuiCol_PlotLines] = ImVec4(0.98f, 0.66f, 0.30f, 1.00f);
    c[ImGuiCol_PlotHistogram] = ImVec4(0.40f, 0.62f, 1.00f, 1.00f);
    c[ImGuiCol_TableHeaderBg] = ImVec4(0.12f, 0.16f, 0.24f, 1.00f);
    style.ScaleAllSizes(scale);
}

// Whether this frame brought input the panels may answer: a key pressed or released, a character,
// or the mouse moved, pressed, released or wheeled over a panel (or just off one, whose hover
// look goes). Over the scene's view the mouse moves the camera, which the panels show only as
// numbers: refreshed with the others, not every frame of a drag.
bool input_for_panels(const ImGuiIO& io, bool mouse_was_over_ui) {
    for (int k = 0; k < IM_ARRAYSIZE(io.KeysDown); ++k)
        if (io.KeysDownDuration[k] == 0.0f || (io.KeysDownDurationPrev[k] >= 0.0f && !io.KeysDown[k]))
            return true;
    if (io.InputQueueCharacters.Size > 0) return true;
    if (!io.WantCaptureMouse && !mouse_was_over_ui) return false;
    if (io.MouseDelta.x != 0.0f || io.MouseDelta.y != 0.0f || io.MouseWheel != 0.0f || io.MouseWheelH != 0.0f)
        return true;
    for (int b = 0; b < IM_ARRAYSIZE(io.MouseDown); ++b)
        if (io.MouseClicked[b] || io.MouseReleased[b]) return true;
    return false;
}

// Everything imgui_impl_opengl3 reads from `data` (and the framebuffer's size), as bytes into
// `out`: equal bytes draw equal pixels. Compared whole, not hashed: ~200 kB a frame, which a
// memcmp reads in microseconds, and no two different UIs can compare equal.
void draw_data_bytes(const ImDrawData& data, int framebuffer_w, int framebuffer_h,
                     std::vector<unsigned char>& out) {
    out.clear();
    const auto add = [&](const void* p, std::size_t n) {
        out.insert(out.end(), static_cast<const unsigned char*>(p), static_cast<const unsigned char*>(p) + n);
    };
    const auto value = [&](const auto& v) { add(&v, sizeof v); };
    for (const float f : {data.DisplayPos.x, data.DisplayPos.y, data.DisplaySize.x, data.DisplaySize.y,
                          data.FramebufferScale.x, data.FramebufferScale.y})
        value(f);
    value(framebuffer_w);
    value(framebuffer_h);
    for (int i = 0; i < data.CmdListsCount; ++i) {
        const ImDrawList& list = *data.CmdLists[i];
        value(list.VtxBuffer.Size);
        add(list.VtxBuffer.Data, std::size_t(list.VtxBuffer.Size) * sizeof(ImDrawVert));
        value(list.IdxBuffer.Size);
        add(list.IdxBuffer.Data, std::size_t(list.IdxBuffer.Size) * sizeof(ImDrawIdx));
        value(list.CmdBuffer.Size);
        for (const ImDrawCmd& cmd : list.CmdBuffer) {
            value(cmd.ClipRect);
            value(cmd.TextureId);
            value(cmd.VtxOffset);
            value(cmd.IdxOffset);
            value(cmd.ElemCount);
            value(cmd.UserCallback);
            value(cmd.UserCallbackData);
        }
    }
}

// The framebuffer rectangle (GL's origin, a pixel wider each way for the rasteriser's rounding)
// of each triangle of `data` within its clip rectangle: where drawing `data` can touch pixels.
std::vector<PixelRect> triangle_bounds(const ImDrawData& data, int framebuffer_h) {
    std::vector<PixelRect> out;
    const ImVec2 origin = data.DisplayPos, scale = data.FramebufferScale;
    const auto to_pixels = [&](float x0, float y0, float x1, float y1) {
        return PixelRect{int(std::floor((x0 - origin.x) * scale.x)) - 1,
                         framebuffer_h - int(std::ceil((y1 - origin.y) * scale.y)) - 1,
                         int(std::ceil((x1 - origin.x) * scale.x)) + 1,
                         framebuffer_h - int(std::floor((y0 - origin.y) * scale.y)) + 1};
    };
    for (int i = 0; i < data.CmdListsCount; ++i) {
        const ImDrawList& list = *data.CmdLists[i];
        for (const ImDrawCmd& cmd : list.CmdBuffer) {
            const ImVec4 clip = cmd.ClipRect;
            for (unsigned t = cmd.IdxOffset; t + 2 < cmd.IdxOffset + cmd.ElemCount; t += 3) {
                const auto corner = [&](unsigned k) {
                    return list.VtxBuffer[int(cmd.VtxOffset + list.IdxBuffer[int(t + k)])].pos;
                };
                const ImVec2 a = corner(0), b = corner(1), c = corner(2);
                float x0 = std::min({a.x, b.x, c.x}), y0 = std::min({a.y, b.y, c.y});
                float x1 = std::max({a.x, b.x, c.x}), y1 = std::max({a.y, b.y, c.y});
                x0 = std::max(x0, clip.x), x1 = std::min(x1, clip.z);
                y0 = std::max(y0, clip.y), y1 = std::min(y1, clip.w);
                if (x0 < x1 && y0 < y1) out.push_back(to_pixels(x0, y0, x1, y1));
            }
        }
    }
    return out;
}

}  // namespace

ImGuiLayer::ImGuiLayer(GLFWwindow* window, float content_scale) : glfw_(window != nullptr) {
    IMGUI_CHECKVERSION();
    ImGui::CreateContext();
    ImGuiIO& io = ImGui::GetIO();
    io.IniFilename = nullptr;  // no imgui.ini dropped in whatever folder the program runs from
    // No keyboard navigation: it would take the viewer's single-key shortcuts (Space, N, R, ...)
    // whenever a panel has focus. Keys go to the UI only while a text field is being edited.

    // HiDPI: fonts are rasterised at physical pixel size and drawn at 1/framebuffer-scale so they
    // stay sharp; the layout is scaled by what the content scale asks beyond that.
    float framebuffer_scale = 1.0f;
    if (window) {
        int fw = 0, fh = 0, ww = 0, wh = 0;
        glfwGetFramebufferSize(window, &fw, &fh);
        glfwGetWindowSize(window, &ww, &wh);
        if (ww > 0) framebuffer_scale = std::max(1.0f, float(fw) / float(ww));
    }
    const float scale = std::max(1.0f, content_scale);
    apply_style(std::max(1.0f, scale / framebuffer_scale));
    const std::string font = find_ui_font();
    if (!font.empty() && io.Fonts->AddFontFromFileTTF(font.c_str(), 15.0f * scale)) {
        io.FontGlobalScale = 1.0f / framebuffer_scale;
        // The annotations of saved frames are drawn 27-54 px high from 1080p to 4K
        // (annotation_text_px): enlarged from the 15 px face they were soft. A second face at
        // kLargeAnnotationFontPx serves them (annotation_font); the panels keep the first.
        io.Fonts->AddFontFromFileTTF(font.c_str(), kLargeAnnotationFontPx * scale);
    } else {
        ImFontConfig config;
        config.SizePixels = 13.0f * scale;
        io.Fonts->AddFontDefault(&config);
        io.FontGlobalScale = 1.0f / framebuffer_scale;
    }

    if (window && !ImGui_ImplGlfw_InitForOpenGL(window, /*install_callbacks=*/true)) {
        ImGui::DestroyContext();
        throw std::runtime_error("Dear ImGui: the GLFW backend failed to initialise");
    }
    if (!ImGui_ImplOpenGL3_Init("#version 450")) {
        if (window) ImGui_ImplGlfw_Shutdown();
        ImGui::DestroyContext();
        throw std::runtime_error(
            "Dear ImGui: the OpenGL 3 backend failed to initialise (it loads libGL.so.1)");
    }
}

ImGuiLayer::~ImGuiLayer() {
    cache_.reset();  // its GL objects before the backend goes
    ImGui_ImplOpenGL3_Shutdown();
    if (glfw_) ImGui_ImplGlfw_Shutdown();
    ImGui::DestroyContext();
}

void ImGuiLayer::begin_frame(int framebuffer_w, int framebuffer_h, float dt) {
    ImGui_ImplOpenGL3_NewFrame();
    if (glfw_) {
        ImGui_ImplGlfw_NewFrame();
    } else {
        ImGuiIO& io = ImGui::GetIO();
        io.DisplaySize = ImVec2(float(std::max(framebuffer_w, 1)), float(std::max(framebuffer_h, 1)));
        io.DisplayFramebufferScale = ImVec2(1, 1);
        io.DeltaTime = dt > 0 ? dt : 1.0f / 60.0f;
    }
    ImGui::NewFrame();
    const ImGuiIO& io = ImGui::GetIO();
    input_ = input_for_panels(io, mouse_over_ui_);
    mouse_over_ui_ = io.WantCaptureMouse;
}

void ImGuiLayer::discard_frame() { ImGui::EndFrame(); }

namespace {
// `data` restricted to the draw lists for which `keep` is true (a shallow copy: the lists
// themselves stay ImGui's, valid until the next NewFrame), kept in `lists`.
template <class Keep>
ImDrawData subset_of(const ImDrawData& data, Keep keep, std::vector<ImDrawList*>& lists) {
    ImDrawData subset = data;
    subset.TotalIdxCount = subset.TotalVtxCount = 0;
    for (int i = 0; i < data.CmdListsCount; ++i) {
        if (!keep(data.CmdLists[i])) continue;
        lists.push_back(data.CmdLists[i]);
        subset.TotalIdxCount += data.CmdLists[i]->IdxBuffer.Size;
        subset.TotalVtxCount += data.CmdLists[i]->VtxBuffer.Size;
    }
    subset.CmdLists = lists.data();
    subset.CmdListsCount = int(lists.size());
    return subset;
}

void render(const ImDrawData& data) {
    if (data.CmdListsCount > 0) ImGui_ImplOpenGL3_RenderDrawData(const_cast<ImDrawData*>(&data));
}

// Squares of the frame the cached panels are blended over. Blending costs llvmpipe about as much
// per pixel as drawing the panels' background did: 8-pixel squares add a tenth to the panels' own
// pixels (16-pixel ones a fifth), in a few dozen rectangles.
constexpr int kCoverTile = 8;
}  // namespace

void ImGuiLayer::finish_frame() {
    ImGui::Render();
    drawn_ = 0;
}

void ImGuiLayer::draw_layers(unsigned int framebuffer, int framebuffer_w, int framebuffer_h, unsigned layers) {
    layers &= ~drawn_;
    if (layers == 0) return;
    if (drawn_ > (layers & -layers))  // a layer above the lowest asked for is already drawn
        throw std::logic_error("ImGuiLayer::draw_layers: a layer asked for after one drawn over it");
    const ImDrawList* background = ImGui::GetBackgroundDrawList();
    const ImDrawList* foreground = ImGui::GetForegroundDrawList();
    // ImGui lists the background first and the foreground last: drawn layer by layer, in that
    // order, they overlap as they do drawn in one go.
    for (const unsigned layer : {kBackground, kWindows, kForeground}) {
        if ((layers & layer) == 0) continue;
        std::vector<ImDrawList*> lists;
        const ImDrawData part = subset_of(
            *ImGui::GetDrawData(),
            [&](const ImDrawList* l) {
                return layer == (l == background ? kBackground : l == foreground ? kForeground : kWindows);
            },
            lists);
        if (layer == kWindows && cache_) {
            draw_panels_cached(part, framebuffer, framebuffer_w, framebuffer_h);
            continue;
        }
        glBindFramebuffer(GL_FRAMEBUFFER, framebuffer);
        glViewport(0, 0, framebuffer_w, framebuffer_h);
        render(part);
    }
    drawn_ |= layers;
}

struct ImGuiLayer::PanelCache {
    explicit PanelCache(UiCacheTiming timing) : policy(timing) {}
    UiRedrawPolicy policy;
    // The picture blended over the frames, and the one a refresh without input is drawn into. That
    // one is shown from the next frame on, once llvmpipe has drawn it with the frame it was queued
    // in: blended at once, the frame waited for it (a redraw cost 18 ms of a 30 ms frame).
    CachedPicture shown_picture, next_picture;
    PictureBlender blender;
    std::vector<unsigned char> shown, next, now;  // draw_data_bytes of the pictures' panels, of this frame's
    bool next_ready = false;
    long long redraws = 0;
};

void ImGuiLayer::cache_panels(bool on, UiCacheTiming timing) {
    if (!on) {
        cache_.reset();
        return;
    }
    if (!cache_) cache_ = std::make_unique<PanelCache>(timing);
}

long long ImGuiLayer::panel_redraws() const { return cache_ ? cache_->redraws : 0; }
std::vector<PixelRect> ImGuiLayer::panel_area() const {
    return cache_ ? cache_->shown_picture.area() : std::vector<PixelRect>();
}

namespace {
void redraw_picture(CachedPicture& picture, const ImDrawData& panels, int framebuffer_w, int framebuffer_h) {
    picture.begin_redraw(framebuffer_w, framebuffer_h);
    render(panels);
    picture.end_redraw(
        covered_tiles(triangle_bounds(panels, framebuffer_h), framebuffer_w, framebuffer_h, kCoverTile));
}
}  // namespace

void ImGuiLayer::draw_panels_cached(const ImDrawData& panels, unsigned int framebuffer, int framebuffer_w,
                                    int framebuffer_h) {
    PanelCache& c = *cache_;
    if (c.next_ready) {
        std::swap(c.shown_picture, c.next_picture);
        std::swap(c.shown, c.next);
        c.next_ready = false;
    }
    draw_data_bytes(panels, framebuffer_w, framebuffer_h, c.now);
    // A picture of another size cannot be blended over this frame: a resize is redrawn at once, as
    // input is; a change without input may show a frame later.
    const bool resized =
        c.shown_picture.width() != framebuffer_w || c.shown_picture.height() != framebuffer_h;
    const bool at_once = input_ || resized;
    if (c.policy.redraw(c.now != c.shown, at_once, std::chrono::steady_clock::now())) {
        redraw_picture(at_once ? c.shown_picture : c.next_picture, panels, framebuffer_w, framebuffer_h);
        std::swap(at_once ? c.shown : c.next, c.now);
        c.next_ready = !at_once;
        ++c.redraws;
    }
    c.blender.blend(c.shown_picture, framebuffer);
}

bool ImGuiLayer::wants_mouse() const { return ImGui::GetIO().WantCaptureMouse; }
bool ImGuiLayer::wants_keyboard() const { return ImGui::GetIO().WantTextInput; }

}  // namespace nbody::render
