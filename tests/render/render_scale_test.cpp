// The render scale (issue 33): a software renderer draws the particles, glow and tone mapping at a
// fraction of the window and enlarges the result. The enlarged frame must fill the whole target,
// carry the same light as the full-size frame, show the same picture, and show no blocks.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "nbody/render/camera.hpp"
#include "nbody/render/frame_capture.hpp"
#include "nbody/render/particle_buffers.hpp"
#include "nbody/render/particle_renderer.hpp"
#include "nbody/sim/scene.hpp"
#include "image_luminance.hpp"
#include "shared_egl_context.hpp"
#include "test_support.hpp"

namespace nbody::render {
namespace {

double luminance(const std::uint8_t* p) { return 0.2126 * p[0] + 0.7152 * p[1] + 0.0722 * p[2]; }

// The target is first filled with magenta, which no frame of the scene contains: any left means
// part of the target was not drawn.
Image render_at(float render_scale, int w, int h, bool coarse_glow = false) {
    static ParticleRenderer* renderer = new ParticleRenderer();  // one per program: shaders compile once
    static const Scene scene = default_scene(4096);
    ParticleBuffers buffers;
    buffers.load(scene.state, scene.params.dt);
    const OrbitCamera camera(scene.camera);
    RenderSettings settings;
    settings.render_scale = render_scale;
    settings.coarse_glow = coarse_glow;
    RenderTarget screen(w, h, GL_RGBA8);
    const float magenta[4] = {1, 0, 1, 1};
    glClearNamedFramebufferfv(screen.framebuffer(), GL_COLOR, 0, magenta);
    renderer->draw(buffers, camera, settings, {screen.framebuffer(), w, h, 1.0f});
    return read_framebuffer(screen.framebuffer(), w, h);
}

int magenta_pixels(const Image& image) {
    int n = 0;
    for (int y = 0; y < image.height; ++y)
        for (int x = 0; x < image.width; ++x) {
            const std::uint8_t* p = image.pixel(x, y);
            n += p[0] > 200 && p[1] < 60 && p[2] > 200;
        }
    return n;
}

// Mean luminance over `block` x `block` squares: the picture as a coarse grid, where a frame drawn
// at half size and one drawn at full size must agree.
std::vector<double> blocks(const Image& image, int block) {
    std::vector<double> out;
    for (int by = 0; by + block <= image.height; by += block)
        for (int bx = 0; bx + block <= image.width; bx += block) {
            double sum = 0;
            for (int y = by; y < by + block; ++y)
                for (int x = bx; x < bx + block; ++x) sum += luminance(image.pixel(x, y));
            out.push_back(sum / (block * block));
        }
    return out;
}

TEST(RenderScale, FullSizeIsTheDefault) { EXPECT_EQ(RenderSettings{}.render_scale, 1.0f); }

// What a software renderer's window draws (render scale 0.5, the glow coarse) against the full frame.
TEST(RenderScale, TheHalfSizeFrameFillsTheTargetWithTheSameLight) {
    REQUIRE_EGL();
    const int w = 640, h = 360;
    const Image full = render_at(1.0f, w, h);
    const Image half = render_at(0.5f, w, h, /*coarse_glow=*/true);
    ASSERT_EQ(half.width, w);
    ASSERT_EQ(half.height, h);
    EXPECT_EQ(magenta_pixels(full), 0);
    EXPECT_EQ(magenta_pixels(half), 0) << "pixels of the target the enlarged frame did not cover";
    const double mf = mean_luminance(full), mh = mean_luminance(half);
    ASSERT_GT(mf, 1.0) << "the frame is black: nothing to compare";
    EXPECT_NEAR(mh, mf, 0.08 * mf) << "mean brightness at render scale 0.5: " << mh << ", at 1: " << mf;

    // The same picture: on a 20-pixel grid the two frames' light agrees square by square (the
    // galaxies in the same places, as bright, as wide).
    const std::vector<double> bf = blocks(full, 20), bh = blocks(half, 20);
    double diff = 0, total = 0;
    for (std::size_t i = 0; i < bf.size(); ++i) {
        diff += std::abs(bf[i] - bh[i]);
        total += bf[i];
    }
    EXPECT_LT(diff / total, 0.12) << "squares of 20x20 pixels differ by " << 100 * diff / total
                                  << "% of the light";
}

// Enlarged by interpolation, not by repeating pixels: where the galaxies are lit, the light changes
// between the two output pixels of one drawn pixel about as much as from one drawn pixel to the
// next (bilinear: 0.5 to 1 of it; a nearest-pixel enlargement puts every change on the seams, 2x2
// blocks: 0). The dark sky is left out: there the 8-bit rounding of a dithered 6 or 7 makes pairs.
TEST(RenderScale, TheEnlargedFrameShowsNoBlocks) {
    REQUIRE_EGL();
    const Image half = render_at(0.5f, 640, 360);
    double inside = 0, seams = 0;
    for (int y = 0; y < half.height; ++y)
        for (int x = 0; x + 2 < half.width; x += 2) {
            if (luminance(half.pixel(x, y)) < 20) continue;
            inside += std::abs(luminance(half.pixel(x + 1, y)) - luminance(half.pixel(x, y)));
            seams += std::abs(luminance(half.pixel(x + 2, y)) - luminance(half.pixel(x + 1, y)));
        }
    ASSERT_GT(seams, 100.0) << "too little of the frame is lit to judge";
    EXPECT_GT(inside / seams, 0.5)
        << "changes inside drawn pixels against across them (1: no blocks, 0: blocks)";
}

// The viewer's choice seen from the command line: headless frames keep the full size on llvmpipe
// (they are looked at later, not waited for), --render-scale asks for a size and is checked.
TEST(RenderScale, TheOptionSetsTheScaleAndHeadlessKeepsTheFullSize) {
    test::TempDir dir;
    const std::string shot = (dir.path() / "half.png").string();
    const std::string base = "timeout 300 '" + test::nbody_executable() +
                             "' view --headless --backend cpu --no-ui --size 320x180 ";
    const auto automatic = test::run_command(base + "--bodies 512");
    if (automatic.exit_code != 0 &&
        automatic.output.find("cannot create a headless OpenGL") != std::string::npos)
        GTEST_SKIP() << "no headless EGL: " << automatic.output;
    ASSERT_EQ(automatic.exit_code, 0) << automatic.output;
    EXPECT_EQ(automatic.output.find("draws on the CPU"), std::string::npos)
        << "a headless run chose a smaller frame by itself:\n"
        << automatic.output;

    const auto half = test::run_command(base + "--bodies 512 --render-scale 0.5 --screenshot '" + shot + "'");
    ASSERT_EQ(half.exit_code, 0) << half.output;
    const Image image = read_png(shot);
    EXPECT_EQ(image.width, 320);
    EXPECT_EQ(image.height, 180);
    EXPECT_GT(mean_luminance(image), 1.0) << "the frame is black";

    const auto bad = test::run_command(base + "--render-scale 2");
    EXPECT_NE(bad.exit_code, 0);
    EXPECT_NE(bad.output.find("--render-scale"), std::string::npos) << bad.output;
    EXPECT_NE(bad.output.find("0.25 to 1"), std::string::npos) << bad.output;
}

}  // namespace
}  // namespace nbody::render
