#include "run_options.hpp"

#include <charconv>
#include <cstdio>
#include <string>

#ifdef NBODY_HAVE_CUDA
#include "nbody/sim/cuda_backend.hpp"
#endif

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
    cmd.add_option("--precision", options.precision,
                   "CUDA kernel arithmetic: fp32 (default, direct sum), fp32-jbag (Chamomile partial sums), "
                   "ds (double-single positions, Sapporo) or fp64; the last three with --pairs full, "
                   "unroll 4/8, threads/body 1-8, bodies/thread 1-4 (fp64: 1)");
}

CLI::Validator whole_number(long long min, long long max) {
    const std::string range = std::to_string(min) + " to " + std::to_string(max);
    return CLI::Validator(
        [min, max, range](std::string& text) -> std::string {
            long long v = 0;
            const char* begin = text.data();
            const char* end = text.data() + text.size();
            if (begin != end && *begin == '+') ++begin;
            const auto [stop, ec] = std::from_chars(begin, end, v);
            if (ec == std::errc::result_out_of_range) return "'" + text + "' is beyond the supported range (" + range + ")";
            if (ec != std::errc() || stop != end) return "'" + text + "' is not a whole number";
            if (v < min || v > max) return "'" + text + "' is outside " + range;
            return "";
        },
        "INT in [" + range + "]", "whole_number");
}

std::string backend_name_for(BackendKind kind) {
    if (kind == BackendKind::Auto) return cuda_available() ? "cuda" : "cpu";
    return std::string(to_string(kind));
}

Precision requested_precision(const KernelOptions& options) {
    return options.precision ? parse_precision(*options.precision) : Precision::Fp32;
}

void apply_kernel_options(Backend& backend, const KernelOptions& options) {
    KernelConfig config = backend.kernel_config();
    if (options.precision) {
        config.precision = parse_precision(*options.precision);
#ifdef NBODY_HAVE_CUDA
        if (dynamic_cast<const CudaBackend*>(&backend) != nullptr) config = CudaBackend::fit_to_precision(config);
#endif
        if (backend.name() != "cuda" && config.precision != Precision::Fp32)
            std::fprintf(stderr, "nbody: --precision %s applies to the cuda backend; the %s backend keeps its own "
                                 "arithmetic (%s)\n",
                         options.precision->c_str(), std::string(backend.name()).c_str(),
                         backend.name() == "reference" ? "fp64" : "fp32");
    }
    if (options.unroll) config.unroll = *options.unroll;
    if (options.block) config.block = *options.block;
    if (options.threads_per_body) config.threads_per_body = *options.threads_per_body;
    if (options.bodies_per_thread) config.bodies_per_thread = *options.bodies_per_thread;
    if (options.bodies_per_lane) config.bodies_per_lane = *options.bodies_per_lane;
    if (options.pairs) config.pair_mode = parse_pair_mode(*options.pairs);
    backend.set_kernel_config(config);
}

}  // namespace nbody::app
