// `nbody run` with scenes, other particle formats and snapshots.

#include <gtest/gtest.h>

#include <cstring>

#include "nbody/sim/csv.hpp"
#include "nbody/sim/ic/plummer.hpp"
#include "nbody/sim/io/snapshot.hpp"
#include "test_support.hpp"

namespace nbody {
namespace {

using test::run_nbody;
using test::TempDir;

std::string scene(const std::string& name) { return test::source_dir() + "/scenes/" + name; }

TEST(RunSceneCli, IntegratesAScaledSceneFile) {
    TempDir dir;
    const auto r = run_nbody("run --scene " + scene("antennae.toml") + " --bodies 600 --steps 3 --backend cpu --out " +
                             dir.file("out.csv"));
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_EQ(read_csv(dir.file("out.csv")).size(), 600u);
    EXPECT_NE(r.output.find("relative energy error"), std::string::npos) << r.output;
}

TEST(RunSceneCli, ContinuingFromASnapshotEqualsOneUninterruptedRun) {
    TempDir dir;
    const std::string common = " --backend cpu --dt 0.004 --softening 0.05 ";
    write_csv(dir.file("in.csv"), ic::make_plummer({.bodies = 300, .seed = 4}));
    auto r = run_nbody("run --input " + dir.file("in.csv") + " --steps 20" + common + "--out " + dir.file("straight.csv"));
    ASSERT_EQ(r.exit_code, 0) << r.output;
    r = run_nbody("run --input " + dir.file("in.csv") + " --steps 10" + common + "--out " + dir.file("half.nbsnap"));
    ASSERT_EQ(r.exit_code, 0) << r.output;
    const io::Snapshot snap = io::read_snapshot(dir.file("half.nbsnap"));
    EXPECT_DOUBLE_EQ(snap.params.dt, 0.004);
    EXPECT_DOUBLE_EQ(snap.params.softening, 0.05);
    // No --dt or --softening: the snapshot's own are used.
    r = run_nbody("run --input " + dir.file("half.nbsnap") + " --steps 10 --backend cpu --out " + dir.file("resumed.csv"));
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_EQ(test::read_text(dir.file("straight.csv")), test::read_text(dir.file("resumed.csv")));
}

TEST(RunSceneCli, ConvertsBetweenFormatsByExtension) {
    TempDir dir;
    write_csv(dir.file("in.csv"), ic::make_plummer({.bodies = 100, .seed = 8}));
    auto r = run_nbody("run --input " + dir.file("in.csv") + " --steps 0 --out " + dir.file("x.tipsy"));
    ASSERT_EQ(r.exit_code, 0) << r.output;
    r = run_nbody("run --input " + dir.file("x.tipsy") + " --steps 0 --out " + dir.file("back.csv"));
    ASSERT_EQ(r.exit_code, 0) << r.output;
    // TIPSY has no "unspecified" particle type: the bodies come back as star records, same bits.
    const State in = read_csv(dir.file("in.csv")), back = read_csv(dir.file("back.csv"));
    ASSERT_EQ(back.size(), in.size());
    for (std::size_t i = 0; i < in.size(); ++i) {
        EXPECT_EQ(0, std::memcmp(&in.pos_mass[i], &back.pos_mass[i], sizeof(Vec4f))) << i;
        EXPECT_EQ(0, std::memcmp(&in.velocity[i], &back.velocity[i], 3 * sizeof(float))) << i;
    }
}

TEST(RunSceneCli, BadCombinationsAreClearErrors) {
    TempDir dir;
    auto r = run_nbody("run --steps 1");
    EXPECT_NE(r.exit_code, 0);
    EXPECT_NE(r.output.find("give exactly one of --input"), std::string::npos) << r.output;
    r = run_nbody("run --scene " + scene("plummer.toml") + " --input x.csv --steps 1");
    EXPECT_NE(r.exit_code, 0);
    EXPECT_NE(r.output.find("give exactly one of --input"), std::string::npos) << r.output;
    test::write_text(dir.file("in.csv"), "x,y,z,vx,vy,vz,m\n0,0,0,0,0,0,1\n");
    r = run_nbody("run --input " + dir.file("in.csv") + " --bodies 10 --steps 1");
    EXPECT_NE(r.exit_code, 0);
    EXPECT_NE(r.output.find("--bodies scales a scene"), std::string::npos) << r.output;
    r = run_nbody("run --input " + dir.file("in.csv") + " --steps 1 --out " + dir.file("out.xyz"));
    EXPECT_NE(r.exit_code, 0);
    EXPECT_NE(r.output.find("out.xyz"), std::string::npos) << r.output;
    r = run_nbody("run --scene " + dir.file("missing.toml") + " --steps 1");
    EXPECT_NE(r.exit_code, 0);
    EXPECT_NE(r.output.find("missing.toml"), std::string::npos) << r.output;
}

}  // namespace
}  // namespace nbody
