// Snapshots carry what their scene knows (units, camera, galaxy names, colouring) through the
// "scene.*" metadata; snapshots of earlier writers, without it, still load.

#include <gtest/gtest.h>

#include <bit>
#include <cstring>
#include <map>
#include <stdexcept>
#include <string>

#include "nbody/sim/io/scene_metadata.hpp"
#include "nbody/sim/io/snapshot.hpp"
#include "nbody/sim/scene.hpp"
#include "test_support.hpp"

namespace nbody {
namespace {

std::uint64_t bits(double v) { return std::bit_cast<std::uint64_t>(v); }

void expect_same_camera(const CameraSpec& a, const CameraSpec& b) {
    EXPECT_EQ(bits(a.distance), bits(b.distance));
    EXPECT_EQ(bits(a.azimuth_deg), bits(b.azimuth_deg));
    EXPECT_EQ(bits(a.elevation_deg), bits(b.elevation_deg));
    EXPECT_EQ(bits(a.target.x), bits(b.target.x));
    EXPECT_EQ(bits(a.target.y), bits(b.target.y));
    EXPECT_EQ(bits(a.target.z), bits(b.target.z));
}

// What a scene-less reader starts from: a particle file's N-body units and some framing camera.
Scene blank_scene() {
    Scene s;
    s.units = UnitSystem{"N-body length", "N-body velocity", "N-body mass", "N-body time", 0.0, 0.0};
    s.camera = CameraSpec{3.0, 30.0, 30.0, {0.5, 0.5, 0.5}};
    return s;
}

TEST(SceneMetadata, RoundTripsThroughASnapshotExactly) {
    Scene scene = load_scene(test::source_dir() + "/scenes/milky-way-andromeda.toml", 600);
    ASSERT_EQ(scene.galaxy_names.size(), 2u);
    EXPECT_EQ(scene.galaxy_names[0], "Milky Way");
    // Values whose decimal forms need all 17 digits, to show that nothing is rounded.
    scene.camera = CameraSpec{170.0 / 3.0, 150.1 + 1e-13, -12.0 / 7.0, {1.0 / 3.0, -2e-300, 6.02214076e23}};
    scene.colour_by = "speed";

    io::Snapshot snap;
    snap.state = scene.state;
    snap.scene_name = scene.name;
    snap.scene_source = scene.source;
    snap.metadata[io::kStatusKey] = "interrupted";
    io::put_scene_metadata(scene, snap.metadata);
    EXPECT_EQ(snap.metadata.at(io::kStatusKey), "interrupted");  // other keys are kept
    const io::Snapshot back = io::decode_snapshot(io::encode_snapshot(snap), "mw.nbsnap");
    ASSERT_TRUE(io::has_scene_metadata(back.metadata));

    Scene viewed = blank_scene();
    ASSERT_TRUE(io::apply_scene_metadata(back.metadata, viewed, "mw.nbsnap"));
    EXPECT_EQ(viewed.units.length, "kpc");
    EXPECT_EQ(viewed.units.velocity, scene.units.velocity);
    EXPECT_EQ(viewed.units.mass, scene.units.mass);
    EXPECT_EQ(viewed.units.time, "9.78 Myr");
    EXPECT_EQ(bits(viewed.units.time_unit_myr), bits(scene.units.time_unit_myr));
    expect_same_camera(viewed.camera, scene.camera);
    EXPECT_EQ(viewed.galaxy_names, scene.galaxy_names);
    EXPECT_EQ(viewed.colour_by, "speed");
    EXPECT_EQ(viewed.description, scene.description);

    // N-body units (no physical time scale) survive as such.
    scene.units = blank_scene().units;
    io::put_scene_metadata(scene, snap.metadata);
    Scene nbody_units;
    ASSERT_TRUE(io::apply_scene_metadata(snap.metadata, nbody_units, "p.nbsnap"));
    EXPECT_EQ(nbody_units.units.time_unit_myr, 0.0);
    EXPECT_EQ(nbody_units.units.length, "N-body length");
}

TEST(SceneMetadata, WithoutItTheSceneIsLeftAsItWas) {
    Scene scene = blank_scene();
    EXPECT_FALSE(io::apply_scene_metadata({}, scene, "old.nbsnap"));
    EXPECT_FALSE(io::apply_scene_metadata({{"hermite.eta", "0.02"}}, scene, "old.nbsnap"));
    EXPECT_EQ(scene.units.time_unit_myr, 0.0);
    expect_same_camera(scene.camera, blank_scene().camera);

    // One key missing: incomplete, so units and camera are not taken.
    std::map<std::string, std::string> m;
    Scene full = load_scene(test::source_dir() + "/scenes/antennae.toml", 300);
    io::put_scene_metadata(full, m);
    ASSERT_TRUE(io::has_scene_metadata(m));
    m.erase("scene.camera.target");
    EXPECT_FALSE(io::has_scene_metadata(m));
    EXPECT_FALSE(io::apply_scene_metadata(m, scene, "partial.nbsnap"));
    EXPECT_EQ(scene.units.time_unit_myr, 0.0);

    // Keys of a later writer are ignored.
    io::put_scene_metadata(full, m);
    m["scene.future.key"] = "whatever";
    EXPECT_TRUE(io::apply_scene_metadata(m, scene, "later.nbsnap"));
}

TEST(SceneMetadata, MalformedValuesAreRefusedNamingTheKeyAndChangeNothing) {
    std::map<std::string, std::string> good;
    io::put_scene_metadata(load_scene(test::source_dir() + "/scenes/antennae.toml", 300), good);
    const struct {
        const char* key;
        const char* value;
    } cases[] = {{"scene.camera.distance", "far"},         {"scene.camera.distance", "-5"},
                 {"scene.camera.distance", "1e999"},       {"scene.camera.azimuth_deg", "12 degrees"},
                 {"scene.camera.target", "1 2"},           {"scene.camera.target", "1 2 3 4"},
                 {"scene.camera.target", "1 nan 3"},       {"scene.units.time_unit_myr", ""},
                 {"scene.units.time_unit_myr", "-9.78"},   {"scene.colour_by", "rainbow"}};
    for (const auto& c : cases) {
        std::map<std::string, std::string> m = good;
        m[c.key] = c.value;
        Scene scene = blank_scene();
        try {
            io::apply_scene_metadata(m, scene, "bad.nbsnap");
            ADD_FAILURE() << c.key << " = '" << c.value << "' was accepted";
        } catch (const std::runtime_error& e) {
            const std::string msg = e.what();
            EXPECT_NE(msg.find("bad.nbsnap"), std::string::npos) << msg;
            EXPECT_NE(msg.find(c.key), std::string::npos) << msg;
        }
        EXPECT_EQ(scene.units.time_unit_myr, 0.0) << c.key;
        expect_same_camera(scene.camera, blank_scene().camera);
        EXPECT_TRUE(scene.galaxy_names.empty()) << c.key;
        EXPECT_TRUE(scene.colour_by.empty()) << c.key;
    }
}

TEST(SceneMetadata, ContinuedRunsPassItOn) {
    std::map<std::string, std::string> from{{"scene.units.length", "kpc"}, {"hermite.eta", "0.02"}}, to;
    io::copy_scene_metadata(from, to);
    EXPECT_EQ(to, (std::map<std::string, std::string>{{"scene.units.length", "kpc"}}));
}

// Files written before snapshots recorded their scene (tests/sim/data/README.md): both versions
// load, and say that they have no scene record, so that the viewer falls back.
TEST(SceneMetadata, SnapshotsOfEarlierWritersStillLoad) {
    for (const char* file : {"v1-plummer-64.nbsnap", "v2-plummer-64.nbsnap"}) {
        SCOPED_TRACE(file);
        const io::Snapshot snap = io::read_snapshot(test::source_dir() + "/tests/sim/data/" + file);
        EXPECT_EQ(snap.state.size(), 64u);
        EXPECT_EQ(snap.scene_name, "Plummer sphere");
        EXPECT_NE(snap.scene_source.find("plummer.toml"), std::string::npos);
        EXPECT_GT(snap.state.time, 0.0);
        EXPECT_FALSE(io::has_scene_metadata(snap.metadata));
        Scene scene = blank_scene();
        EXPECT_FALSE(io::apply_scene_metadata(snap.metadata, scene, file));
    }
    // The two hold the same bodies.
    const io::Snapshot a = io::read_snapshot(test::source_dir() + "/tests/sim/data/v1-plummer-64.nbsnap");
    const io::Snapshot b = io::read_snapshot(test::source_dir() + "/tests/sim/data/v2-plummer-64.nbsnap");
    EXPECT_EQ(0, std::memcmp(a.state.pos_mass.data(), b.state.pos_mass.data(), 64 * sizeof(Vec4f)));
}

}  // namespace
}  // namespace nbody
