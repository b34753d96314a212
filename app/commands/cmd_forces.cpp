// `nbody forces`: one force pass, each body's acceleration written as CSV (ax,ay,az) in the
// input order: the way to compare solvers, backends or theta outside the program.

#include <chrono>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <memory>
#include <optional>
#include <utility>
#include <ostream>
#include <stdexcept>
#include <string>

#include "commands.hpp"
#include "nbody/sim/atomic_file.hpp"
#include "nbody/sim/backend.hpp"
#include "nbody/sim/io/particle_files.hpp"
#include "nbody/sim/io/snapshot.hpp"
#include "nbody/sim/memory_check.hpp"
#include "nbody/sim/scene.hpp"
#include "output_paths.hpp"
#include "recorder_interrupt.hpp"
#include "run_options.hpp"

namespace nbody::app {
namespace {

struct ForcesOptions {
    std::string input, scene, output;
    std::optional<long long> bodies;
    std::optional<double> softening;
    std::string backend = "auto";
    KernelOptions kernel;
    bool overwrite = false;
};

int forces(const ForcesOptions& o) {
    if (o.input.empty() == o.scene.empty())
        throw std::invalid_argument("give exactly one of --input FILE (csv, tipsy, nbsnap) and --scene FILE.toml");
    if (o.output.empty()) throw std::invalid_argument("--out FILE.csv is required");
    if (o.bodies && (*o.bodies < 1 || o.scene.empty()))
        throw std::invalid_argument("--bodies N (>= 1) scales a scene: use it with --scene");
    if (o.softening && (!(*o.softening >= 0) || !std::isfinite(*o.softening)))
        throw std::invalid_argument("--softening must be >= 0" + got(*o.softening));
    const GravityConfig gravity = o.kernel.gravity.config();  // bad options fail before any loading
    const BackendKind kind = parse_backend_kind(o.backend);
    // Memory for a scaled scene first (a refused N leaves no folder behind), then the output.
    const Workload work{backend_name_for(kind), requested_precision(o.kernel), false, gravity.gravity, 0, true};
    const std::optional<std::uint64_t> planned = planned_bodies(o.scene, o.bodies);
    std::uint64_t estimate = planned ? check_memory_for(*planned, work) : 0;
    check_outputs({{"--out", o.output, OutputKind::Csv}}, {o.input, o.scene}, o.overwrite);
    std::optional<MemoryActivity> activity;
    activity.emplace("loading " + (o.scene.empty() ? o.input : o.scene), planned.value_or(0), estimate);

    // Until the accelerations are known nothing can be written: a stop signal ends the command at
    // once, however long the force pass takes (O(N^2): minutes at large N on the host).
    std::optional<StopEndsAtOnce> stop_at_once(std::in_place, o.output + " was not written (the force pass was not finished)");
    State state;
    double softening = 0.01;  // as `nbody run` when neither the input nor the options say
    if (!o.scene.empty()) {
        Scene scene = load_scene(o.scene, o.bodies ? std::optional<std::size_t>(std::size_t(*o.bodies)) : std::nullopt);
        state = std::move(scene.state);
        softening = scene.params.softening;
    } else if (io::particle_format_for(o.input) == io::ParticleFormat::Snapshot) {
        io::Snapshot snap = io::read_snapshot(o.input);
        state = std::move(snap.state);
        softening = snap.params.softening;
    } else {
        state = io::read_particles(o.input);
    }
    if (o.softening) softening = *o.softening;
    state.validate();
    estimate = check_memory_for(state.size(), work);
    activity.emplace("computing the forces", state.size(), estimate);

    std::unique_ptr<Backend> backend = make_backend(kind, std::cerr);
    (void)apply_kernel_options(*backend, o.kernel, state.size());
    backend->load(state);
    const auto start = std::chrono::steady_clock::now();
    const std::vector<Vec3d> acc = backend->accelerations(softening);
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    stop_at_once.reset();  // the writing takes a moment: a stop now waits for it
    set_stop_messages("the force pass is finished: writing " + o.output + " in full, then stopping",
                      o.output + " not written");
    write_file_atomically(o.output, [&](std::ostream& out) {
        out << "ax,ay,az\n";
        char line[96];
        for (const Vec3d& a : acc) {
            std::snprintf(line, sizeof line, "%.9g,%.9g,%.9g\n", a.x, a.y, a.z);
            out << line;
        }
    });
    std::printf("backend %s, gravity %s: accelerations of %zu bodies (softening %g) in %.3f s (including "
                "upload and first use); wrote %s\n",
                std::string(backend->name()).c_str(), gravity.to_string().c_str(), state.size(), softening, seconds,
                o.output.c_str());
    if (const int sig = InterruptGuard::requested(); sig != 0) {
        std::fprintf(stderr, "nbody: interrupted by %s while writing; %s was written in full\n", signal_name(sig),
                     o.output.c_str());
        return stopped_exit_status(sig);
    }
    return 0;
}

}  // namespace

void add_forces_command(CLI::App& app, int& exit_code) {
    auto options = std::make_shared<ForcesOptions>();
    CLI::App* cmd = app.add_subcommand(
        "forces", "Write each body's acceleration (CSV ax,ay,az, input order) from one force pass");
    cmd->add_option("--input,-i", options->input, "Particle file: .csv, .tipsy/.std/.bin (TIPSY) or .nbsnap");
    cmd->add_option("--scene", options->scene, "Scene file (scenes/*.toml) instead of --input");
    cmd->add_option("--bodies,-n", options->bodies, "Scale the scene to N bodies (e.g. 16384, 64K, 1M)")
        ->transform(body_count());
    cmd->add_option("--out,-o", options->output, "CSV file to write (header ax,ay,az; one row per body, input order)")
        ->check(output_path_check());
    cmd->add_option("--softening", options->softening,
                    "Plummer softening; default: the scene's or snapshot's, else 0.01");
    cmd->add_option("--backend", options->backend, "reference | cpu | cuda | auto")->capture_default_str();
    add_overwrite_flag(*cmd, options->overwrite);
    add_kernel_options(*cmd, options->kernel);
    cmd->callback([options, &exit_code] { exit_code = forces(*options); });
}

}  // namespace nbody::app
