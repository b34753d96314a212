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

// A CLI11 check for a whole number in [min, max]: "99999999999999999999" for a long long is
// refused with the range instead of being clamped, and "1e3" or "12abc" are refused as not whole
// numbers. Attach with ->check(whole_number(1, ...)).
CLI::Validator whole_number(long long min, long long max);

// The backend `kind` will be, by name ("reference", "cpu", "cuda"; auto: cuda when usable), for
// estimates made before it is created.
std::string backend_name_for(BackendKind kind);

// The precision the kernel options ask for (fp32 when none), for estimates made before the
// backend exists.
Precision requested_precision(const KernelOptions& options);

// Applies the given tunables on top of the backend's current configuration; throws
// std::invalid_argument with the reason when the backend refuses them. A --precision other than
// fp32 first moves the tunables not given explicitly to the nearest values compiled for it
// (CudaBackend::fit_to_precision), so `--precision ds` works on top of any tuned fp32 config.
void apply_kernel_options(Backend& backend, const KernelOptions& options);

}  // namespace nbody::app
