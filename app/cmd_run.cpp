// `nbody run`: integrate a system headless and write the final state.

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <memory>
#include <stdexcept>
#include <string>

#include "commands.hpp"
#include "nbody/sim/backend.hpp"
#include "nbody/sim/csv.hpp"
#include "nbody/sim/diagnostics.hpp"
#include "run_options.hpp"

namespace nbody::app {
namespace {

struct RunOptions {
    std::string input;
    std::string output;
    long long steps = 100;
    double dt = 1e-3;
    double softening = 0.01;
    std::string backend = "auto";
    KernelOptions kernel;
    double progress_seconds = 2.0;
};

int run(const RunOptions& o) {
    if (o.steps < 0) throw std::invalid_argument("--steps must be >= 0 (got " + std::to_string(o.steps) + ")");
    if (!(o.dt > 0) || !std::isfinite(o.dt)) throw std::invalid_argument("--dt must be > 0 (got " + std::to_string(o.dt) + ")");
    if (!(o.softening >= 0) || !std::isfinite(o.softening))
        throw std::invalid_argument("--softening must be >= 0 (got " + std::to_string(o.softening) + ")");
    const BackendKind kind = parse_backend_kind(o.backend);

    State state = read_csv(o.input);
    state.validate();
    if (o.steps == 0) {
        if (!o.output.empty()) write_csv(o.output, state);
        std::printf("converted %zu bodies%s%s\n", state.size(), o.output.empty() ? "" : " to ", o.output.c_str());
        return 0;
    }

    std::unique_ptr<Backend> backend = make_backend(kind, std::cerr);
    apply_kernel_options(*backend, o.kernel);
    backend->load(state);
    const Diagnostics before = compute_diagnostics(state, o.softening);

    const StepParams params{.dt = o.dt, .softening = o.softening};
    const auto start = std::chrono::steady_clock::now();
    auto last_report = start;
    // Steps go in batches so that a progress line can be printed on long runs without
    // synchronising the device every step.
    long long done = 0;
    while (done < o.steps) {
        const long long batch = std::min<long long>(o.steps - done, std::max<long long>(1, o.steps / 100));
        backend->step(params, static_cast<int>(batch));
        done += batch;
        const auto now = std::chrono::steady_clock::now();
        if (std::chrono::duration<double>(now - last_report).count() >= o.progress_seconds && done < o.steps) {
            const double elapsed = std::chrono::duration<double>(now - start).count();
            std::fprintf(stderr, "  step %lld / %lld (%.0f%%), %.1f s elapsed, ~%.1f s left\n", done, o.steps,
                         100.0 * double(done) / double(o.steps), elapsed,
                         elapsed * double(o.steps - done) / double(done));
            last_report = now;
        }
    }
    backend->store(state);
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    const Diagnostics after = compute_diagnostics(state, o.softening);
    if (!o.output.empty()) write_csv(o.output, state);

    double momentum_scale = 0;  // sum of |m v|: what a momentum error is relative to
    for (std::size_t i = 0; i < state.size(); ++i)
        momentum_scale += state.pos_mass[i].w * norm(xyz(state.velocity[i]));
    const double energy_error = before.total != 0 ? (after.total - before.total) / std::abs(before.total) : 0.0;
    const double momentum_drift = norm(after.momentum - before.momentum);
    const double n = double(state.size());
    std::printf("backend %s: %zu bodies, %lld steps of dt %g (t = %g) in %.3f s, %.3g interactions/s\n",
                std::string(backend->name()).c_str(), state.size(), o.steps, o.dt, backend->time(), seconds,
                n * n * double(o.steps) / seconds);
    std::printf("relative energy error: %.3e  (E0 = %.9g, E = %.9g)\n", energy_error, before.total, after.total);
    std::printf("momentum drift: |dP| = %.3e  (%.3e relative to sum |m v|)\n", momentum_drift,
                momentum_scale > 0 ? momentum_drift / momentum_scale : 0.0);
    if (!o.output.empty()) std::printf("wrote %s\n", o.output.c_str());
    return 0;
}

}  // namespace

void add_run_command(CLI::App& app, int& exit_code) {
    auto options = std::make_shared<RunOptions>();
    CLI::App* cmd = app.add_subcommand("run", "Integrate a system headless and write the final state");
    cmd->add_option("--input,-i", options->input, "Particle file: CSV with header x,y,z,vx,vy,vz,m")
        ->required();
    cmd->add_option("--out,-o", options->output, "Write the final state here (CSV)");
    cmd->add_option("--steps", options->steps, "Leapfrog steps to take (0: only convert the input)")
        ->capture_default_str();
    cmd->add_option("--dt", options->dt, "Time step, internal units (G = 1)")->capture_default_str();
    cmd->add_option("--softening", options->softening, "Plummer softening length epsilon")
        ->capture_default_str();
    cmd->add_option("--backend", options->backend, "reference | cpu | cuda | auto")->capture_default_str();
    add_kernel_options(*cmd, options->kernel);
    cmd->callback([options, &exit_code] { exit_code = run(*options); });
}

}  // namespace nbody::app
