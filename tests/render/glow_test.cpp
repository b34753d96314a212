// Pixel checks of the glow and the sprites (issue 15): a paused system draws the same frame twice,
// a particle moving by a fraction of a pixel does not change the frame's brightness (no flicker),
// a frame at half the resolution looks like the full one scaled down (the glow and the sprites
// are sized to the frame, not in pixels), and sprites seen up close are round.

#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <string>

#include "nbody/render/camera.hpp"
#include "nbody/render/egl_context.hpp"
#include "image_luminance.hpp"
#include "shared_egl_context.hpp"
#include "nbody/render/frame_capture.hpp"
#include "nbody/render/particle_buffers.hpp"
#include "nbody/render/particle_renderer.hpp"
#include "nbody/sim/scene.hpp"

namespace nbody::render {
namespace {

Image render(const ParticleBuffers& buffers, const OrbitCamera& camera, const RenderSettings& settings, int w, int h) {
    static ParticleRenderer* renderer = new ParticleRenderer();  // one per program: shaders compile once
    RenderTarget screen(w, h, GL_RGBA8);
    renderer->draw(buffers, camera, settings, {screen.framebuffer(), w, h, 1.0f});
    return read_framebuffer(screen.framebuffer(), w, h);
}

TEST(Glow, APausedSystemDrawsTheSameFrameTwice) {
    REQUIRE_EGL();
    const Scene scene = default_scene(2048);
    ParticleBuffers buffers;
    buffers.load(scene.state, scene.params.dt);
    const OrbitCamera camera(scene.camera);
    RenderSettings settings;
    settings.cache_particles = false;  // both frames drawn: the drawing itself repeats to the bit
    const Image a = render(buffers, camera, settings, 640, 360);
    const Image b = render(buffers, camera, settings, 640, 360);
    int differ = 0;
    for (std::size_t i = 0; i < a.rgba.size(); ++i) differ += a.rgba[i] != b.rgba[i];
    EXPECT_EQ(differ, 0) << "bytes that differ between two frames of a paused system";
    EXPECT_GT(mean_luminance(a), 1.0) << "the frame is black: nothing to compare";
}

// A few bright particles, the camera moved by fractions of a pixel between frames: the frame's
// mean brightness must not swing (it swung by tens of percent with 1.5-pixel sprites). Also for a
// software renderer's window (issue 33): a half-size frame enlarged, whose coarse glow's first step
// is a plain 4x4 box.
TEST(Glow, SubPixelMotionDoesNotMakeTheFrameFlicker) {
    REQUIRE_EGL();
    State s;
    s.resize(5);
    for (int i = 0; i < 5; ++i) s.pos_mass[i] = {float(i - 2) * 3.1f, float(i % 2) * 1.7f, 0.0f, 1.0f};
    ParticleBuffers buffers;
    buffers.load(s, 0.01);
    struct Case {
        const char* name;
        float render_scale;
        bool coarse_glow;
        int w, h;  // the target; the frame drawn is render_scale of it, 320x180 in both
    };
    for (const Case c :
         {Case{"full size", 1.0f, false, 320, 180}, Case{"half size, coarse glow", 0.5f, true, 640, 360}}) {
        RenderSettings settings;
        settings.size_with_distance = false;
        settings.point_size = 1.0f;  // asks for sprites narrower than the minimum
        settings.exposure = 2e-3f;   // five particles carry the light of thousands
        settings.render_scale = c.render_scale;
        settings.coarse_glow = c.coarse_glow;
        double lo = 1e9, hi = 0;
        for (int k = 0; k < 8; ++k) {
            OrbitCamera camera(CameraSpec{.distance = 40, .azimuth_deg = -90, .elevation_deg = 0, .target = {}});
            // One pixel of the drawn frame at the target is distance * 2 tan(fov/2) / h world units;
            // step an eighth of it.
            const float pixel = 40.0f / camera.focal_pixels(float(c.h) * c.render_scale);
            camera.set_target({pixel * 0.125f * float(k), 0.0f, pixel * 0.09f * float(k)});
            const double m = mean_luminance(render(buffers, camera, settings, c.w, c.h));
            lo = std::min(lo, m);
            hi = std::max(hi, m);
        }
        ASSERT_GT(lo, 0.05) << c.name << ": the particles are not visible";
        EXPECT_LT((hi - lo) / lo, 0.05)
            << c.name << ": mean brightness from " << lo << " to " << hi << " as the view moves by sub-pixel steps";
    }
}

// The same view at 640x360 and 1280x720: the mean brightness and the spread of the light (the
// glow's reach) agree, because sprites and glow are sized to the frame.
TEST(Glow, HalfTheResolutionLooksTheSame) {
    REQUIRE_EGL();
    const Scene scene = default_scene(2048);
    ParticleBuffers buffers;
    buffers.load(scene.state, scene.params.dt);
    const OrbitCamera camera(scene.camera);
    const RenderSettings settings;
    const Image small = render(buffers, camera, settings, 640, 360);
    const Image big = render(buffers, camera, settings, 1280, 720);
    const double ms = mean_luminance(small), mb = mean_luminance(big);
    EXPECT_NEAR(ms, mb, 0.12 * mb) << "mean brightness at 640x360 " << ms << ", at 1280x720 " << mb;
    // Fraction of the frame lit above a faint level: the glow's reach relative to the frame.
    auto lit_fraction = [](const Image& im) {
        int lit = 0;
        for (int y = 0; y < im.height; ++y)
            for (int x = 0; x < im.width; ++x) lit += im.pixel(x, y)[0] + im.pixel(x, y)[1] > 40;
        return double(lit) / (double(im.width) * im.height);
    };
    const double fs = lit_fraction(small), fb = lit_fraction(big);
    EXPECT_NEAR(fs, fb, 0.25 * fb) << "lit fraction at 640x360 " << fs << ", at 1280x720 " << fb;
}

// One particle drawn 60 pixels wide: lit inside the circle, dark at the corners of its square.
TEST(Sprites, AreRoundUpClose) {
    REQUIRE_EGL();
    State s;
    s.resize(1);
    s.pos_mass[0] = {0, 0, 0, 1};
    ParticleBuffers buffers;
    buffers.load(s, 0.01);
    RenderSettings settings;
    settings.size_with_distance = false;
    settings.point_size = 60.0f;
    settings.glow = 0.0f;
    settings.exposure = 2e-4f;
    const int w = 200, h = 200;
    const OrbitCamera camera(CameraSpec{.distance = 10, .azimuth_deg = -90, .elevation_deg = 0, .target = {}});
    const Image image = render(buffers, camera, settings, w, h);
    const glm::vec2 c = *camera.project_to_image({0, 0, 0}, w, h);
    const float r = 0.5f * 60.0f * float(h) / 720.0f;  // sizes are given for a 720-line frame
    auto lum = [&](float dx, float dy) {
        const std::uint8_t* p = image.pixel(int(c.x + dx), int(c.y + dy));
        return 0.2126f * p[0] + 0.7152f * p[1] + 0.0722f * p[2];
    };
    const float centre = lum(0, 0), sky = lum(-c.x + 2, -c.y + 2);
    ASSERT_GT(centre, sky + 50) << "the sprite is not drawn";
    // Half way out along an axis and along a diagonal: lit alike (round, not a square or a diamond).
    EXPECT_NEAR(lum(0.5f * r, 0), lum(0.3536f * r, 0.3536f * r), 0.15f * (centre - sky) + 2);
    // The corner of the sprite's square (1.27 r from the centre) is sky.
    EXPECT_LT(lum(0.9f * r, 0.9f * r), sky + 3) << "the corner of the sprite's square is lit";
}

}  // namespace
}  // namespace nbody::render
