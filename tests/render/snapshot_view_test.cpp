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

}  // namespace
}  // namespace nbody
