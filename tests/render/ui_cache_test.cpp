// The panels kept as a picture (issue 33, render/ui_cache.hpp): on a software renderer the panels
// are drawn into a texture only when they change and blended over each frame from it. The frame
// must look as it does with the panels drawn directly, change when the panels do (at once after
// input, a few times a second without, a frame later), and be blended only where the panels are.

#include "nbody/render/ui_cache.hpp"

#include <gtest/gtest.h>
#include <imgui.h>

#include <algorithm>
#include <cfloat>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <thread>

#include "nbody/render/frame_capture.hpp"
#include "nbody/render/imgui_layer.hpp"
#include "shared_egl_context.hpp"
#include "test_support.hpp"

namespace nbody::render {
namespace {

using Clock = UiRedrawPolicy::Clock;

TEST(UiCache, CoveredTilesAreRunsAlongEachRowOfTiles) {
    // Two shapes on the first row of 10-pixel tiles, one a pixel into the second row.
    const std::vector<PixelRect> runs = covered_tiles({{2, 0, 15, 11}, {41, 3, 44, 5}}, 55, 25, 10);
    const std::vector<PixelRect> expected = {{0, 0, 20, 10}, {40, 0, 50, 10}, {0, 10, 20, 20}};
    EXPECT_EQ(runs, expected);
    // Clipped to the frame; a shape outside it or empty covers nothing.
    EXPECT_EQ(covered_tiles({{-30, -30, 3, 3}}, 55, 25, 10), (std::vector<PixelRect>{{0, 0, 10, 10}}));
    EXPECT_EQ(covered_tiles({{50, 20, 90, 90}}, 55, 25, 10), (std::vector<PixelRect>{{50, 20, 55, 25}}));
    EXPECT_TRUE(covered_tiles({{60, 0, 70, 10}, {5, 5, 5, 9}}, 55, 25, 10).empty());
    // Touching runs of one row merge into one rectangle.
    EXPECT_EQ(covered_tiles({{0, 0, 12, 3}, {12, 0, 30, 3}}, 55, 25, 10),
              (std::vector<PixelRect>{{0, 0, 30, 10}}));
}

TEST(UiCache, ChangesAreShownAtOnceAfterInputAndAtTheRefreshRateWithout) {
    UiRedrawPolicy policy({/*refresh_s=*/0.25, /*refresh_frames=*/1, /*after_input_s=*/0.25});
    const Clock::time_point t0 = Clock::now();
    const auto at = [&](double s) { return t0 + std::chrono::microseconds(long(s * 1e6)); };
    EXPECT_TRUE(policy.redraw(false, false, at(0))) << "the first picture is drawn";
    EXPECT_FALSE(policy.redraw(false, false, at(1))) << "nothing changed: never drawn again";
    EXPECT_FALSE(policy.redraw(false, true, at(1.01))) << "input that changed nothing";
    // A number that ticks every frame, no input: shown every 0.25 s.
    EXPECT_TRUE(policy.redraw(true, false, at(1.5))) << "the picture is 1.5 s old";
    EXPECT_FALSE(policy.redraw(true, false, at(1.6)));
    EXPECT_FALSE(policy.redraw(true, false, at(1.7)));
    EXPECT_TRUE(policy.redraw(true, false, at(1.76)));
    // A key or a click: its effect at once, and what follows it within after_input_s too.
    EXPECT_TRUE(policy.redraw(true, true, at(1.80)));
    EXPECT_TRUE(policy.redraw(true, false, at(1.82))) << "a request acted on a frame after its key";
    EXPECT_TRUE(policy.redraw(true, false, at(2.04)));
    EXPECT_FALSE(policy.redraw(true, false, at(2.10))) << "0.3 s after the input: back to the refresh rate";
}

// At 10 frames/s a refresh every 0.25 s would redraw every third frame, each costing more than
// the frame saves: refreshes keep a number of frames apart too. Input is answered at once still.
TEST(UiCache, SlowFramesAreRefreshedAFewFramesApart) {
    UiRedrawPolicy policy({/*refresh_s=*/0.25, /*refresh_frames=*/8, /*after_input_s=*/0.0});
    const Clock::time_point t0 = Clock::now();
    const auto at = [&](double s) { return t0 + std::chrono::microseconds(long(s * 1e6)); };
    ASSERT_TRUE(policy.redraw(false, false, at(0)));
    int redraws = 0;
    for (int frame = 1; frame <= 80; ++frame)
        redraws += policy.redraw(true, false, at(0.1 * frame));  // 10 frames/s
    EXPECT_EQ(redraws, 10) << "8 s of changes at 10 frames/s: a refresh every 8 frames";
    EXPECT_TRUE(policy.redraw(true, true, at(8.15))) << "a key, a frame after a refresh";
}

// --- The picture against the panels drawn directly, headless EGL (Mesa llvmpipe here) ---

constexpr int kW = 640, kH = 360;

// Stripes of several colours, so that blending over them shows in every channel.
void fill_background(const RenderTarget& target) {
    glEnable(GL_SCISSOR_TEST);
    for (int i = 0; i < 8; ++i) {
        glScissor(i * kW / 8, 0, kW / 8, kH);
        const float colour[4] = {0.1f * float(i % 3), 0.3f + 0.08f * float(i), 0.9f - 0.1f * float(i), 1.0f};
        glClearNamedFramebufferfv(target.framebuffer(), GL_COLOR, 0, colour);
    }
    glDisable(GL_SCISSOR_TEST);
}

ImVec2 reset_button_centre;  // where build_panels put its button, in display coordinates

// Two panels placed and sized by the test, with text, widgets, a plot and rounded, translucent
// backgrounds, `counter` in one line: what the viewer's panels are made of.
void build_panels(int counter) {
    ImGui::SetNextWindowPos(ImVec2(20, 20), ImGuiCond_Always);
    ImGui::SetNextWindowSize(ImVec2(260, 200), ImGuiCond_Always);
    ImGui::Begin("Simulation");
    ImGui::Text("step %d, 10,240 bodies", counter);
    static float dt = 0.01f;
    ImGui::SliderFloat("dt", &dt, 0.001f, 0.1f, "%.4f");
    static bool paused = false;
    ImGui::Checkbox("Paused", &paused);
    ImGui::Button("Reset (R)");
    reset_button_centre = ImVec2((ImGui::GetItemRectMin().x + ImGui::GetItemRectMax().x) / 2,
                                 (ImGui::GetItemRectMin().y + ImGui::GetItemRectMax().y) / 2);
    const float values[] = {0.1f, 0.5f, 0.3f, 0.9f, 0.7f, 0.2f};
    ImGui::PlotLines("energy", values, IM_ARRAYSIZE(values), 0, nullptr, 0.0f, 1.0f, ImVec2(0, 40));
    ImGui::End();
    ImGui::SetNextWindowPos(ImVec2(kW - 230, 40), ImGuiCond_Always);
    ImGui::SetNextWindowSize(ImVec2(210, 120), ImGuiCond_Always);
    ImGui::Begin("Rendering");
    ImGui::TextWrapped(
        "llvmpipe draws on the CPU (no GPU): the frame is drawn at 50%% of the window's size.");
    ImGui::End();
}

// One UI frame drawn over the striped background, directly or from the picture.
Image frame_with_panels(ImGuiLayer& ui, int counter) {
    RenderTarget screen(kW, kH, GL_RGBA8);
    fill_background(screen);
    ui.begin_frame(kW, kH, 1.0f / 30.0f);
    build_panels(counter);
    ui.finish_frame();
    ui.draw_layers(screen.framebuffer(), kW, kH, ImGuiLayer::kAllLayers);
    return read_framebuffer(screen.framebuffer(), kW, kH);
}

// A layer whose frames up to the first compared one have been laid out (windows settle in a few).
std::unique_ptr<ImGuiLayer> settled_ui() {
    auto ui = std::make_unique<ImGuiLayer>(nullptr, 1.0f);
    for (int i = 0; i < 3; ++i) {
        ui->begin_frame(kW, kH, 1.0f / 30.0f);
        build_panels(0);
        ui->discard_frame();
    }
    return ui;
}

struct Difference {
    int max = 0;           // the largest difference of a channel
    long long pixels = 0;  // pixels that differ by more than `tolerance` in a channel
};

Difference compare(const Image& a, const Image& b, int tolerance) {
    Difference d;
    for (int y = 0; y < a.height; ++y)
        for (int x = 0; x < a.width; ++x) {
            int worst = 0;
            for (int c = 0; c < 3; ++c)
                worst = std::max(worst, std::abs(int(a.pixel(x, y)[c]) - int(b.pixel(x, y)[c])));
            d.max = std::max(d.max, worst);
            d.pixels += worst > tolerance;
        }
    return d;
}

TEST(UiCache, ThePictureBlendedOverTheFrameLooksLikeThePanelsDrawnDirectly) {
    REQUIRE_EGL();
    auto ui = settled_ui();
    const Image direct = frame_with_panels(*ui, 7);
    ui->cache_panels(true);
    const Image cached = frame_with_panels(*ui, 7);
    EXPECT_EQ(ui->panel_redraws(), 1);
    const Image bare = [] {
        RenderTarget screen(kW, kH, GL_RGBA8);
        fill_background(screen);
        return read_framebuffer(screen.framebuffer(), kW, kH);
    }();
    // The panels are there at all (a picture never drawn or never blended would pass the rest).
    EXPECT_GT(compare(bare, direct, 8).pixels, 260 * 200 / 2) << "the direct frame shows no panels";
    // 8-bit rounding of the premultiplied picture and of the blend: a level or two.
    const Difference d = compare(direct, cached, 2);
    std::printf("cached against direct: max difference %d levels, %lld pixels beyond 2\n", d.max, d.pixels);
    EXPECT_LE(d.max, 3);
    EXPECT_EQ(d.pixels, 0);
}

TEST(UiCache, TheFrameChangesWithThePanelsAtTheRefreshRateAndAtOnceAfterInput) {
    REQUIRE_EGL();
    auto ui = settled_ui();
    ui->cache_panels(true, {/*refresh_s=*/0.5, /*refresh_frames=*/1, /*after_input_s=*/0.0});
    const Image first = frame_with_panels(*ui, 100);
    // Changed, no input, the refresh not due: the picture of "step 100" stays.
    const Image held = frame_with_panels(*ui, 101);
    EXPECT_EQ(compare(first, held, 0).pixels, 0) << "redrawn before the refresh was due";
    EXPECT_EQ(ui->panel_redraws(), 1);
    std::this_thread::sleep_for(std::chrono::milliseconds(520));
    // The refresh is drawn in this frame and shown from the next: the frame does not wait for it.
    const Image queued = frame_with_panels(*ui, 101);
    EXPECT_EQ(ui->panel_redraws(), 2);
    EXPECT_EQ(compare(first, queued, 0).pixels, 0)
        << "a refresh without input shown in the frame that drew it";
    const Image refreshed = frame_with_panels(*ui, 101);
    EXPECT_EQ(ui->panel_redraws(), 2);
    EXPECT_GT(compare(first, refreshed, 8).pixels, 10) << "the new step number is not in the frame";
    // A key pressed this frame: the change is drawn at once.
    ImGui::GetIO().KeysDown[65] = true;
    const Image pressed = frame_with_panels(*ui, 102);
    ImGui::GetIO().KeysDown[65] = false;
    EXPECT_EQ(ui->panel_redraws(), 3);
    EXPECT_GT(compare(refreshed, pressed, 8).pixels, 10) << "the change after a key was held back";
    // And it is what drawing "step 102" directly gives.
    ui->cache_panels(false);
    EXPECT_EQ(compare(frame_with_panels(*ui, 102), pressed, 3).pixels, 0);
}

// The mouse over a panel is input: a button lit up under it shows at once. Over the scene (a camera
// drag) it is not: the panels' numbers keep their refresh rate.
TEST(UiCache, TheMouseOverAPanelIsAnsweredAtOnceOverTheSceneNot) {
    REQUIRE_EGL();
    auto ui = settled_ui();
    ui->cache_panels(true, {/*refresh_s=*/1e9, /*refresh_frames=*/1, /*after_input_s=*/0.0});
    ImGuiIO& io = ImGui::GetIO();
    io.MousePos = ImVec2(kW / 2.0f, kH - 20.0f);  // between and below the panels
    const Image first = frame_with_panels(*ui, 5);
    io.MousePos = ImVec2(kW / 2.0f + 30.0f, kH - 40.0f);
    const Image dragged = frame_with_panels(*ui, 6);
    EXPECT_EQ(ui->panel_redraws(), 1) << "redrawn for a mouse move over the scene";
    EXPECT_EQ(compare(first, dragged, 0).pixels, 0);
    io.MousePos = reset_button_centre;
    const Image hovered = frame_with_panels(*ui, 6);
    EXPECT_EQ(ui->panel_redraws(), 2);
    EXPECT_GT(compare(dragged, hovered, 8).pixels, 50) << "the step number and the lit button are not shown";
    io.MousePos = ImVec2(-FLT_MAX, -FLT_MAX);
}

// The picture is blended over the squares the panels touch, not the whole frame: at 1280x720 on
// llvmpipe a full-frame pass costs 3-13 ms, about what drawing the panels did.
TEST(UiCache, ThePictureIsBlendedOnlyWhereThePanelsAre) {
    REQUIRE_EGL();
    auto ui = settled_ui();
    const Image direct = frame_with_panels(*ui, 1);
    ui->cache_panels(true);
    frame_with_panels(*ui, 1);
    RenderTarget screen(kW, kH, GL_RGBA8);
    fill_background(screen);
    const Image bare = read_framebuffer(screen.framebuffer(), kW, kH);
    const std::vector<PixelRect> area = ui->panel_area();
    const auto inside = [&](int x, int gl_y) {
        return std::any_of(area.begin(), area.end(), [&](const PixelRect& r) {
            return x >= r.x0 && x < r.x1 && gl_y >= r.y0 && gl_y < r.y1;
        });
    };
    long long panel_pixels = 0, outside = 0;
    for (int y = 0; y < kH; ++y)
        for (int x = 0; x < kW; ++x) {
            const bool panel = !std::equal(bare.pixel(x, y), bare.pixel(x, y) + 3, direct.pixel(x, y));
            panel_pixels += panel;
            outside += panel && !inside(x, kH - 1 - y);
        }
    long long covered = 0;
    for (const PixelRect& r : area) covered += (long long)(r.x1 - r.x0) * (r.y1 - r.y0);
    std::printf(
        "panels: %lld pixels; the picture blended over %lld (%.0f%% of the frame) in %zu rectangles\n",
        panel_pixels, covered, 100.0 * double(covered) / (kW * kH), area.size());
    EXPECT_EQ(outside, 0) << "pixels of the panels outside the area blended";
    EXPECT_GE(covered, panel_pixels);
    // 8-pixel squares round a panel of 200 pixels up by a sixth at most.
    EXPECT_LT(double(covered), 1.17 * double(panel_pixels)) << "blended well beyond the panels";
}

// The viewer's choice seen from the command line: headless frames draw the panels every frame on
// llvmpipe too (a saved frame holds its own numbers); --ui-cache on keeps them as a picture.
TEST(UiCache, TheViewerKeepsThePanelsAsAPictureWhereAsked) {
    const std::string base = "timeout 300 '" + test::nbody_executable() +
                             "' view --headless --backend cpu --bodies 512 --size 480x270 --frames 12 ";
    const auto automatic = test::run_command(base);
    if (automatic.exit_code != 0 &&
        automatic.output.find("cannot create a headless OpenGL") != std::string::npos)
        GTEST_SKIP() << "no headless EGL: " << automatic.output;
    ASSERT_EQ(automatic.exit_code, 0) << automatic.output;
    EXPECT_EQ(automatic.output.find("kept as a picture"), std::string::npos) << automatic.output;

    const auto on = test::run_command(base + "--ui-cache on");
    ASSERT_EQ(on.exit_code, 0) << on.output;
    long long redraws = -1, frames = -1;
    const std::size_t at = on.output.find("panels: kept as a picture, drawn into it ");
    ASSERT_NE(at, std::string::npos) << on.output;
    ASSERT_EQ(
        std::sscanf(on.output.c_str() + at,
                    "panels: kept as a picture, drawn into it %lld times in %lld frames", &redraws, &frames),
        2)
        << on.output;
    EXPECT_EQ(frames, 12);
    EXPECT_GE(redraws, 1);
    EXPECT_LE(redraws, frames);

    const auto bad = test::run_command(base + "--ui-cache sometimes");
    EXPECT_NE(bad.exit_code, 0);
    EXPECT_NE(bad.output.find("auto, on or off"), std::string::npos) << bad.output;
}

}  // namespace
}  // namespace nbody::render
