#pragma once
// Run-time data that is not shaders or scenes (UI font, window icon, colour maps, sample particle
// files) lives in the top-level assets/ folder, copied next to the executable by the build.

#include <filesystem>
#include <string>
#include <vector>

namespace nbody::render {

// The folder holding the running executable; empty when /proc/self/exe cannot be read.
std::filesystem::path executable_dir();

// The folders named `folder` (shaders, assets) that exist, in the order run-time data is looked
// for: $`env_var` (when set), <executable dir>/`folder`, the source tree's `folder`.
std::vector<std::filesystem::path> run_time_dirs(const char* env_var, const std::string& folder);

// Where assets are looked for, first match wins: $NBODY_ASSET_DIR, <executable dir>/assets,
// the source tree's assets/. Only folders that exist are listed.
std::vector<std::filesystem::path> asset_search_dirs();

// The first `dir / relative` that is a regular file, or an empty path when none is.
std::filesystem::path find_asset(const std::string& relative);

}  // namespace nbody::render
