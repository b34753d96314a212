#pragma once
// What the GPU tree walk leaves of its GPU to kernels of other streams (issue 33: the viewer's
// `--sprites cuda` deposit, drawn beside the steps; docs/VIEWER.md, "Sprites by CUDA"). The walk
// is persistent: it launches as many blocks as fit on the SMs at once, each warp taking groups
// from a counter until none is left, so every SM is full for the whole walk (~91 ms a step at 16M
// bodies on an H100) and a block of another stream gets an SM only when the walk ends.
// Plain C++17 (gpu_tree.hpp includes it in .cu files); no CUDA.

#include <string>
#include <string_view>

namespace nbody {

struct WalkRoom {
    enum class Kind {
        None,    // every resident block the walk can have: the fastest walk
        Block,   // one resident block per SM fewer: room on every SM all the time, at the cost of a
                 // fifth of the walk's warps (5 blocks per SM on an H100)
        Slices,  // the pass's groups walked by `slices` launches in turn: the other kernels' blocks
                 // are scheduled between them (each launch's last groups leave SMs idle)
    };
    static constexpr int kMinSlices = 2, kMaxSlices = 64;

    Kind kind = Kind::None;
    int slices = 1;  // Slices: kMinSlices..kMaxSlices launches a pass
};

// Empty when `room` can be used, else why not (slices outside kMinSlices..kMaxSlices).
std::string check_walk_room(const WalkRoom& room);
// "none", "block", "slices:N": what parse_walk_room takes.
std::string walk_room_name(const WalkRoom& room);
// Throws std::invalid_argument naming the forms it takes for any other text or a refused count.
WalkRoom parse_walk_room(std::string_view text);

}  // namespace nbody
