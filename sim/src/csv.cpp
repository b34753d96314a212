#include "nbody/sim/csv.hpp"

#include <array>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <istream>
#include <ostream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "nbody/sim/atomic_file.hpp"

namespace nbody {
namespace {

std::string_view trim(std::string_view s) {
    const auto is_space = [](char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; };
    while (!s.empty() && is_space(s.front())) s.remove_prefix(1);
    while (!s.empty() && is_space(s.back())) s.remove_suffix(1);
    return s;
}

std::vector<std::string_view> split_commas(std::string_view line) {
    std::vector<std::string_view> fields;
    std::size_t start = 0;
    for (;;) {
        const std::size_t comma = line.find(',', start);
        fields.push_back(trim(line.substr(start, comma == std::string_view::npos ? comma : comma - start)));
        if (comma == std::string_view::npos) break;
        start = comma + 1;
    }
    return fields;
}

[[noreturn]] void fail(const std::string& source, std::size_t line, const std::string& what) {
    throw std::runtime_error(source + ":" + std::to_string(line) + ": " + what);
}

constexpr std::array<const char*, 7> kRequired = {"x", "y", "z", "vx", "vy", "vz", "m"};

}  // namespace

State read_csv(std::istream& in, const std::string& source) {
    std::string line;
    std::size_t line_no = 0;
    // Header: the first line that is not blank and not a '#' comment.
    std::vector<std::string_view> header;
    std::string header_line;
    while (std::getline(in, line)) {
        ++line_no;
        const std::string_view t = trim(line);
        if (t.empty() || t.front() == '#') continue;
        header_line = line;
        header = split_commas(header_line);
        break;
    }
    if (header.empty()) fail(source, line_no, "no header row; expected columns x,y,z,vx,vy,vz,m");

    std::array<int, 7> column{};
    for (std::size_t r = 0; r < kRequired.size(); ++r) {
        column[r] = -1;
        for (std::size_t c = 0; c < header.size(); ++c)
            if (header[c] == kRequired[r]) column[r] = static_cast<int>(c);
        if (column[r] < 0)
            fail(source, line_no, std::string("missing column '") + kRequired[r] +
                                      "' in the header (need x,y,z,vx,vy,vz,m; extra columns are allowed)");
    }
    int galaxy_col = -1, component_col = -1;
    for (std::size_t c = 0; c < header.size(); ++c) {
        if (header[c] == "galaxy") galaxy_col = static_cast<int>(c);
        if (header[c] == "component") component_col = static_cast<int>(c);
    }

    State state;
    while (std::getline(in, line)) {
        ++line_no;
        const std::string_view t = trim(line);
        if (t.empty() || t.front() == '#') continue;
        const auto fields = split_commas(line);
        if (fields.size() != header.size())
            fail(source, line_no, "expected " + std::to_string(header.size()) + " fields as in the header, found " +
                                      std::to_string(fields.size()));
        float values[7];
        for (std::size_t r = 0; r < kRequired.size(); ++r) {
            const std::string_view f = fields[static_cast<std::size_t>(column[r])];
            const auto [end, ec] = std::from_chars(f.data(), f.data() + f.size(), values[r]);
            if (ec != std::errc() || end != f.data() + f.size() || f.empty())
                fail(source, line_no, std::string("column '") + kRequired[r] + "': '" + std::string(f) +
                                          "' is not a number");
            if (!std::isfinite(values[r]))
                fail(source, line_no, std::string("column '") + kRequired[r] + "' is not finite");
        }
        if (values[6] < 0.0f) fail(source, line_no, "negative mass " + std::string(fields[column[6]]));
        auto read_label = [&](int col, const char* name) -> unsigned {
            if (col < 0) return 0;
            const std::string_view f = fields[static_cast<std::size_t>(col)];
            unsigned v = 0;
            const auto [end, ec] = std::from_chars(f.data(), f.data() + f.size(), v);
            if (ec != std::errc() || end != f.data() + f.size() || f.empty())
                fail(source, line_no, std::string("column '") + name + "': '" + std::string(f) +
                                          "' is not a non-negative integer");
            return v;
        };
        const unsigned galaxy = read_label(galaxy_col, "galaxy");
        const unsigned component = read_label(component_col, "component");
        if (galaxy > 65535) fail(source, line_no, "column 'galaxy' is above 65535");
        if (component > static_cast<unsigned>(Component::Star))
            fail(source, line_no, "column 'component' must be 0..4 (none, disk, bulge, halo, star)");
        state.pos_mass.push_back({values[0], values[1], values[2], values[6]});
        state.velocity.push_back({values[3], values[4], values[5], 0.0f});
        state.galaxy.push_back(static_cast<std::uint16_t>(galaxy));
        state.component.push_back(static_cast<Component>(component));
    }
    if (in.bad()) fail(source, line_no, "read error");
    if (state.empty()) fail(source, line_no, "no bodies (N = 0): the file has a header but no data rows");
    return state;
}

State read_csv(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw std::runtime_error("cannot open '" + path + "' for reading");
    return read_csv(in, path);
}

void write_csv(std::ostream& out, const State& state) {
    bool labelled = false;
    for (std::size_t i = 0; i < state.size() && !labelled; ++i)
        labelled = state.galaxy[i] != 0 || state.component[i] != Component::Unspecified;
    out << (labelled ? "x,y,z,vx,vy,vz,m,galaxy,component\n" : "x,y,z,vx,vy,vz,m\n");
    // %.9g: nine significant digits identify every float exactly, so files round-trip bit for bit.
    char buf[256];
    for (std::size_t i = 0; i < state.size(); ++i) {
        const Vec4f& p = state.pos_mass[i];
        const Vec4f& v = state.velocity[i];
        int len = std::snprintf(buf, sizeof buf, "%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g", p.x, p.y, p.z, v.x, v.y,
                                v.z, p.w);
        out.write(buf, len);
        if (labelled) {
            len = std::snprintf(buf, sizeof buf, ",%u,%u", unsigned(state.galaxy[i]),
                                unsigned(static_cast<std::uint8_t>(state.component[i])));
            out.write(buf, len);
        }
        out.put('\n');
    }
}

void write_csv(const std::string& path, const State& state) {
    write_file_atomically(path, [&](std::ostream& out) { write_csv(out, state); });
}

}  // namespace nbody
