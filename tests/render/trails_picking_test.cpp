// Trails and picking in pixels (issue 15): a moving body leaves a lit trail behind it that fades
// with age, kept on the GPU (no points while paused, none after a reset); a click at a body's
// image picks that body, the nearest one when two are close, nothing on empty sky, and no hidden
// dark matter; one body's data read back with its drift velocity.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "nbody/render/body_picker.hpp"
#include "nbody/render/camera.hpp"
#include "nbody/render/frame_capture.hpp"
#include "nbody/render/particle_buffers.hpp"
#include "nbody/render/particle_renderer.hpp"
#include "nbody/render/trail_renderer.hpp"
#include "shared_egl_context.hpp"

namespace nbody::render {
namespace {

constexpr int kW = 480, kH = 270;

float luminance(const Image& image, glm::vec2 at) {
    const std::uint8_t* p = image.pixel(int(at.x), int(at.y));
    return 0.2126f * p[0] + 0.7152f * p[1] + 0.0722f * p[2];
}

// Brightest pixel within 2 pixels of `at` (a 1-pixel line may fall beside the rounded spot).
float brightest_near(const Image& image, glm::vec2 at) {
    float best = 0;
    for (int dy = -2; dy <= 2; ++dy)
        for (int dx = -2; dx <= 2; ++dx) best = std::max(best, luminance(image, at + glm::vec2(dx, dy)));
    return best;
}

State one_body_at(float x) {
    State s;
    s.pos_mass = {{x, 0.0f, 0.0f, 1.0f}};
    s.velocity = {{1.0f, 0.0f, 0.0f, 0.0f}};
    s.galaxy = {0};
    s.component = {Component::Disk};
    return s;
}

// Looking straight down on the x-y plane, x to the right.
OrbitCamera top_camera() {
    return OrbitCamera(CameraSpec{.distance = 12, .azimuth_deg = -90, .elevation_deg = 89, .target = {}});
}

RenderSettings dim_settings() {
    RenderSettings r;
    r.glow = 0;            // light stays where it was drawn
    r.exposure = 1.5e-4f;  // one body carries the light of 16,384: bring it back into range
    r.variety = 0;
    r.trails.enabled = true;
    r.trails.length = 40;
    r.trails.interval = 0.099;  // a point every frame (0.1 of model time each)
    r.trails.brightness = 30.0f;  // one body, not a bundle of thousands
    return r;
}

Image draw_frame(const ParticleBuffers& buffers, const RenderSettings& settings, const TrailRenderer* trails) {
    static ParticleRenderer* renderer = new ParticleRenderer();  // one per program: shaders compile once
    RenderTarget screen(kW, kH, GL_RGBA8);
    renderer->draw(buffers, top_camera(), settings, {screen.framebuffer(), kW, kH, 1.0f}, nullptr, trails);
    return read_framebuffer(screen.framebuffer(), kW, kH);
}

// The body moves from x = -4 to x = 0 in 40 frames (0.1 per frame), a trail point each frame.
void move_body(ParticleBuffers& buffers, TrailRenderer& trails, const RenderSettings& settings) {
    buffers.load(one_body_at(-4.0f), 0.1);
    trails.update(buffers, settings.trails, true);
    for (int f = 1; f <= 40; ++f) {
        buffers.upload({{-4.0f + 0.1f * f, 0.0f, 0.0f, 1.0f}}, 0.1 * f);
        trails.update(buffers, settings.trails, true);
    }
}

glm::vec2 image_of(float x) { return *top_camera().project_to_image({x, 0.0f, 0.0f}, kW, kH); }

TEST(Trails, AMovingBodyLeavesAFadingTrailBehindIt) {
    REQUIRE_EGL();
    const RenderSettings settings = dim_settings();
    ParticleBuffers buffers;
    TrailRenderer trails;
    move_body(buffers, trails, settings);
    EXPECT_EQ(trails.points(), 40);
    EXPECT_EQ(trails.capacity(), 40);
    EXPECT_EQ(trails.bytes(), std::size_t(40 * 16));
    const Image with = draw_frame(buffers, settings, &trails);
    const Image without = draw_frame(buffers, settings, nullptr);

    // Behind the body (x < 0) the trail is lit; without trails the same pixels are background.
    const float recent = brightest_near(with, image_of(-0.8f));   // 8 points old
    const float middle = brightest_near(with, image_of(-2.0f));   // 20
    const float old = brightest_near(with, image_of(-3.2f));      // 32
    const float background = brightest_near(without, image_of(-2.0f));
    EXPECT_GT(old, background + 5) << "the oldest part of the trail is not drawn";
    EXPECT_LT(background, 10) << "no trail: these pixels should be dark";
    // Fading: newer parts brighter than older ones.
    EXPECT_GT(recent, middle + 5);
    EXPECT_GT(middle, old + 5);
    // Nothing ahead of the body, nor beside the trail.
    EXPECT_LT(brightest_near(with, image_of(1.5f)), 10);
    EXPECT_LT(brightest_near(with, *top_camera().project_to_image({-2.0f, 1.5f, 0.0f}, kW, kH)), 10);
    // Beyond the trail's length (x < -4 + 0.1 * 0): nothing.
    EXPECT_LT(brightest_near(with, image_of(-4.6f)), 10);
}

TEST(Trails, KeepNoPointsWhilePausedAndForgetOnAReset) {
    REQUIRE_EGL();
    RenderSettings settings = dim_settings();
    settings.trails.interval = 0.29;  // every third frame
    ParticleBuffers buffers;
    TrailRenderer trails;
    buffers.load(one_body_at(0.0f), 0.1);
    trails.update(buffers, settings.trails, true);
    EXPECT_EQ(trails.points(), 1);
    for (int f = 1; f <= 9; ++f) {
        buffers.upload({{0.1f * f, 0.0f, 0.0f, 1.0f}}, 0.1 * f);
        trails.update(buffers, settings.trails, true);
    }
    EXPECT_EQ(trails.points(), 4) << "a point every 0.29 of model time: every third frame";
    for (int f = 0; f < 10; ++f) trails.update(buffers, settings.trails, true);  // paused: time stands still
    EXPECT_EQ(trails.points(), 4);
    buffers.upload({{0.0f, 0.0f, 0.0f, 1.0f}}, 0.0);  // reset: time went back
    trails.update(buffers, settings.trails, true);
    EXPECT_EQ(trails.points(), 1);
    settings.trails.enabled = false;
    trails.update(buffers, settings.trails, true);
    EXPECT_EQ(trails.bytes(), 0u) << "switched off, the ring's memory is given back";
    EXPECT_FALSE(trails.active());
}

// Issue 33: points the simulation sampled in model time between two frames (append) make the
// trail a curve: a quarter circle stepped within one frame is drawn round, not as its chord.
TEST(Trails, PointsSampledBetweenFramesDrawTheOrbit) {
    REQUIRE_EGL();
    RenderSettings settings = dim_settings();
    settings.trails.interval = 0.01;
    ParticleBuffers buffers;
    TrailRenderer trails;
    const float radius = 3.0f;
    buffers.load(one_body_at(radius), 0.1);
    trails.update(buffers, settings.trails, false);
    for (int k = 0; k <= 20; ++k) {  // the sampler's points on the arc from angle 0 to 90 degrees
        const double a = 0.5 * 3.14159265358979 * k / 20.0;
        trails.append({0.01 * k, {{radius * float(std::cos(a)), radius * float(std::sin(a)), 0.0f, 1.0f}}});
    }
    buffers.upload({{0.0f, radius, 0.0f, 1.0f}}, 0.2);  // the frame shows the body a quarter turn on
    trails.update(buffers, settings.trails, false);
    EXPECT_EQ(trails.points(), 21);
    const Image image = draw_frame(buffers, settings, &trails);
    const float on_arc = brightest_near(image, *top_camera().project_to_image({radius * 0.7071f, radius * 0.7071f, 0}, kW, kH));
    const float on_chord = brightest_near(image, *top_camera().project_to_image({radius * 0.5f, radius * 0.5f, 0}, kW, kH));
    EXPECT_GT(on_arc, 10) << "the arc between the frames is not drawn";
    EXPECT_LT(on_chord, 10) << "a straight segment joins the two frames";
}

TEST(Trails, LengthIsCappedByMemory) {
    EXPECT_EQ(capped_trail_length(96, 7500), 96);
    const int capped = capped_trail_length(96, std::size_t(1) << 22);  // 4M bodies
    EXPECT_LT(capped, 96);
    EXPECT_LE(std::size_t(capped) * (std::size_t(1) << 22) * 16, kMaxTrailBytes);
    EXPECT_EQ(capped_trail_length(1, 10), 2) << "a trail needs two points";
}

// Bodies on a grid in the x-y plane, one hidden halo body among them.
State grid_state() {
    State s;
    for (int j = 0; j < 5; ++j)
        for (int i = 0; i < 5; ++i) {
            s.pos_mass.push_back({-4.0f + 2.0f * i, -4.0f + 2.0f * j, 0.0f, 0.5f});
            s.velocity.push_back({0.0f, 0.0f, 0.0f, 0.0f});
            s.galaxy.push_back(std::uint16_t(j % 2));
            s.component.push_back(i == 4 && j == 4 ? Component::Halo : Component::Disk);
        }
    // Body 25 lies 0.3 from body 12 (the centre), some 4 pixels apart on screen.
    s.pos_mass.push_back({0.3f, 0.0f, 0.0f, 0.5f});
    s.velocity.push_back({0.0f, 0.0f, 0.0f, 0.0f});
    s.galaxy.push_back(0);
    s.component.push_back(Component::Disk);
    return s;
}

TEST(Picking, AClickAtABodysImagePicksThatBody) {
    REQUIRE_EGL();
    ParticleBuffers buffers;
    buffers.load(grid_state(), 0.01);
    const OrbitCamera camera(CameraSpec{.distance = 20, .azimuth_deg = 30, .elevation_deg = 40, .target = {}});
    BodyPicker picker;
    const State s = grid_state();
    for (std::size_t k : {0u, 6u, 18u, 23u}) {
        const Vec4f& p = s.pos_mass[k];
        const glm::vec2 at = *camera.project_to_image({p.x, p.y, p.z}, kW, kH);
        PickRequest q{.pixel = at + glm::vec2(2.0f, -1.5f), .width = kW, .height = kH, .radius_px = 8.0f};
        const auto picked = picker.pick(buffers, camera, q);
        ASSERT_TRUE(picked) << "nothing picked 2.5 pixels from body " << k;
        EXPECT_EQ(*picked, k);
    }
    // The centre body and its close neighbour: the nearer to the cursor wins, either way round.
    const glm::vec2 c = *camera.project_to_image({0.0f, 0.0f, 0.0f}, kW, kH);
    const glm::vec2 n = *camera.project_to_image({0.3f, 0.0f, 0.0f}, kW, kH);
    ASSERT_GT(glm::length(n - c), 2.0f) << "the test needs the two images apart";
    EXPECT_EQ(picker.pick(buffers, camera, {c + 0.2f * (n - c), kW, kH, 8.0f}), std::optional<std::size_t>(12));
    EXPECT_EQ(picker.pick(buffers, camera, {c + 0.8f * (n - c), kW, kH, 8.0f}), std::optional<std::size_t>(25));
    // Empty sky: nothing.
    EXPECT_FALSE(picker.pick(buffers, camera, {glm::vec2(3.0f, 3.0f), kW, kH, 8.0f}));
    // Hidden dark matter cannot be picked; shown, it can.
    const Vec4f& h = s.pos_mass[24];
    const glm::vec2 halo = *camera.project_to_image({h.x, h.y, h.z}, kW, kH);
    EXPECT_FALSE(picker.pick(buffers, camera, {halo, kW, kH, 8.0f, /*skip_halo=*/true}));
    EXPECT_EQ(picker.pick(buffers, camera, {halo, kW, kH, 8.0f, false}), std::optional<std::size_t>(24));
}

TEST(Picking, ReadsOneBodyWithItsDriftVelocity) {
    REQUIRE_EGL();
    ParticleBuffers buffers;
    State s = grid_state();
    buffers.load(s, 0.5);
    std::vector<Vec4f> moved = s.pos_mass;
    moved[7].x += 0.25f;  // 0.25 in 0.5 time units
    moved[7].z -= 0.5f;
    buffers.upload(moved, 0.5);
    const BodySample b = read_body(buffers, 7);
    EXPECT_FLOAT_EQ(b.position.x, moved[7].x);
    EXPECT_FLOAT_EQ(b.position.z, moved[7].z);
    EXPECT_FLOAT_EQ(b.mass, 0.5f);
    ASSERT_TRUE(b.velocity_known);
    EXPECT_NEAR(b.velocity.x, 0.5f, 1e-5f);
    EXPECT_NEAR(b.velocity.y, 0.0f, 1e-5f);
    EXPECT_NEAR(b.velocity.z, -1.0f, 1e-5f);
    EXPECT_THROW(read_body(buffers, s.size()), std::out_of_range);
}

}  // namespace
}  // namespace nbody::render
