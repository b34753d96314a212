#include "nbody/sim/io/snapshot.hpp"

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <map>
#include <vector>
#include <stdexcept>
#include <string>

#include "binary.hpp"
#include "nbody/sim/atomic_file.hpp"
#include "nbody/sim/io/body_check.hpp"
#include "nbody/sim/io/hermite_snapshot.hpp"
#include "nbody/sim/io/input_file.hpp"

namespace nbody::io {
namespace {

using detail::Order;

constexpr std::string_view kMagic("\x89NBS\r\n\x1a\n", 8);
constexpr std::uint32_t kMaxString = 1u << 16;

constexpr std::string_view kTagPrecise = "F64S";
constexpr std::string_view kTagMetadata = "META";
constexpr std::string_view kTagExtra = "XARR";
constexpr std::string_view kTagEnergy0 = "ENR0";
constexpr std::uint32_t kVersionWithoutEnergy0 = 2;

void put_string(detail::Writer& out, const std::string& text) {
    out.put<std::uint32_t>(std::uint32_t(text.size()));
    out.put_bytes(text);
}

// One section: tag, payload length, payload.
void put_section(detail::Writer& out, std::string_view tag, const std::string& payload) {
    out.put_bytes(tag);
    out.put<std::uint64_t>(payload.size());
    out.put_bytes(payload);
}

std::string encode_precise(const PreciseState& p) {
    detail::Writer out(Order::Little);
    out.bytes().reserve(56 * p.size());
    for (const Vec3d& x : p.position) for (double c : {x.x, x.y, x.z}) out.put<double>(c);
    for (const Vec3d& v : p.velocity) for (double c : {v.x, v.y, v.z}) out.put<double>(c);
    for (double m : p.mass) out.put<double>(m);
    return std::move(out.bytes());
}

std::string encode_metadata(const std::map<std::string, std::string>& metadata) {
    detail::Writer out(Order::Little);
    out.put<std::uint32_t>(std::uint32_t(metadata.size()));
    for (const auto& [key, value] : metadata) {
        if (key.empty() || key.size() >= kMaxString)
            throw std::invalid_argument("snapshot: metadata key '" + key.substr(0, 40) + "' is empty or longer than 65535 bytes");
        if (value.size() > 0xffffffffu)
            throw std::invalid_argument("snapshot: metadata value of '" + key + "' is longer than 4 GiB");
        put_string(out, key);
        put_string(out, value);
    }
    return std::move(out.bytes());
}

std::string encode_extra(const std::string& name, const std::vector<double>& values) {
    if (name.empty() || name.size() >= kMaxString)
        throw std::invalid_argument("snapshot: extra array name '" + name.substr(0, 40) + "' is empty or longer than 65535 bytes");
    detail::Writer out(Order::Little);
    out.bytes().reserve(16 + name.size() + 8 * values.size());
    put_string(out, name);
    out.put<std::uint64_t>(values.size());
    for (double v : values) out.put<double>(v);
    return std::move(out.bytes());
}

std::string encode_energy0(const RunEnergy& e) {
    if (!std::isfinite(e.energy) || !std::isfinite(e.time) || e.source.empty() || e.source.size() >= kMaxString)
        throw std::invalid_argument("snapshot: the run's first energy must be finite with a named source");
    detail::Writer out(Order::Little);
    out.put<double>(e.energy);
    out.put<double>(e.time);
    put_string(out, e.source);
    return std::move(out.bytes());
}

// A string of the sections' kind: u32 length, bytes, within one section's payload.
std::string get_string(detail::Reader& in, const char* what, const std::string& source) {
    const std::size_t at = in.offset();
    const std::uint32_t len = in.get<std::uint32_t>(what);
    if (len > in.size() - in.offset())
        throw std::runtime_error(source + ": corrupt snapshot: " + what + " length " + std::to_string(len) +
                                 " at byte offset " + std::to_string(at) + " runs past its section");
    return std::string(in.get_bytes(len, what));
}

// A "META" payload's key/value pairs; `where` names the section in messages.
void decode_metadata(detail::Reader& p, const std::string& where, const std::string& source,
                     std::map<std::string, std::string>& metadata) {
    const std::uint32_t pairs = p.get<std::uint32_t>("metadata count");
    for (std::uint32_t i = 0; i < pairs; ++i) {
        std::string key = get_string(p, "metadata key", source);
        std::string value = get_string(p, "metadata value", source);
        if (key.empty()) throw std::runtime_error(source + ": corrupt snapshot: empty metadata key in " + where);
        if (!metadata.emplace(std::move(key), std::move(value)).second)
            throw std::runtime_error(source + ": corrupt snapshot: " + where + " repeats a key");
    }
}

RunEnergy decode_energy0(detail::Reader& p, const std::string& where, const std::string& source) {
    RunEnergy e;
    e.energy = p.get<double>("E0");
    e.time = p.get<double>("E0 time");
    e.source = get_string(p, "E0 source", source);
    if (!std::isfinite(e.energy) || !std::isfinite(e.time) || e.source.empty())
        throw std::runtime_error(source + ": corrupt snapshot: " + where + " holds a non-finite E0 or no source");
    return e;
}

// Reads the version 2 and 3 sections in bytes [begin, end) into `snap`.
void decode_sections(std::string_view bytes, std::size_t begin, std::size_t end, std::size_t n, std::uint32_t version,
                     Snapshot& snap, const std::string& source) {
    detail::Reader in(bytes.substr(0, end), Order::Little, source);
    in.seek(begin);
    const std::uint32_t count = in.get<std::uint32_t>("section count");
    bool have_metadata = false;
    for (std::uint32_t k = 0; k < count; ++k) {
        const std::size_t at = in.offset();
        const std::string tag(in.get_bytes(4, "section tag"));
        const std::uint64_t length = in.get<std::uint64_t>("section length");
        const std::string where = "section '" + tag + "' at byte offset " + std::to_string(at);
        if (length > end - in.offset())
            throw std::runtime_error(source + ": corrupt snapshot: " + where + " claims " + std::to_string(length) +
                                     " bytes, but only " + std::to_string(end - in.offset()) + " remain");
        const std::size_t payload_at = in.offset();
        const std::string_view payload = in.get_bytes(std::size_t(length), "section payload");
        // Offsets inside the payload are reported relative to the file.
        detail::Reader p(bytes.substr(0, payload_at + payload.size()), Order::Little, source);
        p.seek(payload_at);
        if (tag == kTagPrecise) {
            if (snap.precise) throw std::runtime_error(source + ": corrupt snapshot: a second " + where);
            if (length != 56 * std::uint64_t(n))
                throw std::runtime_error(source + ": corrupt snapshot: " + where + " has " + std::to_string(length) +
                                         " bytes; N = " + std::to_string(n) + " needs " + std::to_string(56 * n));
            PreciseState ps;
            ps.position.resize(n);
            ps.velocity.resize(n);
            ps.mass.resize(n);
            for (Vec3d& x : ps.position) x = {p.get<double>("x"), p.get<double>("y"), p.get<double>("z")};
            for (Vec3d& v : ps.velocity) v = {p.get<double>("vx"), p.get<double>("vy"), p.get<double>("vz")};
            for (double& m : ps.mass) m = p.get<double>("m");
            snap.precise = std::move(ps);
        } else if (tag == kTagMetadata) {
            if (have_metadata) throw std::runtime_error(source + ": corrupt snapshot: a second " + where);
            have_metadata = true;
            decode_metadata(p, where, source, snap.metadata);
        } else if (tag == kTagExtra) {
            std::string name = get_string(p, "extra array name", source);
            const std::uint64_t values = p.get<std::uint64_t>("extra array length");
            if (values > (p.size() - p.offset()) / 8)
                throw std::runtime_error(source + ": corrupt snapshot: extra array '" + name + "' of " +
                                         std::to_string(values) + " values does not fit its " + where);
            std::vector<double> data(values);
            for (double& v : data) v = p.get<double>("extra array value");
            if (name.empty() || snap.extra.count(name))
                throw std::runtime_error(source + ": corrupt snapshot: extra array name '" + name +
                                         "' is empty or repeated (" + where + ")");
            snap.extra.emplace(std::move(name), std::move(data));
        } else if (tag == kTagEnergy0 && version >= 3) {
            if (snap.energy0) throw std::runtime_error(source + ": corrupt snapshot: a second " + where);
            snap.energy0 = decode_energy0(p, where, source);
        } else {
            continue;  // a section of a later writer: skipped whole
        }
        if (p.offset() != payload_at + payload.size())
            throw std::runtime_error(source + ": corrupt snapshot: " + where + " has " +
                                     std::to_string(payload_at + payload.size() - p.offset()) + " bytes left over");
    }
    if (in.offset() != end)
        throw std::runtime_error(source + ": snapshot has " + std::to_string(end - in.offset()) +
                                 " unexpected bytes after its sections at byte offset " + std::to_string(in.offset()));
}

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
    out.put<std::uint32_t>(snap.energy0 ? kSnapshotVersion : kVersionWithoutEnergy0);
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
    const std::uint32_t sections = std::uint32_t(snap.precise.has_value()) + std::uint32_t(!snap.metadata.empty()) +
                                   std::uint32_t(snap.extra.size()) + std::uint32_t(snap.energy0.has_value());
    out.put<std::uint32_t>(sections);
    if (snap.precise) {
        snap.precise->validate(s.size());
        put_section(out, kTagPrecise, encode_precise(*snap.precise));
    }
    if (!snap.metadata.empty()) put_section(out, kTagMetadata, encode_metadata(snap.metadata));
    for (const auto& [name, values] : snap.extra) put_section(out, kTagExtra, encode_extra(name, values));
    if (snap.energy0) put_section(out, kTagEnergy0, encode_energy0(*snap.energy0));
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
    if (version < 1 || version > kSnapshotVersion)
        throw std::runtime_error(source + ": snapshot format version " + std::to_string(version) +
                                 " is not supported (this build reads versions 1 to " + std::to_string(kSnapshotVersion) + ")");
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
    const std::size_t bodies_end = in.offset() + std::size_t(n * per_body);
    // Version 1 ends with the checksum right after the bodies; version 2's sections fill the gap.
    if (version == 1 && bytes.size() != bodies_end + 8)
        throw std::runtime_error(source + ": snapshot has " + std::to_string(bytes.size() - bodies_end - 8) +
                                 " unexpected bytes after the checksum at byte offset " + std::to_string(bodies_end));
    const std::size_t end = bytes.size() - 8;
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
    if (!(snap.params.dt > 0) || !(snap.params.softening >= 0) || !std::isfinite(snap.params.dt) ||
        !std::isfinite(snap.params.softening) || snap.steps_per_frame < 1 || !std::isfinite(time))
        throw std::runtime_error(source + ": snapshot has invalid run parameters (time " + std::to_string(time) + ", dt " +
                                 std::to_string(snap.params.dt) + ", softening " + std::to_string(snap.params.softening) +
                                 ", steps per frame " + std::to_string(snap.steps_per_frame) + ")");
    if (version >= 2) decode_sections(bytes, bodies_end, end, s.size(), version, snap, source);
    // The whole file is checked here, so that "read succeeded" means "usable" to every caller
    // (run, the viewer's Open/drop): bodies, the double state, a Hermite run's arrays.
    const std::string invalid = source + ": invalid snapshot";
    check_body_count(n, source, "body count");
    check_bodies(s, invalid);
    if (snap.precise) check_bodies(*snap.precise, invalid + " (double-precision state)");
    check_hermite_sections(snap, source);
    return snap;
}

std::map<std::string, std::string> read_snapshot_metadata(const std::string& path) {
    InputFile file(path, "snapshot");
    // Only the header and the sections' headers are read; every length is checked against the
    // bytes the file has left before anything is allocated for it.
    std::uint64_t at = 0;
    std::string chunk;
    const auto take = [&](std::uint64_t n, const char* what) {
        chunk = file.read_at(at, n, what);
        at += n;
        return detail::Reader(chunk, Order::Little, path);
    };
    const auto skip = [&](std::uint64_t n, const std::string& what) {
        if (n > file.size() - at)
            throw std::runtime_error(path + ": corrupt snapshot: " + what + " at byte offset " + std::to_string(at) +
                                     " claims " + std::to_string(n) + " bytes, but only " +
                                     std::to_string(file.size() - at) + " remain");
        at += n;
    };
    const std::size_t fixed = kMagic.size() + 4 + 8 + 3 * 8 + 4;  // to the steps per frame (the layout above)
    detail::Reader head = take(fixed, "the header");
    if (head.get_bytes(kMagic.size(), "magic") != kMagic)
        throw std::runtime_error(path + ": not an nbody snapshot (the file does not start with the .nbsnap magic bytes)");
    const std::uint32_t version = head.get<std::uint32_t>("format version");
    const std::uint64_t n = head.get<std::uint64_t>("body count");
    if (version < 2) return {};
    for (const char* text : {"scene name", "scene source"}) skip(take(4, text).get<std::uint32_t>(text), text);
    const std::uint64_t per_body = 16 + 16 + 2 + 1;
    if (n > (file.size() - at) / per_body)
        throw std::runtime_error(path + ": truncated snapshot: N = " + std::to_string(n) + " bodies need " +
                                 std::to_string(per_body) + " bytes each from byte offset " + std::to_string(at) +
                                 ", but the file ends at byte " + std::to_string(file.size()));
    skip(n * per_body, "the bodies");
    const std::uint32_t count = take(4, "section count").get<std::uint32_t>("section count");
    for (std::uint32_t k = 0; k < count; ++k) {
        const std::uint64_t section_at = at;
        detail::Reader header = take(12, "section header");
        const std::string tag(header.get_bytes(4, "section tag"));
        const std::uint64_t length = header.get<std::uint64_t>("section length");
        const std::string where = "section '" + tag + "' at byte offset " + std::to_string(section_at);
        if (length > file.size() - at)
            throw std::runtime_error(path + ": corrupt snapshot: " + where + " claims " + std::to_string(length) +
                                     " bytes, but only " + std::to_string(file.size() - at) + " remain");
        if (tag != kTagMetadata) {
            at += length;
            continue;
        }
        detail::Reader payload = take(length, "section 'META'");
        std::map<std::string, std::string> metadata;
        decode_metadata(payload, where, path, metadata);
        saved_hermite_params(metadata, path);  // refuses a bad eta or dt_max naming this file
        return metadata;
    }
    return {};
}

Snapshot read_snapshot(const std::string& path) {
    const std::string bytes = read_input_file(path, "snapshot");
    return decode_snapshot(bytes, path);
}

}  // namespace nbody::io
