#pragma once
// The kernel configuration a user gets without asking: the best measured one for the GPU's
// architecture and the number of bodies (docs/PERFORMANCE.md section 12 has the sweeps behind each
// row). Host code, no CUDA: the table is plain data, so CI checks it without a GPU.
//
// Each row gives both the pair mode to run and the tunables of the every-pair kernel, so that
// `--pairs full` with no other option still gets the fastest every-pair configuration at that N.
// An architecture without measured rows gets KernelConfig{} (the portable default).

#include <cstddef>
#include <span>
#include <string>

#include "nbody/sim/kernel_config.hpp"

namespace nbody {

struct KernelDefaultRow {
    int compute_major = 0, compute_minor = 0;  // the architecture measured (sm_90: 9, 0)
    std::size_t min_bodies = 0;                // the row holds from this N up to the next row's
    KernelConfig config;                       // pair mode + every-pair tunables + bodies_per_lane
    const char* measured = "";                 // where the figures behind the row are recorded
};

// Every row of the table, sorted by architecture then min_bodies.
std::span<const KernelDefaultRow> kernel_default_rows();

// The row for (architecture, n): the last one of that architecture with min_bodies <= n; nullptr
// when the architecture has none.
const KernelDefaultRow* find_kernel_default(int compute_major, int compute_minor, std::size_t n);

// find_kernel_default()'s config, else KernelConfig{}.
KernelConfig default_kernel_config(int compute_major, int compute_minor, std::size_t n);

// One line for the UI and logs: where the config came from and, when it computes each pair once,
// that this is the same physics as every pair (Newton's third law), not an approximation.
std::string describe_default_kernel_config(int compute_major, int compute_minor, std::size_t n);

}  // namespace nbody
