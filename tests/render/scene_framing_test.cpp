// Issue 33: the scene given with --scene at start-up is framed as a launched one is (scene picker,
// Open, the Encounter editor): its camera moved back until all its galaxies are in view, and
// said. Headless EGL on Mesa; without it the test skips.

#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>

#include "nbody/render/frame_capture.hpp"
#include "test_support.hpp"

namespace nbody {
namespace {

// The default scene with the galaxies 280 kpc apart and the camera 60 kpc from the first: the
// file's view holds one galaxy at most (25 kpc above and below its target).
std::string wide_scene_with_a_close_camera() {
    std::ifstream in(test::source_dir() + "/scenes/milky-way-andromeda.toml");
    std::stringstream text;
    for (std::string line; std::getline(in, line);) {
        if (line.rfind("separation = ", 0) == 0) line = "separation = 280.0";
        if (line.rfind("distance = ", 0) == 0) line = "distance = 60.0";
        text << line << "\n";
    }
    return text.str();
}

struct Hues {
    int orange = 0, blue = 0;  // the Milky Way's and M31's colours by galaxy
};

Hues hues(const render::Image& image) {
    Hues h;
    for (int y = 0; y < image.height; ++y)
        for (int x = 0; x < image.width; ++x) {
            const std::uint8_t* p = image.pixel(x, y);
            if (p[0] + p[1] + p[2] < 150) continue;  // the glow's faint edge and the background
            h.orange += p[0] > p[2] + 40;
            h.blue += p[2] > p[0] + 20;
        }
    return h;
}

TEST(SceneFraming, TheSceneAtStartUpShowsAllItsGalaxies) {
    test::TempDir dir;
    const std::string scene = dir.file("wide.toml"), png = dir.file("shot.png");
    test::write_text(scene, wide_scene_with_a_close_camera());
    const auto r =
        test::run_command("timeout 300 '" + test::nbody_executable() +
                          "' view --headless --backend cpu --bodies 4096 --no-ui --size 320x180 --frames 1 "
                          "--colour galaxy --scene '" +
                          scene + "' --screenshot '" + png + "'");
    if (r.exit_code != 0 && r.output.find("cannot create a headless OpenGL") != std::string::npos)
        GTEST_SKIP() << r.output;
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_NE(r.output.find("the scene's camera moved back from 60 to "), std::string::npos) << r.output;
    const Hues h = hues(render::read_png(png));
    std::printf("bright pixels: %d orange (Milky Way), %d blue (M31)\n", h.orange, h.blue);
    EXPECT_GT(h.orange, 10) << "the Milky Way is not in view";
    EXPECT_GT(h.blue, 10) << "M31 is not in view";
}

// A scene whose camera already shows both galaxies keeps it, and a star cluster its designed view
// (99% of a Plummer sphere's stars reach twice as far): neither says anything.
TEST(SceneFraming, TheDefaultSceneAndAClusterKeepTheirCameras) {
    for (const std::string scene : {"milky-way-andromeda.toml", "star-cluster-kroupa.toml"}) {
        SCOPED_TRACE(scene);
        test::TempDir dir;
        const auto r = test::run_command(
            "timeout 300 '" + test::nbody_executable() +
            "' view --headless --backend cpu --bodies 4096 --no-ui --size 320x180 "
            "--frames 1 --integrator leapfrog --scene '" +
            test::source_dir() + "/scenes/" + scene + "' --screenshot '" + dir.file("shot.png") + "'");
        if (r.exit_code != 0 && r.output.find("cannot create a headless OpenGL") != std::string::npos)
            GTEST_SKIP() << r.output;
        ASSERT_EQ(r.exit_code, 0) << r.output;
        EXPECT_EQ(r.output.find("camera moved back"), std::string::npos) << r.output;
    }
}

}  // namespace
}  // namespace nbody
