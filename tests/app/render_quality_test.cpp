// The render scale chosen from the GL renderer (issue 33): a window on a software renderer draws a
// smaller frame; a GPU, headless frames and recordings keep the full size; --render-scale wins.
// The same for the panels kept as a picture (--ui-cache).

#include "render_quality.hpp"

#include <gtest/gtest.h>

#include <stdexcept>

#include "nbody/render/context.hpp"
#include "nbody/render/particle_renderer.hpp"

namespace nbody::app {
namespace {

constexpr const char* kLlvmpipe = "llvmpipe (LLVM 15.0.6, 256 bits)";

TEST(RenderQuality, SoftwareRenderersAreKnownByName) {
    EXPECT_TRUE(render::is_software_renderer(kLlvmpipe));
    EXPECT_TRUE(render::is_software_renderer("softpipe"));
    EXPECT_TRUE(render::is_software_renderer("Software Rasterizer"));
    EXPECT_TRUE(render::is_software_renderer("LLVMPIPE (LLVM 17.0.0, 128 bits)"));
    for (const char* gpu : {"NVIDIA H100 80GB HBM3/PCIe/SSE2", "NVIDIA GeForce RTX 4090/PCIe/SSE2",
                            "AMD Radeon RX 7900 XTX (radeonsi, navi31, LLVM 15.0.6, DRM 3.54, 6.5.0)",
                            "Mesa Intel(R) UHD Graphics 620 (KBL GT2)", "Apple M2", ""})
        EXPECT_FALSE(render::is_software_renderer(gpu)) << gpu;
}

// The GPU look must not change: automatic is full size on every real GPU, window or not.
TEST(RenderQuality, AutomaticIsFullSizeOnAGpu) {
    for (const char* gpu :
         {"NVIDIA H100 80GB HBM3/PCIe/SSE2", "AMD Radeon RX 7900 XTX (radeonsi, navi31, LLVM 15.0.6)",
          "Mesa Intel(R) UHD Graphics 620 (KBL GT2)"})
        for (bool window : {true, false}) {
            const RenderScaleChoice c = choose_render_scale(gpu, std::nullopt, window);
            EXPECT_EQ(c.scale, 1.0f) << gpu;
            EXPECT_FALSE(c.automatic) << gpu;
            EXPECT_FALSE(c.coarse_glow) << gpu;
            EXPECT_EQ(render_scale_note(gpu, c.scale, c.coarse_glow), "")
                << "nothing to say on a GPU at full size";
        }
}

TEST(RenderQuality, AutomaticIsHalfSizeInASoftwareWindowOnly) {
    const RenderScaleChoice window = choose_render_scale(kLlvmpipe, std::nullopt, true);
    EXPECT_EQ(window.scale, kSoftwareRenderScale);
    EXPECT_TRUE(window.automatic);
    EXPECT_TRUE(window.coarse_glow);
    const std::string note = render_scale_note(kLlvmpipe, window.scale, window.coarse_glow);
    EXPECT_NE(note.find("llvmpipe"), std::string::npos) << note;
    EXPECT_NE(note.find("50%"), std::string::npos) << note;
    EXPECT_NE(note.find("glow coarser"), std::string::npos) << note;
    EXPECT_NE(note.find("--render-scale 1"), std::string::npos) << "says how to get the full size: " << note;
    // Headless frames and recordings are looked at later, not waited for: full size.
    const RenderScaleChoice headless = choose_render_scale(kLlvmpipe, std::nullopt, false);
    EXPECT_EQ(headless.scale, 1.0f);
    EXPECT_FALSE(headless.coarse_glow);
}

TEST(RenderQuality, TheOptionOverridesEitherWay) {
    const RenderScaleChoice full = choose_render_scale(kLlvmpipe, 1.0f, true);
    EXPECT_EQ(full.scale, 1.0f);
    EXPECT_FALSE(full.automatic);
    EXPECT_FALSE(full.coarse_glow) << "full size asked for: the glow as on a GPU";
    EXPECT_NE(render_scale_note(kLlvmpipe, 1.0f, false).find("full size"), std::string::npos);
    EXPECT_TRUE(choose_render_scale(kLlvmpipe, 0.5f, false).coarse_glow)
        << "a smaller frame asked for on llvmpipe";
    const RenderScaleChoice gpu_half = choose_render_scale("NVIDIA H100 80GB HBM3/PCIe/SSE2", 0.5f, true);
    EXPECT_EQ(gpu_half.scale, 0.5f);
    EXPECT_FALSE(gpu_half.coarse_glow) << "a GPU keeps its glow";
    EXPECT_NE(render_scale_note("NVIDIA H100 80GB HBM3/PCIe/SSE2", 0.5f, false).find("50%"),
              std::string::npos);
    EXPECT_EQ(choose_render_scale(kLlvmpipe, 0.01f, true).scale, render::kMinRenderScale);
}

TEST(RenderQuality, TheOptionsTextIsAutoOrAFraction) {
    EXPECT_EQ(parse_render_scale("auto"), std::nullopt);
    EXPECT_EQ(parse_render_scale("AUTO"), std::nullopt);
    EXPECT_EQ(parse_render_scale("0.5"), 0.5f);
    EXPECT_EQ(parse_render_scale("1"), 1.0f);
    EXPECT_EQ(parse_render_scale("0.25"), 0.25f);
    for (const char* bad : {"0", "0.1", "1.5", "half", "0.5x", "", "nan", "-1"}) {
        try {
            parse_render_scale(bad);
            ADD_FAILURE() << "'" << bad << "' was taken";
        } catch (const std::invalid_argument& e) {
            EXPECT_NE(std::string(e.what()).find("0.25 to 1"), std::string::npos) << e.what();
        }
    }
}

// The panels as a picture: in a software window only; on a GPU the panels are drawn as before.
TEST(RenderQuality, PanelsAreCachedInASoftwareWindowOnly) {
    EXPECT_TRUE(choose_ui_cache(kLlvmpipe, std::nullopt, true));
    EXPECT_TRUE(choose_ui_cache("softpipe", std::nullopt, true));
    EXPECT_FALSE(choose_ui_cache(kLlvmpipe, std::nullopt, false)) << "headless frames and recordings";
    for (const char* gpu : {"NVIDIA H100 80GB HBM3/PCIe/SSE2", "Mesa Intel(R) UHD Graphics 620 (KBL GT2)"})
        for (bool window : {true, false}) EXPECT_FALSE(choose_ui_cache(gpu, std::nullopt, window)) << gpu;
    // The option wins either way.
    EXPECT_FALSE(choose_ui_cache(kLlvmpipe, false, true));
    EXPECT_TRUE(choose_ui_cache("NVIDIA H100 80GB HBM3/PCIe/SSE2", true, false));
    // The Rendering panel's note says so, and how to turn it off.
    const std::string note = render_scale_note(kLlvmpipe, kSoftwareRenderScale, true, true);
    EXPECT_NE(note.find("50%"), std::string::npos) << note;
    EXPECT_NE(note.find("panels are redrawn only when they change"), std::string::npos) << note;
    EXPECT_NE(note.find("--ui-cache off"), std::string::npos) << note;
    EXPECT_EQ(render_scale_note(kLlvmpipe, kSoftwareRenderScale, true, false).find("panels"),
              std::string::npos);
    EXPECT_EQ(render_scale_note("NVIDIA H100 80GB HBM3/PCIe/SSE2", 1.0f, false, true).find("The panels"), 0u)
        << "asked for on a GPU: the note is the panels' line alone";
}

TEST(RenderQuality, TheUiCacheOptionIsAutoOnOrOff) {
    EXPECT_EQ(parse_ui_cache("auto"), std::nullopt);
    EXPECT_EQ(parse_ui_cache("On"), true);
    EXPECT_EQ(parse_ui_cache("off"), false);
    for (const char* bad : {"", "yes", "1", "onn"}) {
        try {
            parse_ui_cache(bad);
            ADD_FAILURE() << "'" << bad << "' was taken";
        } catch (const std::invalid_argument& e) {
            EXPECT_NE(std::string(e.what()).find("auto, on or off"), std::string::npos) << e.what();
        }
    }
}

}  // namespace
}  // namespace nbody::app
