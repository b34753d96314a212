// The compute path for sprites (particle_splatter.hpp) against GL point sprites: the same
// picture within its layer approximation, wide sprites drawn whole, reproducible frames, sums
// that saturate instead of wrapping; and the shader include its programs share with the points.

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>

#include "nbody/render/camera.hpp"
#include "nbody/render/context.hpp"
#include "nbody/render/frame_capture.hpp"
#include "nbody/render/particle_buffers.hpp"
#include "nbody/render/particle_renderer.hpp"
#include "nbody/render/particle_splatter.hpp"
#include "nbody/render/shader.hpp"
#include "nbody/sim/scene.hpp"
#include "image_luminance.hpp"
#include "shared_egl_context.hpp"

namespace nbody::render {
namespace {

// Mean absolute difference of the two images' luminance over blocks of `block` x `block`
// pixels: sprite shapes may differ a little, where the light lands must not.
double block_difference(const Image& a, const Image& b, int block) {
    double diff = 0;
    int blocks = 0;
    for (int by = 0; by + block <= a.height; by += block)
        for (int bx = 0; bx + block <= a.width; bx += block) {
            double la = 0, lb = 0;
            for (int y = by; y < by + block; ++y)
                for (int x = bx; x < bx + block; ++x) la += luminance(a, x, y), lb += luminance(b, x, y);
            diff += std::abs(la - lb) / (block * block);
            ++blocks;
        }
    return diff / blocks;
}

Image draw_once(ParticleRenderer& renderer, const ParticleBuffers& buffers, const OrbitCamera& camera,
                const RenderSettings& settings, int w, int h) {
    RenderTarget screen(w, h, GL_RGBA8);
    renderer.draw(buffers, camera, settings, {screen.framebuffer(), w, h, 1.0f});
    return read_framebuffer(screen.framebuffer(), w, h);
}

// A scene's bodies in vertex buffers, and its camera.
struct SceneOnScreen {
    explicit SceneOnScreen(const Scene& scene) : camera(scene.camera) { buffers.load(scene.state, scene.params.dt); }
    ParticleBuffers buffers;
    OrbitCamera camera;
};

ParticleRenderer& shared_renderer() {
    static ParticleRenderer* renderer = new ParticleRenderer();  // shaders compile once per program
    return *renderer;
}

TEST(SplatLayers, WidthsDoubleAndEachBlurKeepsTheLight) {
    const auto blurs = splat_layer_blurs(3.0f, ParticleSplatter::kLayers);
    ASSERT_EQ(blurs.size(), std::size_t(ParticleSplatter::kLayers));
    for (std::size_t k = 0; k < blurs.size(); ++k) {
        EXPECT_FLOAT_EQ(blurs[k].width, 3.0f * float(1 << k));
        ASSERT_EQ(blurs[k].weights.size(), std::size_t(blurs[k].radius) + 1);
        double sum = blurs[k].weights[0];
        for (std::size_t t = 1; t < blurs[k].weights.size(); ++t) {
            sum += 2 * blurs[k].weights[t];
            EXPECT_LT(blurs[k].weights[t], blurs[k].weights[t - 1]) << "layer " << k << " is not a bell";
        }
        EXPECT_NEAR(sum, 1.0, 1e-6) << "layer " << k;
        if (k > 0) EXPECT_GT(blurs[k].radius, blurs[k - 1].radius);
    }
}

TEST(SpriteDrawing, AutoDrawsByComputeFromManyBodiesOnAGpu) {
    EXPECT_EQ(chosen_sprite_drawing(SpriteDrawing::Auto, 1000, false), SpriteDrawing::Points);
    EXPECT_EQ(chosen_sprite_drawing(SpriteDrawing::Auto, 1u << 20, false), SpriteDrawing::Compute);
    EXPECT_EQ(chosen_sprite_drawing(SpriteDrawing::Auto, 1u << 20, true), SpriteDrawing::Points);
    EXPECT_EQ(chosen_sprite_drawing(SpriteDrawing::Points, 1u << 20, false), SpriteDrawing::Points);
    EXPECT_EQ(chosen_sprite_drawing(SpriteDrawing::Compute, 10, true), SpriteDrawing::Compute);
    EXPECT_TRUE(is_software_renderer("llvmpipe (LLVM 15.0.6, 256 bits)"));
    EXPECT_FALSE(is_software_renderer("NVIDIA H100 80GB HBM3/PCIe/SSE2"));
    EXPECT_STREQ(sprite_drawing_name(SpriteDrawing::Compute), "compute");
}

// The default collision drawn both ways: the same brightness, the light in the same places.
TEST(SpriteDrawing, ComputeDrawsTheDefaultSceneAsPointsDo) {
    REQUIRE_EGL();
    const SceneOnScreen shown(default_scene(16384));
    const ParticleBuffers& buffers = shown.buffers;
    const OrbitCamera& camera = shown.camera;
    const int w = 480, h = 270;
    RenderSettings settings;
    settings.sprites = SpriteDrawing::Points;
    ParticleRenderer& renderer = shared_renderer();
    const Image points = draw_once(renderer, buffers, camera, settings, w, h);
    EXPECT_EQ(renderer.last_sprite_drawing(), SpriteDrawing::Points);
    settings.sprites = SpriteDrawing::Compute;
    const Image compute = draw_once(renderer, buffers, camera, settings, w, h);
    EXPECT_EQ(renderer.last_sprite_drawing(), SpriteDrawing::Compute);

    const double lp = mean_luminance(points), lc = mean_luminance(compute);
    EXPECT_GT(lp, 3.0) << "the points frame is nearly black";
    EXPECT_NEAR(lc / lp, 1.0, 0.08) << "mean luminance: points " << lp << ", compute " << lc;
    EXPECT_LT(block_difference(points, compute, 8), 0.1 * lp + 1.0)
        << "the light is not where GL points put it";
    EXPECT_GT(block_difference(points, compute, 8), 0.0) << "the two paths drew the very same bytes: was compute used?";
}

// Sprites wider than the widest layer are drawn whole: the same profile GL points give.
TEST(SpriteDrawing, WideSpritesAreDrawnWhole) {
    REQUIRE_EGL();
    State s;
    s.resize(2);
    s.pos_mass[0] = {-2, 0, 0, 1};
    s.pos_mass[1] = {2, 0, 0, 1};
    ParticleBuffers buffers;
    buffers.load(s, 0.01);
    const OrbitCamera camera(CameraSpec{.distance = 10, .azimuth_deg = -90, .elevation_deg = 0, .target = {}});
    const int w = 480, h = 240;
    RenderSettings settings;
    settings.point_size = 120;  // 40 pixels at this height: wider than the widest layer (12)
    settings.exposure = 2e-4f;
    settings.glow = 0.0f;
    settings.variety = 0.0f;
    ParticleRenderer& renderer = shared_renderer();
    settings.sprites = SpriteDrawing::Points;
    const Image points = draw_once(renderer, buffers, camera, settings, w, h);
    settings.sprites = SpriteDrawing::Compute;
    const Image compute = draw_once(renderer, buffers, camera, settings, w, h);
    const glm::vec2 at = *camera.project_to_image({-2, 0, 0}, w, h);
    double worst = 0;
    std::string row;
    for (int dx = -25; dx <= 25; dx += 5) {
        const int x = int(at.x) + dx, y = int(at.y);
        worst = std::max(worst, double(std::abs(luminance(points, x, y) - luminance(compute, x, y))));
        row += " " + std::to_string(int(luminance(points, x, y))) + "/" + std::to_string(int(luminance(compute, x, y)));
    }
    EXPECT_GT(luminance(compute, int(at.x), int(at.y)), 60.0) << "the wide sprite is missing";
    EXPECT_LE(worst, 3.0) << "a wide sprite's profile differs from GL's along its row (points/compute):" << row;
}

TEST(SpriteDrawing, ComputeFramesAreReproducible) {
    REQUIRE_EGL();
    const SceneOnScreen shown(default_scene(8192));
    const ParticleBuffers& buffers = shown.buffers;
    const OrbitCamera& camera = shown.camera;
    RenderSettings settings;
    settings.sprites = SpriteDrawing::Compute;
    ParticleRenderer& renderer = shared_renderer();
    const Image a = draw_once(renderer, buffers, camera, settings, 320, 180);
    const Image b = draw_once(renderer, buffers, camera, settings, 320, 180);
    ASSERT_EQ(a.rgba.size(), b.rgba.size());
    EXPECT_TRUE(a.rgba == b.rgba);
    // The 32-bit float target takes the other resolve program: the same picture.
    settings.float32_target = true;
    const Image c = draw_once(renderer, buffers, camera, settings, 320, 180);
    EXPECT_GT(mean_luminance(a), 3.0);
    EXPECT_NEAR(mean_luminance(c), mean_luminance(a), 0.5);
}

// 20,000 bodies on one spot at a high exposure: the sum of the centre pixel passes 2^32 units
// many times; it must read as full light (white), not as what is left after wrapping.
TEST(SpriteDrawing, APixelTooBrightToCountSaturates) {
    REQUIRE_EGL();
    State s;
    s.resize(20000);
    for (std::size_t i = 0; i < s.size(); ++i) s.pos_mass[i] = {0, 0, 0, 1};
    ParticleBuffers buffers;
    buffers.load(s, 0.01);
    const OrbitCamera camera(CameraSpec{.distance = 10, .azimuth_deg = -90, .elevation_deg = 0, .target = {}});
    RenderSettings settings;
    settings.sprites = SpriteDrawing::Compute;
    settings.exposure = 5000.0f;
    settings.glow = 0.0f;
    const Image image = draw_once(shared_renderer(), buffers, camera, settings, 64, 64);
    EXPECT_GT(luminance(image, 32, 32), 250.0);
}

TEST(ShaderInclude, IncludedLinesKeepTheirFileAndLineInMessages) {
    const auto dir = std::filesystem::temp_directory_path() / "nbody-shader-include-test";
    std::filesystem::create_directories(dir);
    std::ofstream(dir / "common.glsl") << "float one() { return 1.0; }\n";
    std::ofstream(dir / "nested.glsl") << "#include \"common.glsl\"\n";
    std::vector<std::string> files;
    const std::string text =
        expand_shader_includes("#version 450 core\n#include \"common.glsl\"\nvoid main() {}\n", {dir}, files);
    ASSERT_EQ(files.size(), 1u);
    EXPECT_NE(text.find("#line 1 1\nfloat one()"), std::string::npos) << text;
    EXPECT_NE(text.find("#line 3 0\nvoid main()"), std::string::npos) << text;
    EXPECT_EQ(format_shader_log("1:1(7): error: bad", {"main.comp", files[0]}), files[0] + ":1: error: bad");
    EXPECT_THROW(expand_shader_includes("#include \"missing.glsl\"\n", {dir}, files), ShaderError);
    try {
        expand_shader_includes("#include \"nested.glsl\"\n", {dir}, files);
        ADD_FAILURE() << "a nested include was accepted";
    } catch (const ShaderError& e) {
        EXPECT_NE(std::string(e.what()).find("only one level"), std::string::npos) << e.what();
    }
    std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace nbody::render
