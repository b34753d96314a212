#pragma once
// The Open dialog's file browser, without any UI: which entries a folder shows, how typing
// filters them, what Enter does. The ImGui window around it is open_dialog_panel.cpp; this part
// is tested on its own (tests/app).
//
// A folder lists ".." (unless it is the root), its sub-folders, then the files the viewer can
// open (scene files .toml; particles .csv, .tipsy/.std/.bin, .nbsnap), each group by name
// without regard to case. Hidden entries (a leading dot) are listed only while the filter starts
// with a dot. The filter keeps the entries whose name contains it, case ignored; a filter with a
// '/' (or a leading '~') is a path typed in full, which Enter opens or goes to.

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace nbody::app {

// What the viewer opens (make_scene): a scene file or a particle file, by extension, case ignored.
bool is_openable_file(const std::filesystem::path& path);

struct BrowserEntry {
    enum class Kind { Parent, Folder, Scene, Particles };
    std::string name;
    Kind kind = Kind::Folder;
    std::uintmax_t bytes = 0;  // files only
};

class FileBrowser {
  public:
    explicit FileBrowser(const std::filesystem::path& folder);

    // Lists `folder` (made absolute). A folder that cannot be read keeps the browser where it
    // was and sets error(); false then.
    bool go_to(const std::filesystem::path& folder);
    void go_up();
    void refresh() { go_to(folder_); }
    const std::filesystem::path& folder() const { return folder_; }
    const std::string& error() const { return error_; }

    const std::vector<BrowserEntry>& entries() const { return entries_; }
    // Sets the filter; the selection goes back to the first visible entry.
    void set_filter(const std::string& filter);
    const std::string& filter() const { return filter_; }
    // Indices into entries() of those the filter keeps, in listing order.
    const std::vector<std::size_t>& visible() const { return visible_; }
    // When the filter is a typed path: that path (resolved against the folder, ~ expanded).
    std::optional<std::filesystem::path> typed_path() const;

    // The selected position in visible() (0 when the list is empty); moves clamp to the list.
    std::size_t selected() const { return selected_; }
    void select(std::size_t position);
    void move_selection(int delta);
    const BrowserEntry* selected_entry() const;

    // Enter: a typed path or the selected entry. A folder (or "..") is entered and nothing is
    // returned; a file the viewer opens is returned as a full path. A typed path that does not
    // exist, or a file of another kind, sets error() and returns nothing.
    std::optional<std::string> activate();

  private:
    void apply_filter();

    std::filesystem::path folder_;
    std::vector<BrowserEntry> entries_;
    std::vector<std::size_t> visible_;
    std::string filter_, error_;
    std::size_t selected_ = 0;
};

// The Open dialog (Ctrl+O, File > Open): an ImGui window around a FileBrowser, driven from the
// keyboard (type to filter, Up/Down/PageUp/PageDown to select, Enter to open or enter a folder,
// Backspace on an empty filter for the parent folder, Esc to close) or the mouse (double-click).
// Drawn by open_dialog_panel.cpp.
class OpenDialog {
  public:
    struct Place {
        std::string label, folder;
    };
    // Draws the dialog while *open. `places` are folders offered as buttons (the working folder,
    // the scene folders). Returns the file chosen, and closes the dialog, when one is.
    std::optional<std::string> draw(bool* open, const std::vector<Place>& places);

  private:
    std::optional<FileBrowser> browser_;  // made at the first draw (the working folder), then kept
    bool was_open_ = false;
    bool scroll_to_selection_ = false;
};

}  // namespace nbody::app
