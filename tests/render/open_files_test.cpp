// `nbody view --scene` opens every file the viewer knows (scene files and each particle format)
// and names the problem with any other; a file dropped onto the window (here `--drop`, which
// takes the drop callback's path) is opened like a scene, and one that cannot be opened is
// reported while the running simulation goes on untouched.

#include <gtest/gtest.h>

#include <string>

#include "nbody/render/frame_capture.hpp"
#include "nbody/sim/csv.hpp"
#include "nbody/sim/ic/plummer.hpp"
#include "nbody/sim/io/particle_files.hpp"
#include "test_support.hpp"

namespace nbody {
namespace {

const std::string kView = "view --headless --backend cpu --no-ui --size 96x54 ";

TEST(ViewerOpen, EveryParticleFormatAndSceneFilesOpen) {
    test::TempDir dir;
    const State bodies = ic::make_plummer({.bodies = 300, .seed = 11});
    for (const char* name : {"stars.csv", "stars.tipsy", "stars.std", "stars.bin", "stars.nbsnap", "STARS.CSV"}) {
        io::write_particles(dir.file(name), bodies);
        const auto r = test::run_nbody(kView + "--frames 1 --scene " + dir.file(name));
        EXPECT_EQ(r.exit_code, 0) << name << "\n" << r.output;
        EXPECT_NE(r.output.find("300 bodies"), std::string::npos) << name << "\n" << r.output;
    }
    const auto r = test::run_nbody(kView + "--frames 1 --bodies 300 --scene " + test::source_dir() + "/scenes/plummer.toml");
    EXPECT_EQ(r.exit_code, 0) << r.output;
    EXPECT_NE(r.output.find("300 bodies"), std::string::npos) << r.output;
}

TEST(ViewerOpen, OtherFilesAreRefusedWithTheReason) {
    test::TempDir dir;
    test::write_text(dir.file("stars.xyz"), "1 2 3\n");
    auto r = test::run_nbody(kView + "--frames 1 --scene " + dir.file("stars.xyz"));
    EXPECT_NE(r.exit_code, 0) << r.output;
    EXPECT_NE(r.output.find("stars.xyz: unknown file type '.xyz'"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find(".csv, .tipsy/.std/.bin, .nbsnap"), std::string::npos) << r.output;

    r = test::run_nbody(kView + "--frames 1 --scene " + dir.file("missing.csv"));
    EXPECT_NE(r.exit_code, 0) << r.output;
    EXPECT_NE(r.output.find("missing.csv"), std::string::npos) << r.output;

    test::write_text(dir.file("broken.csv"), "x,y,z,vx,vy,vz,m\n1,2,3,0,0,0,oops\n");
    r = test::run_nbody(kView + "--frames 1 --scene " + dir.file("broken.csv"));
    EXPECT_NE(r.exit_code, 0) << r.output;
    EXPECT_NE(r.output.find("broken.csv"), std::string::npos) << r.output;
}

// The running scene: a Plummer sphere of 200 bodies, three frames; the file arrives after the first.
TEST(ViewerOpen, ADroppedFileIsOpenedAndABadOneKeepsTheRunningSimulation) {
    test::TempDir dir;
    const std::string running = kView + "--frames 3 --bodies 200 --scene " + test::source_dir() + "/scenes/plummer.toml ";
    write_csv(dir.file("good.csv"), ic::make_plummer({.bodies = 321, .seed = 2}));
    test::write_text(dir.file("bad.csv"), "x,y,z,vx,vy,vz,m\n1,2,3,0,0,0,-5\n");
    test::write_text(dir.file("notes.txt"), "not particles\n");

    auto r = test::run_nbody(running + "--screenshot " + dir.file("undisturbed.png"));
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_NE(r.output.find("N = 200"), std::string::npos) << r.output;

    r = test::run_nbody(running + "--drop " + dir.file("good.csv"));
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_NE(r.output.find("opened " + dir.file("good.csv") + ": good.csv, 321 bodies"), std::string::npos)
        << r.output;
    EXPECT_NE(r.output.find("N = 321"), std::string::npos) << r.output;

    for (const char* bad : {"bad.csv", "notes.txt", "gone.nbsnap"}) {
        r = test::run_nbody(running + "--drop " + dir.file(bad) + " --screenshot " + dir.file("after.png") +
                            " --overwrite");
        ASSERT_EQ(r.exit_code, 0) << bad << "\n" << r.output;  // reported, not fatal
        EXPECT_NE(r.output.find("nbody: " + dir.file(bad)), std::string::npos) << bad << "\n" << r.output;
        EXPECT_EQ(r.output.find("opened "), std::string::npos) << bad << "\n" << r.output;
        EXPECT_NE(r.output.find("N = 200"), std::string::npos) << bad << "\n" << r.output;
        // The simulation went on as if nothing had been dropped: the same picture, to the pixel.
        const render::Image a = render::read_png(dir.file("undisturbed.png"));
        const render::Image b = render::read_png(dir.file("after.png"));
        EXPECT_EQ(a.rgba, b.rgba) << bad;
    }
}

}  // namespace
}  // namespace nbody
