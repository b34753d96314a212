// The viewer restores a saved simulation from the command line, and refuses a damaged one with
// the file named.

#include <gtest/gtest.h>

#include <fstream>

#include "nbody/sim/ic/plummer.hpp"
#include "nbody/sim/io/snapshot.hpp"
#include "test_support.hpp"

namespace nbody {
namespace {

TEST(ViewerSnapshot, OpensASavedSimulationAndRefusesADamagedOne) {
    test::TempDir dir;
    io::Snapshot snap;
    snap.state = ic::make_plummer({.bodies = 777, .seed = 3});
    snap.state.time = 1.25;
    snap.params = {.dt = 0.002, .softening = 0.03};
    snap.scene_name = "saved run";
    io::write_snapshot(dir.file("run.nbsnap"), snap);

    auto r = test::run_nbody("view --headless --backend cpu --no-ui --size 160x90 --frames 1 --scene " +
                             dir.file("run.nbsnap"));
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_NE(r.output.find("777 bodies"), std::string::npos) << r.output;

    // Flip one byte in the particle data: the checksum must catch it.
    {
        std::fstream f(dir.file("run.nbsnap"), std::ios::in | std::ios::out | std::ios::binary);
        f.seekg(200);
        char c = 0;
        f.read(&c, 1);
        c ^= 0x40;
        f.seekp(200);
        f.write(&c, 1);
    }
    r = test::run_nbody("view --headless --backend cpu --no-ui --size 160x90 --frames 1 --scene " +
                        dir.file("run.nbsnap"));
    EXPECT_NE(r.exit_code, 0) << r.output;
    EXPECT_NE(r.output.find("run.nbsnap"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("checksum"), std::string::npos) << r.output;
}

// A snapshot written by `nbody run --scene` is viewed with that scene's camera and units (a
// particle file alone would get a framing camera and N-body units); when the scene file is gone it
// still opens, framed.
TEST(ViewerSnapshot, KeepsTheCameraAndUnitsOfTheSceneItWasRunFrom) {
    test::TempDir dir;
    const std::string scene = test::source_dir() + "/scenes/milky-way-andromeda.toml";
    auto r = test::run_nbody("run --scene " + scene + " --bodies 2048 --steps 1 --backend cpu --out " +
                             dir.file("mw.nbsnap"));
    ASSERT_EQ(r.exit_code, 0) << r.output;
    const std::string view = "view --headless --backend cpu --no-ui --size 160x90 --frames 1 --scene ";
    r = test::run_nbody(view + dir.file("mw.nbsnap"));
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_NE(r.output.find("camera and units of the scene it was run from"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("milky-way-andromeda.toml"), std::string::npos) << r.output;

    io::Snapshot snap = io::read_snapshot(dir.file("mw.nbsnap"));
    snap.scene_source = dir.file("gone.toml");
    io::write_snapshot(dir.file("orphan.nbsnap"), snap);
    r = test::run_nbody(view + dir.file("orphan.nbsnap"));
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_EQ(r.output.find("camera and units of the scene"), std::string::npos) << r.output;
}

}  // namespace
}  // namespace nbody
