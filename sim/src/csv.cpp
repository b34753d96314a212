#include "nbody/sim/csv.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <limits>
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

// A field for an error message: long ones (a whole line pasted into one column) are cut.
std::string quote_field(std::string_view f) {
    std::string out(1, '\'');
    out.append(f.substr(0, 40));
    if (f.size() <= 40) return out.append(1, '\'');
    return out.append("...' (").append(std::to_string(f.size())).append(" characters)");
}

// True when `text_value` (a CSV field read as double) is what this writer prints for the float
// `f` (%.9g) read back: the file carries no digits beyond float. Else it came from a double
// state (17 digits) or a person, and the doubles are worth keeping.
bool written_as_float(float f, double text_value) {
    char buf[32];
    const int len = std::snprintf(buf, sizeof buf, "%.9g", double(f));
    double back = 0;
    std::from_chars(buf, buf + len, back);
    return back == text_value;
}

constexpr std::array<const char*, 7> kRequired = {"x", "y", "z", "vx", "vy", "vz", "m"};

}  // namespace

State read_csv(std::istream& in, const std::string& source, std::optional<PreciseState>* precise) {
    std::string line;
    std::size_t line_no = 0;
    PreciseState doubles;
    bool beyond_float = false;  // some value has digits a float does not hold
    // Header: the first line that is not blank and not a '#' comment.
    std::vector<std::string_view> header;
    std::string header_line;
    while (std::getline(in, line)) {
        ++line_no;
        if (line_no == 1 && line.rfind("\xEF\xBB\xBF", 0) == 0) line.erase(0, 3);  // UTF-8 BOM (Excel)
        if (trim(line).empty() || trim(line).front() == '#') continue;
        header_line = line;
        header = split_commas(header_line);
        break;
    }
    if (header.empty()) fail(source, line_no, "no header row; expected columns x,y,z,vx,vy,vz,m");
    for (std::size_t c = 0; c < header.size(); ++c)
        for (std::size_t d = c + 1; d < header.size(); ++d)
            if (!header[c].empty() && header[c] == header[d])
                fail(source, line_no, "the header names column " + quote_field(header[c]) + " twice (columns " +
                                          std::to_string(c + 1) + " and " + std::to_string(d + 1) +
                                          "); which one holds the data would be a guess");

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
        double wide[7];
        float values[7];
        for (std::size_t r = 0; r < kRequired.size(); ++r) {
            const std::string_view f = fields[static_cast<std::size_t>(column[r])];
            const auto [end, ec] = std::from_chars(f.data(), f.data() + f.size(), wide[r]);
            if (ec == std::errc::result_out_of_range && end == f.data() + f.size())
                fail(source, line_no, std::string("column '") + kRequired[r] + "': " + quote_field(f) +
                                          " is beyond the range of a double");
            if (ec != std::errc() || end != f.data() + f.size() || f.empty())
                fail(source, line_no, std::string("column '") + kRequired[r] + "': " + quote_field(f) +
                                          " is not a number");
            if (!std::isfinite(wide[r]))
                fail(source, line_no, std::string("column '") + kRequired[r] + "' is not finite");
            if (std::abs(wide[r]) > double(std::numeric_limits<float>::max()))
                fail(source, line_no, std::string("column '") + kRequired[r] + "': " + quote_field(f) +
                                          " is beyond the range of float (magnitude up to 3.4e38), in which "
                                          "the simulation keeps its state; rescale the units");
            values[r] = float(wide[r]);
            if (precise && !beyond_float) beyond_float = !written_as_float(values[r], wide[r]);
        }
        if (values[6] < 0.0f) fail(source, line_no, "negative mass " + quote_field(fields[column[6]]));
        auto read_label = [&](int col, const char* name) -> unsigned {
            if (col < 0) return 0;
            const std::string_view f = fields[static_cast<std::size_t>(col)];
            unsigned v = 0;
            const auto [end, ec] = std::from_chars(f.data(), f.data() + f.size(), v);
            if (ec != std::errc() || end != f.data() + f.size() || f.empty())
                fail(source, line_no, std::string("column '") + name + "': " + quote_field(f) +
                                          " is not a non-negative integer");
            return v;
        };
        const unsigned galaxy = read_label(galaxy_col, "galaxy");
        const unsigned component = read_label(component_col, "component");
        if (galaxy > 65535) fail(source, line_no, "column 'galaxy' is above 65535");
        if (component > static_cast<unsigned>(Component::Star))
            fail(source, line_no, "column 'component' must be 0..4 (none, disk, bulge, halo, star)");
        if (precise) {
            doubles.position.push_back({wide[0], wide[1], wide[2]});
            doubles.velocity.push_back({wide[3], wide[4], wide[5]});
            doubles.mass.push_back(wide[6]);
        }
        state.pos_mass.push_back({values[0], values[1], values[2], values[6]});
        state.velocity.push_back({values[3], values[4], values[5], 0.0f});
        state.galaxy.push_back(static_cast<std::uint16_t>(galaxy));
        state.component.push_back(static_cast<Component>(component));
    }
    if (in.bad()) fail(source, line_no, "read error");
    if (state.empty()) fail(source, line_no, "no bodies (N = 0): the file has a header but no data rows");
    if (precise) {
        if (beyond_float)
            *precise = std::move(doubles);
        else
            precise->reset();
    }
    return state;
}

State read_csv(const std::string& path, std::optional<PreciseState>* precise) {
    std::error_code ec;
    if (std::filesystem::is_directory(path, ec)) throw std::runtime_error(path + ": is a folder, not a CSV file");
    std::ifstream in(path, std::ios::binary);
    if (!in) throw std::runtime_error("cannot open '" + path + "' for reading");
    return read_csv(in, path, precise);
}

void write_csv(std::ostream& out, const State& state, const PreciseState* precise, const std::string& comment) {
    if (precise && precise->size() != state.size())
        throw std::invalid_argument("write_csv: a double state of " + std::to_string(precise->size()) +
                                    " bodies for " + std::to_string(state.size()));
    if (!comment.empty()) {
        std::string line = comment;
        std::replace(line.begin(), line.end(), '\n', ' ');
        out << "# " << line << '\n';
    }
    bool labelled = false;
    for (std::size_t i = 0; i < state.size() && !labelled; ++i)
        labelled = state.galaxy[i] != 0 || state.component[i] != Component::Unspecified;
    out << (labelled ? "x,y,z,vx,vy,vz,m,galaxy,component\n" : "x,y,z,vx,vy,vz,m\n");
    // %.9g: nine significant digits identify every float exactly, so files round-trip bit for bit.
    char buf[256];
    for (std::size_t i = 0; i < state.size(); ++i) {
        const Vec4f& p = state.pos_mass[i];
        const Vec4f& v = state.velocity[i];
        // %.17g: seventeen significant digits identify every double.
        int len = precise ? std::snprintf(buf, sizeof buf, "%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g",
                                          precise->position[i].x, precise->position[i].y, precise->position[i].z,
                                          precise->velocity[i].x, precise->velocity[i].y, precise->velocity[i].z,
                                          precise->mass[i])
                          : std::snprintf(buf, sizeof buf, "%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g", p.x, p.y, p.z, v.x,
                                          v.y, v.z, p.w);
        out.write(buf, len);
        if (labelled) {
            len = std::snprintf(buf, sizeof buf, ",%u,%u", unsigned(state.galaxy[i]),
                                unsigned(static_cast<std::uint8_t>(state.component[i])));
            out.write(buf, len);
        }
        out.put('\n');
    }
}

void write_csv(const std::string& path, const State& state, const PreciseState* precise, const std::string& comment) {
    write_file_atomically(path, [&](std::ostream& out) { write_csv(out, state, precise, comment); });
}

}  // namespace nbody
