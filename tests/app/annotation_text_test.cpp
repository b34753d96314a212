// The text of the legend, scale bar and panels readable for a talk (issue 33 item 8): units on
// every number, galaxies by their names, text scaled to the frame.

#include <gtest/gtest.h>

#include "nbody/render/annotations.hpp"

namespace nbody::render {
namespace {

TEST(AnnotationText, TimesAreInMyrWhereTheSceneHasPhysicalUnits) {
    EXPECT_EQ(time_text(1.2, UnitSystem{}), "t = 11.7 Myr");  // the energy line's "at t = ..."
    EXPECT_EQ(time_text(200.0, UnitSystem{}), "t = 1.956 Gyr");
    const UnitSystem nbody{"N-body length", "N-body velocity", "N-body mass", "N-body time", 0.0};
    EXPECT_EQ(time_text(1.2, nbody), "t = 1.20 (N-body units)");
}

TEST(AnnotationText, SpeedsAreInKmPerSecond) {
    EXPECT_EQ(with_unit(2.12, UnitSystem{}.velocity), "212 km/s");
    EXPECT_EQ(with_unit(2.12, "N-body velocity"), "2.12 (N-body units)");
    EXPECT_EQ(vector_text(1, -2, 0.5, "kpc"), "(1, -2, 0.5) kpc");
    EXPECT_EQ(vector_text(1, 0, 0, "100 km/s"), "(100, 0, 0) km/s");
    // The Rendering panel's Top speed field shows the colour bar's top in this unit.
    EXPECT_EQ(split_unit("100 km/s"), (std::pair<double, std::string>{100.0, "km/s"}));
    EXPECT_EQ(split_unit("N-body velocity").second, "");
}

TEST(AnnotationText, GalaxiesGoByTheirNames) {
    const std::vector<std::string> names{"Milky Way", "Andromeda (M31)"};
    EXPECT_EQ(galaxy_name(names, 0), "Milky Way");
    EXPECT_EQ(galaxy_name(names, 1), "Andromeda (M31)");
    EXPECT_EQ(galaxy_name(names, 2), "galaxy 3") << "a galaxy the scene did not name";
    EXPECT_EQ(galaxy_name({"", "B"}, 0), "galaxy 1");
}

TEST(AnnotationText, TextIsScaledToTheFrameUnlessASizeIsAsked) {
    EXPECT_FLOAT_EQ(annotation_text_px(0, 720), 18.0f);
    EXPECT_FLOAT_EQ(annotation_text_px(0, 1080), 27.0f);
    EXPECT_FLOAT_EQ(annotation_text_px(0, 2160), 54.0f);
    EXPECT_FLOAT_EQ(annotation_text_px(0, 270), 13.0f) << "legible in a thumbnail";
    EXPECT_FLOAT_EQ(annotation_text_px(40, 720), 40.0f);
}

}  // namespace
}  // namespace nbody::render
