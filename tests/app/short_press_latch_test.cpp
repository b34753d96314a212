// A key tapped between two frames (pressed and released within one frame's events) is not lost:
// Dear ImGui 1.86 sees it held for exactly one frame (short_press_latch.hpp).

#include <gtest/gtest.h>

#include <vector>

#include "short_press_latch.hpp"

namespace nbody::app {
namespace {

constexpr int kEnter = 257;  // GLFW_KEY_ENTER
constexpr int kA = 65;

TEST(ShortPressLatch, KeyTappedWithinOneFrameIsHeldForThatFrame) {
    ShortPressLatch latch;
    latch.pressed(kEnter);
    latch.released(kEnter);  // both before the frame looks
    EXPECT_EQ(latch.take_taps(), std::vector<int>{kEnter});
    EXPECT_TRUE(latch.take_taps().empty()) << "held for one frame only";
}

TEST(ShortPressLatch, KeyHeldAcrossFramesIsNotATap) {
    ShortPressLatch latch;
    latch.pressed(kA);
    EXPECT_TRUE(latch.take_taps().empty());  // still held: ImGui sees it down by itself
    latch.released(kA);                      // released in a later frame
    EXPECT_TRUE(latch.take_taps().empty());
}

TEST(ShortPressLatch, EveryKeyTappedInOneFrameIsKept) {
    ShortPressLatch latch;
    latch.pressed(kA);
    latch.released(kA);
    latch.pressed(kEnter);
    latch.released(kEnter);
    latch.pressed(kA);  // tapped twice: once is enough for a frame
    latch.released(kA);
    EXPECT_EQ(latch.take_taps(), (std::vector<int>{kA, kEnter}));
}

}  // namespace
}  // namespace nbody::app
