#include "nbody/sim/io/tipsy.hpp"

#include <cmath>
#include <cstdint>
#include <limits>
#include <ostream>
#include <stdexcept>
#include <string>

#include "binary.hpp"
#include "nbody/sim/atomic_file.hpp"
#include "nbody/sim/io/body_check.hpp"
#include "nbody/sim/io/input_file.hpp"

namespace nbody::io {
namespace {

using detail::Order;

constexpr std::size_t kGasBytes = 48, kDarkBytes = 36, kStarBytes = 44;
constexpr std::size_t kHeaderBytes = 28, kPaddedHeaderBytes = 32;

struct Kind {
    const char* name;
    std::size_t bytes;     // whole record
    std::size_t count;
    Component label;
};

std::string truncation_message(const std::string& source, std::size_t header, const Kind (&kinds)[3], std::size_t size) {
    // Walk the layout arithmetically (a damaged header may claim billions of bodies; nothing is
    // allocated before the file is known to hold them).
    std::uint64_t offset = header;
    for (const Kind& k : kinds) {
        if (offset + std::uint64_t(k.bytes) * k.count <= size) {
            offset += std::uint64_t(k.bytes) * k.count;
            continue;
        }
        const std::uint64_t index = (size - offset) / k.bytes;
        const std::uint64_t at = offset + index * k.bytes;
        return source + ": truncated TIPSY file: " + k.name + " particle " + std::to_string(index) + " of " +
               std::to_string(k.count) + " at byte offset " + std::to_string(at) + " needs " + std::to_string(k.bytes) +
               " bytes, but the file ends at byte " + std::to_string(size) + " (a " + std::to_string(header) +
               "-byte header assumed)";
    }
    return source + ": truncated TIPSY file";
}

// A float as a simulation writes it: zero or a magnitude within 1e-20..1e20 (any astrophysical
// unit system a TIPSY file uses stays inside). The same bytes read in the other byte order are
// mostly subnormals or magnitudes like 1e27: their exponent byte is a mantissa byte.
bool plausible(float x) { return x == 0.0f || (std::abs(x) > 1e-20f && std::abs(x) < 1e20f); }

// Of the 7 floats (mass, position, velocity) of up to `limit` records from `header` on, how many
// are plausible in `order`; `examined` is how many were looked at.
std::size_t plausible_floats(std::string_view bytes, std::size_t header, const Kind (&kinds)[3], Order order,
                             std::size_t limit, std::size_t& examined) {
    detail::Reader in(bytes, order, "");
    std::size_t good = 0, records = 0, at = header;
    examined = 0;
    for (const Kind& kind : kinds)
        for (std::size_t i = 0; i < kind.count && records < limit; ++i, ++records, at += kind.bytes) {
            in.seek(at);
            for (int c = 0; c < 7; ++c, ++examined) good += plausible(in.get<float>(kind.name));
        }
    return good;
}

// A header in one byte order over records in the other (two tools' output pasted together, or a
// converter that swapped only the header) reads as 1e22..1e30 positions and subnormal masses:
// refused when the records are plausible in the other order (>= 90% of the values) and clearly
// less so in the header's (30 points fewer). Bytes of the wrong order are plausible about half
// the time; a file in one order, even in large units, is never more plausible swapped.
void check_record_byte_order(std::string_view bytes, std::size_t header, const Kind (&kinds)[3], Order order,
                             const std::string& source) {
    constexpr std::size_t kSampled = 4096;  // records: enough to tell, cheap for any file
    const Order other = order == Order::Little ? Order::Big : Order::Little;
    std::size_t examined = 0;
    const std::size_t as_header = plausible_floats(bytes, header, kinds, order, kSampled, examined);
    const std::size_t as_other = plausible_floats(bytes, header, kinds, other, kSampled, examined);
    if (examined == 0 || 10 * as_other < 9 * examined || 10 * as_header + 3 * examined > 10 * as_other) return;
    const char* header_name = order == Order::Little ? "little-endian" : "big-endian";
    const char* other_name = order == Order::Little ? "big-endian" : "little-endian";
    throw std::runtime_error(source + ": the TIPSY header is " + header_name + " but the particle records are " +
                             other_name + ": of the first " + std::to_string(examined) + " values (mass, position, " +
                             "velocity), " + std::to_string(examined - as_header) + " read as " + header_name +
                             " are outside 1e-20..1e20 in magnitude (or not finite), " + std::to_string(examined - as_other) + " as " +
                             other_name + "; a file mixed from two byte orders is not read (rewrite it in one)");
}

}  // namespace

State decode_tipsy(std::string_view bytes, const std::string& source, TipsyInfo* info) {
    if (bytes.size() < kHeaderBytes)
        throw std::runtime_error(source + ": truncated TIPSY file: the header needs 28 bytes, but the file ends at byte " +
                                 std::to_string(bytes.size()));
    detail::Reader in(bytes, Order::Little, source);
    in.seek(8 + 4);  // time, nbodies
    const std::int32_t ndim_le = in.get<std::int32_t>("ndim");
    Order order;
    if (ndim_le == 3) order = Order::Little;
    else if (detail::byteswap_value(ndim_le) == 3) order = Order::Big;
    else
        throw std::runtime_error(source + ": not a TIPSY file: ndim at byte offset 12 reads " + std::to_string(ndim_le) +
                                 " (little-endian) or " + std::to_string(detail::byteswap_value(ndim_le)) +
                                 " (big-endian); it must be 3");
    in.set_order(order);
    in.seek(0);
    const double time = in.get<double>("time");
    const std::int32_t nbodies = in.get<std::int32_t>("nbodies");
    in.get<std::int32_t>("ndim");
    const std::int32_t nsph = in.get<std::int32_t>("nsph");
    const std::int32_t ndark = in.get<std::int32_t>("ndark");
    const std::int32_t nstar = in.get<std::int32_t>("nstar");
    const char* endian_name = order == Order::Little ? "little-endian" : "big-endian";
    if (nsph < 0 || ndark < 0 || nstar < 0 || nbodies < 0)
        throw std::runtime_error(source + ": corrupt TIPSY header (" + endian_name + "): negative particle count (nbodies " +
                                 std::to_string(nbodies) + ", nsph " + std::to_string(nsph) + ", ndark " +
                                 std::to_string(ndark) + ", nstar " + std::to_string(nstar) + ")");
    if (std::int64_t(nbodies) != std::int64_t(nsph) + ndark + nstar)
        throw std::runtime_error(source + ": corrupt TIPSY header (" + endian_name + "): nbodies = " + std::to_string(nbodies) +
                                 " but nsph + ndark + nstar = " + std::to_string(std::int64_t(nsph) + ndark + nstar));
    if (nbodies == 0) throw std::runtime_error(source + ": TIPSY file holds no particles (N = 0)");
    if (!std::isfinite(time)) throw std::runtime_error(source + ": TIPSY header time is not finite");

    const Kind kinds[3] = {{"gas", kGasBytes, std::size_t(nsph), Component::Unspecified},
                           {"dark", kDarkBytes, std::size_t(ndark), Component::Halo},
                           {"star", kStarBytes, std::size_t(nstar), Component::Star}};
    const std::uint64_t body = std::uint64_t(kGasBytes) * nsph + std::uint64_t(kDarkBytes) * ndark + std::uint64_t(kStarBytes) * nstar;
    std::size_t header;
    if (bytes.size() == kPaddedHeaderBytes + body) header = kPaddedHeaderBytes;
    else if (bytes.size() == kHeaderBytes + body) header = kHeaderBytes;
    else if (bytes.size() > kPaddedHeaderBytes + body)
        throw std::runtime_error(source + ": TIPSY file is " + std::to_string(bytes.size()) + " bytes, but its header (" +
                                 std::to_string(nsph) + " gas, " + std::to_string(ndark) + " dark, " + std::to_string(nstar) +
                                 " star) accounts for " + std::to_string(kPaddedHeaderBytes + body) +
                                 "; extra data from byte offset " + std::to_string(kPaddedHeaderBytes + body) +
                                 " (double-precision TIPSY variants are not supported)");
    else {
        // Short: a padded header has zeros in bytes 28..31, an unpadded one the first mass there.
        const bool pad_zero = bytes.size() >= kPaddedHeaderBytes &&
                              bytes.substr(kHeaderBytes, 4) == std::string_view("\0\0\0\0", 4);
        throw std::runtime_error(truncation_message(source, pad_zero ? kPaddedHeaderBytes : kHeaderBytes, kinds, bytes.size()));
    }

    check_body_count(std::uint64_t(nbodies), source, "nbodies (TIPSY header)");
    check_record_byte_order(bytes, header, kinds, order, source);

    State state;
    state.resize(std::size_t(nbodies));
    state.time = time;
    in.seek(header);
    std::size_t k = 0;
    for (const Kind& kind : kinds) {
        for (std::size_t i = 0; i < kind.count; ++i, ++k) {
            const std::size_t at = in.offset();
            float f[7];
            for (float& x : f) x = in.get<float>(kind.name);
            in.seek(at + kind.bytes);  // skip the fields we have no use for (rho, temp, eps, phi, ...)
            const double position[3] = {f[1], f[2], f[3]}, velocity[3] = {f[4], f[5], f[6]};
            if (const auto problem = body_problem(position, velocity, f[0]))
                throw std::runtime_error(source + ": " + kind.name + " particle " + std::to_string(i) + " at byte offset " +
                                         std::to_string(at) + " has " + *problem);
            state.pos_mass[k] = {f[1], f[2], f[3], f[0]};
            state.velocity[k] = {f[4], f[5], f[6], 0.0f};
            state.component[k] = kind.label;
        }
    }
    if (info) {
        info->endian = order == Order::Little ? Endian::Little : Endian::Big;
        info->padded_header = header == kPaddedHeaderBytes;
        info->gas = std::size_t(nsph);
        info->dark = std::size_t(ndark);
        info->star = std::size_t(nstar);
    }
    return state;
}

State read_tipsy(const std::string& path, TipsyInfo* info) {
    const std::string bytes = read_input_file(path, "TIPSY");
    return decode_tipsy(bytes, path, info);
}

std::string encode_tipsy(const State& state, const TipsyWriteOptions& options) {
    state.validate();
    if (state.size() > std::size_t(std::numeric_limits<std::int32_t>::max()))
        throw std::invalid_argument("TIPSY: more particles than its 32-bit counts can hold");
    std::size_t ndark = 0;
    for (Component c : state.component) ndark += c == Component::Halo;
    const std::size_t nstar = state.size() - ndark;
    detail::Writer out(options.endian == Endian::Little ? Order::Little : Order::Big);
    out.bytes().reserve(kPaddedHeaderBytes + kDarkBytes * ndark + kStarBytes * nstar);
    out.put<double>(state.time);
    out.put<std::int32_t>(std::int32_t(state.size()));
    out.put<std::int32_t>(3);
    out.put<std::int32_t>(0);
    out.put<std::int32_t>(std::int32_t(ndark));
    out.put<std::int32_t>(std::int32_t(nstar));
    if (options.padded_header) out.put<std::int32_t>(0);
    for (int pass = 0; pass < 2; ++pass) {
        const bool dark = pass == 0;
        for (std::size_t i = 0; i < state.size(); ++i) {
            if ((state.component[i] == Component::Halo) != dark) continue;
            const Vec4f& p = state.pos_mass[i];
            const Vec4f& v = state.velocity[i];
            for (float x : {p.w, p.x, p.y, p.z, v.x, v.y, v.z}) out.put<float>(x);
            if (!dark) {
                out.put<float>(0.0f);  // metals
                out.put<float>(0.0f);  // tform
            }
            out.put<float>(options.softening);  // eps
            out.put<float>(0.0f);               // phi
        }
    }
    return std::move(out.bytes());
}

void write_tipsy(const std::string& path, const State& state, const TipsyWriteOptions& options) {
    const std::string bytes = encode_tipsy(state, options);
    write_file_atomically(path, [&](std::ostream& out) { out.write(bytes.data(), std::streamsize(bytes.size())); });
}

}  // namespace nbody::io
