#include "nbody/render/assets.hpp"

#include <cstdlib>

namespace fs = std::filesystem;

namespace nbody::render {

fs::path executable_dir() {
    std::error_code ec;
    const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
    return ec ? fs::path() : exe.parent_path();
}

std::vector<fs::path> run_time_dirs(const char* env_var, const std::string& folder) {
    std::vector<fs::path> candidates;
    if (const char* env = std::getenv(env_var); env && *env) candidates.emplace_back(env);
    if (fs::path exe = executable_dir(); !exe.empty()) candidates.push_back(exe / folder);
    candidates.push_back(fs::path(NBODY_RENDER_SOURCE_DIR) / folder);
    std::vector<fs::path> dirs;
    std::error_code ec;
    for (auto& dir : candidates)
        if (fs::is_directory(dir, ec)) dirs.push_back(std::move(dir));
    return dirs;
}

std::vector<fs::path> asset_search_dirs() { return run_time_dirs("NBODY_ASSET_DIR", "assets"); }

fs::path find_asset(const std::string& relative) {
    std::error_code ec;
    for (const auto& dir : asset_search_dirs())
        if (fs::is_regular_file(dir / relative, ec)) return dir / relative;
    return {};
}

}  // namespace nbody::render
