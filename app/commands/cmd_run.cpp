// `nbody run`: integrate a system headless and write the final state.
//
// Nothing a user asked for is lost: every output is checked before the run starts (output_paths),
// the memory for N is estimated before it is allocated, Ctrl-C / SIGTERM stop after the steps in
// progress and write the state reached, and a state that turns non-finite stops the run at the
// step it happened, keeping the last finite state.

#include <algorithm>
#include <vector>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <iostream>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>

#include "commands.hpp"
#include "nbody/sim/backend.hpp"
#include "nbody/sim/csv.hpp"
#include "nbody/sim/diagnostics.hpp"
#include "nbody/sim/energy_source.hpp"
#include "nbody/sim/finite_guard.hpp"
#include "nbody/sim/io/particle_files.hpp"
#include "nbody/sim/io/run_output.hpp"
#include "nbody/sim/io/scene_metadata.hpp"
#include "nbody/sim/io/snapshot.hpp"
#include "nbody/sim/memory_check.hpp"
#include "nbody/sim/scene.hpp"
#include "distributed_run.hpp"
#include "hermite_run.hpp"
#include "integrator_options.hpp"
#include "output_paths.hpp"
#include "progress_line.hpp"
#include "recorder_interrupt.hpp"
#include "run_options.hpp"
#include "time_step_options.hpp"

namespace nbody::app {
namespace {

constexpr double kDefaultDt = 1e-3;
constexpr double kDefaultSoftening = 0.01;

struct RunOptions {
    std::vector<int> gpus;  // --gpus: the GPUs of this process to step on (empty: one)
    std::string input;
    std::string scene;
    std::optional<long long> bodies;
    std::string output;
    long long steps = 100;
    std::optional<double> dt;         // default: the scene's or snapshot's, else kDefaultDt
    std::optional<double> softening;  // likewise
    std::string backend = "auto";
    KernelOptions kernel;
    bool overwrite = false;
    double max_energy_error = 1e-2;  // a larger relative energy error is reported as a warning
    double progress_seconds = 2.0;
    IntegratorOptions integ;  // --integrator leapfrog | hermite4 | hermite6 (hermite_run.cpp), --t-end, --eta, --dt-max
    double batch_seconds = 0.1;      // steps go in batches of about this long (interrupt latency)
    bool steps_given = false;        // --steps on the command line (it has a default)
    std::optional<int> j_split;      // hermite4 on the cuda engine
    bool profile = false;            // --profile: Hermite's time per phase of the block steps
    std::optional<std::string> energy;  // --energy tree | exact (energy_source.hpp)
    TimeStepOptions time_steps;         // --timesteps shared | block, --max-level (--eta: integ.eta)
};

// The system to integrate and the run parameters that came with it (scene or snapshot).
struct Loaded {
    State state;
    std::optional<PreciseState> precise;  // the file's double state, loaded where the backend has one
    StepParams params{kDefaultDt, kDefaultSoftening};
    int steps_per_frame = 1;
    std::string name, source;
    std::map<std::string, std::string> scene_metadata;  // units, camera, ... (io/scene_metadata.hpp)
    std::optional<io::RunEnergy> energy0;  // a snapshot's E0 of the run it continues; the output's
};

Loaded load_input(const RunOptions& o) {
    Loaded in;
    if (!o.scene.empty()) {
        Scene scene = load_scene(o.scene, o.bodies ? std::optional<std::size_t>(std::size_t(*o.bodies)) : std::nullopt);
        in.state = std::move(scene.state);
        in.params = scene.params;
        in.steps_per_frame = scene.steps_per_frame;
        in.name = scene.name;
        in.source = o.scene;
        io::put_scene_metadata(scene, in.scene_metadata);
    } else if (io::particle_format_for(o.input) == io::ParticleFormat::Snapshot) {
        io::Snapshot snap = io::read_snapshot(o.input);
        in.state = std::move(snap.state);
        in.params = snap.params;
        in.steps_per_frame = snap.steps_per_frame;
        in.name = snap.scene_name;
        in.source = snap.scene_source;
        in.precise = std::move(snap.precise);
        in.energy0 = snap.energy0;
        io::copy_scene_metadata(snap.metadata, in.scene_metadata);
    } else {
        in.state = io::read_particles(o.input, &in.precise);
    }
    if (o.dt) in.params.dt = *o.dt;
    // Another softening is another potential: the saved E0 is no baseline for it.
    if (o.softening && *o.softening != in.params.softening) in.energy0.reset();
    if (o.softening) in.params.softening = *o.softening;
    return in;
}

// Snapshots keep the run parameters (and the double state), so a run continued from one steps
// exactly as the original; `status` marks a state that is not the run's planned end.
void write_output(const std::string& path, const Loaded& run, const State& state,
                  const std::optional<PreciseState>& precise, const std::string& status = "") {
    io::write_run_state(path, {run.params, run.steps_per_frame, run.name, run.source, run.scene_metadata, run.energy0},
                        state, precise, status);
}

// The exact energy is summed over N^2/2 pairs in double, at start and end: on the GPU from
// 100,000 bodies when there is one (seconds at 1M), else on the host, minutes from N = 100,000
// (5e9 pairs took 171 s on a busy 2-core machine). A note on stderr says so, so that a quiet
// stretch at the start or end of a large run is not taken for a hang.
void announce_energy_cost(std::size_t n, EnergySource source) {
    if (const std::string notice = energy_cost_notice(n, source); !notice.empty())
        std::fprintf(stderr, "nbody: %s\n", notice.c_str());
}


constexpr const char* kHermiteKernelOptions =
    "takes --block, --unroll, --bodies-per-thread, --j-split and --precision for its kernel";
constexpr const char* kHermiteSumsEveryPair = "sums every pair (direct)";

// What a Ctrl-C does from now on, said by the signal handler the moment it comes.
void announce_stop_plan(const std::string& output) {
    if (output.empty())
        set_stop_messages("stopping after the steps in progress (no --out: nothing is written)", "nothing is written");
    else
        set_stop_messages("stopping after the steps in progress; the state reached will be written to " + output,
                          output + " is not written");
}

// The step calls' times per step: the first call (one step, with whatever starts lazily: kernels
// loaded, a communicator's connections) apart from the rest, whose fastest and slowest tell a run that
// was slow throughout from one that stalled once (docs/DISTRIBUTED.md: mpirun runs 10-50 % slower now
// and then, not diagnosed).
class StepCallTimes {
public:
    void add(long long first_step, long long steps, double seconds) {
        calls_.push_back({first_step, steps, seconds / double(steps)});
    }
    // "" for fewer than two calls.
    std::string describe() const {
        if (calls_.size() < 2) return {};
        const auto slower = [](const Call& a, const Call& b) { return a.per_step < b.per_step; };
        const auto [fastest, slowest] = std::minmax_element(calls_.begin() + 1, calls_.end(), slower);
        char text[256];
        std::snprintf(text, sizeof text,
                      "time per step by step call: the first %.3f ms (%lld step%s), then %.3f to %.3f ms over %zu "
                      "calls (the slowest: steps %lld-%lld)",
                      1e3 * calls_.front().per_step, calls_.front().steps, calls_.front().steps == 1 ? "" : "s",
                      1e3 * fastest->per_step, 1e3 * slowest->per_step, calls_.size() - 1, slowest->first + 1,
                      slowest->first + slowest->steps);
        return text;
    }

private:
    struct Call {
        long long first = 0, steps = 0;
        double per_step = 0;
    };
    std::vector<Call> calls_;
};

int run(RunOptions o) {
    // Before any work, for both integrators: the output can be written (and is not the input,
    // unless --overwrite).
    const auto check_output = [&o] {
        if (!o.output.empty())
            check_outputs({{"--out", o.output, particle_output_kind(o.output)}}, {o.input, o.scene}, o.overwrite);
    };
    announce_stop_plan(o.output);
    const KernelOptions& k = o.kernel;
    const Integrator integrator = resolve_integrator(
        o.integ, integrator_of_file(o.scene.empty() ? o.input : o.scene),
        {{"--dt", o.dt.has_value()},
         // A scene that asks for Hermite, run without --t-end, gets the message below that names the scene.
         {"--steps", o.steps_given && (o.integ.integrator || o.integ.t_end), "runs to a model time (--t-end)"},
         {"--threads-per-body", k.threads_per_body.has_value(), kHermiteKernelOptions},
         {"--bodies-per-lane", k.bodies_per_lane.has_value(), kHermiteKernelOptions},
         {"--pairs", k.pairs.has_value(), "sums every pair for each active body (its kernel: --block, --unroll, ...)"},
         {"--gravity tree", k.gravity.gravity != "direct", kHermiteSumsEveryPair},
         {"--theta", k.gravity.theta.has_value(), kHermiteSumsEveryPair},
         {"--alpha", k.gravity.alpha.has_value(), kHermiteSumsEveryPair},
         {"--leaf-size", k.gravity.leaf_size.has_value(), kHermiteSumsEveryPair},
         {"--group-size", k.gravity.group_size.has_value(), kHermiteSumsEveryPair},
         {"--energy", o.energy.has_value(), kHermiteSumsEveryPair},
         {"--timesteps block", o.time_steps.block()},
         {"--max-level", o.time_steps.max_level.has_value()}},
        o.time_steps.block());
    if (!is_hermite(integrator) && o.steps_given && o.integ.t_end)
        throw std::invalid_argument("--steps " + std::to_string(o.steps) + " and --t-end " + shortest_number(*o.integ.t_end) +
                                    " both say where the run ends; give one of them");
    if (!is_hermite(integrator) && o.profile)
        throw std::invalid_argument("--profile times the Hermite block steps' phases (--integrator hermite4 or hermite6)");
    if (!is_hermite(integrator) && o.j_split)
        throw std::invalid_argument("--j-split tunes the Hermite engine (--integrator hermite4); leapfrog's kernel splits "
                                    "a body's j-range with --threads-per-body");
    if (is_hermite(integrator)) {
        if (!o.integ.integrator && !o.integ.t_end)
            throw std::invalid_argument((o.scene.empty() ? o.input : o.scene) + " asks for integrator " + to_string(integrator) +
                                        ", which runs to a model time: give --t-end T (or --integrator leapfrog for --steps)");
        // A refused N leaves nothing behind, and a scene of that many bodies is never built.
        if (const auto planned = planned_bodies(o.scene, o.bodies))
            check_memory_for(*planned, hermite_workload(o.backend, hermite_order(integrator)));
        check_output();
        HermiteRunOptions h;
        h.input = o.input;
        h.scene = o.scene;
        h.output = o.output;
        h.bodies = o.bodies;
        h.t_end = o.integ.t_end;
        h.softening = o.softening;
        h.order = hermite_order(integrator);
        h.eta = o.integ.eta;
        h.dt_max = o.integ.dt_max;
        h.backend = o.backend;
        h.gpus = o.gpus;
        if (k.precision) h.precision = *k.precision;
        h.block = k.block;
        h.unroll = k.unroll;
        h.bodies_per_thread = k.bodies_per_thread;
        h.j_split = o.j_split;
        h.profile = o.profile;
        h.progress_seconds = o.progress_seconds;
        h.max_energy_error = o.max_energy_error;
        return run_hermite(h);
    }
    if (o.input.empty() == o.scene.empty())
        throw std::invalid_argument("give exactly one of --input FILE (csv, tipsy, nbsnap) and --scene FILE.toml");
    if (o.bodies && o.scene.empty())
        throw std::invalid_argument("--bodies scales a scene: use it with --scene (a particle file has its own N)");
    if (o.dt && (!(*o.dt > 0) || !std::isfinite(*o.dt)))
        throw std::invalid_argument("--dt must be > 0 (got " + std::to_string(*o.dt) + ")");
    if (o.softening && (!(*o.softening >= 0) || !std::isfinite(*o.softening)))
        throw std::invalid_argument("--softening must be >= 0 (got " + std::to_string(*o.softening) + ")");
    if (!(o.max_energy_error > 0)) throw std::invalid_argument("--max-energy-error must be > 0");
    o.time_steps.eta = o.integ.eta;
    const TimeStepConfig time_steps = o.time_steps.config(k.gravity.config());
    const EnergySource energy_source = choose_energy_source(
        o.energy ? std::optional(parse_energy_source(*o.energy)) : std::nullopt, k.gravity.config());
    // A stop signal (main installs the handlers) sets a flag polled between batches of steps and
    // in the energy sums; one that comes while the system is being built stops the run before its
    // first step.
    const BackendKind kind = parse_backend_kind(o.backend);
    const bool stepping = o.steps > 0 || o.integ.t_end.has_value();
    const Workload work{stepping ? backend_name_for(kind) : "cpu", stepping ? requested_precision(o.kernel) : Precision::Fp32,
                        false, parse_gravity(o.kernel.gravity.gravity)};
    // A refused N leaves nothing behind: checked before the output's folder is created, and
    // before a scene of that many bodies is built.
    const std::optional<std::uint64_t> planned = planned_bodies(o.scene, o.bodies);
    std::uint64_t estimate = planned ? check_memory_for(*planned, work) : 0;
    check_output();
    std::optional<MemoryActivity> activity;
    activity.emplace("loading " + (o.scene.empty() ? o.input : o.scene), planned.value_or(0), estimate);

    // The backend before the system, so that N can be checked against its memory first.
    std::unique_ptr<Backend> backend;
    if (stepping) backend = make_stepping_backend(kind, o.gpus, std::cerr);
    const std::string backend_name = backend ? std::string(backend->name()) : "cpu";
    const Precision precision = backend ? requested_precision(o.kernel) : Precision::Fp32;

    Loaded loaded = load_input(o);
    State& state = loaded.state;
    state.validate();
    estimate = check_memory_for(state.size(), Workload{backend_name, precision, false, work.gravity});
    activity.emplace("running " + std::to_string(state.size()) + " bodies on the " + backend_name + " backend",
                     state.size(), estimate);
    const bool precise_output = loaded.precise.has_value() || backend_name == "reference" ||
                                precision == Precision::Ds || precision == Precision::Fp64;
    if (!o.output.empty())
        check_outputs({{"--out", o.output, particle_output_kind(o.output),
                        particle_file_bytes(particle_output_kind(o.output), state.size(), precise_output)}},
                      {}, true);
    if (o.integ.t_end) o.steps = steps_to_reach(*o.integ.t_end, state.time, loaded.params.dt);
    if (o.steps == 0) {
        if (!o.output.empty()) write_output(o.output, loaded, state, loaded.precise);
        // A Ctrl-C while reading or writing still says so: the file is whole, the exit status 130.
        if (const int sig = InterruptGuard::requested(); sig != 0) {
            std::fprintf(stderr, "nbody: interrupted by %s%s%s\n", signal_name(sig),
                         o.output.empty() ? "" : "; the input was converted in full to ", o.output.c_str());
            return stopped_exit_status(sig);
        }
        std::printf("converted %zu bodies%s%s\n", state.size(), o.output.empty() ? "" : " to ", o.output.c_str());
        return 0;
    }

    // The kernel config depends on N (the default table): set once the system is known.
    if (const std::string kernel = apply_kernel_options(*backend, o.kernel, state.size()); !kernel.empty())
        std::cerr << "nbody: " << kernel << "\n";
    backend->set_time_steps(time_steps);
    if (loaded.precise)
        backend->load_precise(state, *loaded.precise);
    else
        backend->load(state);
    const StepParams params = loaded.params;
    // The energy at the start is N^2/2 pairs on the host: skipped when a Ctrl-C came while the
    // system was loading (the run stops before its first step), announced when it takes long.
    // Under mpirun rank 0 alone reports, so only it pays for the energy (docs/DISTRIBUTED.md).
    const bool skip_energy = stop_requested() || !is_output_rank();
    if (!skip_energy) announce_energy_cost(state.size(), energy_source);
    auto energy_began = std::chrono::steady_clock::now();
    const std::optional<Diagnostics> first =
        skip_energy ? std::nullopt
                    : compute_diagnostics_or_stop(state, params.softening, *backend, energy_source, stop_requested);
    const Diagnostics before = first.value_or(Diagnostics{});
    double energy_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - energy_began).count();
    const io::RunEnergy here{before.total, state.time, std::string(to_string(energy_source))};
    const io::RunEnergy e0 = run_first_energy(loaded.energy0, here);  // load_input keeps it only for its softening
    if (first && std::isfinite(e0.energy)) loaded.energy0 = e0;  // the output continues the same run (a non-finite
                                                                 // start is reported as such, not kept)

    GuardedRun guarded(*backend, state, params);
    ProgressLine progress("step", o.steps, o.progress_seconds);
    if (const std::string ready = wait_for_every_rank(); !ready.empty()) std::fprintf(stderr, "nbody: %s\n", ready.c_str());
    const auto start = std::chrono::steady_clock::now();
    auto last_checkpoint = start;
    long long batch = 1;  // grows to about batch_seconds of work: short enough to stop quickly
    int interrupted = 0;
    StepCallTimes call_times;
    while (guarded.step() < o.steps) {
        if ((interrupted = rank0_decides(InterruptGuard::requested())) != 0) break;
        const long long count = std::min(batch, o.steps - guarded.step());
        const auto t0 = std::chrono::steady_clock::now();
        if (!guarded.advance(static_cast<int>(count))) break;
        const auto now = std::chrono::steady_clock::now();
        const double took = std::chrono::duration<double>(now - t0).count();
        const double per_step = took / double(count);
        call_times.add(guarded.step() - count, count, took);
        batch = rank0_decides(
            std::clamp<long long>(per_step > 0 ? static_cast<long long>(o.batch_seconds / per_step) : batch * 2, 1,
                                  std::min<long long>(batch * 4, std::numeric_limits<int>::max())));
        // The fallback state for the NaN guard: a host copy, so every few seconds only.
        if (rank0_decides(std::chrono::duration<double>(now - last_checkpoint).count() >= o.progress_seconds)) {
            guarded.checkpoint();
            last_checkpoint = now;
        }
        progress.update(guarded.step());
    }
    const long long done = guarded.step();
    backend->store(state);
    const std::optional<PreciseState> precise = backend->store_precise();
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

    if (const auto& event = guarded.event()) {
        const std::string what = event->describe(o.steps);
        char status[256];
        std::snprintf(status, sizeof status, "last finite state: step %lld of %lld, t = %.17g; %s", done, o.steps,
                      backend->time(), what.c_str());
        if (!o.output.empty()) write_output(o.output, loaded, state, precise, status);
        std::fprintf(stderr,
                     "nbody: error: the simulation became non-finite: %s (dt %g, softening %g: two bodies too "
                     "close for this softening, or a time step too large)\n",
                     what.c_str(), params.dt, params.softening);
        if (!o.output.empty())
            std::fprintf(stderr, "nbody: the last finite state (step %lld, t = %g) was written to %s, marked as such\n",
                         done, backend->time(), o.output.c_str());
        return 1;
    }
    if (!o.output.empty()) {
        std::string status;
        if (interrupted) {
            char text[160];
            std::snprintf(text, sizeof text, "interrupted by %s at step %lld of %lld, t = %.17g", signal_name(interrupted),
                          done, o.steps, backend->time());
            status = text;
        }
        write_output(o.output, loaded, state, precise, status);
    }
    if (interrupted == 0) interrupted = InterruptGuard::requested();  // during the write
    if (interrupted) {
        std::fprintf(stderr, "nbody: interrupted by %s after step %lld of %lld (t = %g)%s%s\n", signal_name(interrupted),
                     done, o.steps, backend->time(), o.output.empty() ? "" : "; the state reached was written to ",
                     o.output.c_str());
        return stopped_exit_status(interrupted);
    }

    if (!is_output_rank()) return 0;
    if (!o.output.empty())
        set_stop_messages("the run is complete and written to " + o.output + "; skipping the energy check",
                          "nothing: " + o.output + " is already written");
    announce_energy_cost(state.size(), energy_source);
    energy_began = std::chrono::steady_clock::now();
    const std::optional<Diagnostics> after_or_stop =
        compute_diagnostics_or_stop(state, params.softening, *backend, energy_source, stop_requested);
    if (!after_or_stop) {
        std::fprintf(stderr, "nbody: interrupted by %s during the final energy sum: all %lld steps were taken%s%s; the "
                     "energy error was not computed\n",
                     signal_name(InterruptGuard::requested()), o.steps,
                     o.output.empty() ? "" : " and the final state was written to ", o.output.c_str());
        return stopped_exit_status(InterruptGuard::requested());
    }
    const Diagnostics& after = *after_or_stop;
    energy_seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - energy_began).count();
    double momentum_scale = 0;  // sum of |m v|: what a momentum error is relative to
    for (std::size_t i = 0; i < state.size(); ++i)
        momentum_scale += state.pos_mass[i].w * norm(xyz(state.velocity[i]));
    const double energy_error = e0.energy != 0 ? (after.total - e0.energy) / std::abs(e0.energy) : 0.0;
    const double momentum_drift = norm(after.momentum - before.momentum);
    const double n = double(state.size());
    std::printf("backend %s: %zu bodies, %lld steps of dt %g (t = %g) in %.3f s, %.3g interactions/s\n",
                std::string(backend->name()).c_str(), state.size(), o.steps, params.dt, backend->time(), seconds,
                n * n * double(o.steps) / seconds);
    if (const std::string work = describe_force_work(*backend, done); !work.empty())
        std::printf("%s\n", work.c_str());
    if (const std::string calls = call_times.describe(); !calls.empty()) std::printf("%s\n", calls.c_str());
    std::printf("relative energy error: %.3e%s  (E0 = %.9g, E = %.9g; %s)\n", energy_error,
                energy_origin_note(e0, here).c_str(), e0.energy, after.total,
                describe_energy_source(energy_source, backend->gravity()).c_str());
    std::printf("energy at start and end (%s) took %.3f s%s\n", std::string(to_string(energy_source)).c_str(),
                energy_seconds,
                energy_source == EnergySource::Tree && backend_name != "cuda"
                    ? ", the walk that gave the first step's forces included"
                    : "");
    std::printf("momentum drift: |dP| = %.3e  (%.3e relative to sum |m v|)\n", momentum_drift,
                momentum_scale > 0 ? momentum_drift / momentum_scale : 0.0);
    if (!o.output.empty()) std::printf("wrote %s\n", o.output.c_str());
    warn_about_energy_error(energy_error, o.max_energy_error, "try a smaller --dt or a larger --softening");
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
    cmd->add_option("--bodies,-n", options->bodies, "Scale the scene to N bodies, keeping its proportions")
        ->transform(body_count());
    cmd->add_option("--out,-o", options->output,
                    "Write the final state here; format by extension (.csv, .tipsy, .nbsnap keeps dt and "
                    "softening); checked before the run starts")
        ->check(output_path_check());
    cmd->add_option("--steps", options->steps, "Leapfrog steps to take (0: only convert the input)")
        ->capture_default_str()
        ->check(whole_number(0, std::numeric_limits<long long>::max()));
    cmd->add_option("--dt", options->dt, "Time step, internal units (G = 1); default: the scene's or snapshot's, else 0.001");
    cmd->add_option("--softening", options->softening,
                    "Plummer softening length epsilon; default: the scene's or snapshot's, else 0.01 (hermite4, "
                    "hermite6: 0)");
    cmd->add_option("--backend", options->backend, "reference | cpu | cuda | auto")->capture_default_str();
    cmd->add_option("--max-energy-error", options->max_energy_error,
                    "Warn when the relative energy error at the end is above this")
        ->capture_default_str();
    cmd->add_option("--energy", options->energy,
                    "Where the energy comes from: tree (the tree walk's potential, O(N log N); the default of "
                    "--gravity tree) or exact (every pair in double, O(N^2): minutes on the host from 100K bodies; "
                    "the default of --gravity direct)");
    add_overwrite_flag(*cmd, options->overwrite);
    add_kernel_options(*cmd, options->kernel);
    add_integrator_options(*cmd, options->integ,
                           "Run to this model time instead of a step count (required for hermite4 and hermite6)");
    add_time_step_options(*cmd, options->time_steps, false);
    cmd->add_option("--j-split", options->j_split,
                    "hermite4 on CUDA: blocks sharing one i-block's j-range (default: chosen to fill the GPU). "
                    "--block (64, 128, 256), --unroll (1, 4, 8), --bodies-per-thread (1, 2, 4) and --precision "
                    "(ds, fp64) tune its kernel too");
    cmd->add_flag("--profile", options->profile,
                   "hermite4, hermite6: after the run, print where the block steps' wall time went, phase by phase "
                   "(the integrator's host loops, the engine's staging, its wait for the GPU and the GPU's own time)");
    cmd->footer(
        "Progress goes to stderr every 2 s with an estimate of the time left. Ctrl-C, SIGTERM or SIGHUP stops after "
        "the steps in progress, writes the state reached to --out (a snapshot says so in its metadata) and exits "
        "130 / 143 / 129; a second Ctrl-C, 1 s or more after the first was acknowledged, aborts without writing. "
        "If the state becomes NaN or Inf, the run stops at that step, names the body, writes the last "
        "finite state to --out (marked as such) and exits 1.");
    const auto gpus = add_gpus_option(*cmd);
    cmd->callback([options, cmd, gpus, &exit_code] {
        options->gpus = check_gpus_request(*gpus);
        options->steps_given = cmd->count("--steps") > 0;
        if (!is_output_rank()) options->output.clear();  // under mpirun rank 0 alone writes
        exit_code = run(*options);
    });
}

}  // namespace nbody::app
