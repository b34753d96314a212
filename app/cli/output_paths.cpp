#include "output_paths.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string_view>
#include <vector>

namespace nbody::app {

namespace fs = std::filesystem;

namespace {

const char* kind_name(OutputKind kind) {
    switch (kind) {
        case OutputKind::Csv: return "CSV";
        case OutputKind::Tipsy: return "TIPSY";
        case OutputKind::Snapshot: return "nbody snapshot";
        case OutputKind::Png: return "PNG image";
        case OutputKind::Mp4: return "MP4 video";
        case OutputKind::Json: return "JSON";
        case OutputKind::Text: return "text";
        case OutputKind::Folder: return "folder";
    }
    return "?";
}

// The extensions a kind is written under; the first is the one suggested.
std::vector<std::string> extensions_of(OutputKind kind) {
    switch (kind) {
        case OutputKind::Csv: return {".csv"};
        case OutputKind::Tipsy: return {".tipsy", ".std", ".bin"};
        case OutputKind::Snapshot: return {".nbsnap"};
        case OutputKind::Png: return {".png"};
        case OutputKind::Mp4: return {".mp4"};
        case OutputKind::Json: return {".json"};
        case OutputKind::Text:
        case OutputKind::Folder: return {};
    }
    return {};
}

std::string lower_extension(const std::string& path) {
    std::string ext = fs::path(path).extension().string();
    std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return char(std::tolower(c)); });
    return ext;
}

std::string human_bytes(std::uint64_t bytes) {
    char buf[32];
    if (bytes >= (1ull << 30))
        std::snprintf(buf, sizeof buf, "%.1f GiB", double(bytes) / double(1ull << 30));
    else if (bytes >= (1ull << 20))
        std::snprintf(buf, sizeof buf, "%.1f MiB", double(bytes) / double(1ull << 20));
    else
        std::snprintf(buf, sizeof buf, "%llu bytes", static_cast<unsigned long long>(bytes));
    return buf;
}

// What a path that exists but is neither a regular file nor a folder is; empty for those two.
std::string special_file_type(const fs::path& path) {
    std::error_code ec;
    switch (fs::status(path, ec).type()) {
        case fs::file_type::fifo: return "a FIFO (named pipe)";
        case fs::file_type::character: return "a character device";
        case fs::file_type::block: return "a block device";
        case fs::file_type::socket: return "a socket";
        case fs::file_type::unknown: return "a file of unknown type";
        default: return "";
    }
}

bool same_file(const std::string& a, const std::string& b) {
    std::error_code ec;
    if (fs::exists(a, ec) && fs::exists(b, ec)) return fs::equivalent(a, b, ec) && !ec;
    const fs::path ca = fs::weakly_canonical(a, ec);
    if (ec) return false;
    const fs::path cb = fs::weakly_canonical(b, ec);
    return !ec && ca == cb;
}

// Creates `folder` if missing (with its parents) and proves a new file can be made in it.
void prepare_folder(const fs::path& folder, const std::string& what) {
    std::error_code ec;
    if (!fs::exists(folder, ec)) {
        fs::create_directories(folder, ec);
        if (ec) throw std::invalid_argument("cannot create the folder '" + folder.string() + "' " + what + ": " + ec.message());
        std::fprintf(stderr, "nbody: created the folder '%s' %s\n", folder.string().c_str(), what.c_str());
    } else if (!fs::is_directory(folder, ec)) {
        const std::string type = special_file_type(folder);
        throw std::invalid_argument("'" + folder.string() + "' " + what + " is " + (type.empty() ? "a file" : type) +
                                    ", not a folder");
    }
    // Permissions alone do not say (root ignores them; a read-only mount does not): make a file.
    const fs::path probe = folder / (".nbody-write-test-" + std::to_string(::getpid()));
    const int fd = ::open(probe.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd < 0) {
        const int err = errno;
        throw std::invalid_argument("cannot write into the folder '" + folder.string() + "' " + what + ": " +
                                    std::strerror(err));
    }
    ::close(fd);
    ::unlink(probe.c_str());
}

bool same_kind(OutputKind kind, const std::string& existing) {
    if (existing == "empty") return true;
    switch (kind) {
        case OutputKind::Csv: return existing == "CSV";
        case OutputKind::Text: return existing == "text" || existing == "CSV";
        default: return existing == kind_name(kind);
    }
}

// A folder, a FIFO, a device or a socket where a file is to be written. Before anything opens the
// path: opening a FIFO to look inside blocks until a writer comes.
void refuse_what_is_not_a_file(const std::string& option, const std::string& path, OutputKind kind) {
    std::error_code ec;
    if (const std::string type = special_file_type(path); !type.empty())
        throw std::invalid_argument(option + " '" + path + "' exists and is " + type +
                                    ", not a regular file; nbody writes only regular files (remove it or choose "
                                    "another name)");
    if (!path.empty() && (path.back() == '/' || fs::is_directory(path, ec))) {
        const std::vector<std::string> extensions = extensions_of(kind);
        throw std::invalid_argument(option + " '" + path + "' is a folder; give a file name (e.g. " +
                                    (fs::path(path) / ("out" + (extensions.empty() ? "" : extensions[0]))).string() +
                                    ")");
    }
}

// The checks that create nothing: run for every output before any folder is made, so that a
// refused output leaves nothing behind.
void check_name(const OutputRequest& out, const std::vector<std::string>& inputs, bool overwrite) {
    std::error_code ec;
    const fs::path path(out.path);
    const bool file = out.kind != OutputKind::Folder;
    if (file) refuse_what_is_not_a_file(out.option, out.path, out.kind);
    for (const std::string& input : inputs) {
        if (input.empty() || !same_file(input, out.path)) continue;
        if (!overwrite)
            throw std::invalid_argument(out.option + " '" + out.path + "' is an input of this command ('" + input +
                                        "'); add --overwrite to replace it (it is read whole before anything "
                                        "is written)");
    }
    if (file && fs::exists(path, ec)) {
        const std::string existing = describe_existing_file(out.path);
        if (!same_kind(out.kind, existing) && !overwrite)
            throw std::invalid_argument(out.option + " '" + out.path + "' exists and holds " + existing +
                                        ", not " + kind_name(out.kind) + "; add --overwrite to replace it");
    }
    if (file) (void)output_kind_for(out.option, out.path, {out.kind});
}

// The folder made (or proved writable) and the free space, once every name has passed.
void prepare_place(const OutputRequest& out) {
    const fs::path path(out.path);
    const fs::path folder =
        out.kind == OutputKind::Folder ? path : (path.has_parent_path() ? path.parent_path() : fs::path("."));
    prepare_folder(folder, "for " + out.option + " '" + out.path + "'");
    if (out.expected_bytes == 0) return;
    std::error_code ec;
    const fs::space_info space = fs::space(folder, ec);
    // A file being replaced gives its space back only after the rename: count it as taken.
    if (!ec && space.available < out.expected_bytes)
        throw std::invalid_argument(out.option + " '" + out.path + "' needs about " + human_bytes(out.expected_bytes) +
                                    ", but its file system has " + human_bytes(space.available) + " free");
}

}  // namespace

OutputKind output_kind_for(const std::string& option, const std::string& path,
                           std::initializer_list<OutputKind> accepted) {
    refuse_what_is_not_a_file(option, path, *accepted.begin());
    const std::string ext = lower_extension(path);
    std::string names;
    for (const OutputKind kind : accepted) {
        const std::vector<std::string> exts = extensions_of(kind);
        if (exts.empty()) return kind;  // text: any name
        std::string list;
        for (const std::string& e : exts) {
            if (e == ext) return kind;
            list += (list.empty() ? "" : "/") + e;
        }
        names += (names.empty() ? "" : ", ") + list + " (" + kind_name(kind) + ")";
    }
    throw std::invalid_argument(option + " '" + path + "': " +
                                (ext.empty() ? std::string("the name has no extension") : "'" + ext + "' is not a format " + option + " writes") +
                                "; it writes " + names + ": give a name ending in one of those");
}

OutputKind particle_output_kind(const std::string& path, const std::string& option) {
    return output_kind_for(option, path, {OutputKind::Csv, OutputKind::Tipsy, OutputKind::Snapshot});
}

std::uint64_t particle_file_bytes(OutputKind kind, std::uint64_t bodies, bool precise, bool hermite) {
    // Per body: a CSV line of 7 numbers (9 or 17 significant digits), a snapshot's 35 bytes (plus
    // the double state, plus a Hermite run's accelerations, derivatives, times and levels), a
    // TIPSY dark-matter record.
    switch (kind) {
        case OutputKind::Csv: return 1024 + bodies * (precise ? 180 : 110);
        case OutputKind::Snapshot: return 1024 + bodies * (35 + (precise ? 56 : 0) + (hermite ? 128 : 0));
        default: return 1024 + bodies * 48;
    }
}

CLI::Validator output_path_check() {
    return CLI::Validator(
        [](std::string& path) -> std::string {
            return path.empty() ? "an empty path names no file; give a file name (or leave the option out)" : "";
        },
        "PATH", "output_path");
}

std::string describe_existing_file(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) return "an unreadable file";
    char buf[4096];
    in.read(buf, sizeof buf);
    const std::string_view head(buf, std::size_t(in.gcount()));
    if (head.empty()) return "empty";
    if (head.substr(0, 8) == std::string_view("\x89PNG\r\n\x1a\n", 8)) return "PNG image";
    if (head.substr(0, 8) == std::string_view("\x89NBS\r\n\x1a\n", 8)) return "nbody snapshot";
    if (head.size() >= 8 && head.substr(4, 4) == "ftyp") return "MP4 video";
    const bool text = head.find('\0') == std::string_view::npos;
    if (!text) {
        // TIPSY header: f64 time, i32 nbodies, i32 ndim (3), in either byte order.
        if (head.size() >= 32) {
            const unsigned char* d = reinterpret_cast<const unsigned char*>(head.data()) + 12;
            if ((d[0] == 3 && d[1] == 0 && d[2] == 0 && d[3] == 0) || (d[0] == 0 && d[1] == 0 && d[2] == 0 && d[3] == 3))
                return "TIPSY";
        }
        return "binary data";
    }
    std::string_view t = head;
    if (t.substr(0, 3) == "\xEF\xBB\xBF") t.remove_prefix(3);  // UTF-8 BOM
    const std::size_t first = t.find_first_not_of(" \t\r\n");
    if (first != std::string_view::npos && (t[first] == '{' || t[first] == '[')) {
        // '[' also starts a TOML table: JSON arrays hold values, not "[name]" lines.
        if (t[first] == '{' || t.find('=') == std::string_view::npos) return "JSON";
    }
    // CSV: the first line that is not a comment names columns separated by commas.
    std::size_t pos = 0;
    while (pos < t.size()) {
        std::size_t end = t.find('\n', pos);
        if (end == std::string_view::npos) end = t.size();
        const std::string_view line = t.substr(pos, end - pos);
        const std::size_t c = line.find_first_not_of(" \t\r");
        if (c != std::string_view::npos && line[c] != '#')
            return line.find(',') != std::string_view::npos && line.find('=') == std::string_view::npos ? "CSV" : "text";
        pos = end + 1;
    }
    return "text";
}

void check_outputs(const std::vector<OutputRequest>& outputs, const std::vector<std::string>& inputs,
                   bool overwrite) {
    for (const OutputRequest& out : outputs)
        if (!out.path.empty()) check_name(out, inputs, overwrite);
    // Two outputs of one command on one path would overwrite each other.
    for (std::size_t i = 0; i < outputs.size(); ++i)
        for (std::size_t j = i + 1; j < outputs.size(); ++j)
            if (!outputs[i].path.empty() && !outputs[j].path.empty() && same_file(outputs[i].path, outputs[j].path))
                throw std::invalid_argument(outputs[i].option + " and " + outputs[j].option + " name the same path '" +
                                            outputs[i].path + "'");
    for (const OutputRequest& out : outputs)
        if (!out.path.empty()) prepare_place(out);
}

CLI::Option* add_overwrite_flag(CLI::App& cmd, bool& overwrite) {
    return cmd.add_flag("--overwrite", overwrite,
                        "Allow replacing an output that exists and holds another kind of file, or that is one "
                        "of the inputs (an earlier result of the same kind is always replaced, atomically)");
}

}  // namespace nbody::app
