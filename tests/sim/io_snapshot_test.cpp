// Snapshots: bit-exact round trips, a run continued from a snapshot matching an uninterrupted one
// bit for bit, and damaged files refused with the reason.

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

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

// A double state near `s` with digits beyond float that the float arrays cannot hold.
PreciseState precise_beyond_float(const State& s) {
    PreciseState p;
    for (std::size_t i = 0; i < s.size(); ++i) {
        const Vec4f& x = s.pos_mass[i];
        p.position.push_back({x.x + 1e-12 * double(i), x.y - 3e-13, x.z + 1.0 / 3.0 * 1e-11});
        p.velocity.push_back({1.0 / 7.0 + double(i), -2.0 / 3.0, 1e-300});
        p.mass.push_back(double(x.w) * (1 + 1e-15));
    }
    return p;
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
    bad[8] = 4;  // version 4: a later writer
    msg = error_of(bad);
    EXPECT_NE(msg.find("version 4 is not supported"), std::string::npos) << msg;

    // One byte more moves where the checksum is read from: version 2 reports a mismatch.
    EXPECT_NE(error_of(bytes + "x").find("checksum mismatch"), std::string::npos);
}

// FNV-1a 64, as the format defines it (written out here so the test does not share the code).
std::uint64_t fnv(std::string_view data) {
    std::uint64_t h = 0xcbf29ce484222325ull;
    for (unsigned char c : data) h = (h ^ c) * 0x100000001b3ull;
    return h;
}

// Replaces the trailing checksum by the right one for the bytes before it.
std::string with_checksum(std::string bytes) {
    const std::uint64_t h = fnv(std::string_view(bytes).substr(0, bytes.size() - 8));
    std::memcpy(bytes.data() + bytes.size() - 8, &h, 8);  // little-endian hosts only (x86, arm64)
    return bytes;
}

TEST(IoSnapshot, Version1FilesAreStillRead) {
    const io::Snapshot snap = sample_snapshot(300);
    // A version 2 file with no sections is a version 1 file plus the u32 section count.
    std::string v2 = io::encode_snapshot(snap);
    ASSERT_EQ(v2[8], 2);
    std::string v1 = v2.substr(0, v2.size() - 12) + std::string(8, '\0');
    v1[8] = 1;
    v1 = with_checksum(v1);
    const io::Snapshot back = io::decode_snapshot(v1, "old.nbsnap");
    expect_same(snap.state, back.state);
    EXPECT_EQ(back.scene_name, snap.scene_name);
    EXPECT_FALSE(back.precise.has_value());
    EXPECT_TRUE(back.metadata.empty());
    EXPECT_TRUE(back.extra.empty());
    // Version 1 has nothing between the bodies and the checksum.
    EXPECT_NE(error_of(with_checksum(v1.substr(0, v1.size() - 8) + "abcd" + std::string(8, '\0')))
                  .find("unexpected bytes after the checksum"),
              std::string::npos);
}

TEST(IoSnapshot, Version2SectionsRoundTrip) {
    test::TempDir dir;
    io::Snapshot snap = sample_snapshot(257);
    const PreciseState p = precise_beyond_float(snap.state);
    p.round_into(snap.state);
    snap.precise = p;
    snap.metadata = {{"name", "Antennae \xc3\xa9"}, {"units", "kpc, Myr"}, {"camera", ""}, {"colours", "1,0,0;0,1,0"}};
    snap.extra = {{"hermite.dt", std::vector<double>(257, 0.125)}, {"hermite.jerk", {1.5, -2.25, 3e-310}}, {"empty", {}}};
    io::write_snapshot(dir.file("v2.nbsnap"), snap);
    const io::Snapshot back = io::read_snapshot(dir.file("v2.nbsnap"));
    expect_same(snap.state, back.state);
    ASSERT_TRUE(back.precise.has_value());
    ASSERT_EQ(back.precise->size(), p.size());
    EXPECT_EQ(0, std::memcmp(back.precise->position.data(), p.position.data(), p.size() * sizeof(Vec3d)));
    EXPECT_EQ(0, std::memcmp(back.precise->velocity.data(), p.velocity.data(), p.size() * sizeof(Vec3d)));
    EXPECT_EQ(back.precise->mass, p.mass);
    EXPECT_EQ(back.metadata, snap.metadata);
    EXPECT_EQ(back.extra, snap.extra);

    // Damage inside a section is caught by the checksum, and a consistent but malformed section
    // by its own check, naming the tag.
    std::string bytes = io::encode_snapshot(snap);
    const std::size_t meta = bytes.find("META");
    ASSERT_NE(meta, std::string::npos);
    std::string bad = bytes;
    bad[meta + 4] += 1;  // payload length one byte too long
    EXPECT_NE(error_of(bad).find("checksum mismatch"), std::string::npos);
    const std::string msg = error_of(with_checksum(bad));
    EXPECT_NE(msg.find("section 'META' at byte offset " + std::to_string(meta)), std::string::npos) << msg;

    // A precise state of the wrong size is refused on writing.
    snap.precise->mass.pop_back();
    EXPECT_THROW(io::encode_snapshot(snap), std::invalid_argument);
}

// The metadata alone, seeking past the bodies and the double state: what `nbody run -i` and the
// viewer read to learn which integrator wrote a snapshot before they load it whole.
TEST(IoSnapshot, MetadataIsReadWithoutTheBodies) {
    test::TempDir dir;
    io::Snapshot snap = sample_snapshot(123);
    snap.precise = precise_beyond_float(snap.state);  // a section before META, which the reader must skip
    snap.extra = {{"hermite.ax", std::vector<double>(123, 2.0)}};
    snap.metadata = {{"hermite.eta", "0.02"}, {"nbody.integrator", "hermite4"}};
    io::write_snapshot(dir.file("run.nbsnap"), snap);
    EXPECT_EQ(io::read_snapshot_metadata(dir.file("run.nbsnap")), snap.metadata);

    snap.metadata.clear();
    io::write_snapshot(dir.file("bare.nbsnap"), snap);
    EXPECT_TRUE(io::read_snapshot_metadata(dir.file("bare.nbsnap")).empty());

    const std::string bytes = io::encode_snapshot(sample_snapshot(10));
    test::write_text(dir.file("cut.nbsnap"), bytes.substr(0, bytes.size() - 20));  // ends inside the bodies
    EXPECT_THROW(io::read_snapshot_metadata(dir.file("cut.nbsnap")), std::runtime_error);
    test::write_text(dir.file("text.nbsnap"), "x,y,z\n1,2,3\n");
    EXPECT_THROW(io::read_snapshot_metadata(dir.file("text.nbsnap")), std::runtime_error);
}

TEST(IoSnapshot, UnknownSectionsAreSkipped) {
    io::Snapshot snap = sample_snapshot(50);
    snap.metadata["k"] = "v";
    std::string bytes = io::encode_snapshot(snap);
    // Append a section of a hypothetical later writer: bump the count, add tag + length + payload.
    const std::size_t count_at = bytes.find("META") - 4;
    bytes[count_at] += 1;
    std::string tail = "ZZZZ";
    const std::uint64_t len = 5;
    tail.append(reinterpret_cast<const char*>(&len), 8);
    tail += "hello";
    bytes.insert(bytes.size() - 8, tail);
    const io::Snapshot back = io::decode_snapshot(with_checksum(bytes), "later.nbsnap");
    EXPECT_EQ(back.metadata.at("k"), "v");
    expect_same(snap.state, back.state);
}

// Issue 33: E0 of the run's first state rides along, in version 3; without it the file stays
// version 2, which older builds read.
TEST(IoSnapshot, Version3KeepsTheRunsFirstEnergy) {
    io::Snapshot snap = sample_snapshot(64);
    snap.metadata["k"] = "v";
    EXPECT_EQ(io::encode_snapshot(snap)[8], 2);
    snap.energy0 = io::RunEnergy{-0.2500000000000123, 1.5, "exact"};
    const std::string bytes = io::encode_snapshot(snap);
    EXPECT_EQ(bytes[8], 3);
    const io::Snapshot back = io::decode_snapshot(bytes, "new.nbsnap");
    ASSERT_TRUE(back.energy0.has_value());
    EXPECT_EQ(std::bit_cast<std::uint64_t>(back.energy0->energy), std::bit_cast<std::uint64_t>(-0.2500000000000123));
    EXPECT_EQ(back.energy0->time, 1.5);
    EXPECT_EQ(back.energy0->source, "exact");
    EXPECT_EQ(back.metadata.at("k"), "v");
    expect_same(snap.state, back.state);

    // A version 2 file (an older writer) with the same bytes has no E0: the section is one of a
    // later writer there, skipped.
    std::string v2 = bytes;
    v2[8] = 2;
    EXPECT_FALSE(io::decode_snapshot(with_checksum(v2), "old.nbsnap").energy0.has_value());

    // A non-finite E0 is refused on writing and on reading.
    snap.energy0->energy = std::nan("");
    EXPECT_THROW(io::encode_snapshot(snap), std::invalid_argument);
    std::string bad = bytes;
    const std::size_t at = bytes.find("ENR0") + 12;
    const double nan = std::nan("");
    std::memcpy(bad.data() + at, &nan, 8);
    EXPECT_NE(error_of(with_checksum(bad)).find("section 'ENR0'"), std::string::npos) << error_of(with_checksum(bad));
}

TEST(IoSnapshot, OlderVersionsLoadWithoutE0) {
    const io::Snapshot snap = sample_snapshot(40);
    const std::string v2 = io::encode_snapshot(snap);
    ASSERT_EQ(v2[8], 2);
    EXPECT_FALSE(io::decode_snapshot(v2, "v2.nbsnap").energy0.has_value());
    std::string v1 = v2.substr(0, v2.size() - 12) + std::string(8, '\0');
    v1[8] = 1;
    EXPECT_FALSE(io::decode_snapshot(with_checksum(v1), "v1.nbsnap").energy0.has_value());
}

// The case: with the reference backend (double state), 5 steps + snapshot + 5 steps must
// equal 10 steps bit for bit; version 1 rounded the state to float and 895 of 3,584 values differed.
TEST(IoSnapshot, ReferenceBackendRestoresExactly) {
    test::TempDir dir;
    const io::Snapshot start = sample_snapshot(256);
    auto straight = make_backend(BackendKind::Reference, std::cout);
    straight->load(start.state);
    straight->step(start.params, 5);
    io::Snapshot mid = start;
    straight->store(mid.state);
    mid.precise = straight->store_precise();
    ASSERT_TRUE(mid.precise.has_value());
    io::write_snapshot(dir.file("mid.nbsnap"), mid);
    straight->step(start.params, 5);

    const io::Snapshot restored = io::read_snapshot(dir.file("mid.nbsnap"));
    ASSERT_TRUE(restored.precise.has_value());
    auto resumed = make_backend(BackendKind::Reference, std::cout);
    resumed->load_precise(restored.state, *restored.precise);
    resumed->step(restored.params, 5);

    const PreciseState a = *straight->store_precise(), b = *resumed->store_precise();
    EXPECT_EQ(0, std::memcmp(a.position.data(), b.position.data(), a.size() * sizeof(Vec3d)));
    EXPECT_EQ(0, std::memcmp(a.velocity.data(), b.velocity.data(), a.size() * sizeof(Vec3d)));
    EXPECT_EQ(a.mass, b.mass);
    EXPECT_EQ(straight->time(), resumed->time());

    // The floats alone (what version 1 kept) do not restore it: the test can tell the difference.
    auto from_floats = make_backend(BackendKind::Reference, std::cout);
    from_floats->load(restored.state);
    from_floats->step(restored.params, 5);
    const PreciseState c = *from_floats->store_precise();
    EXPECT_NE(0, std::memcmp(a.position.data(), c.position.data(), a.size() * sizeof(Vec3d)));

    // The cpu backend has no double state.
    EXPECT_FALSE(make_backend(BackendKind::Cpu, std::cout)->store_precise().has_value());
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
