// Snapshots: bit-exact round trips, a run continued from a snapshot matching an uninterrupted one
// bit for bit, and damaged files refused with the reason.

#include <gtest/gtest.h>

#include <bit>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <stdexcept>
#include <string>

#include "nbody/sim/backend.hpp"
#include "nbody/sim/io/particle_files.hpp"
#include "nbody/sim/io/snapshot.hpp"
#include "nbody/sim/scene.hpp"
#include "test_support.hpp"

namespace nbody {
namespace {

io::Snapshot sample_snapshot(std::size_t bodies = 1500) {
    const Scene scene = load_scene(std::string(NBODY_SOURCE_DIR) + "/scenes/antennae.toml", bodies);
    io::Snapshot snap;
    snap.state = scene.state;
    snap.state.time = 37.125;
    snap.params = scene.params;
    snap.steps_per_frame = scene.steps_per_frame;
    snap.scene_name = scene.name;
    snap.scene_source = scene.source;
    return snap;
}

void expect_same(const State& a, const State& b) {
    ASSERT_EQ(a.size(), b.size());
    EXPECT_EQ(0, std::memcmp(a.pos_mass.data(), b.pos_mass.data(), a.size() * sizeof(Vec4f)));
    EXPECT_EQ(0, std::memcmp(a.velocity.data(), b.velocity.data(), a.size() * sizeof(Vec4f)));
    EXPECT_EQ(a.galaxy, b.galaxy);
    EXPECT_EQ(a.component, b.component);
    EXPECT_EQ(std::bit_cast<std::uint64_t>(a.time), std::bit_cast<std::uint64_t>(b.time));
}

std::string error_of(const std::string& bytes) {
    try {
        io::decode_snapshot(bytes, "run.nbsnap");
    } catch (const std::runtime_error& e) {
        return e.what();
    }
    return "(no error)";
}

TEST(IoSnapshot, RoundTripIsBitExact) {
    test::TempDir dir;
    const io::Snapshot snap = sample_snapshot();
    io::write_snapshot(dir.file("a.nbsnap"), snap);
    const io::Snapshot back = io::read_snapshot(dir.file("a.nbsnap"));
    expect_same(snap.state, back.state);
    EXPECT_EQ(back.params.dt, snap.params.dt);
    EXPECT_EQ(back.params.softening, snap.params.softening);
    EXPECT_EQ(back.steps_per_frame, snap.steps_per_frame);
    EXPECT_EQ(back.scene_name, "Antennae");
    EXPECT_EQ(back.scene_source, snap.scene_source);
    // Written through a temporary file: nothing else is left in the folder.
    EXPECT_EQ(std::distance(std::filesystem::directory_iterator(dir.path()), std::filesystem::directory_iterator()), 1);
}

TEST(IoSnapshot, ContinuedRunMatchesUninterruptedRunBitForBit) {
    test::TempDir dir;
    const io::Snapshot start = sample_snapshot(800);
    auto straight = make_backend(BackendKind::Cpu, std::cout);
    straight->load(start.state);
    straight->step(start.params, 10);

    // Save after 10 steps, restore into a fresh backend, and run both 10 more.
    io::Snapshot mid = start;
    straight->store(mid.state);
    io::write_snapshot(dir.file("mid.nbsnap"), mid);
    const io::Snapshot restored = io::read_snapshot(dir.file("mid.nbsnap"));
    auto resumed = make_backend(BackendKind::Cpu, std::cout);
    resumed->load(restored.state);
    resumed->step(restored.params, 10);
    straight->step(start.params, 10);

    State a = start.state, b = start.state;
    straight->store(a);
    resumed->store(b);
    expect_same(a, b);
    EXPECT_NEAR(a.time, 37.125 + 20 * start.params.dt, 1e-9);
}

TEST(IoSnapshot, DamageIsReported) {
    const std::string bytes = io::encode_snapshot(sample_snapshot(300));
    std::string bad = bytes;
    bad[bytes.size() / 2] ^= 0x10;  // one flipped bit in the particle data
    std::string msg = error_of(bad);
    EXPECT_NE(msg.find("run.nbsnap"), std::string::npos) << msg;
    EXPECT_NE(msg.find("checksum mismatch: stored 0x"), std::string::npos) << msg;

    msg = error_of(bytes.substr(0, bytes.size() - 100));
    EXPECT_NE(msg.find("truncated snapshot"), std::string::npos) << msg;
    EXPECT_NE(msg.find("byte offset"), std::string::npos) << msg;

    msg = error_of(bytes.substr(0, 10));
    EXPECT_NE(msg.find("truncated file: format version at byte offset 8"), std::string::npos) << msg;

    msg = error_of("x,y,z,vx,vy,vz,m\n1,2,3,4,5,6,7\n");
    EXPECT_NE(msg.find("not an nbody snapshot"), std::string::npos) << msg;

    bad = bytes;
    bad[8] = 2;  // version 2
    msg = error_of(bad);
    EXPECT_NE(msg.find("version 2 is not supported"), std::string::npos) << msg;

    EXPECT_NE(error_of(bytes + "x").find("unexpected bytes after the checksum"), std::string::npos);
}

TEST(IoSnapshot, FailedWriteLeavesNoFile) {
    test::TempDir dir;
    const std::string path = dir.file("missing-folder/run.nbsnap");
    EXPECT_THROW(io::write_snapshot(path, sample_snapshot(100)), std::runtime_error);
    EXPECT_FALSE(std::filesystem::exists(path));
}

TEST(IoParticleFiles, DispatchOnExtension) {
    test::TempDir dir;
    State s = sample_snapshot(200).state;
    for (const char* name : {"p.csv", "p.tipsy", "p.STD", "p.bin", "p.nbsnap"}) {
        io::write_particles(dir.file(name), s);
        const State back = io::read_particles(dir.file(name));
        ASSERT_EQ(back.size(), s.size()) << name;
        // Every format keeps the set of masses (TIPSY reorders halo particles first).
        double m0 = 0, m1 = 0;
        for (std::size_t i = 0; i < s.size(); ++i) {
            m0 += s.pos_mass[i].w;
            m1 += back.pos_mass[i].w;
        }
        EXPECT_NEAR(m1, m0, 1e-6 * m0) << name;
    }
    EXPECT_EQ(io::particle_format_for("a/b.NBSNAP"), io::ParticleFormat::Snapshot);
    try {
        io::read_particles(dir.file("p.hdf5"));
        FAIL() << "no error for .hdf5";
    } catch (const std::runtime_error& e) {
        EXPECT_NE(std::string(e.what()).find("unknown particle file type '.hdf5'"), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find(".csv"), std::string::npos) << e.what();
    }
}

}  // namespace
}  // namespace nbody
