// A launched scene is framed so that all its galaxies are in view (issue 33 item 4):
// render::fit_camera moves the scene's camera back until 99% of the drawn bodies are in the
// frame, ignoring the halo and a few outliers, and keeps a scene's view that already shows them.

#include <gtest/gtest.h>

#include <string>

#include "nbody/render/camera.hpp"
#include "nbody/sim/encounter_spec.hpp"
#include "nbody/sim/scene_spec.hpp"

namespace nbody::render {
namespace {

constexpr int kWidth = 1280, kHeight = 720;

void add_body(State& s, Vec3d at, std::uint16_t galaxy, Component component) {
    s.pos_mass.push_back({float(at.x), float(at.y), float(at.z), 1.0f});
    s.velocity.push_back({0, 0, 0, 0});
    s.galaxy.push_back(galaxy);
    s.component.push_back(component);
}

// Two disks of radius 10 centred at x = -100 and +100, a halo of radius 1000 round each, and
// `outliers` bodies a million units away.
State two_galaxies(int outliers) {
    State s;
    for (int g = 0; g < 2; ++g)
        for (int i = 0; i < 500; ++i) {
            const double a = i * 0.1;
            add_body(s, {(g ? 100.0 : -100.0) + 10 * std::cos(a), 10 * std::sin(a), 0}, std::uint16_t(g), Component::Disk);
            add_body(s, {1000 * std::cos(a), 1000 * std::sin(a), 0}, std::uint16_t(g), Component::Halo);
        }
    for (int i = 0; i < outliers; ++i) add_body(s, {1e6, 0, 0}, 0, Component::Disk);
    return s;
}

// The share of the non-halo bodies that the camera shows inside the frame.
double share_in_view(const CameraSpec& spec, const State& s) {
    OrbitCamera camera(spec);
    int drawn = 0, inside = 0;
    for (std::size_t i = 0; i < s.size(); ++i) {
        if (s.component[i] == Component::Halo) continue;
        ++drawn;
        const auto at = camera.project_to_image(glm::vec3(s.pos_mass[i].x, s.pos_mass[i].y, s.pos_mass[i].z), kWidth, kHeight);
        inside += at && at->x >= 0 && at->x <= kWidth && at->y >= 0 && at->y <= kHeight;
    }
    return double(inside) / drawn;
}

TEST(CameraFraming, BothGalaxiesOfATwoGalaxySceneAreInView) {
    const State s = two_galaxies(0);
    const CameraSpec close{60.0, 30.0, 25.0, {}};  // a scene camera that sees one galaxy at most
    ASSERT_LT(share_in_view(close, s), 0.9);
    const CameraSpec fitted = fit_camera(close, s, double(kWidth) / kHeight);
    EXPECT_DOUBLE_EQ(share_in_view(fitted, s), 1.0);
    EXPECT_LT(fitted.distance, 600.0) << "the halo (hidden) must not set the distance";
    EXPECT_EQ(fitted.azimuth_deg, close.azimuth_deg);
    EXPECT_EQ(fitted.elevation_deg, close.elevation_deg);
}

TEST(CameraFraming, AFewOutliersDoNotShrinkTheGalaxies) {
    const CameraSpec close{60.0, 30.0, 25.0, {}};
    const CameraSpec plain = fit_camera(close, two_galaxies(0), double(kWidth) / kHeight);
    const CameraSpec with_outliers = fit_camera(close, two_galaxies(5), double(kWidth) / kHeight);
    EXPECT_LT(with_outliers.distance, 1.5 * plain.distance);
}

TEST(CameraFraming, ASceneCameraThatShowsEverythingIsKept) {
    const CameraSpec far{5000.0, 30.0, 25.0, {}};
    EXPECT_EQ(fit_camera(far, two_galaxies(0)).distance, 5000.0);
}

// The default scene's camera (60 degrees above the orbit plane, 215 kpc back) was chosen to show
// both galaxies at the start: launching it from the picker keeps it.
TEST(CameraFraming, TheDefaultScenesDesignedViewIsKept) {
    const Scene scene = build_scene(read_scene_spec(std::string(NBODY_SOURCE_DIR) + "/scenes/milky-way-andromeda.toml"));
    EXPECT_EQ(fit_camera(scene.camera, scene.state, double(kWidth) / kHeight).distance, scene.camera.distance);
}

// The Encounter editor's wider encounters: the preset's camera frames it at 130 kpc; launched at 1500
// kpc apart, both disks must still be on screen.
TEST(CameraFraming, AWideEncounterFromTheEditorShowsBothDisks) {
    const EncounterPreset preset = encounter_preset(read_scene_spec(std::string(NBODY_SOURCE_DIR) + "/scenes/milky-way-andromeda.toml"));
    EncounterSettings settings = preset.settings;
    settings.start_by_time = false;
    settings.eccentricity = 1.0;  // parabolic: any separation
    settings.separation = 1500.0;
    settings.bodies = 4096;
    const Scene scene = build_scene(make_encounter(preset, settings));
    ASSERT_LT(share_in_view(scene.camera, scene.state), 0.9) << "the preset's own camera already shows both";
    const CameraSpec fitted = fit_camera(scene.camera, scene.state, double(kWidth) / kHeight);
    EXPECT_GE(share_in_view(fitted, scene.state), 0.99);
}

}  // namespace
}  // namespace nbody::render
