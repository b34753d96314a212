// Bad scene files: each mistake gives a message naming the file, the key (and line) and the
// problem; nothing is returned.

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

#include "nbody/sim/scene.hpp"
#include "test_support.hpp"

namespace nbody {
namespace {

// A small valid scene; each test breaks one thing in it.
const std::string kGood = R"(# test scene
[scene]
name = "test"
bodies = 300
units = "galactic"
dt = 0.01
softening = 0.1
steps_per_frame = 2

[camera]
distance = 50.0

[[galaxy]]
name = "A"
[galaxy.disk]
mass = 10.0
bodies = 100
scale_length = 2.0
scale_height = 0.2
toomre_q = 1.5
[galaxy.halo]
mass = 50.0
bodies = 100
scale_radius = 8.0

[[galaxy]]
name = "B"
[galaxy.orbit]
pericentre = 5.0
separation = 50.0
[galaxy.plummer]
mass = 10.0
bodies = 100
scale_radius = 1.0
)";

std::string replace(std::string text, const std::string& from, const std::string& to) {
    const auto at = text.find(from);
    if (at == std::string::npos) throw std::logic_error("test bug: '" + from + "' not in the scene");
    return text.replace(at, from.size(), to);
}

std::string error_of(const std::string& text, std::optional<std::size_t> bodies = std::nullopt) {
    try {
        load_scene_from_string(text, "scenes/bad.toml", bodies);
    } catch (const std::runtime_error& e) {
        return e.what();
    }
    return "(no error)";
}

void expect_message(const std::string& msg, std::initializer_list<const char*> parts) {
    for (const char* p : parts) EXPECT_NE(msg.find(p), std::string::npos) << "'" << p << "' missing from: " << msg;
}

TEST(SceneErrors, TheGoodSceneLoads) {
    const Scene s = load_scene_from_string(kGood, "scenes/good.toml");
    EXPECT_EQ(s.state.size(), 300u);
    EXPECT_EQ(s.name, "test");
    EXPECT_EQ(s.steps_per_frame, 2);
    EXPECT_EQ(s.source, "scenes/good.toml");
    EXPECT_EQ(s.units.length, "kpc");
}

TEST(SceneErrors, UnknownKeyIsNamed) {
    const std::string msg = error_of(replace(kGood, "scale_length = 2.0", "scale_lenght = 2.0"));
    expect_message(msg, {"scenes/bad.toml:", "galaxy[0].disk.scale_lenght", "unknown key", "scale_length"});
    expect_message(error_of(replace(kGood, "[camera]", "[camera]\nzoom = 3")), {"camera.zoom", "unknown key", ":11:"});
    expect_message(error_of(kGood + "\n[extras]\nx = 1\n"), {"extras", "unknown key"});
}

TEST(SceneErrors, WrongTypeIsNamed) {
    expect_message(error_of(replace(kGood, "mass = 10.0\nbodies = 100\nscale_length", "mass = \"heavy\"\nbodies = 100\nscale_length")),
                   {"scenes/bad.toml:16:", "galaxy[0].disk.mass", "expected a number, got a string"});
    expect_message(error_of(replace(kGood, "bodies = 300", "bodies = 300.5")),
                   {"scene.bodies", "expected an integer, got a number"});
    expect_message(error_of(replace(kGood, "distance = 50.0", "distance = [1, 2]")),
                   {"camera.distance", "expected a number, got an array"});
    expect_message(error_of(replace(kGood, "[galaxy.orbit]", "position = [1, 2]\n[galaxy.orbit]")),
                   {"galaxy[1].position", "expected an array of 3 numbers"});
}

TEST(SceneErrors, MissingFieldIsNamed) {
    expect_message(error_of(replace(kGood, "scale_length = 2.0\n", "")),
                   {"scenes/bad.toml", "galaxy[0].disk.scale_length", "missing", "[galaxy[0].disk]"});
    expect_message(error_of(replace(kGood, "dt = 0.01\n", "")), {"scene.dt", "missing"});
    expect_message(error_of(replace(kGood, "[camera]\ndistance = 50.0\n", "")), {"camera", "missing"});
    expect_message(error_of(replace(kGood, "separation = 50.0\n", "")), {"galaxy[1].orbit.separation", "missing"});
}

TEST(SceneErrors, NegativeMassIsRefused) {
    expect_message(error_of(replace(kGood, "mass = 50.0", "mass = -50.0")),
                   {"scenes/bad.toml:22:", "galaxy[0].halo.mass", "negative mass (-50)"});
}

TEST(SceneErrors, NoBodiesIsRefused) {
    expect_message(error_of(replace(kGood, "bodies = 300", "bodies = 0")), {"scene.bodies", "N = 0"});
    expect_message(error_of(kGood, 0), {"--bodies", "N = 0"});
    expect_message(error_of(kGood, 2), {"--bodies", "too few", "at least 3"});
    expect_message(error_of(replace(kGood, "bodies = 300", "bodies = 301")), {"scene.bodies", "301", "add up to 300"});
}

TEST(SceneErrors, ImpossibleSettingsAreRefused) {
    expect_message(error_of(replace(kGood, "separation = 50.0", "separation = 2.0")),
                   {"galaxy[1].orbit", "separation 2 is inside the pericentre 5"});
    expect_message(error_of(replace(kGood, "units = \"galactic\"", "units = \"imperial\"")),
                   {"scene.units", "unknown unit system \"imperial\""});
    expect_message(error_of(replace(kGood, "[galaxy.orbit]", "position = [1, 2, 3]\n[galaxy.orbit]")),
                   {"galaxy[1].orbit", "not both"});
    expect_message(error_of(replace(kGood, "toomre_q = 1.5", "toomre_q = 0")), {"galaxy[0].disk.toomre_q", "must be > 0"});
    expect_message(error_of(replace(kGood, "[galaxy.plummer]", "[galaxy.point]\nmass = 1.0\n[galaxy.plummer]")),
                   {"galaxy[1]", "stand alone"});
    expect_message(error_of(replace(kGood, "dt = 0.01", "dt = -0.01")), {"scene.dt", "must be > 0"});
}

TEST(SceneErrors, SyntaxErrorsAndMissingFiles) {
    expect_message(error_of(replace(kGood, "name = \"A\"", "name = \"A")), {"scenes/bad.toml:14:", "TOML syntax error"});
    try {
        load_scene("/nonexistent/scene.toml");
        FAIL();
    } catch (const std::runtime_error& e) {
        expect_message(e.what(), {"/nonexistent/scene.toml", "does not exist"});
    }
}

TEST(SceneErrors, SceneListShowsBrokenFilesWithTheirError) {
    test::TempDir dir;
    test::write_text(dir.file("a-good.toml"), kGood);
    test::write_text(dir.file("b-bad.toml"), replace(kGood, "mass = 50.0", "mass = -1.0"));
    test::write_text(dir.file("notes.txt"), "not a scene");
    const auto list = list_scenes(dir.path().string());
    ASSERT_EQ(list.size(), 2u);
    EXPECT_EQ(list[0].name, "test");
    EXPECT_EQ(list[0].bodies, 300u);
    EXPECT_TRUE(list[0].error.empty());
    EXPECT_NE(list[1].error.find("negative mass"), std::string::npos) << list[1].error;
    EXPECT_THROW(list_scenes(dir.file("nope")), std::runtime_error);
}

}  // namespace
}  // namespace nbody
