#include "nbody/sim/tree/walk_room.hpp"

#include <charconv>
#include <stdexcept>

namespace nbody {

namespace {
constexpr std::string_view kSlicesPrefix = "slices:";
}

std::string check_walk_room(const WalkRoom& room) {
    if (room.kind != WalkRoom::Kind::Slices) return {};
    if (room.slices < WalkRoom::kMinSlices || room.slices > WalkRoom::kMaxSlices)
        return "the number of slices must be " + std::to_string(WalkRoom::kMinSlices) + " to " +
               std::to_string(WalkRoom::kMaxSlices) + " (got " + std::to_string(room.slices) + ")";
    return {};
}

std::string walk_room_name(const WalkRoom& room) {
    switch (room.kind) {
        case WalkRoom::Kind::None: return "none";
        case WalkRoom::Kind::Block: return "block";
        case WalkRoom::Kind::Slices: return std::string(kSlicesPrefix) + std::to_string(room.slices);
    }
    return "unknown";
}

WalkRoom parse_walk_room(std::string_view text) {
    const auto refuse = [&](const std::string& why) {
        return std::invalid_argument("walk room '" + std::string(text) + "': " + why +
                                     "; supported: none, block, slices:N (N " + std::to_string(WalkRoom::kMinSlices) +
                                     " to " + std::to_string(WalkRoom::kMaxSlices) + ")");
    };
    if (text == "none") return {};
    if (text == "block") return {WalkRoom::Kind::Block, 1};
    if (text.substr(0, kSlicesPrefix.size()) != kSlicesPrefix) throw refuse("unknown");
    const std::string_view count = text.substr(kSlicesPrefix.size());
    WalkRoom room{WalkRoom::Kind::Slices, 0};
    const auto [end, error] = std::from_chars(count.data(), count.data() + count.size(), room.slices);
    if (count.empty() || error != std::errc() || end != count.data() + count.size())
        throw refuse("the number of slices is not a whole number");
    if (std::string why = check_walk_room(room); !why.empty()) throw refuse(why);
    return room;
}

}  // namespace nbody
