// `--sprites cuda` (cuda_splat_deposit.hpp): the CUDA deposit adds the same integers into the
// same sums as the GL compute deposit (splat.comp), bit for bit, and the viewer draws the same
// picture with it. GPU tests: they skip, saying why, without a CUDA device or where the EGL
// context is not on it (Mesa's software device cannot be registered with CUDA).

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <sstream>
#include <string>
#include <vector>

#include "nbody/render/camera.hpp"
#include "nbody/render/frame_capture.hpp"
#include "nbody/render/particle_buffers.hpp"
#include "nbody/render/particle_renderer.hpp"
#include "nbody/sim/backend.hpp"
#include "nbody/sim/scene.hpp"
#include "shared_egl_context.hpp"
#include "test_support.hpp"

namespace nbody::render {
namespace {

TEST(CudaSprites, AutoPicksCudaOnlyWherePreferred) {
    EXPECT_EQ(chosen_sprite_drawing(SpriteDrawing::Auto, 1u << 20, false, true), SpriteDrawing::Cuda);
    EXPECT_EQ(chosen_sprite_drawing(SpriteDrawing::Auto, 1u << 20, false, false), SpriteDrawing::Compute);
    EXPECT_EQ(chosen_sprite_drawing(SpriteDrawing::Auto, 1000, false, true), SpriteDrawing::Points);
    EXPECT_EQ(chosen_sprite_drawing(SpriteDrawing::Auto, 1u << 20, true, true), SpriteDrawing::Points);
    EXPECT_EQ(chosen_sprite_drawing(SpriteDrawing::Cuda, 10, true, false), SpriteDrawing::Cuda);
    EXPECT_STREQ(sprite_drawing_name(SpriteDrawing::Cuda), "cuda");
}

#if NBODY_HAVE_CUDA

// One drawing's sums (the layers, then the saturation bits) and the wide sprites listed.
struct Sums {
    std::vector<std::uint32_t> words;
    std::uint32_t large = 0;
};

Sums draw_sums(ParticleRenderer& renderer, const ParticleBuffers& buffers, const OrbitCamera& camera,
               const RenderSettings& settings, int w, int h) {
    RenderTarget screen(w, h, GL_RGBA8);
    renderer.draw(buffers, camera, settings, {screen.framebuffer(), w, h, 1.0f});
    Sums s;
    s.words = renderer.splatter().read_sums();
    glGetNamedBufferSubData(renderer.splatter().large_list_buffer(), 0, sizeof s.large, &s.large);
    return s;
}

// Where two sums differ: how many words, the first, the largest difference.
std::string differences(const Sums& gl, const Sums& cuda) {
    std::size_t count = 0, first = gl.words.size();
    long long worst = 0;
    for (std::size_t i = 0; i < gl.words.size() && i < cuda.words.size(); ++i)
        if (gl.words[i] != cuda.words[i]) {
            ++count;
            first = std::min(first, i);
            worst = std::max(worst, std::llabs((long long)gl.words[i] - (long long)cuda.words[i]));
        }
    if (count == 0) return {};
    std::ostringstream out;
    out << count << " of " << gl.words.size() << " words differ; the first at " << first << " (compute "
        << gl.words[first] << ", cuda " << cuda.words[first] << "); the largest difference " << worst
        << " units (2^20 a unit of light)";
    return out.str();
}

struct Case {
    const char* name;
    std::size_t bodies;
    float point_size;  // RenderSettings::point_size; 0: the default
    bool wide_expected;
};

TEST(CudaSprites, DepositGivesTheComputeDepositsSumsBitForBit) {
    REQUIRE_EGL();
    std::string why;
    if (!cuda_available(&why)) GTEST_SKIP() << "no usable CUDA device: " << why;
    const int w = 640, h = 360;
    static ParticleRenderer* shared = new ParticleRenderer();  // shaders compile once per program
    ParticleRenderer& renderer = *shared;
    for (const Case& c : {Case{"default scene, 16K", 16384, 0, false}, Case{"default scene, 256K", 262144, 0, false},
                          Case{"sprites wider than the widest layer", 16384, 40, true}}) {
        SCOPED_TRACE(c.name);
        const Scene scene = default_scene(c.bodies);
        ParticleBuffers buffers;
        buffers.load(scene.state, scene.params.dt);
        if (const std::string refused = buffers.enable_cuda_interop(); !refused.empty())
            GTEST_SKIP() << "CUDA-GL interop refused on this context: " << refused;
        const OrbitCamera camera(scene.camera);
        RenderSettings settings;
        if (c.point_size > 0) {
            settings.point_size = c.point_size;
            settings.looks_chosen.point_size = true;
        }
        settings.sprites = SpriteDrawing::Compute;
        const Sums gl = draw_sums(renderer, buffers, camera, settings, w, h);
        ASSERT_EQ(renderer.last_sprite_drawing(), SpriteDrawing::Compute);
        settings.sprites = SpriteDrawing::Cuda;
        const Sums cuda = draw_sums(renderer, buffers, camera, settings, w, h);
        ASSERT_EQ(renderer.last_sprite_drawing(), SpriteDrawing::Cuda) << renderer.cuda_sprites_refused();

        ASSERT_EQ(gl.words.size(), cuda.words.size());
        EXPECT_GT(std::count_if(gl.words.begin(), gl.words.end(), [](std::uint32_t v) { return v != 0; }), 1000)
            << "the compute deposit left the sums nearly empty";
        EXPECT_EQ(gl.large, cuda.large) << "the two deposits listed different numbers of wide sprites";
        if (c.wide_expected) EXPECT_GT(cuda.large, 0u) << "no sprite was wide: the case tests nothing of the list";
        EXPECT_EQ(differences(gl, cuda), "");
    }
}

// The viewer in the frame loop on the cuda backend (scripted: the same steps either way), one
// frame drawn each way: the same PNG.
TEST(CudaSprites, ViewerDrawsTheSamePictureAsCompute) {
    std::string why;
    if (!cuda_available(&why)) GTEST_SKIP() << "no usable CUDA device: " << why;
    test::TempDir dir;
    const std::string common = "view --headless --backend cuda --bodies 65536 --frames 3 --no-ui --size 640x360 ";
    const auto compute = test::run_nbody(common + "--sprites compute --screenshot " + dir.file("compute.png"));
    ASSERT_EQ(compute.exit_code, 0) << compute.output;
    if (compute.output.find("path=interop") == std::string::npos)
        GTEST_SKIP() << "interop not available on this EGL device; the viewer fell back:\n" << compute.output;
    const auto cuda = test::run_nbody(common + "--sprites cuda --screenshot " + dir.file("cuda.png"));
    ASSERT_EQ(cuda.exit_code, 0) << cuda.output;
    EXPECT_NE(cuda.output.find("sprites=cuda"), std::string::npos) << cuda.output;
    EXPECT_NE(cuda.output.find("cuda sprites"), std::string::npos) << "no CUDA deposit time in the report\n"
                                                                    << cuda.output;
    const Image a = read_png(dir.file("compute.png")), b = read_png(dir.file("cuda.png"));
    ASSERT_EQ(a.rgba.size(), b.rgba.size());
    std::size_t differ = 0;
    int worst = 0;
    for (std::size_t i = 0; i < a.rgba.size(); ++i)
        if (a.rgba[i] != b.rgba[i]) {
            ++differ;
            worst = std::max(worst, std::abs(int(a.rgba[i]) - int(b.rgba[i])));
        }
    EXPECT_EQ(differ, 0u) << differ << " bytes differ, by at most " << worst;
    EXPECT_LE(worst, 1) << "the pictures differ by more than rounding";
}

#else

TEST(CudaSprites, NotBuilt) { GTEST_SKIP() << "this build has no CUDA (NBODY_HAVE_CUDA is off)"; }

#endif

}  // namespace
}  // namespace nbody::render
