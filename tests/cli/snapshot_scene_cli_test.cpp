// `nbody run --scene ... --out x.nbsnap` records the scene's units, camera and galaxy names in the
// snapshot, and a run continued from it (either integrator) passes them on.

#include <gtest/gtest.h>

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

}  // namespace
}  // namespace nbody
