// The pieces recording is built from, on a headless EGL context: asynchronous readback through
// pixel buffer objects, PNG encoding of bottom-up rows, and the GPU stage timer.

#include <gtest/gtest.h>

#include <cstring>
#include <memory>
#include <ostream>
#include <string>
#include <thread>
#include <vector>

#include "nbody/render/camera.hpp"
#include "nbody/render/egl_context.hpp"
#include "shared_egl_context.hpp"
#include "nbody/render/frame_capture.hpp"
#include "nbody/render/frame_reader.hpp"
#include "nbody/render/gl_check.hpp"
#include "nbody/render/gpu_timer.hpp"
#include "nbody/render/particle_buffers.hpp"
#include "nbody/render/particle_renderer.hpp"
#include "nbody/sim/atomic_file.hpp"
#include "nbody/sim/scene.hpp"
#include "test_support.hpp"

namespace nbody::render {
namespace {

// A target whose every pixel is different and known: (x, y, x ^ y) in the low bits.
RenderTarget patterned_target(int w, int h) {
    RenderTarget target(w, h, GL_RGBA8);
    std::vector<std::uint8_t> rgba(std::size_t(w) * h * 4);
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
            std::uint8_t* p = &rgba[(std::size_t(y) * w + x) * 4];
            p[0] = std::uint8_t(x * 7 + 1);
            p[1] = std::uint8_t(y * 13 + 2);
            p[2] = std::uint8_t((x ^ y) + 3);
            p[3] = 255;
        }
    glTextureSubImage2D(target.texture(), 0, 0, 0, w, h, GL_RGBA, GL_UNSIGNED_BYTE, rgba.data());
    NBODY_GL_CHECK_STATE("filling a test target");
    return target;
}

// The PBO path returns the same pixels as the synchronous glReadPixels the screenshots use, rows
// bottom-up as documented, in both layouts, for an odd width (rows of 3 * odd bytes: no padding
// allowed); frames come back in order, and the pool bounds how many are out at once.
TEST(AsyncFrameReader, ReturnsWhatGlReadPixelsReturns) {
    REQUIRE_EGL();
    const int w = 37, h = 11;
    const RenderTarget target = patterned_target(w, h);
    const Image reference = read_framebuffer(target.framebuffer(), w, h);  // top-down RGBA

    for (const PixelFormat format : {PixelFormat::Rgb, PixelFormat::Rgba}) {
        const int c = channels(format);
        AsyncFrameReader reader(2, format);
        std::vector<ReadbackFrame> held;
        long long next = 100;
        for (int k = 0; k < 5; ++k) {
            // Pool of two: the third submit needs a frame taken and given back first.
            while (!reader.can_submit()) {
                if (auto f = reader.take(true)) {
                    held.push_back(std::move(*f));
                    continue;
                }
                ASSERT_FALSE(held.empty()) << "no buffer free and none out";
                ASSERT_LE(reader.out(), 2);
                held.erase(held.begin());  // giving one back frees its buffer
            }
            reader.submit(target.framebuffer(), w, h, next++);
        }
        while (auto f = reader.take(true)) held.push_back(std::move(*f));
        ASSERT_GE(held.size(), 2u);
        for (std::size_t i = 1; i < held.size(); ++i)
            EXPECT_EQ(held[i].tag, held[i - 1].tag + 1) << "frames come back in submission order";
        EXPECT_EQ(held.back().tag, 104);
        for (const ReadbackFrame& frame : held) {
            ASSERT_EQ(frame.width, w);
            ASSERT_EQ(frame.height, h);
            ASSERT_EQ(frame.bytes(), std::size_t(w) * h * c);
            for (int y = 0; y < h; ++y)
                for (int x = 0; x < w; ++x) {
                    const std::uint8_t* got = frame.pixels.get() + (std::size_t(h - 1 - y) * w + x) * c;
                    const std::uint8_t* want = reference.pixel(x, y);
                    ASSERT_TRUE(got[0] == want[0] && got[1] == want[1] && got[2] == want[2])
                        << "pixel (" << x << ", " << y << ") of frame " << frame.tag << ", " << c
                        << " channels";
                }
        }
        // Frames given back from another thread return their buffers to the pool.
        std::thread([&] { held.clear(); }).join();
        EXPECT_EQ(reader.out(), 0);
        EXPECT_TRUE(reader.can_submit());
        EXPECT_EQ(reader.pending(), 0);
    }
    // The reader leaves no pack buffer bound: a plain glReadPixels into memory still works.
    EXPECT_EQ(read_framebuffer(target.framebuffer(), w, h).rgba, reference.rgba);
}

TEST(EncodePngRgb, BottomUpRowsComeOutTheRightWayUp) {
    const int w = 5, h = 3;
    std::vector<std::uint8_t> rgb(std::size_t(w) * h * 3);
    for (int y = 0; y < h; ++y)  // bottom row first in memory, as GL reads
        for (int x = 0; x < w; ++x) {
            std::uint8_t* p = &rgb[(std::size_t(y) * w + x) * 3];
            p[0] = std::uint8_t(10 * x);
            p[1] = std::uint8_t(50 * y);  // 0 = bottom row
            p[2] = 7;
        }
    test::TempDir dir;
    for (const bool fast : {false, true}) {
        const std::vector<std::uint8_t> png = encode_png_rgb(rgb.data(), w, h, /*bottom_up=*/true, fast);
        const std::string path = dir.file(fast ? "fast.png" : "small.png");
        write_file_atomically(path, [&](std::ostream& out) {
            out.write(reinterpret_cast<const char*>(png.data()), std::streamsize(png.size()));
        });
        const Image image = read_png(path);
        ASSERT_EQ(image.width, w);
        ASSERT_EQ(image.height, h);
        for (int y = 0; y < h; ++y)
            for (int x = 0; x < w; ++x) {
                EXPECT_EQ(image.pixel(x, y)[0], 10 * x);
                EXPECT_EQ(image.pixel(x, y)[1], 50 * (h - 1 - y)) << "row " << y << " is upside down";
            }
    }
    EXPECT_THROW(encode_png_rgb(rgb.data(), 0, h, true, true), std::invalid_argument);
    // RGBA input: the alpha is dropped, the rest identical.
    std::vector<std::uint8_t> rgba(std::size_t(w) * h * 4, 99);
    for (std::size_t i = 0; i < std::size_t(w) * h; ++i) std::memcpy(&rgba[4 * i], &rgb[3 * i], 3);
    EXPECT_EQ(encode_png_pixels(rgba.data(), 4, w, h, true, false),
              encode_png_rgb(rgb.data(), w, h, true, false));
    EXPECT_THROW(encode_png_pixels(rgba.data(), 2, w, h, true, false), std::invalid_argument);
}

// Every stage the renderer runs gets a time, without the frame loop ever waiting for one.
TEST(GpuFrameTimer, TimesTheRendererStages) {
    REQUIRE_EGL();
    const Scene scene = default_scene(2048);
    ParticleBuffers buffers;
    buffers.load(scene.state, scene.params.dt);
    ParticleRenderer renderer;
    const OrbitCamera camera(scene.camera);
    RenderTarget screen(160, 90, GL_RGBA8);
    RenderSettings settings;
    GpuFrameTimer timer(3);
    timer.set_count_from(1);
    constexpr int kFrames = 6;
    for (int f = 0; f < kFrames; ++f) {
        timer.begin_frame(f);
        settings.glow = f % 2 ? 1.0f : 0.0f;  // the glow stage only on odd frames
        renderer.draw(buffers, camera, settings, {screen.framebuffer(), 160, 90, 1.0f}, &timer);
        timer.end_frame();
    }
    timer.drain();
    EXPECT_EQ(timer.frames_counted() + timer.dropped_frames(), kFrames - 1);
    ASSERT_GT(timer.frames_counted(), 0);
    const auto& ms = timer.total_ms();
    EXPECT_GT(ms[int(GpuStage::Particles)], 0.0);
    EXPECT_GT(ms[int(GpuStage::Tonemap)], 0.0);
    EXPECT_GE(ms[int(GpuStage::Glow)], 0.0);
    EXPECT_EQ(ms[int(GpuStage::Ui)], 0.0) << "no UI was drawn";
    EXPECT_EQ(ms[int(GpuStage::Readback)], 0.0) << "nothing was read back";
}

}  // namespace
}  // namespace nbody::render
