// Every scene file in scenes/ loads, holds the N it states, scales with --bodies, and runs.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <iostream>
#include <map>
#include <numbers>
#include <string>
#include <vector>

#include "nbody/sim/backend.hpp"
#include "nbody/sim/diagnostics.hpp"
#include "nbody/sim/ic/orbit.hpp"
#include "nbody/sim/scene.hpp"

namespace nbody {
namespace {

const std::string kScenes = std::string(NBODY_SOURCE_DIR) + "/scenes";

std::vector<std::string> scene_files() {
    std::vector<std::string> files;
    for (const auto& e : std::filesystem::directory_iterator(kScenes))
        if (e.path().extension() == ".toml") files.push_back(e.path().string());
    std::sort(files.begin(), files.end());
    return files;
}

TEST(SceneFiles, TheIssueScenesAreAllThere) {
    std::vector<std::string> names;
    for (const auto& f : scene_files()) names.push_back(std::filesystem::path(f).filename().string());
    for (const char* want : {"milky-way-andromeda.toml", "antennae.toml", "cartwheel.toml", "rv770-figure-eight-3.toml",
                             "rv770-figure-eight-4.toml", "rv770-random-cube.toml", "isolated-disk.toml", "plummer.toml"})
        EXPECT_NE(std::find(names.begin(), names.end(), want), names.end()) << want;
}

TEST(SceneFiles, EachLoadsAtItsStatedSize) {
    const std::map<std::string, std::size_t> rv770 = {
        {"rv770-figure-eight-3.toml", 7500}, {"rv770-figure-eight-4.toml", 10000}, {"rv770-random-cube.toml", 100000}};
    for (const auto& entry : list_scenes(kScenes)) {
        SCOPED_TRACE(entry.path);
        ASSERT_TRUE(entry.error.empty()) << entry.error;
        EXPECT_FALSE(entry.name.empty());
        EXPECT_FALSE(entry.description.empty());
        const Scene s = load_scene(entry.path);
        EXPECT_EQ(s.state.size(), entry.bodies);
        EXPECT_NO_THROW(s.state.validate());
        EXPECT_EQ(s.source, entry.path);
        EXPECT_GT(s.params.dt, 0);
        EXPECT_GE(s.steps_per_frame, 1);
        EXPECT_GT(s.camera.distance, 0);
        const auto it = rv770.find(std::filesystem::path(entry.path).filename().string());
        if (it != rv770.end()) EXPECT_EQ(s.state.size(), it->second);
        // Centre-of-mass frame.
        Vec3d c, v;
        ic::centre_of_mass(s.state, c, v);
        EXPECT_LT(norm(v), 1e-4);
    }
}

TEST(SceneFiles, EachScaledSceneRunsTenSteps) {
    auto backend = make_backend(BackendKind::Cpu, std::cout);
    for (const auto& file : scene_files()) {
        SCOPED_TRACE(file);
        Scene s = load_scene(file, 2000);
        ASSERT_EQ(s.state.size(), 2000u);
        const double e0 = compute_diagnostics(s.state, s.params.softening).total;
        backend->load(s.state);
        backend->step(s.params, 10);
        State after = s.state;
        backend->store(after);
        EXPECT_NO_THROW(after.validate());
        EXPECT_NEAR(after.time, 10 * s.params.dt, 1e-9);
        const double e1 = compute_diagnostics(after, s.params.softening).total;
        EXPECT_NEAR(e1, e0, 0.01 * std::abs(e0)) << "energy drifted in 10 steps";
    }
}

// Counts and masses per (galaxy, component) of a full and a scaled scene.
using PartTable = std::map<std::pair<int, int>, std::pair<double, double>>;
void tabulate(const Scene& full, const Scene& small, PartTable& count, PartTable& mass) {
    for (std::size_t i = 0; i < full.state.size(); ++i) {
        auto k = std::make_pair(int(full.state.galaxy[i]), int(full.state.component[i]));
        count[k].first += 1;
        mass[k].first += full.state.pos_mass[i].w;
    }
    for (std::size_t i = 0; i < small.state.size(); ++i) {
        auto k = std::make_pair(int(small.state.galaxy[i]), int(small.state.component[i]));
        count[k].second += 1;
        mass[k].second += small.state.pos_mass[i].w;
    }
}

// reduced_halo_share: scaled down, the halos give up bodies first (fewer, heavier particles);
// every component keeps its mass, and scaling up ignores the key.
TEST(SceneFiles, ReducedScenesGiveTheDisksMoreBodies) {
    const std::string file = kScenes + "/milky-way-andromeda.toml";
    const Scene full = load_scene(file);
    const Scene small = load_scene(file, 8192);
    ASSERT_EQ(small.state.size(), 8192u);
    PartTable count, mass;
    tabulate(full, small, count, mass);
    double disk_full = 0, disk_small = 0;
    for (const auto& [k, c] : count) {
        EXPECT_NEAR(mass[k].second, mass[k].first, 1e-3 * mass[k].first) << "galaxy " << k.first << " component " << k.second;
        if (k.second == int(Component::Disk)) {
            disk_full += c.first;
            disk_small += c.second;
        }
    }
    // Same proportions would give the disks 8192/65536 of theirs; the halos' smaller share gives
    // more (the file already gives the disks half its bodies, so at most 2x: 0.25 gives 1.49x).
    EXPECT_GT(disk_small, 1.4 * disk_full * 8192.0 / 65536.0);
    std::cout << "[ measured ] milky-way-andromeda at 8192: " << disk_small << " disk bodies (" << disk_full * 8192.0 / 65536.0
              << " with the file's proportions)\n";
}

TEST(SceneFiles, BodiesScalingKeepsProportionsAndMasses) {
    // Antennae: no reduced_halo_share, so scaling down keeps every share.
    const Scene full = load_scene(kScenes + "/antennae.toml");
    const Scene small = load_scene(kScenes + "/antennae.toml", 1000);
    ASSERT_EQ(small.state.size(), 1000u);
    PartTable count, mass;  // (galaxy, component) -> (full, small)
    tabulate(full, small, count, mass);
    EXPECT_EQ(count.size(), 6u);  // two galaxies, three components each
    for (const auto& [k, c] : count) {
        EXPECT_NEAR(c.second, c.first * 1000.0 / double(full.state.size()), 1.0) << "galaxy " << k.first << " component " << k.second;
        EXPECT_NEAR(mass[k].second, mass[k].first, 1e-3 * mass[k].first);
    }
    // Growing works too, and the scene's parameters are kept.
    const Scene big = load_scene(kScenes + "/cartwheel.toml", 20001);
    EXPECT_EQ(big.state.size(), 20001u);
    EXPECT_EQ(big.params.dt, load_scene(kScenes + "/cartwheel.toml").params.dt);
}

// The figure-eight scenes' galaxy centres, as point masses, come back to their start after one
// period: the numbers in the files are those of the choreographies they claim to be.
void expect_periodic(const std::string& file, double period, double tolerance) {
    const Scene s = load_scene(file);
    std::map<int, State> groups;
    for (std::size_t i = 0; i < s.state.size(); ++i) {
        State& g = groups[s.state.galaxy[i]];
        g.pos_mass.push_back(s.state.pos_mass[i]);
        g.velocity.push_back(s.state.velocity[i]);
    }
    State points;
    points.resize(groups.size());
    std::size_t k = 0;
    for (const auto& [index, g] : groups) {
        Vec3d c, v;
        ic::centre_of_mass(g, c, v);
        double m = 0;
        for (const auto& p : g.pos_mass) m += p.w;
        points.pos_mass[k] = {float(c.x), float(c.y), float(c.z), float(m)};
        points.velocity[k] = {float(v.x), float(v.y), float(v.z), 0.0f};
        ++k;
    }
    auto backend = make_backend(BackendKind::Reference, std::cout);
    backend->load(points);
    const int steps = 40000;
    backend->step({.dt = period / steps, .softening = 0.0}, steps);
    State end = points;
    backend->store(end);
    double worst = 0;
    for (std::size_t i = 0; i < points.size(); ++i) worst = std::max(worst, norm(xyz(end.pos_mass[i]) - xyz(points.pos_mass[i])));
    std::cout << "[ measured ] " << std::filesystem::path(file).filename().string() << ": galaxy centres return within "
              << worst << " after one period\n";
    EXPECT_LT(worst, tolerance);
}

TEST(SceneFiles, FigureEightScenesArePeriodic) {
    const double scale15 = std::pow(3.0, 1.5);  // the files scale the unit choreographies 3-fold
    expect_periodic(kScenes + "/rv770-figure-eight-3.toml", 6.32591398 * scale15, 2e-3);
    expect_periodic(kScenes + "/rv770-figure-eight-4.toml", 2 * std::numbers::pi * scale15, 3e-2);
}

}  // namespace
}  // namespace nbody
