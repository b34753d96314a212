// The frame-time distribution the viewer's report prints (FrameTimes, viewer_stats.hpp): the
// percentiles, the longest frame and the frames a 60 Hz display would show late.

#include <gtest/gtest.h>

#include <limits>
#include <string>

#include "viewer_stats.hpp"

namespace nbody::app {
namespace {

TEST(FrameTimes, PercentilesLongestAndLateFrames) {
    FrameTimes t;
    for (int i = 0; i < 97; ++i) t.add(0.0167);
    t.add(0.030);
    t.add(0.040);
    t.add(0.300);  // beyond the last bin: counted, and the longest
    EXPECT_EQ(t.count(), 100);
    EXPECT_NEAR(t.percentile_ms(0.5), 16.7, 0.1);
    EXPECT_NEAR(t.percentile_ms(0.97), 16.7, 0.1);
    EXPECT_NEAR(t.percentile_ms(0.98), 30.0, 0.1);
    EXPECT_NEAR(t.percentile_ms(0.99), 40.0, 0.1);
    EXPECT_DOUBLE_EQ(t.percentile_ms(1.0), 300.0);
    EXPECT_DOUBLE_EQ(t.longest_ms(), 300.0);
    EXPECT_NEAR(t.mean_ms(), (97 * 16.7 + 30 + 40 + 300) / 100.0, 1e-9);
    EXPECT_EQ(t.count_over_ms(25.0), 3);
    EXPECT_EQ(t.count_over_ms(35.0), 2);
    EXPECT_NE(t.summary().find("3 of 100 over 25.0 ms"), std::string::npos) << t.summary();
}

TEST(FrameTimes, EmptyAndBadSamples) {
    FrameTimes t;
    EXPECT_EQ(t.percentile_ms(0.5), 0.0);
    t.add(-1.0);
    t.add(std::numeric_limits<double>::quiet_NaN());
    EXPECT_EQ(t.count(), 0);
}

}  // namespace
}  // namespace nbody::app
