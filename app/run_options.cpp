#include "run_options.hpp"

namespace nbody::app {

void add_kernel_options(CLI::App& cmd, KernelOptions& options) {
    cmd.add_option("--unroll", options.unroll, "CUDA kernel: j-loop unroll factor (1, 2, 4, 8, 16, 32)");
    cmd.add_option("--block", options.block, "CUDA kernel: block size = tile p (multiple of 32, up to 1024)");
    cmd.add_option("--threads-per-body", options.threads_per_body,
                   "CUDA kernel: threads sharing one body's j-range q (1, 2, 4, 8, 16, 32)");
    cmd.add_option("--bodies-per-thread", options.bodies_per_thread,
                   "CUDA kernel: i-bodies each thread holds in registers B (1, 2, 4)");
    cmd.add_option("--pairs", options.pairs,
                   "CUDA kernel: full (every pair, default), symmetric (each pair once, triangular map) or "
                   "symmetric-bb (each pair once, bounding-box grid)");
    cmd.add_option("--bodies-per-lane", options.bodies_per_lane,
                   "CUDA symmetric kernel: i-bodies per lane (1, 2, 4, 8)");
}

void apply_kernel_options(Backend& backend, const KernelOptions& options) {
    KernelConfig config = backend.kernel_config();
    if (options.unroll) config.unroll = *options.unroll;
    if (options.block) config.block = *options.block;
    if (options.threads_per_body) config.threads_per_body = *options.threads_per_body;
    if (options.bodies_per_thread) config.bodies_per_thread = *options.bodies_per_thread;
    if (options.bodies_per_lane) config.bodies_per_lane = *options.bodies_per_lane;
    if (options.pairs) config.pair_mode = parse_pair_mode(*options.pairs);
    backend.set_kernel_config(config);
}

}  // namespace nbody::app
