// Scene descriptions written back as scene files (scene_spec_to_toml, save_scene_spec): every
// shipped scene parses back to the same description, builds the same bodies bit for bit, and a
// saved file is never written over an existing one unless asked.

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "nbody/sim/scene_spec.hpp"

namespace nbody {
namespace {

const std::string kScenes = std::string(NBODY_SOURCE_DIR) + "/scenes";

void expect_same_vec(const Vec3d& a, const Vec3d& b) {
    EXPECT_EQ(a.x, b.x);
    EXPECT_EQ(a.y, b.y);
    EXPECT_EQ(a.z, b.z);
}

// Field for field, exactly (doubles compared with ==: the writer must be exact).
void expect_same_spec(const SceneSpec& a, const SceneSpec& b) {
    EXPECT_EQ(a.name, b.name);
    EXPECT_EQ(a.description, b.description);
    EXPECT_EQ(a.bodies, b.bodies);
    EXPECT_EQ(a.units.length, b.units.length);
    EXPECT_EQ(a.units.time_unit_myr, b.units.time_unit_myr);
    EXPECT_EQ(a.params.dt, b.params.dt);
    EXPECT_EQ(a.params.softening, b.params.softening);
    EXPECT_EQ(a.steps_per_frame, b.steps_per_frame);
    EXPECT_EQ(a.seed, b.seed);
    EXPECT_EQ(a.reduced_halo_share, b.reduced_halo_share);
    EXPECT_EQ(a.trails, b.trails);
    EXPECT_EQ(a.integrator.name, b.integrator.name);
    EXPECT_EQ(a.integrator.eta, b.integrator.eta);
    EXPECT_EQ(a.integrator.dt_max, b.integrator.dt_max);
    EXPECT_EQ(a.integrator.time_per_frame, b.integrator.time_per_frame);
    EXPECT_EQ(a.camera.distance, b.camera.distance);
    EXPECT_EQ(a.camera.azimuth_deg, b.camera.azimuth_deg);
    EXPECT_EQ(a.camera.elevation_deg, b.camera.elevation_deg);
    expect_same_vec(a.camera.target, b.camera.target);
    ASSERT_EQ(a.galaxies.size(), b.galaxies.size());
    for (std::size_t k = 0; k < a.galaxies.size(); ++k) {
        SCOPED_TRACE("galaxy " + std::to_string(k));
        const GalaxySpec& g = a.galaxies[k];
        const GalaxySpec& h = b.galaxies[k];
        EXPECT_EQ(g.name, h.name);
        EXPECT_EQ(g.key, h.key);
        EXPECT_EQ(g.orientation.inclination_deg, h.orientation.inclination_deg);
        EXPECT_EQ(g.orientation.argument_deg, h.orientation.argument_deg);
        EXPECT_EQ(g.seed, h.seed);
        ASSERT_EQ(g.orbit.has_value(), h.orbit.has_value());
        if (g.orbit) {
            EXPECT_EQ(g.orbit->pericentre, h.orbit->pericentre);
            EXPECT_EQ(g.orbit->separation, h.orbit->separation);
            EXPECT_EQ(g.orbit->eccentricity, h.orbit->eccentricity);
            EXPECT_EQ(g.plane.inclination_deg, h.plane.inclination_deg);
            EXPECT_EQ(g.plane.node_deg, h.plane.node_deg);
        }
        expect_same_vec(g.position, h.position);
        expect_same_vec(g.velocity, h.velocity);
        ASSERT_EQ(g.components.size(), h.components.size());
        for (std::size_t c = 0; c < g.components.size(); ++c) {
            const ComponentSpec& x = g.components[c];
            const ComponentSpec& y = h.components[c];
            SCOPED_TRACE(x.key);
            EXPECT_EQ(x.kind, y.kind);
            EXPECT_EQ(x.key, y.key);
            EXPECT_EQ(x.mass, y.mass);
            EXPECT_EQ(x.bodies, y.bodies);
            EXPECT_EQ(x.scale, y.scale);
            if (x.kind == ComponentKind::Disk) {
                EXPECT_EQ(x.height, y.height);
            }
            EXPECT_EQ(x.max_radius, y.max_radius);
            EXPECT_EQ(x.toomre_q, y.toomre_q);
            EXPECT_EQ(x.virial_ratio, y.virial_ratio);
            EXPECT_EQ(x.cluster.mass_function, y.cluster.mass_function);
            EXPECT_EQ(x.cluster.min_mass, y.cluster.min_mass);
            EXPECT_EQ(x.cluster.max_mass, y.cluster.max_mass);
            EXPECT_EQ(x.cluster.binary_fraction, y.cluster.binary_fraction);
            EXPECT_EQ(x.cluster.binary_sma_min, y.cluster.binary_sma_min);
            EXPECT_EQ(x.cluster.binary_sma_max, y.cluster.binary_sma_max);
        }
    }
}

void expect_same_bodies(const State& a, const State& b) {
    ASSERT_EQ(a.size(), b.size());
    EXPECT_EQ(0, std::memcmp(a.pos_mass.data(), b.pos_mass.data(), a.size() * sizeof(a.pos_mass[0])));
    EXPECT_EQ(0, std::memcmp(a.velocity.data(), b.velocity.data(), a.size() * sizeof(a.velocity[0])));
    EXPECT_EQ(a.galaxy, b.galaxy);
    EXPECT_EQ(a.component, b.component);
}

TEST(SceneSpecWriter, EveryShippedSceneParsesBackToTheSameDescription) {
    std::vector<SceneEntry> entries = list_scenes(kScenes);
    for (const SceneEntry& e : list_scenes(kScenes + "/few-body")) entries.push_back(e);  // hermite4 scenes
    for (const SceneEntry& entry : entries) {
        SCOPED_TRACE(entry.path);
        const SceneSpec spec = read_scene_spec(entry.path);
        const std::string text = scene_spec_to_toml(spec);
        SceneSpec back;
        ASSERT_NO_THROW(back = parse_scene_spec(text, "written.toml")) << text;
        expect_same_spec(spec, back);
        back.source = spec.source;                  // named in the header comment
        EXPECT_EQ(scene_spec_to_toml(back), text);  // and writing it again changes nothing
    }
}

TEST(SceneSpecWriter, WrittenScenesBuildTheSameBodies) {
    // Small N keeps this fast; the galaxies, the Plummer intruder, a Kroupa cluster with binaries
    // and a cube cover every component type and the optional keys.
    for (const char* name : {"cartwheel.toml", "antennae.toml", "star-cluster-binaries.toml", "rv770-random-cube.toml"}) {
        SCOPED_TRACE(name);
        SceneSpec spec = read_scene_spec(kScenes + "/" + name);
        scale_scene_spec(spec, 1200);
        const SceneSpec back = parse_scene_spec(scene_spec_to_toml(spec), "written.toml");
        expect_same_bodies(build_scene(spec).state, build_scene(back).state);
    }
}

TEST(SceneSpecWriter, NumbersAreExactAndStringsEscaped) {
    SceneSpec spec = read_scene_spec(kScenes + "/cartwheel.toml");
    spec.name = "a \"quoted\" name\\ with\ttab";
    spec.params.dt = 0.1 + 0.2;  // 0.30000000000000004: needs all 17 digits
    spec.camera.distance = 1e-300;
    spec.galaxies[1].velocity = {1.0 / 3.0, -2.0, 123456789.0};
    const SceneSpec back = parse_scene_spec(scene_spec_to_toml(spec), "written.toml");
    EXPECT_EQ(back.name, spec.name);
    EXPECT_EQ(back.params.dt, spec.params.dt);
    EXPECT_EQ(back.camera.distance, spec.camera.distance);
    expect_same_vec(back.galaxies[1].velocity, spec.galaxies[1].velocity);
}

class SceneSave : public ::testing::Test {
  protected:
    void SetUp() override {
        dir_ = std::filesystem::temp_directory_path() /
               ("nbody-scene-save-" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) + "-" +
                ::testing::UnitTest::GetInstance()->current_test_info()->name());
        std::filesystem::remove_all(dir_);
        std::filesystem::create_directories(dir_);
    }
    void TearDown() override { std::filesystem::remove_all(dir_); }
    static std::string contents(const std::filesystem::path& p) {
        std::ifstream in(p);
        std::stringstream s;
        s << in.rdbuf();
        return s.str();
    }
    std::filesystem::path dir_;
};

TEST_F(SceneSave, RefusesToOverwriteUnlessAsked) {
    const SceneSpec spec = read_scene_spec(kScenes + "/antennae.toml");
    const std::filesystem::path path = dir_ / "mine.toml";
    {
        std::ofstream(path) << "precious\n";
    }
    try {
        save_scene_spec(spec, path.string(), false);
        FAIL() << "an existing file was overwritten";
    } catch (const FileExistsError& e) {
        EXPECT_NE(std::string(e.what()).find("already exists"), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find(path.string()), std::string::npos) << e.what();
    }
    EXPECT_EQ(contents(path), "precious\n");
    save_scene_spec(spec, path.string(), true);  // confirmed
    expect_same_spec(spec, read_scene_spec(path.string()));
    // Nothing but the file is left in the folder (no temporaries).
    EXPECT_EQ(std::distance(std::filesystem::directory_iterator(dir_), std::filesystem::directory_iterator()), 1);
}

TEST_F(SceneSave, ANewFileLoadsBackAsTheSameScene) {
    SceneSpec spec = read_scene_spec(kScenes + "/cartwheel.toml");
    scale_scene_spec(spec, 900);
    const std::string path = (dir_ / "new.toml").string();
    save_scene_spec(spec, path, false);
    expect_same_bodies(build_scene(spec).state, load_scene(path).state);
}

TEST_F(SceneSave, AnInvalidDescriptionWritesNothing) {
    SceneSpec spec = read_scene_spec(kScenes + "/antennae.toml");
    spec.galaxies[1].orbit->separation = 1.0;  // inside the pericentre
    const std::string path = (dir_ / "bad.toml").string();
    EXPECT_THROW(save_scene_spec(spec, path, false), std::runtime_error);
    EXPECT_FALSE(std::filesystem::exists(path));
}

}  // namespace
}  // namespace nbody
