// TIPSY files: bit-exact round trips in both byte orders and both header sizes, files built byte
// by byte as other codes write them, and every malformed file refused with its offset.

#include <gtest/gtest.h>

#include <bit>
#include <cstdint>
#include <cstring>
#include <limits>
#include <utility>
#include <stdexcept>
#include <string>

#include "nbody/sim/io/tipsy.hpp"
#include "test_support.hpp"

namespace nbody {
namespace {

using io::Endian;

// Halo particles first (they come back first, as dark), then the others as Star.
State sample_state() {
    State s;
    s.resize(7);
    for (std::size_t i = 0; i < s.size(); ++i) {
        const float f = float(i) + 0.1234567f;
        s.pos_mass[i] = {f, -2.5f * f, 1e-7f * f, 0.001f * (f + 1)};
        s.velocity[i] = {3.0f / (f + 1), -f, 1e5f * f, 0.0f};
        s.component[i] = i < 3 ? Component::Halo : Component::Star;
    }
    s.time = 12.345678901234;
    return s;
}

void expect_bit_identical(const State& a, const State& b) {
    ASSERT_EQ(a.size(), b.size());
    EXPECT_EQ(0, std::memcmp(a.pos_mass.data(), b.pos_mass.data(), a.size() * sizeof(Vec4f)));
    EXPECT_EQ(0, std::memcmp(a.velocity.data(), b.velocity.data(), a.size() * sizeof(Vec4f)));
    EXPECT_EQ(a.component, b.component);
    EXPECT_EQ(std::bit_cast<std::uint64_t>(a.time), std::bit_cast<std::uint64_t>(b.time));
}

std::string error_of(const std::string& bytes) {
    try {
        io::decode_tipsy(bytes, "sample.std");
    } catch (const std::runtime_error& e) {
        return e.what();
    }
    return "(no error)";
}

TEST(IoTipsy, RoundTripsBitExactInBothByteOrdersAndHeaderSizes) {
    const State s = sample_state();
    for (Endian e : {Endian::Little, Endian::Big})
        for (bool padded : {true, false}) {
            const std::string bytes = io::encode_tipsy(s, {.endian = e, .padded_header = padded});
            EXPECT_EQ(bytes.size(), (padded ? 32u : 28u) + 3 * 36 + 4 * 44);
            io::TipsyInfo info;
            const State back = io::decode_tipsy(bytes, "mem", &info);
            EXPECT_EQ(info.endian, e);
            EXPECT_EQ(info.padded_header, padded);
            EXPECT_EQ(info.dark, 3u);
            EXPECT_EQ(info.star, 4u);
            expect_bit_identical(s, back);
        }
}

TEST(IoTipsy, FileRoundTripAndOrderOfMixedLabels) {
    test::TempDir dir;
    State s = sample_state();
    std::swap(s.component[0], s.component[5]);  // halo particles no longer first
    io::write_tipsy(dir.file("x.std"), s);
    const State back = io::read_tipsy(dir.file("x.std"));
    ASSERT_EQ(back.size(), s.size());
    // Dark (Halo) first in their original order, then the rest.
    const std::size_t order[] = {1, 2, 5, 0, 3, 4, 6};
    for (std::size_t k = 0; k < s.size(); ++k) {
        EXPECT_EQ(back.pos_mass[k].x, s.pos_mass[order[k]].x);
        EXPECT_EQ(back.component[k], k < 3 ? Component::Halo : Component::Star);
    }
}

// A writer independent of ours, as pkdgrav or ChaNGa write: big-endian, with gas particles.
struct ByteWriter {
    std::string out;
    bool big;
    template <class T>
    void put(T v) {
        unsigned char b[sizeof(T)];
        std::memcpy(b, &v, sizeof(T));
        if (big == (std::endian::native == std::endian::little))
            for (std::size_t i = 0; i < sizeof(T) / 2; ++i) std::swap(b[i], b[sizeof(T) - 1 - i]);
        out.append(reinterpret_cast<char*>(b), sizeof(T));
    }
};

std::string foreign_file(bool big, bool padded) {
    ByteWriter w{{}, big};
    w.put(0.75);  // time
    for (std::int32_t v : {3, 3, 1, 1, 1}) w.put(v);
    if (padded) w.put(std::int32_t(0));
    for (float f : {0.5f, 1.f, 2.f, 3.f, 0.1f, 0.2f, 0.3f, 9.f, 9.f, 9.f, 9.f, 9.f}) w.put(f);  // gas: 12 floats
    for (float f : {1.5f, -1.f, -2.f, -3.f, 0.4f, 0.5f, 0.6f, 0.05f, 0.f}) w.put(f);          // dark: 9
    for (float f : {2.5f, 4.f, 5.f, 6.f, 0.7f, 0.8f, 0.9f, 0.02f, 1.f, 0.05f, 0.f}) w.put(f);  // star: 11
    return w.out;
}

TEST(IoTipsy, ReadsFilesWrittenByOtherCodes) {
    for (bool big : {true, false})
        for (bool padded : {true, false}) {
            const State s = io::decode_tipsy(foreign_file(big, padded), "foreign.std");
            ASSERT_EQ(s.size(), 3u);
            EXPECT_EQ(s.time, 0.75);
            EXPECT_EQ(s.pos_mass[0].w, 0.5f);
            EXPECT_EQ(s.pos_mass[0].z, 3.f);
            EXPECT_EQ(s.velocity[0].x, 0.1f);
            EXPECT_EQ(s.pos_mass[1].x, -1.f);
            EXPECT_EQ(s.velocity[2].z, 0.9f);
            EXPECT_EQ(s.pos_mass[2].w, 2.5f);
            EXPECT_EQ(s.component[0], Component::Unspecified);  // gas
            EXPECT_EQ(s.component[1], Component::Halo);         // dark
            EXPECT_EQ(s.component[2], Component::Star);
        }
}

TEST(IoTipsy, TruncatedFileNamesTheByteOffset) {
    const std::string whole = io::encode_tipsy(sample_state(), {.endian = Endian::Big});
    // Cut 10 bytes into the second dark particle: header 32 + one dark record 36 = offset 68.
    std::string msg = error_of(whole.substr(0, 32 + 36 + 10));
    EXPECT_NE(msg.find("sample.std"), std::string::npos) << msg;
    EXPECT_NE(msg.find("truncated"), std::string::npos) << msg;
    EXPECT_NE(msg.find("dark particle 1 of 3 at byte offset 68"), std::string::npos) << msg;
    // In the star records: 32 + 3*36 + 44 = 184 is the second star.
    msg = error_of(whole.substr(0, 32 + 3 * 36 + 44 + 1));
    EXPECT_NE(msg.find("star particle 1 of 4 at byte offset 184"), std::string::npos) << msg;
    // In the header.
    msg = error_of(whole.substr(0, 20));
    EXPECT_NE(msg.find("header needs 28 bytes"), std::string::npos) << msg;
    EXPECT_NE(msg.find("ends at byte 20"), std::string::npos) << msg;
}

TEST(IoTipsy, MalformedFilesAreRefused) {
    std::string bytes = io::encode_tipsy(sample_state(), {.endian = Endian::Little});
    std::string bad = bytes;
    bad[12] = 2;  // ndim = 2
    EXPECT_NE(error_of(bad).find("not a TIPSY file: ndim"), std::string::npos) << error_of(bad);
    bad = bytes;
    bad[8] = 9;  // nbodies = 9, counts add to 7
    EXPECT_NE(error_of(bad).find("nbodies = 9 but nsph + ndark + nstar = 7"), std::string::npos) << error_of(bad);
    EXPECT_NE(error_of(bytes + "extra").find("extra data from byte offset"), std::string::npos);
    // A negative mass in the second dark record (mass is its first field).
    bad = bytes;
    const float neg = -1.0f;
    std::memcpy(bad.data() + 32 + 36, &neg, 4);
    EXPECT_NE(error_of(bad).find("dark particle 1 at byte offset 68 has negative mass"), std::string::npos) << error_of(bad);
    // A NaN coordinate.
    bad = bytes;
    const float nan = std::numeric_limits<float>::quiet_NaN();
    std::memcpy(bad.data() + 32 + 4, &nan, 4);
    EXPECT_NE(error_of(bad).find("non-finite position"), std::string::npos) << error_of(bad);
    // No such file.
    EXPECT_THROW(io::read_tipsy("/nonexistent/dir/x.std"), std::runtime_error);
}

}  // namespace
}  // namespace nbody
