// `nbody run --scene ... --out x.nbsnap` records the scene's units, camera and galaxy names in the
// snapshot, and a run continued from it (either integrator) passes them on.

#include <gtest/gtest.h>

#include <cstdio>

#include "nbody/sim/io/scene_metadata.hpp"
#include "nbody/sim/io/snapshot.hpp"
#include "nbody/sim/scene.hpp"
#include "test_support.hpp"

namespace nbody {
namespace {

using test::run_nbody;

TEST(SnapshotSceneCli, RunRecordsTheSceneAndContinuedRunsKeepIt) {
    test::TempDir dir;
    const std::string file = test::source_dir() + "/scenes/milky-way-andromeda.toml";
    auto r = run_nbody("run --scene " + file + " --bodies 512 --steps 1 --backend cpu --out " + dir.file("a.nbsnap"));
    ASSERT_EQ(r.exit_code, 0) << r.output;
    const Scene scene = load_scene(file, 512);
    const io::Snapshot a = io::read_snapshot(dir.file("a.nbsnap"));
    ASSERT_TRUE(io::has_scene_metadata(a.metadata));
    Scene back;
    io::apply_scene_metadata(a.metadata, back, "a.nbsnap");
    EXPECT_EQ(back.units.length, "kpc");
    EXPECT_EQ(back.units.time_unit_myr, scene.units.time_unit_myr);
    EXPECT_EQ(back.camera.distance, scene.camera.distance);
    EXPECT_EQ(back.camera.azimuth_deg, scene.camera.azimuth_deg);
    EXPECT_EQ(back.camera.elevation_deg, scene.camera.elevation_deg);
    EXPECT_EQ(back.galaxy_names, (std::vector<std::string>{"Milky Way", "Andromeda (M31)"}));

    // Continued, leapfrog and Hermite: the record is passed on unchanged.
    r = run_nbody("run --input " + dir.file("a.nbsnap") + " --steps 1 --backend cpu --out " + dir.file("b.nbsnap"));
    ASSERT_EQ(r.exit_code, 0) << r.output;
    r = run_nbody("run --integrator hermite4 --input " + dir.file("a.nbsnap") +
                  " --backend cpu --eta 0.02 --t-end 0.03 --out " + dir.file("h.nbsnap"));
    ASSERT_EQ(r.exit_code, 0) << r.output;
    for (const char* next : {"b.nbsnap", "h.nbsnap"}) {
        const io::Snapshot b = io::read_snapshot(dir.file(next));
        for (const auto& [key, value] : a.metadata)
            if (key.rfind("scene.", 0) == 0) EXPECT_EQ(b.metadata.count(key) ? b.metadata.at(key) : "(missing)", value) << next << " " << key;
    }

    // A run from a particle file has no scene to record.
    r = run_nbody("run --input " + dir.file("a.nbsnap") + " --steps 1 --backend cpu --out " + dir.file("c.csv"));
    ASSERT_EQ(r.exit_code, 0) << r.output;
    r = run_nbody("run --input " + dir.file("c.csv") + " --steps 1 --backend cpu --out " + dir.file("c.nbsnap"));
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_FALSE(io::has_scene_metadata(io::read_snapshot(dir.file("c.nbsnap")).metadata));
}

// Issue 33: a run continued from snapshots measures its energy drift from the first state of the
// whole run: the snapshot keeps E0 (version 3) and every leg passes it on.
TEST(SnapshotSceneCli, ContinuedRunsMeasureDriftFromTheFirstState) {
    test::TempDir dir;
    const std::string scene = test::source_dir() + "/scenes/plummer.toml";
    auto r = run_nbody("run --scene " + scene + " --bodies 256 --steps 20 --backend cpu --out " + dir.file("a.nbsnap"));
    ASSERT_EQ(r.exit_code, 0) << r.output;
    const io::Snapshot a = io::read_snapshot(dir.file("a.nbsnap"));
    ASSERT_TRUE(a.energy0.has_value());
    EXPECT_EQ(a.energy0->time, 0.0);
    EXPECT_EQ(a.energy0->source, "exact");
    EXPECT_EQ(r.output.find("E0 kept in the snapshot"), std::string::npos) << r.output;

    r = run_nbody("run --input " + dir.file("a.nbsnap") + " --steps 20 --backend cpu --out " + dir.file("b.nbsnap"));
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_NE(r.output.find("since t = 0 (E0 kept in the snapshot)"), std::string::npos) << r.output;
    char e0[64];
    std::snprintf(e0, sizeof e0, "E0 = %.9g,", a.energy0->energy);
    EXPECT_NE(r.output.find(e0), std::string::npos) << r.output;
    const io::Snapshot b = io::read_snapshot(dir.file("b.nbsnap"));
    ASSERT_TRUE(b.energy0.has_value());
    EXPECT_EQ(b.energy0->energy, a.energy0->energy);

    // Another softening is another potential: this leg starts its own E0.
    r = run_nbody("run --input " + dir.file("b.nbsnap") + " --steps 5 --softening 0.05 --backend cpu --out " +
                  dir.file("c.nbsnap"));
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_EQ(r.output.find("E0 kept in the snapshot"), std::string::npos) << r.output;
    EXPECT_NE(io::read_snapshot(dir.file("c.nbsnap")).energy0->time, 0.0);

    // Hermite keeps its own, summed from the double state.
    r = run_nbody("run --integrator hermite4 --input " + dir.file("a.nbsnap") +
                  " --backend cpu --eta 0.02 --t-end 0.15 --out " + dir.file("h.nbsnap"));
    ASSERT_EQ(r.exit_code, 0) << r.output;
    const io::Snapshot h = io::read_snapshot(dir.file("h.nbsnap"));
    ASSERT_TRUE(h.energy0.has_value());
    EXPECT_EQ(h.energy0->source, io::kHermiteEnergySource);
    r = run_nbody("run --integrator hermite4 --input " + dir.file("h.nbsnap") +
                  " --backend cpu --eta 0.02 --t-end 0.2 --out " + dir.file("h2.nbsnap"));
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_NE(r.output.find("(E0 kept in the snapshot)"), std::string::npos) << r.output;
    EXPECT_EQ(io::read_snapshot(dir.file("h2.nbsnap")).energy0->energy, h.energy0->energy);
}

}  // namespace
}  // namespace nbody
