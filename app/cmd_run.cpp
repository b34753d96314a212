// `nbody run`: integrate a system headless and write the final state.

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>

#include "commands.hpp"
#include "nbody/sim/backend.hpp"
#include "nbody/sim/csv.hpp"
#include "nbody/sim/diagnostics.hpp"
#include "nbody/sim/io/particle_files.hpp"
#include "nbody/sim/io/snapshot.hpp"
#include "nbody/sim/scene.hpp"
#include "hermite_run.hpp"
#include "run_options.hpp"

namespace nbody::app {
namespace {

constexpr double kDefaultDt = 1e-3;
constexpr double kDefaultSoftening = 0.01;

struct RunOptions {
    std::string input;
    std::string scene;
    std::optional<long long> bodies;
    std::string output;
    long long steps = 100;
    std::optional<double> dt;         // default: the scene's or snapshot's, else kDefaultDt
    std::optional<double> softening;  // likewise
    std::string backend = "auto";
    KernelOptions kernel;
    double progress_seconds = 2.0;
    std::string integrator = "leapfrog";  // leapfrog | hermite4 (hermite_run.cpp)
    std::optional<double> t_end, eta, dt_max;
};

// The system to integrate and the run parameters that came with it (scene or snapshot).
struct Loaded {
    State state;
    std::optional<PreciseState> precise;  // a snapshot's double state, loaded where the backend has one
    StepParams params{kDefaultDt, kDefaultSoftening};
    int steps_per_frame = 1;
    std::string name, source;
};

Loaded load_input(const RunOptions& o) {
    if (o.input.empty() == o.scene.empty())
        throw std::invalid_argument("give exactly one of --input FILE (csv, tipsy, nbsnap) and --scene FILE.toml");
    if (o.bodies && *o.bodies < 1) throw std::invalid_argument("--bodies must be >= 1");
    if (o.bodies && o.scene.empty())
        throw std::invalid_argument("--bodies scales a scene: use it with --scene (a particle file has its own N)");
    Loaded in;
    if (!o.scene.empty()) {
        Scene scene = load_scene(o.scene, o.bodies ? std::optional<std::size_t>(std::size_t(*o.bodies)) : std::nullopt);
        in.state = std::move(scene.state);
        in.params = scene.params;
        in.steps_per_frame = scene.steps_per_frame;
        in.name = scene.name;
        in.source = o.scene;
    } else if (io::particle_format_for(o.input) == io::ParticleFormat::Snapshot) {
        io::Snapshot snap = io::read_snapshot(o.input);
        in.state = std::move(snap.state);
        in.params = snap.params;
        in.steps_per_frame = snap.steps_per_frame;
        in.name = snap.scene_name;
        in.source = snap.scene_source;
        in.precise = std::move(snap.precise);
    } else {
        in.state = io::read_particles(o.input);
    }
    if (o.dt) in.params.dt = *o.dt;
    if (o.softening) in.params.softening = *o.softening;
    return in;
}

// Snapshots keep the run parameters, so a run continued from one steps exactly as the original.
// The double state, where the backend has one, goes in too, so that every backend restores exactly.
void write_output(const std::string& path, const Loaded& run, const State& state,
                  const std::optional<PreciseState>& precise) {
    if (io::particle_format_for(path) == io::ParticleFormat::Snapshot) {
        io::Snapshot snap{state, run.params, run.steps_per_frame, run.name, run.source};
        snap.precise = precise;
        io::write_snapshot(path, snap);
    } else
        io::write_particles(path, state);
}

int run(RunOptions o) {
    if (o.integrator == "hermite4") {
        HermiteRunOptions h;
        h.input = o.input;
        h.scene = o.scene;
        h.output = o.output;
        h.bodies = o.bodies;
        h.t_end = o.t_end;
        h.softening = o.softening;
        h.eta = o.eta;
        h.dt_max = o.dt_max;
        if (o.dt) throw std::invalid_argument("--dt is leapfrog's step; hermite4 chooses its own steps (--eta, --dt-max)");
        h.backend = o.backend;
        if (o.kernel.precision) h.precision = *o.kernel.precision;
        h.progress_seconds = o.progress_seconds;
        return run_hermite(h);
    }
    if (o.integrator != "leapfrog")
        throw std::invalid_argument("unknown --integrator '" + o.integrator + "' (supported: leapfrog, hermite4)");
    if (o.eta || o.dt_max) throw std::invalid_argument("--eta and --dt-max belong to --integrator hermite4");
    if (o.steps < 0) throw std::invalid_argument("--steps must be >= 0 (got " + std::to_string(o.steps) + ")");
    if (o.dt && (!(*o.dt > 0) || !std::isfinite(*o.dt)))
        throw std::invalid_argument("--dt must be > 0 (got " + std::to_string(*o.dt) + ")");
    if (o.softening && (!(*o.softening >= 0) || !std::isfinite(*o.softening)))
        throw std::invalid_argument("--softening must be >= 0 (got " + std::to_string(*o.softening) + ")");
    if (!o.output.empty()) (void)io::particle_format_for(o.output);  // an unknown extension fails before the run
    const BackendKind kind = parse_backend_kind(o.backend);

    Loaded loaded = load_input(o);
    State& state = loaded.state;
    state.validate();
    if (o.t_end) {  // leapfrog: the whole steps of dt that reach t_end (the last may pass it by < dt)
        const double span = (*o.t_end - state.time) / loaded.params.dt;
        if (!(span >= 0) || !std::isfinite(span))
            throw std::invalid_argument("--t-end must not be before the start time " + std::to_string(state.time));
        o.steps = static_cast<long long>(std::ceil(span - 1e-9));
    }
    if (o.steps == 0) {
        if (!o.output.empty()) write_output(o.output, loaded, state, loaded.precise);
        std::printf("converted %zu bodies%s%s\n", state.size(), o.output.empty() ? "" : " to ", o.output.c_str());
        return 0;
    }

    std::unique_ptr<Backend> backend = make_backend(kind, std::cerr);
    apply_kernel_options(*backend, o.kernel);
    if (loaded.precise)
        backend->load_precise(state, *loaded.precise);
    else
        backend->load(state);
    const StepParams params = loaded.params;
    const Diagnostics before = compute_diagnostics(state, params.softening);

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
    const Diagnostics after = compute_diagnostics(state, params.softening);
    if (!o.output.empty()) write_output(o.output, loaded, state, backend->store_precise());

    double momentum_scale = 0;  // sum of |m v|: what a momentum error is relative to
    for (std::size_t i = 0; i < state.size(); ++i)
        momentum_scale += state.pos_mass[i].w * norm(xyz(state.velocity[i]));
    const double energy_error = before.total != 0 ? (after.total - before.total) / std::abs(before.total) : 0.0;
    const double momentum_drift = norm(after.momentum - before.momentum);
    const double n = double(state.size());
    std::printf("backend %s: %zu bodies, %lld steps of dt %g (t = %g) in %.3f s, %.3g interactions/s\n",
                std::string(backend->name()).c_str(), state.size(), o.steps, params.dt, backend->time(), seconds,
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
    cmd->add_option("--input,-i", options->input,
                    "Particle file, by extension: .csv (header x,y,z,vx,vy,vz,m), .tipsy/.std/.bin (TIPSY), "
                    ".nbsnap (snapshot: also restores dt and softening)");
    cmd->add_option("--scene", options->scene, "Scene file (scenes/*.toml) instead of --input");
    cmd->add_option("--bodies,-n", options->bodies, "Scale the scene to N bodies, keeping its proportions");
    cmd->add_option("--out,-o", options->output,
                    "Write the final state here; format by extension (.csv, .tipsy, .nbsnap keeps dt and softening)");
    cmd->add_option("--steps", options->steps, "Leapfrog steps to take (0: only convert the input)")
        ->capture_default_str();
    cmd->add_option("--dt", options->dt, "Time step, internal units (G = 1); default: the scene's or snapshot's, else 0.001");
    cmd->add_option("--softening", options->softening,
                    "Plummer softening length epsilon; default: the scene's or snapshot's, else 0.01");
    cmd->add_option("--backend", options->backend, "reference | cpu | cuda | auto")->capture_default_str();
    add_kernel_options(*cmd, options->kernel);
    cmd->add_option("--integrator", options->integrator,
                    "leapfrog (shared step --dt, galaxies) or hermite4 (4th-order Hermite, block time steps, double; "
                    "star clusters and few-body systems: needs --t-end)")
        ->capture_default_str();
    cmd->add_option("--t-end", options->t_end, "Run to this model time instead of a step count");
    cmd->add_option("--eta", options->eta, "hermite4: Aarseth's time-step accuracy parameter (default 0.01)");
    cmd->add_option("--dt-max", options->dt_max, "hermite4: largest block step, rounded down to a power of two (default 0.125)");
    cmd->callback([options, &exit_code] { exit_code = run(*options); });
}

}  // namespace nbody::app
