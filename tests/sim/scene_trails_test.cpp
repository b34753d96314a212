// The scene key `trails` (issue 15): how many trail points the viewer draws per body at start.
// Optional (0: none), a whole number up to 4096; the figure-eight scenes switch trails on.

#include <gtest/gtest.h>

#include <string>

#include "nbody/sim/scene.hpp"
#include "test_support.hpp"

namespace nbody {
namespace {

std::string scene_with(const std::string& extra) {
    return "[scene]\nname = \"t\"\nbodies = 50\nunits = \"nbody\"\ndt = 0.01\nsoftening = 0.05\nsteps_per_frame = 1\n" +
           extra +
           "\n[camera]\ndistance = 5.0\n\n[[galaxy]]\nname = \"a\"\n[galaxy.plummer]\nmass = 1.0\nbodies = 50\n"
           "scale_radius = 0.2\n";
}

std::string error_of(const std::string& text) {
    try {
        load_scene_from_string(text, "scenes/t.toml");
    } catch (const std::runtime_error& e) {
        return e.what();
    }
    return "(no error)";
}

TEST(SceneTrails, OptionalAndReadWhenGiven) {
    EXPECT_EQ(load_scene_from_string(scene_with(""), "t.toml").trails, 0);
    EXPECT_EQ(load_scene_from_string(scene_with("trails = 64"), "t.toml").trails, 64);
}

TEST(SceneTrails, BadValuesAreNamed) {
    const std::string negative = error_of(scene_with("trails = -2"));
    EXPECT_NE(negative.find("scene.trails"), std::string::npos) << negative;
    EXPECT_NE(negative.find("between 0 (none) and 4096"), std::string::npos) << negative;
    const std::string text = error_of(scene_with("trails = \"long\""));
    EXPECT_NE(text.find("scene.trails"), std::string::npos) << text;
    EXPECT_NE(error_of(scene_with("trails = 5000")).find("4096"), std::string::npos);
}

TEST(SceneTrails, FigureEightScenesShowTheirEight) {
    for (const char* name : {"rv770-figure-eight-3.toml", "rv770-figure-eight-4.toml"}) {
        const Scene s = load_scene(test::source_dir() + "/scenes/" + name, 300);
        EXPECT_GE(s.trails, 64) << name;
    }
    EXPECT_EQ(load_scene(test::source_dir() + "/scenes/antennae.toml", 300).trails, 0) << "galaxy scenes: off";
}

}  // namespace
}  // namespace nbody
