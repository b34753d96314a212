#include "open_dialog.hpp"

#include <algorithm>
#include <cctype>
#include <cstdlib>

namespace fs = std::filesystem;

namespace nbody::app {

namespace {

std::string lower(std::string s) {
    for (char& c : s) c = char(std::tolower(static_cast<unsigned char>(c)));
    return s;
}

bool is_scene_file(const fs::path& path) { return lower(path.extension().string()) == ".toml"; }

bool is_typed_path(const std::string& filter) {
    return filter.find('/') != std::string::npos || (!filter.empty() && filter[0] == '~');
}

}  // namespace

bool is_openable_file(const fs::path& path) {
    const std::string ext = lower(path.extension().string());
    for (const char* e : {".toml", ".csv", ".tipsy", ".std", ".bin", ".nbsnap"})
        if (ext == e) return true;
    return false;
}

FileBrowser::FileBrowser(const fs::path& folder) {
    if (!go_to(folder)) {
        // Start somewhere that can be read; the error says why the folder asked for could not.
        const std::string why = error_;
        std::error_code ec;
        go_to(fs::current_path(ec));
        error_ = why;
    }
}

bool FileBrowser::go_to(const fs::path& folder) {
    std::error_code ec;
    fs::path target = fs::weakly_canonical(fs::absolute(folder, ec), ec);
    if (ec || target.empty()) target = fs::absolute(folder, ec);
    std::vector<BrowserEntry> listed;
    fs::directory_iterator it(target, fs::directory_options::skip_permission_denied, ec);
    if (ec) {
        error_ = target.string() + ": cannot list this folder (" + ec.message() + ")";
        return false;
    }
    for (; it != fs::directory_iterator(); it.increment(ec)) {
        if (ec) break;  // a folder changing under us: show what was read
        const fs::directory_entry& e = *it;
        std::error_code e_ec;
        BrowserEntry entry;
        entry.name = e.path().filename().string();
        if (e.is_directory(e_ec)) {
            entry.kind = BrowserEntry::Kind::Folder;
        } else if (e.is_regular_file(e_ec) && is_openable_file(e.path())) {
            entry.kind = is_scene_file(e.path()) ? BrowserEntry::Kind::Scene : BrowserEntry::Kind::Particles;
            entry.bytes = e.file_size(e_ec);
        } else {
            continue;  // other files: the viewer could not open them
        }
        listed.push_back(std::move(entry));
    }
    // Folders first, then files, each by name with case ignored (ties by the exact name).
    std::sort(listed.begin(), listed.end(), [](const BrowserEntry& a, const BrowserEntry& b) {
        const bool fa = a.kind == BrowserEntry::Kind::Folder, fb = b.kind == BrowserEntry::Kind::Folder;
        if (fa != fb) return fa;
        const std::string la = lower(a.name), lb = lower(b.name);
        return la != lb ? la < lb : a.name < b.name;
    });
    if (target.has_relative_path()) listed.insert(listed.begin(), BrowserEntry{"..", BrowserEntry::Kind::Parent, 0});
    folder_ = target;
    entries_ = std::move(listed);
    error_.clear();
    filter_.clear();
    apply_filter();
    return true;
}

void FileBrowser::go_up() {
    if (folder_.has_relative_path()) go_to(folder_.parent_path());
}

void FileBrowser::set_filter(const std::string& filter) {
    filter_ = filter;
    error_.clear();
    apply_filter();
}

void FileBrowser::apply_filter() {
    visible_.clear();
    selected_ = 0;
    if (is_typed_path(filter_)) return;  // a path: Enter goes there; the listing does not match it
    const std::string f = lower(filter_);
    const bool show_hidden = !f.empty() && f[0] == '.';
    for (std::size_t i = 0; i < entries_.size(); ++i) {
        const BrowserEntry& e = entries_[i];
        if (e.kind == BrowserEntry::Kind::Parent) {
            if (f.empty()) visible_.push_back(i);
            continue;
        }
        if (e.name[0] == '.' && !show_hidden) continue;
        if (lower(e.name).find(f) != std::string::npos) visible_.push_back(i);
    }
    // Typing a name selects the first entry that starts with it, else the first that contains it.
    for (std::size_t k = 0; !f.empty() && k < visible_.size(); ++k)
        if (lower(entries_[visible_[k]].name).rfind(f, 0) == 0) {
            selected_ = k;
            break;
        }
}

std::optional<fs::path> FileBrowser::typed_path() const {
    if (!is_typed_path(filter_)) return std::nullopt;
    std::string text = filter_;
    if (text[0] == '~') {
        const char* home = std::getenv("HOME");
        if (!home || (text.size() > 1 && text[1] != '/')) return fs::path(text);  // ~user: not expanded
        text = std::string(home) + text.substr(1);
    }
    const fs::path p(text);
    return p.is_absolute() ? p : folder_ / p;
}

void FileBrowser::select(std::size_t position) {
    selected_ = visible_.empty() ? 0 : std::min(position, visible_.size() - 1);
}

void FileBrowser::move_selection(int delta) {
    if (visible_.empty()) return;
    const long long last = (long long)(visible_.size()) - 1;
    selected_ = std::size_t(std::clamp((long long)(selected_) + delta, 0LL, last));
}

const BrowserEntry* FileBrowser::selected_entry() const {
    return selected_ < visible_.size() ? &entries_[visible_[selected_]] : nullptr;
}

std::optional<std::string> FileBrowser::activate() {
    fs::path target;
    if (const auto typed = typed_path()) {
        target = *typed;
    } else if (const BrowserEntry* e = selected_entry()) {
        if (e->kind == BrowserEntry::Kind::Parent) {
            go_up();
            return std::nullopt;
        }
        target = folder_ / e->name;
    } else {
        error_ = filter_.empty() ? "nothing to open here" : "no entry matches '" + filter_ + "'";
        return std::nullopt;
    }
    std::error_code ec;
    if (fs::is_directory(target, ec)) {
        go_to(target);
        return std::nullopt;
    }
    if (!fs::exists(target, ec)) {
        error_ = target.string() + ": no such file or folder";
        return std::nullopt;
    }
    if (!fs::is_regular_file(target, ec)) {  // a FIFO named stars.csv would block the viewer in open()
        error_ = target.string() + ": not a regular file (a FIFO, a device or a socket); the viewer opens files";
        return std::nullopt;
    }
    if (!is_openable_file(target)) {
        error_ = target.string() + ": not a file the viewer opens (.toml scenes; particles .csv, .tipsy/.std/.bin, "
                                   ".nbsnap)";
        return std::nullopt;
    }
    return fs::absolute(target, ec).lexically_normal().string();
}

}  // namespace nbody::app
