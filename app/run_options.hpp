#pragma once
// Options shared by the subcommands that run the force kernel (run, view, record, bench).

#include <CLI/CLI.hpp>
#include <optional>
#include <string>

#include "nbody/sim/backend.hpp"

namespace nbody::app {

// The gravity solver (direct | tree) and the tree's tunables (nbody/sim/gravity.hpp).
struct GravityOptions {
    std::string gravity = "direct";
    std::optional<double> theta;
    std::optional<int> leaf_size, group_size;

    // The configuration these options ask for; throws std::invalid_argument for an unknown solver
    // or tree parameters out of range, and for tree options given with --gravity direct.
    GravityConfig config() const;
};

// Registers --gravity, --theta, --leaf-size, --group-size.
void add_gravity_options(CLI::App& cmd, GravityOptions& options);

struct KernelOptions {
    std::optional<int> unroll, block, threads_per_body, bodies_per_thread, bodies_per_lane;
    std::optional<std::string> pairs;
    std::optional<std::string> precision;  // fp32 | fp32-jbag | ds | fp64
    GravityOptions gravity;
};

void add_kernel_options(CLI::App& cmd, KernelOptions& options);

// Applies the given tunables on top of the backend's current configuration; throws
// std::invalid_argument with the reason when the backend refuses them. A --precision other than
// fp32 first moves the tunables not given explicitly to the nearest values compiled for it
// (CudaBackend::fit_to_precision), so `--precision ds` works on top of any tuned fp32 config.
// Also applies options.gravity (Backend::set_gravity).
void apply_kernel_options(Backend& backend, const KernelOptions& options);

}  // namespace nbody::app
