#include "nbody/sim/kernel_defaults.hpp"

#include <array>

namespace nbody {
namespace {

constexpr KernelConfig every_pair(int unroll, int block, int q, int b) {
    return KernelConfig{.unroll = unroll, .block = block, .threads_per_body = q, .bodies_per_thread = b};
}

constexpr KernelConfig each_pair_once(KernelConfig full_tunables, int bodies_per_lane) {
    full_tunables.pair_mode = PairMode::Symmetric;
    full_tunables.bodies_per_lane = bodies_per_lane;
    return full_tunables;
}

// sm_90 (H100, H200), measured on the H200 (DEVICE.md, docs/PERFORMANCE.md section 12).
// Below 4,096 bodies neither kernel fills 132 SMs and the every-pair kernel's balanced split wins.
constexpr const char* kH200 = "docs/PERFORMANCE.md section 12 (H200 run 14)";
constexpr std::array kRows{
    KernelDefaultRow{9, 0, 0, every_pair(4, 256, 4, 2), kH200},
    KernelDefaultRow{9, 0, 8192, each_pair_once(every_pair(4, 512, 4, 4), 4), kH200},
    KernelDefaultRow{9, 0, 32768, each_pair_once(every_pair(32, 1024, 1, 2), 4), kH200},
    KernelDefaultRow{9, 0, 196608, each_pair_once(every_pair(32, 1024, 1, 2), 8), kH200},
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
