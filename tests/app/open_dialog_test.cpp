// The Open dialog's browser (app/viewer/scenes/open_dialog.cpp) without any UI: what a folder lists, how
// typing filters it, what Enter does.

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "open_dialog.hpp"
#include "test_support.hpp"

namespace nbody::app {
namespace {

namespace fs = std::filesystem;

void touch(const fs::path& p, std::size_t bytes = 0) {
    std::ofstream(p) << std::string(bytes, 'x');
}

// A folder as a user has it: scenes, particle files of each kind, other files, folders, hidden ones.
struct Tree {
    test::TempDir dir;
    Tree() {
        for (const char* f : {"runs", "Scenes", "b-folder.toml", ".git"}) fs::create_directory(dir.path() / f);
        touch(dir.path() / "antennae.toml", 10);
        touch(dir.path() / "Big.NBSNAP", 2048);
        touch(dir.path() / "stars.csv", 5);
        touch(dir.path() / "disk.std");
        touch(dir.path() / "halo.tipsy");
        touch(dir.path() / "raw.bin");
        touch(dir.path() / "notes.txt");
        touch(dir.path() / "movie.mp4");
        touch(dir.path() / ".hidden.csv");
        touch(dir.path() / "runs" / "late.nbsnap");
    }
};

std::vector<std::string> shown(const FileBrowser& b) {
    std::vector<std::string> names;
    for (std::size_t i : b.visible()) names.push_back(b.entries()[i].name);
    return names;
}

TEST(OpenDialog, ListsFoldersThenFilesTheViewerOpens) {
    Tree t;
    FileBrowser b(t.dir.path());
    EXPECT_EQ(b.folder(), fs::canonical(t.dir.path()));
    EXPECT_TRUE(b.error().empty());
    // ".." first, folders by name (case ignored; a folder named like a scene file is a folder),
    // then the openable files; no .txt or .mp4, nothing hidden.
    EXPECT_EQ(shown(b), (std::vector<std::string>{"..", "b-folder.toml", "runs", "Scenes", "antennae.toml",
                                                  "Big.NBSNAP", "disk.std", "halo.tipsy", "raw.bin", "stars.csv"}));
    const auto kind_of = [&](const std::string& name) {
        for (const BrowserEntry& e : b.entries())
            if (e.name == name) return e.kind;
        ADD_FAILURE() << name << " not listed";
        return BrowserEntry::Kind::Parent;
    };
    EXPECT_EQ(kind_of("b-folder.toml"), BrowserEntry::Kind::Folder);
    EXPECT_EQ(kind_of("antennae.toml"), BrowserEntry::Kind::Scene);
    EXPECT_EQ(kind_of("Big.NBSNAP"), BrowserEntry::Kind::Particles);
    for (const BrowserEntry& e : b.entries())
        if (e.name == "Big.NBSNAP") EXPECT_EQ(e.bytes, 2048u);
    EXPECT_EQ(b.selected_entry()->name, "..");

    EXPECT_TRUE(is_openable_file("a/b/run.NbSnap"));
    EXPECT_TRUE(is_openable_file("x.TOML"));
    EXPECT_FALSE(is_openable_file("x.toml.bak"));
    EXPECT_FALSE(is_openable_file("Makefile"));
}

TEST(OpenDialog, TypingFiltersCaseIgnoredAndSelectsTheBestMatch) {
    Tree t;
    FileBrowser b(t.dir.path());
    b.set_filter("S");  // contains an s, either case
    EXPECT_EQ(shown(b), (std::vector<std::string>{"runs", "Scenes", "Big.NBSNAP", "disk.std", "halo.tipsy",
                                                  "stars.csv"}));
    EXPECT_EQ(b.selected_entry()->name, "Scenes");  // the first that starts with it
    b.set_filter("toml");
    EXPECT_EQ(shown(b), (std::vector<std::string>{"b-folder.toml", "antennae.toml"}));
    EXPECT_EQ(b.selected_entry()->name, "b-folder.toml");
    b.set_filter("zzz");
    EXPECT_TRUE(b.visible().empty());
    EXPECT_EQ(b.selected_entry(), nullptr);
    EXPECT_FALSE(b.activate());
    EXPECT_NE(b.error().find("no entry matches 'zzz'"), std::string::npos) << b.error();
    b.set_filter(".");  // a leading dot shows the hidden entries too
    EXPECT_EQ(shown(b), (std::vector<std::string>{".git", "b-folder.toml", ".hidden.csv", "antennae.toml",
                                                  "Big.NBSNAP", "disk.std", "halo.tipsy", "raw.bin", "stars.csv"}));
    EXPECT_EQ(b.selected_entry()->name, ".git");
    b.set_filter("");
    EXPECT_EQ(b.visible().size(), 10u);
}

TEST(OpenDialog, ArrowsMoveTheSelectionWithinTheList) {
    Tree t;
    FileBrowser b(t.dir.path());
    b.move_selection(-3);
    EXPECT_EQ(b.selected(), 0u);
    b.move_selection(4);
    EXPECT_EQ(b.selected_entry()->name, "antennae.toml");
    b.move_selection(100);
    EXPECT_EQ(b.selected_entry()->name, "stars.csv");
    b.select(2);
    EXPECT_EQ(b.selected_entry()->name, "runs");
}

TEST(OpenDialog, EnterGoesIntoFoldersAndReturnsFiles) {
    Tree t;
    const fs::path root = fs::canonical(t.dir.path());
    FileBrowser b(t.dir.path());
    b.set_filter("run");
    ASSERT_EQ(b.selected_entry()->name, "runs");
    EXPECT_FALSE(b.activate());  // a folder: entered
    EXPECT_EQ(b.folder(), root / "runs");
    EXPECT_TRUE(b.filter().empty());
    EXPECT_EQ(shown(b), (std::vector<std::string>{"..", "late.nbsnap"}));
    ASSERT_EQ(b.selected_entry()->name, "..");
    EXPECT_FALSE(b.activate());  // "..": the parent
    EXPECT_EQ(b.folder(), root);

    b.set_filter("stars");
    const auto file = b.activate();
    ASSERT_TRUE(file);
    EXPECT_EQ(*file, (root / "stars.csv").string());
}

TEST(OpenDialog, APathTypedInFullIsOpenedOrGoneTo) {
    Tree t;
    const fs::path root = fs::canonical(t.dir.path());
    FileBrowser b("/");
    EXPECT_FALSE(b.entries().empty());  // the root lists its folders
    EXPECT_TRUE(std::none_of(b.entries().begin(), b.entries().end(),
                             [](const BrowserEntry& e) { return e.kind == BrowserEntry::Kind::Parent; }));

    b.set_filter((root / "runs").string() + "/");
    EXPECT_TRUE(b.visible().empty());  // a path is not matched against the listing
    ASSERT_TRUE(b.typed_path());
    EXPECT_FALSE(b.activate());
    EXPECT_EQ(b.folder(), root / "runs");

    b.set_filter("../antennae.toml");  // relative to the folder shown
    const auto file = b.activate();
    ASSERT_TRUE(file);
    EXPECT_EQ(*file, (root / "antennae.toml").string());

    b.set_filter("../missing.csv");
    EXPECT_FALSE(b.activate());
    EXPECT_NE(b.error().find("no such file or folder"), std::string::npos) << b.error();
    b.set_filter("../notes.txt");
    EXPECT_FALSE(b.activate());
    EXPECT_NE(b.error().find("not a file the viewer opens"), std::string::npos) << b.error();
    EXPECT_EQ(b.folder(), root / "runs");  // failures stay where they were

    if (const char* home = std::getenv("HOME")) {
        b.set_filter("~/");
        ASSERT_TRUE(b.typed_path());
        EXPECT_EQ(b.typed_path()->lexically_normal(), (fs::path(home) / "").lexically_normal());
    }
}

TEST(OpenDialog, AFolderThatCannotBeListedKeepsTheBrowserWhereItWas) {
    Tree t;
    FileBrowser b(t.dir.path());
    const fs::path before = b.folder();
    EXPECT_FALSE(b.go_to(t.dir.path() / "no-such-folder"));
    EXPECT_EQ(b.folder(), before);
    EXPECT_NE(b.error().find("no-such-folder"), std::string::npos) << b.error();
    EXPECT_EQ(b.visible().size(), 10u);

    // Started in a folder that is gone: the working folder, and the error says why.
    FileBrowser c(t.dir.path() / "gone");
    EXPECT_EQ(c.folder(), fs::current_path());
    EXPECT_NE(c.error().find("gone"), std::string::npos) << c.error();
}

}  // namespace
}  // namespace nbody::app
