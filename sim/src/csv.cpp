#include "nbody/sim/csv.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <deque>
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
#include "nbody/sim/io/body_check.hpp"
#include "nbody/sim/io/input_file.hpp"

namespace nbody {
namespace {

std::string_view trim(std::string_view s) {
    const auto is_space = [](char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; };
    while (!s.empty() && is_space(s.front())) s.remove_prefix(1);
    while (!s.empty() && is_space(s.back())) s.remove_suffix(1);
    return s;
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

// One row's fields, RFC 4180 style: a field may be quoted ("x", "1.5"; spreadsheets write
// headers so), a doubled quote inside a quoted field stands for one quote. A quoted field does
// not span lines (no column of this format holds text).
class RowFields {
public:
    const std::vector<std::string_view>& split(std::string_view line, const std::string& source, std::size_t line_no) {
        fields_.clear();
        unescaped_.clear();
        std::size_t i = 0;
        for (;;) {
            while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
            if (i < line.size() && line[i] == '"') {
                i = quoted(line, i, source, line_no);
            } else {
                const std::size_t comma = line.find(',', i);
                fields_.push_back(trim(line.substr(i, comma == std::string_view::npos ? comma : comma - i)));
                i = comma == std::string_view::npos ? line.size() : comma;
            }
            if (i >= line.size()) break;
            ++i;  // the comma
        }
        return fields_;
    }

private:
    // The quoted field opening at `open`; returns the index of the comma after it (or the end).
    std::size_t quoted(std::string_view line, std::size_t open, const std::string& source, std::size_t line_no) {
        std::string value;
        bool escaped = false;
        std::size_t j = open + 1;
        for (;; ++j) {
            if (j >= line.size())
                fail(source, line_no, "field " + std::to_string(fields_.size() + 1) + " opens a quote (\") that does not close on this line");
            if (line[j] != '"') {
                value += line[j];
                continue;
            }
            if (j + 1 < line.size() && line[j + 1] == '"') {
                value += '"';
                escaped = true;
                ++j;
                continue;
            }
            break;
        }
        if (escaped) {
            unescaped_.push_back(std::move(value));
            fields_.push_back(trim(unescaped_.back()));
        } else {
            fields_.push_back(trim(line.substr(open + 1, j - open - 1)));
        }
        std::size_t after = j + 1;
        while (after < line.size() && (line[after] == ' ' || line[after] == '\t' || line[after] == '\r')) ++after;
        if (after < line.size() && line[after] != ',')
            fail(source, line_no, "field " + std::to_string(fields_.size()) + ": text after its closing quote: " +
                                      quote_field(line.substr(open)));
        return after;
    }

    std::vector<std::string_view> fields_;
    std::deque<std::string> unescaped_;  // a deque: earlier views into it stay valid
};

enum class NumberRead { Ok, NotANumber, BeyondDouble };

// A decimal number as this format takes it: an optional sign ('+' too), digits, an exponent.
// Underflow rule: a value smaller than the smallest double (1e-400) reads as the nearest double
// (0 or a subnormal, as strtod rounds it); only overflow (1e999) is an error.
NumberRead read_number(std::string_view f, double& out) {
    if (f.size() > 1 && f[0] == '+' && f[1] != '-' && f[1] != '+') f.remove_prefix(1);
    if (f.empty()) return NumberRead::NotANumber;
    const auto [end, ec] = std::from_chars(f.data(), f.data() + f.size(), out);
    if (end != f.data() + f.size()) return NumberRead::NotANumber;
    if (ec == std::errc::result_out_of_range) {
        const std::string copy(f);
        out = std::strtod(copy.c_str(), nullptr);
        return std::isinf(out) ? NumberRead::BeyondDouble : NumberRead::Ok;
    }
    return ec == std::errc() ? NumberRead::Ok : NumberRead::NotANumber;
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

// The next line of `text` from `pos` (without its '\n'); false at the end.
bool next_line(std::string_view text, std::size_t& pos, std::string_view& line) {
    if (pos >= text.size()) return false;
    const std::size_t nl = text.find('\n', pos);
    line = text.substr(pos, nl == std::string_view::npos ? std::string_view::npos : nl - pos);
    pos = nl == std::string_view::npos ? text.size() : nl + 1;
    return true;
}

struct Header {
    std::array<int, 7> column{};
    int galaxy = -1, component = -1;
    std::size_t fields = 0;
};

Header read_header(const std::vector<std::string_view>& names, const std::string& source, std::size_t line_no) {
    for (std::size_t c = 0; c < names.size(); ++c)
        for (std::size_t d = c + 1; d < names.size(); ++d)
            if (!names[c].empty() && names[c] == names[d])
                fail(source, line_no, "the header names column " + quote_field(names[c]) + " twice (columns " +
                                          std::to_string(c + 1) + " and " + std::to_string(d + 1) +
                                          "); which one holds the data would be a guess");
    Header h;
    h.fields = names.size();
    for (std::size_t r = 0; r < kRequired.size(); ++r) {
        h.column[r] = -1;
        for (std::size_t c = 0; c < names.size(); ++c)
            if (names[c] == kRequired[r]) h.column[r] = static_cast<int>(c);
        if (h.column[r] < 0)
            fail(source, line_no, std::string("missing column '") + kRequired[r] +
                                      "' in the header (need x,y,z,vx,vy,vz,m; extra columns are allowed)");
    }
    for (std::size_t c = 0; c < names.size(); ++c) {
        if (names[c] == "galaxy") h.galaxy = static_cast<int>(c);
        if (names[c] == "component") h.component = static_cast<int>(c);
    }
    return h;
}

// A label column (galaxy, component): a whole number from 0 to `max`.
unsigned read_label(const std::vector<std::string_view>& fields, int col, const char* name, unsigned max,
                    const std::string& source, std::size_t line_no) {
    if (col < 0) return 0;
    std::string_view f = fields[static_cast<std::size_t>(col)];
    if (f.size() > 1 && f[0] == '+') f.remove_prefix(1);
    unsigned v = 0;
    const auto [end, ec] = std::from_chars(f.data(), f.data() + f.size(), v);
    if (ec != std::errc() || end != f.data() + f.size() || f.empty() || v > max)
        fail(source, line_no, std::string("column '") + name + "': " + quote_field(fields[std::size_t(col)]) +
                                  " is not a whole number from 0 to " + std::to_string(max) +
                                  (std::string_view(name) == "component" ? " (none, disk, bulge, halo, star)" : ""));
    return v;
}

}  // namespace

CsvContents read_csv_text(std::string_view text, const std::string& source) {
    std::size_t pos = 0, line_no = 0;
    std::string_view line;
    if (text.substr(0, 3) == "\xEF\xBB\xBF") pos = 3;  // UTF-8 BOM (Excel)
    RowFields row;
    // Header: the first line that is not blank and not a '#' comment.
    std::optional<Header> header;
    while (!header && next_line(text, pos, line)) {
        ++line_no;
        const std::string_view t = trim(line);
        if (t.empty() || t.front() == '#') continue;
        header = read_header(row.split(line, source, line_no), source, line_no);
    }
    if (!header) fail(source, line_no, "no header row; expected columns x,y,z,vx,vy,vz,m");

    CsvContents out;
    State& state = out.state;
    PreciseState& doubles = out.values;
    while (next_line(text, pos, line)) {
        ++line_no;
        const std::string_view t = trim(line);
        if (t.empty() || t.front() == '#') continue;
        const auto& fields = row.split(line, source, line_no);
        if (fields.size() != header->fields)
            fail(source, line_no, "expected " + std::to_string(header->fields) + " fields as in the header, found " +
                                      std::to_string(fields.size()));
        if (state.size() >= io::kMaxBodies)
            fail(source, line_no, "more than " + std::to_string(io::kMaxBodies) + " bodies (2^30, what nbody supports)");
        double wide[7];
        float values[7];
        for (std::size_t r = 0; r < kRequired.size(); ++r) {
            const std::string_view f = fields[static_cast<std::size_t>(header->column[r])];
            const NumberRead result = read_number(f, wide[r]);
            if (result == NumberRead::BeyondDouble)
                fail(source, line_no, std::string("column '") + kRequired[r] + "': " + quote_field(f) +
                                          " is beyond the range of a double");
            if (result == NumberRead::NotANumber)
                fail(source, line_no, std::string("column '") + kRequired[r] + "': " + quote_field(f) +
                                          " is not a number");
            if (std::isfinite(wide[r]) && std::abs(wide[r]) > double(std::numeric_limits<float>::max()))
                fail(source, line_no, std::string("column '") + kRequired[r] + "': " + quote_field(f) +
                                          " is beyond the range of float (magnitude up to 3.4e38), in which "
                                          "the simulation keeps its state; rescale the units");
            values[r] = float(wide[r]);
            if (!out.beyond_float) out.beyond_float = !written_as_float(values[r], wide[r]);
        }
        if (const auto problem = io::body_problem(wide, wide + 3, wide[6]))
            fail(source, line_no, *problem);
        const unsigned galaxy = read_label(fields, header->galaxy, "galaxy", 65535, source, line_no);
        const unsigned component =
            read_label(fields, header->component, "component", static_cast<unsigned>(Component::Star), source, line_no);
        doubles.position.push_back({wide[0], wide[1], wide[2]});
        doubles.velocity.push_back({wide[3], wide[4], wide[5]});
        doubles.mass.push_back(wide[6]);
        state.pos_mass.push_back({values[0], values[1], values[2], values[6]});
        state.velocity.push_back({values[3], values[4], values[5], 0.0f});
        state.galaxy.push_back(static_cast<std::uint16_t>(galaxy));
        state.component.push_back(static_cast<Component>(component));
    }
    if (state.empty()) fail(source, line_no, "no bodies (N = 0): the file has a header but no data rows");
    return out;
}

CsvContents read_csv_file(const std::string& path) {
    const std::string text = io::read_input_file(path, "CSV");
    return read_csv_text(text, path);
}

namespace {

State with_precise(CsvContents&& contents, std::optional<PreciseState>* precise) {
    if (precise) {
        if (contents.beyond_float)
            *precise = std::move(contents.values);
        else
            precise->reset();
    }
    return std::move(contents.state);
}

}  // namespace

State read_csv(std::istream& in, const std::string& source, std::optional<PreciseState>* precise) {
    std::ostringstream text;
    text << in.rdbuf();
    if (in.bad()) throw std::runtime_error(source + ": read error");
    return with_precise(read_csv_text(text.str(), source), precise);
}

State read_csv(const std::string& path, std::optional<PreciseState>* precise) {
    return with_precise(read_csv_file(path), precise);
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
