#include "nbody/sim/io/snapshot.hpp"

#include <cstdint>
#include <cstdio>
#include <stdexcept>
#include <string>

#include "binary.hpp"
#include "nbody/sim/atomic_file.hpp"

namespace nbody::io {
namespace {

using detail::Order;

constexpr std::string_view kMagic("\x89NBS\r\n\x1a\n", 8);
constexpr std::uint32_t kMaxString = 1u << 16;

std::string hex(std::uint64_t v) {
    char buf[24];
    std::snprintf(buf, sizeof buf, "0x%016llx", static_cast<unsigned long long>(v));
    return buf;
}

}  // namespace

std::string encode_snapshot(const Snapshot& snap) {
    const State& s = snap.state;
    s.validate();
    if (snap.scene_name.size() >= kMaxString || snap.scene_source.size() >= kMaxString)
        throw std::invalid_argument("snapshot: scene name or source longer than 65535 bytes");
    detail::Writer out(Order::Little);
    out.bytes().reserve(80 + snap.scene_name.size() + snap.scene_source.size() + 35 * s.size());
    out.put_bytes(kMagic);
    out.put<std::uint32_t>(kSnapshotVersion);
    out.put<std::uint64_t>(s.size());
    out.put<double>(s.time);
    out.put<double>(snap.params.dt);
    out.put<double>(snap.params.softening);
    out.put<std::int32_t>(snap.steps_per_frame);
    for (const std::string* text : {&snap.scene_name, &snap.scene_source}) {
        out.put<std::uint32_t>(std::uint32_t(text->size()));
        out.put_bytes(*text);
    }
    for (const Vec4f& p : s.pos_mass) for (float x : {p.x, p.y, p.z, p.w}) out.put<float>(x);
    for (const Vec4f& v : s.velocity) for (float x : {v.x, v.y, v.z, v.w}) out.put<float>(x);
    for (std::uint16_t g : s.galaxy) out.put<std::uint16_t>(g);
    for (Component c : s.component) out.put<std::uint8_t>(static_cast<std::uint8_t>(c));
    out.put<std::uint64_t>(detail::fnv1a64(out.bytes()));
    return std::move(out.bytes());
}

void write_snapshot(const std::string& path, const Snapshot& snap) {
    const std::string bytes = encode_snapshot(snap);
    write_file_atomically(path, [&](std::ostream& out) { out.write(bytes.data(), std::streamsize(bytes.size())); });
}

Snapshot decode_snapshot(std::string_view bytes, const std::string& source) {
    detail::Reader in(bytes, Order::Little, source);
    if (bytes.size() < kMagic.size() || bytes.substr(0, kMagic.size()) != kMagic)
        throw std::runtime_error(source + ": not an nbody snapshot (the file does not start with the .nbsnap magic bytes)");
    in.seek(kMagic.size());
    const std::uint32_t version = in.get<std::uint32_t>("format version");
    if (version != kSnapshotVersion)
        throw std::runtime_error(source + ": snapshot format version " + std::to_string(version) +
                                 " is not supported (this build reads version " + std::to_string(kSnapshotVersion) + ")");
    const std::uint64_t n = in.get<std::uint64_t>("body count");
    Snapshot snap;
    const double time = in.get<double>("time");
    snap.params.dt = in.get<double>("dt");
    snap.params.softening = in.get<double>("softening");
    snap.steps_per_frame = in.get<std::int32_t>("steps per frame");
    std::string* texts[2] = {&snap.scene_name, &snap.scene_source};
    for (std::string* text : texts) {
        const std::uint32_t len = in.get<std::uint32_t>("string length");
        if (len >= kMaxString)
            throw std::runtime_error(source + ": corrupt snapshot: string length " + std::to_string(len) + " at byte offset " +
                                     std::to_string(in.offset() - 4));
        *text = std::string(in.get_bytes(len, "scene name/source"));
    }
    if (n == 0) throw std::runtime_error(source + ": snapshot holds no bodies (N = 0)");
    // Check the size the header implies before allocating anything for N bodies.
    const std::uint64_t per_body = 16 + 16 + 2 + 1;
    const std::uint64_t remaining = bytes.size() - in.offset();
    if (n > remaining / per_body || n * per_body + 8 > remaining) {
        const std::uint64_t expected = in.offset() + n * per_body + 8;
        throw std::runtime_error(source + ": truncated snapshot: N = " + std::to_string(n) + " needs " +
                                 std::to_string(expected) + " bytes, but the file ends at byte offset " +
                                 std::to_string(bytes.size()) + " (data from byte offset " + std::to_string(in.offset()) +
                                 " on is incomplete)");
    }
    const std::size_t end = in.offset() + std::size_t(n * per_body);
    if (bytes.size() != end + 8)
        throw std::runtime_error(source + ": snapshot has " + std::to_string(bytes.size() - end - 8) +
                                 " unexpected bytes after the checksum at byte offset " + std::to_string(end));
    const std::uint64_t computed = detail::fnv1a64(bytes.substr(0, end));
    {
        detail::Reader tail(bytes, Order::Little, source);
        tail.seek(end);
        const std::uint64_t stored = tail.get<std::uint64_t>("checksum");
        if (stored != computed)
            throw std::runtime_error(source + ": snapshot checksum mismatch: stored " + hex(stored) + ", computed " +
                                     hex(computed) + "; the file is damaged");
    }

    State& s = snap.state;
    s.resize(std::size_t(n));
    s.time = time;
    for (auto& p : s.pos_mass) p = {in.get<float>("pos"), in.get<float>("pos"), in.get<float>("pos"), in.get<float>("mass")};
    for (auto& v : s.velocity) v = {in.get<float>("vel"), in.get<float>("vel"), in.get<float>("vel"), in.get<float>("vel")};
    for (auto& g : s.galaxy) g = in.get<std::uint16_t>("galaxy");
    for (std::size_t i = 0; i < s.size(); ++i) {
        const std::size_t at = in.offset();
        const std::uint8_t c = in.get<std::uint8_t>("component");
        if (c > static_cast<std::uint8_t>(Component::Star))
            throw std::runtime_error(source + ": snapshot body " + std::to_string(i) + " has unknown component " +
                                     std::to_string(c) + " (byte offset " + std::to_string(at) + ")");
        s.component[i] = static_cast<Component>(c);
    }
    if (!(snap.params.dt > 0) || !(snap.params.softening >= 0) || snap.steps_per_frame < 1)
        throw std::runtime_error(source + ": snapshot has invalid run parameters (dt " + std::to_string(snap.params.dt) +
                                 ", softening " + std::to_string(snap.params.softening) + ", steps per frame " +
                                 std::to_string(snap.steps_per_frame) + ")");
    try {
        s.validate();
    } catch (const std::invalid_argument& e) {
        throw std::runtime_error(source + ": invalid snapshot: " + e.what());
    }
    return snap;
}

Snapshot read_snapshot(const std::string& path) {
    const std::string bytes = detail::read_whole_file(path, "snapshot");
    return decode_snapshot(bytes, path);
}

}  // namespace nbody::io
