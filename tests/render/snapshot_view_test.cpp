// The viewer restores a saved simulation from the command line, and refuses a damaged one with
// the file named.

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>

#include "nbody/render/frame_capture.hpp"
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

// Pixels (summed over RGB, 0..765 each) that differ by more than a faint glow's flicker.
int differing_pixels(const render::Image& a, const render::Image& b) {
    int n = 0;
    for (std::size_t i = 0; i + 3 < a.rgba.size() && i + 3 < b.rgba.size(); i += 4)
        n += std::abs(int(a.rgba[i]) - int(b.rgba[i])) + std::abs(int(a.rgba[i + 1]) - int(b.rgba[i + 1])) +
                 std::abs(int(a.rgba[i + 2]) - int(b.rgba[i + 2])) >
             24;
    return n;
}

// A snapshot written by `nbody run --scene` records the scene's camera and units, so that viewing
// it looks like the scene even after the scene file is deleted: the same picture as viewing the
// scene itself (one step apart), not the framed view in N-body units that a particle file gets.
TEST(ViewerSnapshot, KeepsTheCameraAndUnitsOfTheSceneItWasRunFrom) {
    test::TempDir dir;
    namespace fs = std::filesystem;
    fs::copy_file(test::source_dir() + "/scenes/milky-way-andromeda.toml", dir.file("mw.toml"));
    auto r = test::run_nbody("run --scene " + dir.file("mw.toml") + " --bodies 2048 --steps 1 --backend cpu --out " +
                             dir.file("mw.nbsnap"));
    ASSERT_EQ(r.exit_code, 0) << r.output;
    const std::string view =
        "view --headless --backend cpu --no-ui --size 240x135 --frames 1 --steps-per-frame 1 --scene ";
    r = test::run_nbody(view + dir.file("mw.toml") + " --bodies 2048 --screenshot " + dir.file("scene.png"));
    ASSERT_EQ(r.exit_code, 0) << r.output;

    fs::remove(dir.file("mw.toml"));
    r = test::run_nbody(view + dir.file("mw.nbsnap") + " --screenshot " + dir.file("snapshot.png"));
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_NE(r.output.find("camera and units of the scene it was run from, Milky Way - Andromeda"), std::string::npos)
        << r.output;
    EXPECT_NE(r.output.find("as stored in the snapshot: kpc, 9.78 Myr"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("scene: Milky Way - Andromeda, t = 0.4 Myr"), std::string::npos) << r.output;  // 2 steps of 0.2 Myr

    // The same bodies as an earlier writer saved them (no record of the scene), the scene file gone:
    // they still open, framed, in N-body units.
    io::Snapshot snap = io::read_snapshot(dir.file("mw.nbsnap"));
    snap.metadata.clear();
    io::write_snapshot(dir.file("old.nbsnap"), snap);
    r = test::run_nbody(view + dir.file("old.nbsnap") + " --screenshot " + dir.file("framed.png"));
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_EQ(r.output.find("camera and units of the scene"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("(N-body units)"), std::string::npos) << r.output;

    const render::Image scene = render::read_png(dir.file("scene.png"));
    const render::Image viewed = render::read_png(dir.file("snapshot.png"));
    const render::Image framed = render::read_png(dir.file("framed.png"));
    const int same = differing_pixels(scene, viewed), other = differing_pixels(scene, framed);
    const int total = scene.width * scene.height;
    std::cout << "differing pixels of " << total << ": snapshot " << same << ", framed " << other << "\n";
    EXPECT_LT(same, total / 100) << "the snapshot is not drawn as its scene: " << same << " pixels differ";
    EXPECT_GT(other, 4 * same + total / 50) << "the framed view should look different (" << other << " vs " << same
                                            << " differing pixels)";
}

// Snapshots of earlier versions (tests/sim/data) open in the viewer; their scene, plummer.toml, is
// found in the scene folders by its name (the path they recorded was another machine's).
TEST(ViewerSnapshot, OpensSnapshotsOfEarlierVersions) {
    for (const char* file : {"v1-plummer-64.nbsnap", "v2-plummer-64.nbsnap"}) {
        const auto r = test::run_nbody("view --headless --backend cpu --no-ui --size 96x54 --frames 1 --scene " +
                                       test::source_dir() + "/tests/sim/data/" + file);
        ASSERT_EQ(r.exit_code, 0) << file << "\n" << r.output;
        EXPECT_NE(r.output.find("64 bodies"), std::string::npos) << r.output;
        EXPECT_NE(r.output.find("scene: Plummer sphere"), std::string::npos) << r.output;
    }
}

}  // namespace
}  // namespace nbody
