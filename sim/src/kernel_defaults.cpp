#include "nbody/sim/kernel_defaults.hpp"

#include <array>

namespace nbody {
namespace {

constexpr KernelConfig every_pair(int unroll, int block, int q, int b) {
    return KernelConfig{.unroll = unroll, .block = block, .threads_per_body = q, .bodies_per_thread = b};
}

constexpr KernelConfig each_pair_once(KernelConfig full_tunables, int bodies_per_lane,
                                      PairMode map = PairMode::Symmetric) {
    full_tunables.pair_mode = map;
    full_tunables.bodies_per_lane = bodies_per_lane;
    return full_tunables;
}

// sm_90 (H100, H200), measured on the H200 (docs/PERFORMANCE.md section 12, run 14: pruned
// every-pair sweeps and each-pair-once at 4K-1M, Plummer spheres and milky-way-andromeda.toml).
// Below 8K neither kernel fills 132 SMs and the every-pair kernel's q-split wins (4K: 0.83e12
// against 0.66e12); from 8K on each pair once wins (8K: 1.79e12 against 1.54e12), by 1.3x at 16K
// and 1.4x from 64K on. The every-pair tunables are each N's best from the sweep. From 256K the
// bounding-box grid beats the lambda map at B = 8 (256K 3.403 against 3.315e12, 1M 3.429 against
// 3.335e12, runs 14 and 15): its exit test costs less than the map's arithmetic once tiles are many.
// Every pair at 1M: U8 p1024 q1 B4 2.381e12, ahead of run 14's U32 p1024 q1 B2 (2.321e12; run 16);
// 2.402e12 with section 12.6's summation order (H100 run 74), within 0.3 % of the fastest every-pair
// instance measured (U32 q2 B4 under kernel flags 5, 2.410e12), which this table cannot name.
constexpr const char* kH200 = "docs/PERFORMANCE.md section 12, H200 run 14";
constexpr const char* kH200BoundingBox = "docs/PERFORMANCE.md section 12.4, H200 runs 14-16";
constexpr std::array kRows{
    KernelDefaultRow{9, 0, 0, every_pair(16, 512, 4, 2), kH200},
    KernelDefaultRow{9, 0, 6144, each_pair_once(every_pair(8, 1024, 8, 2), 4), kH200},
    KernelDefaultRow{9, 0, 12288, each_pair_once(every_pair(8, 1024, 8, 4), 8), kH200},
    KernelDefaultRow{9, 0, 24576, each_pair_once(every_pair(8, 1024, 4, 4), 8), kH200},
    KernelDefaultRow{9, 0, 49152, each_pair_once(every_pair(8, 1024, 1, 4), 8), kH200},
    KernelDefaultRow{9, 0, 196608, each_pair_once(every_pair(8, 1024, 1, 4), 8, PairMode::SymmetricBoundingBox), kH200BoundingBox},
};

}  // namespace

std::span<const KernelDefaultRow> kernel_default_rows() { return kRows; }

const KernelDefaultRow* find_kernel_default(int compute_major, int compute_minor, std::size_t n) {
    const KernelDefaultRow* found = nullptr;
    for (const KernelDefaultRow& row : kRows)
        if (row.compute_major == compute_major && row.compute_minor == compute_minor && row.min_bodies <= n)
            found = &row;
    return found;
}

KernelConfig default_kernel_config(int compute_major, int compute_minor, std::size_t n) {
    const KernelDefaultRow* row = find_kernel_default(compute_major, compute_minor, n);
    return row != nullptr ? row->config : KernelConfig{};
}

std::string describe_default_kernel_config(int compute_major, int compute_minor, std::size_t n) {
    const KernelDefaultRow* row = find_kernel_default(compute_major, compute_minor, n);
    const std::string arch = "sm_" + std::to_string(compute_major) + std::to_string(compute_minor);
    if (row == nullptr) return "portable default kernel config (no measured table for " + arch + ")";
    std::string text = "fastest measured config for " + arch + " at this N (" + std::string(row->measured) + ")";
    if (row->config.pair_mode != PairMode::Full)
        text += "; each pair is computed once and applied to both bodies (Newton's third law): the same "
                "physics as every pair, summed in a different order (not bit-reproducible); --pairs full for "
                "bit-identical reruns";
    return text;
}

}  // namespace nbody
