#pragma once
// Options shared by the subcommands that run the force kernel (run, view, record, bench).

#include <CLI/CLI.hpp>
#include <optional>
#include <string>

#include "nbody/sim/backend.hpp"

namespace nbody::app {

struct KernelOptions {
    std::optional<int> unroll, block, threads_per_body, bodies_per_thread, bodies_per_lane;
    std::optional<std::string> pairs;
    std::optional<std::string> precision;  // fp32 | fp32-jbag | ds | fp64
};

void add_kernel_options(CLI::App& cmd, KernelOptions& options);

// Applies the given tunables on top of the backend's current configuration; throws
// std::invalid_argument with the reason when the backend refuses them. A --precision other than
// fp32 first moves the tunables not given explicitly to the nearest values compiled for it
// (CudaBackend::fit_to_precision), so `--precision ds` works on top of any tuned fp32 config.
void apply_kernel_options(Backend& backend, const KernelOptions& options);

}  // namespace nbody::app
