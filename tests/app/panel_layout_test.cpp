// The panels' default layout (issue 33 item 4): no panel covers another or the bottom band that
// holds the scale bar, legend and status bar; each goes under the one before at its real height.

#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "panel_layout.hpp"

namespace nbody::app {
namespace {

struct Box {
    float x0, y0, x1, y1;
};

std::vector<Box> boxes(const LayoutArea& area, const std::vector<PanelSize>& panels, const std::vector<PanelPlace>& places) {
    std::vector<Box> out;
    for (std::size_t i = 0; i < panels.size(); ++i) {
        const PanelPlace& p = places[i];
        out.push_back({p.x, p.y, p.x + panels[i].width, p.y + placed_height(area, panels[i], p)});
    }
    return out;
}

bool overlap(const Box& a, const Box& b) { return a.x0 < b.x1 && b.x0 < a.x1 && a.y0 < b.y1 && b.y0 < a.y1; }

void expect_apart_and_above_the_band(const LayoutArea& area, const std::vector<PanelSize>& panels) {
    const std::vector<PanelPlace> places = stack_panels(area, panels);
    ASSERT_EQ(places.size(), panels.size());
    const std::vector<Box> b = boxes(area, panels, places);
    for (std::size_t i = 0; i < b.size(); ++i) {
        EXPECT_GE(b[i].y0, area.top) << "panel " << i;
        EXPECT_LE(b[i].y1, area.height - area.bottom_band + 0.01f) << "panel " << i << " runs into the legend / scale bar";
        EXPECT_GE(b[i].x0, 0.0f) << "panel " << i;
        EXPECT_LE(b[i].x1, area.width) << "panel " << i;
        for (std::size_t j = i + 1; j < b.size(); ++j) EXPECT_FALSE(overlap(b[i], b[j])) << "panels " << i << " and " << j;
    }
}

LayoutArea window(float w, float h) { return {w, h, 23.0f, 70.0f, 8.0f, 27.0f, 120.0f}; }

// Kernel, Simulation (left), Rendering, Recording, Encounter (right), Debug (left): the sizes
// the viewer's panels have at 1280x720 (Kernel open on the tree code).
std::vector<PanelSize> all_panels() {
    return {{330, 420, Column::Left}, {330, 330, Column::Left},  {300, 460, Column::Right},
            {300, 27, Column::Right}, {420, 560, Column::Right}, {330, 200, Column::Left}};
}

TEST(PanelLayout, AllPanelsOpenCoverNeitherEachOtherNorTheLegend) {
    for (const auto& [w, h] : {std::pair{1280.0f, 720.0f}, {1920.0f, 1080.0f}, {1024.0f, 600.0f}, {800.0f, 600.0f}}) {
        SCOPED_TRACE(std::to_string(int(w)) + "x" + std::to_string(int(h)));
        expect_apart_and_above_the_band(window(w, h), all_panels());
    }
}

TEST(PanelLayout, EachPanelGoesUnderThePreviousOnesHeight) {
    const LayoutArea area = window(1920, 1080);
    const std::vector<PanelSize> panels{{330, 100, Column::Left}, {330, 250, Column::Left}, {300, 40, Column::Left}};
    const std::vector<PanelPlace> p = stack_panels(area, panels);
    EXPECT_FLOAT_EQ(p[0].y, area.top);
    EXPECT_FLOAT_EQ(p[1].y, area.top + 100 + area.margin);
    EXPECT_FLOAT_EQ(p[2].y, area.top + 100 + 250 + 2 * area.margin);
    EXPECT_FLOAT_EQ(p[0].x, area.margin);
}

TEST(PanelLayout, APanelThatDoesNotFitGoesToTheOtherColumn) {
    const LayoutArea area = window(1280, 720);
    const std::vector<PanelSize> panels{{330, 420, Column::Left}, {330, 330, Column::Left}, {300, 200, Column::Right}};
    const std::vector<PanelPlace> p = stack_panels(area, panels);
    EXPECT_EQ(p[1].column, Column::Right);
    EXPECT_FLOAT_EQ(p[1].x, 1280 - area.margin - 330);
    EXPECT_FLOAT_EQ(p[2].y, p[1].y + 330 + area.margin) << "the next right-hand panel goes under it";
}

TEST(PanelLayout, APanelWithNoRoomLeftIsCollapsedNotDrawnOverTheOthers) {
    const LayoutArea area = window(1280, 720);
    const std::vector<PanelSize> panels{{330, 560, Column::Left}, {300, 560, Column::Right}, {330, 300, Column::Left}};
    const std::vector<PanelPlace> p = stack_panels(area, panels);
    EXPECT_TRUE(p[2].collapsed);
    expect_apart_and_above_the_band(area, panels);
}

TEST(PanelLayout, APanelTallerThanTheRoomScrolls) {
    const LayoutArea area = window(1280, 720);
    const std::vector<PanelSize> panels{{330, 900, Column::Left}};
    const std::vector<PanelPlace> p = stack_panels(area, panels);
    EXPECT_FALSE(p[0].collapsed);
    EXPECT_FLOAT_EQ(p[0].max_height, 720 - area.bottom_band - area.top);
}

TEST(PanelLayout, ANarrowWindowStacksEverythingInOneColumn) {
    const LayoutArea area = window(600, 1400);
    const std::vector<PanelSize> panels{{330, 300, Column::Left}, {300, 300, Column::Right}};
    const std::vector<PanelPlace> p = stack_panels(area, panels);
    EXPECT_EQ(p[1].column, Column::Left);
    expect_apart_and_above_the_band(area, panels);
}

// Any sizes, any window: apart and above the band whenever the title bars alone fit.
TEST(PanelLayout, RandomPanelsNeverOverlap) {
    std::mt19937 rng(33);
    std::uniform_real_distribution<float> u(0.0f, 1.0f);
    for (int trial = 0; trial < 20000; ++trial) {
        const LayoutArea area = window(500 + 1500 * u(rng), 400 + 800 * u(rng));
        std::vector<PanelSize> panels(1 + std::size_t(6 * u(rng)));
        for (PanelSize& p : panels)
            p = {150 + 300 * u(rng), area.title_height + 700 * u(rng), u(rng) < 0.5f ? Column::Left : Column::Right};
        const float free = area.height - area.bottom_band - area.top;
        if (float(panels.size()) * (area.title_height + area.margin) > free) continue;
        SCOPED_TRACE("trial " + std::to_string(trial));
        expect_apart_and_above_the_band(area, panels);
        if (HasFailure()) return;
    }
}

}  // namespace
}  // namespace nbody::app
