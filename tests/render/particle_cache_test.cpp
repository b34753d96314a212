// The particles' light kept from one frame to the next while nothing it shows has changed
// (RenderSettings::cache_particles, `view --particle-cache`, issue 33): a kept frame looks exactly
// as a drawn one, and everything that changes the picture draws it again.

#include <gtest/gtest.h>

#include <string>

#include "image_luminance.hpp"
#include "nbody/render/camera.hpp"
#include "nbody/render/frame_capture.hpp"
#include "nbody/render/particle_buffers.hpp"
#include "nbody/render/particle_renderer.hpp"
#include "nbody/render/trail_renderer.hpp"
#include "nbody/sim/scene.hpp"
#include "shared_egl_context.hpp"

namespace nbody::render {
namespace {

Image draw_frame(ParticleRenderer& renderer, const ParticleBuffers& buffers, const OrbitCamera& camera,
                 const RenderSettings& settings, int w = 480, int h = 270, const TrailRenderer* trails = nullptr) {
    RenderTarget screen(w, h, GL_RGBA8);
    renderer.draw(buffers, camera, settings, {screen.framebuffer(), w, h, 1.0f}, nullptr, trails);
    return read_framebuffer(screen.framebuffer(), w, h);
}

int bytes_that_differ(const Image& a, const Image& b) {
    if (a.rgba.size() != b.rgba.size()) return -1;
    int differ = 0;
    for (std::size_t i = 0; i < a.rgba.size(); ++i) differ += a.rgba[i] != b.rgba[i];
    return differ;
}

// The positions of the next step, as the simulation would publish them.
std::vector<Vec4f> moved(const State& s, float dx) {
    std::vector<Vec4f> p(s.pos_mass.begin(), s.pos_mass.end());
    for (std::size_t i = 0; i < p.size(); ++i) p[i].x += dx * float(i % 7);
    return p;
}

TEST(ParticleCache, AFrameWithNothingNewKeepsTheParticlesAndLooksAsDrawn) {
    REQUIRE_EGL();
    const Scene scene = default_scene(4096);
    ParticleBuffers buffers;
    buffers.load(scene.state, scene.params.dt);
    const OrbitCamera camera(scene.camera);
    RenderSettings settings;
    ParticleRenderer renderer;
    const Image first = draw_frame(renderer, buffers, camera, settings);
    const Image kept = draw_frame(renderer, buffers, camera, settings);
    EXPECT_EQ(renderer.particle_draws(), 1);
    EXPECT_EQ(renderer.particle_keeps(), 1);
    EXPECT_EQ(renderer.tone_maps(), 1) << "the tone-mapped frame is kept with the light";
    EXPECT_GT(mean_luminance(first), 1.0) << "the frame is black: nothing to compare";
    EXPECT_EQ(bytes_that_differ(first, kept), 0) << "a kept frame must look as the frame it kept";

    RenderSettings every_frame = settings;
    every_frame.cache_particles = false;
    ParticleRenderer uncached;
    draw_frame(uncached, buffers, camera, every_frame);
    const Image drawn_again = draw_frame(uncached, buffers, camera, every_frame);
    EXPECT_EQ(uncached.particle_draws(), 2);
    EXPECT_EQ(uncached.particle_keeps(), 0);
    EXPECT_EQ(bytes_that_differ(kept, drawn_again), 0) << "kept and drawn again must be the same picture";
}

// Each thing the particles' light depends on, changed alone, draws them again; the picture is then
// the one a renderer without the cache draws.
TEST(ParticleCache, NewPositionsTheCameraTheSizeOrTheLooksDrawThemAgain) {
    REQUIRE_EGL();
    const Scene scene = default_scene(4096);
    ParticleBuffers buffers;
    buffers.load(scene.state, scene.params.dt);
    OrbitCamera camera(scene.camera);
    RenderSettings settings;
    RenderSettings uncached_settings = settings;
    uncached_settings.cache_particles = false;
    ParticleRenderer renderer, uncached;
    const Image start = draw_frame(renderer, buffers, camera, settings);
    long long draws = renderer.particle_draws();

    const auto expect_drawn_as_uncached = [&](const std::string& what, int w = 480, int h = 270) {
        SCOPED_TRACE(what);
        const Image cached_frame = draw_frame(renderer, buffers, camera, settings, w, h);
        EXPECT_EQ(renderer.particle_draws(), ++draws) << "the particles were kept after: " << what;
        const Image reference = draw_frame(uncached, buffers, camera, uncached_settings, w, h);
        EXPECT_EQ(bytes_that_differ(cached_frame, reference), 0) << "the picture is not the one drawn afresh";
        const Image again = draw_frame(renderer, buffers, camera, settings, w, h);
        EXPECT_EQ(renderer.particle_draws(), draws) << "nothing changed since: " << what;
        EXPECT_EQ(bytes_that_differ(again, reference), 0);
        return cached_frame;
    };

    buffers.upload(moved(scene.state, 0.05f), scene.state.time + scene.params.dt);
    EXPECT_GT(bytes_that_differ(expect_drawn_as_uncached("a new step's positions"), start), 0);
    camera.orbit(7.0f, 0.0f);
    expect_drawn_as_uncached("the camera turned");
    camera.zoom(0.9f);
    expect_drawn_as_uncached("the camera zoomed");
    settings.exposure *= 1.5f;
    uncached_settings.exposure = settings.exposure;
    expect_drawn_as_uncached("the exposure");
    settings.colour_mode = ColourMode::Speed;
    uncached_settings.colour_mode = settings.colour_mode;
    expect_drawn_as_uncached("colour by speed");
    settings.colour_map = ColorMap::Viridis;
    uncached_settings.colour_map = settings.colour_map;
    expect_drawn_as_uncached("another colour map");
    settings.glow = 0.0f;
    uncached_settings.glow = 0.0f;
    expect_drawn_as_uncached("the glow off");
    expect_drawn_as_uncached("another frame size", 320, 180);
    settings.render_scale = 0.5f;  // a software renderer's window: a smaller frame, enlarged
    uncached_settings.render_scale = 0.5f;
    expect_drawn_as_uncached("render scale 0.5", 320, 180);

    // The tone mapping's own settings tone map the kept light again.
    const long long tone_maps = renderer.tone_maps();
    settings.background = {0.02f, 0.0f, 0.0f};
    uncached_settings.background = settings.background;
    const Image red_sky = draw_frame(renderer, buffers, camera, settings, 320, 180);
    EXPECT_EQ(renderer.particle_draws(), draws) << "the background is not the particles' light";
    EXPECT_EQ(renderer.tone_maps(), tone_maps + 1);
    EXPECT_EQ(bytes_that_differ(red_sky, draw_frame(uncached, buffers, camera, uncached_settings, 320, 180)), 0);
    draw_frame(renderer, buffers, camera, settings, 320, 180);
    EXPECT_EQ(renderer.tone_maps(), tone_maps + 1) << "nothing changed since the background";
    ParticleBuffers reloaded;
    reloaded.load(scene.state, scene.params.dt);  // other buffers with the first state's positions
    const Image other = draw_frame(renderer, reloaded, camera, settings, 320, 180);
    EXPECT_EQ(renderer.particle_draws(), ++draws) << "other buffers are never taken for the ones drawn";
    EXPECT_EQ(bytes_that_differ(other, draw_frame(uncached, reloaded, camera, uncached_settings, 320, 180)), 0);
    EXPECT_EQ(renderer.reload_shaders(), "");
    draw_frame(renderer, reloaded, camera, settings, 320, 180);
    EXPECT_EQ(renderer.particle_draws(), ++draws) << "new shaders draw the particles again";
}

TEST(ParticleCache, TrailsAreKeptUntilTheyChange) {
    REQUIRE_EGL();
    const Scene scene = default_scene(2048);
    ParticleBuffers buffers;
    buffers.load(scene.state, scene.params.dt);
    const OrbitCamera camera(scene.camera);
    RenderSettings settings;
    settings.trails.enabled = true;
    settings.trails.interval = 0.0;  // a point every update
    RenderSettings uncached_settings = settings;
    uncached_settings.cache_particles = false;
    TrailRenderer trails;
    trails.update(buffers, settings.trails, true);
    buffers.upload(moved(scene.state, 0.05f), scene.state.time + scene.params.dt);
    trails.update(buffers, settings.trails, true);
    ASSERT_TRUE(trails.active());
    ParticleRenderer renderer, uncached;
    const auto expect_as_uncached = [&](const Image& frame, const TrailRenderer* with) {
        EXPECT_EQ(bytes_that_differ(frame, draw_frame(uncached, buffers, camera, uncached_settings, 480, 270, with)), 0);
    };
    for (int k = 0; k < 3; ++k) draw_frame(renderer, buffers, camera, settings, 480, 270, &trails);
    EXPECT_EQ(renderer.particle_draws(), 1) << "paused with trails: nothing changed";
    trails.update(buffers, settings.trails, true);  // the same state again: no new point
    expect_as_uncached(draw_frame(renderer, buffers, camera, settings, 480, 270, &trails), &trails);
    EXPECT_EQ(renderer.particle_draws(), 1);
    // A new state's point: the trails (and the particles) drawn again.
    buffers.upload(moved(scene.state, 0.1f), scene.state.time + 2 * scene.params.dt);
    trails.update(buffers, settings.trails, true);
    expect_as_uncached(draw_frame(renderer, buffers, camera, settings, 480, 270, &trails), &trails);
    EXPECT_EQ(renderer.particle_draws(), 2);
    // A point sampled by the simulation between frames (append), the positions as they were.
    trails.append(TrailPoint{scene.state.time + 2.5 * scene.params.dt, moved(scene.state, 0.12f)});
    expect_as_uncached(draw_frame(renderer, buffers, camera, settings, 480, 270, &trails), &trails);
    EXPECT_EQ(renderer.particle_draws(), 3) << "a point appended";
    settings.trails.brightness *= 2;
    uncached_settings.trails.brightness = settings.trails.brightness;
    trails.update(buffers, settings.trails, true);
    expect_as_uncached(draw_frame(renderer, buffers, camera, settings, 480, 270, &trails), &trails);
    EXPECT_EQ(renderer.particle_draws(), 4) << "brighter trails";
    // The trails switched off: the light they were drawn into is not kept.
    expect_as_uncached(draw_frame(renderer, buffers, camera, settings, 480, 270, nullptr), nullptr);
    EXPECT_EQ(renderer.particle_draws(), 5);
}

}  // namespace
}  // namespace nbody::render
