#pragma once
// The panels kept as a picture (issue 33). On a software renderer (Mesa llvmpipe) rasterising
// Dear ImGui's ~5,400 blended triangles cost a quarter of a frame at 1280x720 (22 frames/s with
// the panels drawn, 30 with them built but not drawn). Drawn once into a texture, the panels
// are blended over each frame from it, over only the parts of the frame they cover, and drawn
// again when what they show changes: at once after input, else at most a few times a second
// (numbers that change every frame would otherwise redraw them every frame). On a GPU nothing
// of this is used unless asked for (--ui-cache on).

#include <chrono>
#include <vector>

#include "nbody/render/gl_objects.hpp"
#include "nbody/render/shader.hpp"

namespace nbody::render {

// [x0, x1) x [y0, y1) in framebuffer pixels, GL's origin (bottom left).
struct PixelRect {
    int x0 = 0, y0 = 0, x1 = 0, y1 = 0;
    bool operator==(const PixelRect&) const = default;
};

// The `tile` x `tile` squares of a `width` x `height` frame that any of `shapes` touches, as
// runs along each row of squares (clipped to the frame; none overlap): where a picture drawn from
// those shapes can differ from transparent.
std::vector<PixelRect> covered_tiles(const std::vector<PixelRect>& shapes, int width, int height, int tile);

// When the picture is drawn again.
struct UiCacheTiming {
    // Changes without input (a frame rate, a step count, a spinner) are shown this often, and at
    // least refresh_frames frames apart: a redraw costs llvmpipe more than drawing the panels
    // directly (a clear and the blend on top), so at 10 frames/s four a second would cost more
    // than the cache saves.
    double refresh_s = 0.25;
    int refresh_frames = 8;
    // Changes this soon after input are shown at once: a key's effect may reach the panels a frame
    // or two after it (a request acted on in the next frame).
    double after_input_s = 0.25;
};

class UiRedrawPolicy {
  public:
    using Clock = std::chrono::steady_clock;
    explicit UiRedrawPolicy(UiCacheTiming timing = {}) : timing_(timing) {}
    // Called once a frame: whether a picture of a UI that `changed` (since the picture was drawn)
    // is drawn again now; `input`: this frame brought input the UI may answer. A first picture is
    // always drawn.
    bool redraw(bool changed, bool input, Clock::time_point now);

  private:
    UiCacheTiming timing_;
    bool drawn_ = false;
    Clock::time_point last_drawn_{}, last_input_{};
    bool had_input_ = false;
    int frames_since_drawn_ = 0;
};

// A picture drawn into a transparent texture with "over" blending that keeps alpha
// (GL_ONE, GL_ONE_MINUS_SRC_ALPHA for alpha, as Dear ImGui's GL backend does), which makes its
// colour premultiplied: blended over a frame with GL_ONE, GL_ONE_MINUS_SRC_ALPHA (PictureBlender)
// it gives that frame what drawing the same triangles onto it directly gives, within 8-bit rounding.
class CachedPicture {
  public:
    // Binds a cleared (transparent) `width` x `height` target and sets the viewport to it.
    void begin_redraw(int width, int height);
    // What was drawn since begin_redraw covers `area` (covered_tiles); nothing outside it is blended.
    void end_redraw(std::vector<PixelRect> area);

    int width() const { return target_.width(); }
    int height() const { return target_.height(); }
    GLuint texture() const { return target_.texture(); }
    GLuint area_buffer() const { return rects_.id(); }  // `area` as ivec4s
    const std::vector<PixelRect>& area() const { return area_; }

  private:
    RenderTarget target_;
    GlBuffer rects_;
    std::vector<PixelRect> area_;
};

// Blends cached pictures over frames: one program (compiled at the first picture: ~60 ms on
// llvmpipe) for all of them.
class PictureBlender {
  public:
    // Blends `picture` over `framebuffer` (of the size it was drawn at); leaves blending off and no
    // program, vertex array or texture bound.
    void blend(const CachedPicture& picture, GLuint framebuffer);

  private:
    void create();

    ShaderProgram program_;
    GlVertexArray vao_;
};

}  // namespace nbody::render
