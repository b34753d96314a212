// `nbody run --integrator hermite4|hermite6`: see hermite_run.hpp.

#include "hermite_run.hpp"

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "nbody/sim/atomic_file.hpp"
#include "nbody/sim/csv.hpp"
#include "nbody/sim/diagnostics.hpp"
#include "nbody/sim/hermite/integrator.hpp"
#include "nbody/sim/io/hermite_snapshot.hpp"
#include "nbody/sim/io/run_output.hpp"
#include "nbody/sim/io/particle_files.hpp"
#include "nbody/sim/io/scene_metadata.hpp"
#include "nbody/sim/io/snapshot.hpp"
#include "nbody/sim/scene.hpp"
#include "distributed_run.hpp"
#include "integrator_options.hpp"
#include "output_paths.hpp"
#include "progress_line.hpp"
#include "run_options.hpp"
#include "recorder_interrupt.hpp"

namespace nbody::app {
namespace {

using hermite::Bodies;
using hermite::HermiteIntegrator;

std::string g17(double x) {
    char buf[40];
    std::snprintf(buf, sizeof buf, "%.17g", x);
    return buf;
}

struct Input {
    std::vector<double> m;
    std::vector<Vec3d> x, v;
    double time = 0;
    std::optional<double> softening, eta, dt_max;
    std::string eta_of = "hermite4";  // the integrator `eta` was chosen for: another order's is not used
    std::optional<Bodies> resume;   // a Hermite snapshot: the integrator's own state
    std::string name, source;
    std::map<std::string, std::string> scene_metadata;  // units, camera, ... (io/scene_metadata.hpp)
    State labels;                   // galaxy/component labels for the output (floats unused)
    std::optional<io::RunEnergy> energy0;  // a snapshot's E0 of the run it continues; the output's
};

void widen(const State& s, Input& in) {
    for (std::size_t i = 0; i < s.size(); ++i) {
        in.m.push_back(s.pos_mass[i].w);
        in.x.push_back(xyz(s.pos_mass[i]));
        in.v.push_back(xyz(s.velocity[i]));
    }
    in.time = s.time;
    in.labels = s;
}

// The project's one CSV reader (nbody/sim/csv.hpp), every value kept in double.
void read_csv_double(const std::string& path, Input& in) {
    CsvContents csv = read_csv_file(path);
    in.x = std::move(csv.values.position);
    in.v = std::move(csv.values.velocity);
    in.m = std::move(csv.values.mass);
    in.labels = std::move(csv.state);
}

Input load(const HermiteRunOptions& o) {
    if (o.input.empty() == o.scene.empty())
        throw std::invalid_argument("give exactly one of --input FILE (csv, tipsy, nbsnap) and --scene FILE.toml");
    if (o.bodies && *o.bodies < 1) throw std::invalid_argument("--bodies must be >= 1");
    Input in;
    if (!o.scene.empty()) {
        Scene scene = load_scene(o.scene, o.bodies ? std::optional<std::size_t>(std::size_t(*o.bodies)) : std::nullopt);
        widen(scene.state, in);
        in.softening = scene.params.softening;
        in.eta = scene.integrator.eta;
        in.eta_of = scene.integrator.name;
        in.dt_max = scene.integrator.dt_max;
        in.name = scene.name;
        in.source = o.scene;
        io::put_scene_metadata(scene, in.scene_metadata);
        return in;
    }
    if (o.bodies) throw std::invalid_argument("--bodies scales a scene: use it with --scene");
    switch (io::particle_format_for(o.input)) {
        case io::ParticleFormat::Csv: read_csv_double(o.input, in); break;
        case io::ParticleFormat::Tipsy: widen(io::read_particles(o.input), in); break;
        case io::ParticleFormat::Snapshot: {
            io::Snapshot snap = io::read_snapshot(o.input);
            widen(snap.state, in);
            in.softening = snap.params.softening;
            in.name = snap.scene_name;
            in.source = snap.scene_source;
            io::copy_scene_metadata(snap.metadata, in.scene_metadata);
            in.energy0 = snap.energy0;
            if (snap.precise) {
                in.x = snap.precise->position;
                in.v = snap.precise->velocity;
                in.m = snap.precise->mass;
            }
            const io::SavedHermiteParams saved = io::saved_hermite_params(snap.metadata);
            in.eta = saved.eta;
            in.dt_max = saved.dt_max;
            in.eta_of = saved.eta_of;
            std::string note;
            in.resume = io::saved_hermite_state(snap, o.input, o.order, &note);
            if (!note.empty()) std::fprintf(stderr, "%s\n", note.c_str());
            break;
        }
    }
    return in;
}

void write_output(const std::string& path, const Input& in, const HermiteIntegrator& h, const std::string& status) {
    io::write_hermite_state(path, {{}, 1, in.name, in.source, in.scene_metadata, in.energy0}, in.labels, h, status);
}

std::string histogram(const std::vector<std::size_t>& h, double dt_max) {
    std::string s;
    for (std::size_t k = 0; k < h.size(); ++k)
        if (h[k] > 0) s += " " + std::to_string(k) + ":" + std::to_string(h[k]);
    char buf[80];
    std::snprintf(buf, sizeof buf, " (level k: step %g 2^-k)", dt_max);
    return s + buf;
}

// A progress line: model time reached, work done, and the time left if the rate of model time
// per second holds (block steps shrink in dense phases, so it is an estimate).
void report_progress(const HermiteIntegrator& h, double t_start, double t_end, double elapsed) {
    const double fraction = t_end > t_start ? (h.time() - t_start) / (t_end - t_start) : 1.0;
    const std::string left = fraction > 0 ? ", about " + format_hms(elapsed * (1.0 - fraction) / fraction) + " left" : "";
    std::fprintf(stderr, "  t = %.6g / %g (%.1f %%), %llu blocks, %.3e force evaluations, %s elapsed%s\n", h.time(), t_end,
                 100.0 * fraction, (unsigned long long)h.stats().blocks, double(h.stats().body_steps),
                 format_hms(elapsed).c_str(), left.c_str());
}

// --block, --unroll, --bodies-per-thread and --j-split on top of the engine's defaults; the cuda
// engine checks the shape when it is made and lists the supported ones.
hermite::EngineConfig engine_config(const HermiteRunOptions& o) {
    hermite::EngineConfig config;
    config.precision = o.precision;
    const bool shaped = o.block || o.unroll || o.bodies_per_thread;
    if (o.order == 6 && (shaped || o.j_split))
        throw std::invalid_argument("hermite6 computes the snap in one kernel shape (fp64, block 128, unroll 4, one body "
                                    "per thread, its j-split chosen to fill the GPU): --block, --unroll, "
                                    "--bodies-per-thread and --j-split tune hermite4's");
    if (o.j_split && *o.j_split < 0) throw std::invalid_argument("--j-split must be >= 0 (0: chosen to fill the GPU)");
    config.block = o.block.value_or(config.block);
    config.unroll = o.unroll.value_or(config.unroll);
    config.bodies_per_thread = o.bodies_per_thread.value_or(config.bodies_per_thread);
    config.j_split = o.j_split.value_or(config.j_split);
    if (o.gpus.size() > 1) config.devices = o.gpus;
    return config;
}

// The engine line, with the kernel's shape where a GPU runs it (defaults included, so that a run's
// log says what it measured).
std::string describe_engine(const hermite::ForceEngine& engine, const std::string& why, const hermite::EngineConfig& c,
                            const HermiteRunOptions& o) {
    const bool cuda = engine.name() == "cuda";
    if (!cuda && (o.block || o.unroll || o.bodies_per_thread || o.j_split))
        return why + "; --block, --unroll, --bodies-per-thread and --j-split tune the cuda engine and are not used";
    if (!cuda || o.order == 6) return why;
    const std::string per_thread = c.bodies_per_thread > 0 ? std::to_string(c.bodies_per_thread) : "auto";
    const std::string split = c.j_split > 0 ? std::to_string(c.j_split) : "auto";
    return why + " (" + c.precision + ", block " + std::to_string(c.block) + ", unroll " + std::to_string(c.unroll) +
           ", bodies per thread " + per_thread + ", j-split " + split + ")";
}

}  // namespace

Workload hermite_workload(const std::string& backend, int order) {
    Workload w;
    // Under mpirun as in one process: each rank's engine holds a P-th of the j-particles
    // (make_hermite_engine), the integrator's host arrays all of them.
    const bool gpu = backend == "cuda" || (backend == "auto" && cuda_available());
    w.backend = gpu ? "cuda" : "cpu";
    w.hermite_order = order;
    return w;
}

int run_hermite(const HermiteRunOptions& o) {
    if (!o.t_end)
        throw std::invalid_argument(std::string("--integrator ") + hermite::integrator_name(o.order) + " runs to a model time: give --t-end T");
    // --eta and --dt-max were checked with the other integrator options (resolve_integrator).
    if (o.softening && (!(*o.softening >= 0) || !std::isfinite(*o.softening)))
        throw std::invalid_argument("--softening must be >= 0 (got " + g17(*o.softening) + ")");
    const OutputKind output_kind = o.output.empty() ? OutputKind::Csv : particle_output_kind(o.output);
    const hermite::EngineKind kind = o.backend == "reference" ? hermite::EngineKind::Cpu : hermite::parse_engine_kind(o.backend);

    const Workload work = hermite_workload(o.backend, o.order);
    std::optional<MemoryActivity> activity;
    activity.emplace("loading " + (o.scene.empty() ? o.input : o.scene), o.bodies.value_or(0), 0);
    Input in = load(o);
    const std::uint64_t estimate = check_memory_for(in.m.size(), work);
    activity.emplace(std::string("running ") + hermite::integrator_name(o.order), in.m.size(), estimate);
    // The free space for the result, now that N is known: before the run, as leapfrog does.
    if (!o.output.empty())
        check_outputs({{"--out", o.output, output_kind, particle_file_bytes(output_kind, in.m.size(), true, true)}}, {},
                      true);
    hermite::HermiteParams p;
    p.order = o.order;
    p.eta = o.eta                                              ? *o.eta
            : in.eta && in.eta_of == hermite::integrator_name(o.order) ? *in.eta
                                                               : hermite::default_eta(o.order);
    p.dt_max = o.dt_max ? *o.dt_max : in.dt_max.value_or(0.125);
    p.softening = o.softening ? *o.softening : in.softening.value_or(0.0);
    // Before the first force pass: it costs N^2 pairs.
    check_block_steps_to_reach(*o.t_end, in.time, hermite::floor_power_of_two(p.dt_max));
    require_same_hermite_run_on_every_rank(in.m, in.x, in.v, in.time, p, *o.t_end);
    const hermite::EngineConfig config = engine_config(o);
    std::string why;
    std::unique_ptr<hermite::ForceEngine> engine = make_hermite_engine(kind, config, why, p.order == 6, in.m.size(), o.gpus);
    std::fprintf(stderr, "%s\n", describe_engine(*engine, why, config, o).c_str());
    HermiteIntegrator h(std::move(engine), p);
    if (const std::string host = h.device_blocks_unavailable(); host.empty())
        std::fprintf(stderr, "block steps on the GPU: the active bodies chosen, predicted, corrected and committed there\n");
    if (in.resume) {
        h.resume(*in.resume, in.time);
        std::fprintf(stderr, "resuming the Hermite run of %s at t = %s\n", o.input.c_str(), g17(in.time).c_str());
    } else {
        h.start(in.m, in.x, in.v, in.time);
    }
    if (!(*o.t_end >= h.time()))
        throw std::invalid_argument("--t-end " + g17(*o.t_end) + " is before the start time " + g17(h.time()));
    // A stop signal (main installs the handlers) that came while the system was built, or comes
    // during the O(N^2) energy, ends the run before its first block step; later ones after the
    // block step in progress. The state reached is written either way. Under mpirun rank 0 alone
    // reports, so only it pays for the energy, and its stop decides every rank's (rank0_decides).
    const std::optional<double> e_start =
        stop_requested() || !is_output_rank() ? std::nullopt : hermite_energy_or_stop(h, stop_requested);
    const double t_start = h.time();
    const io::RunEnergy here{e_start.value_or(0.0), t_start, io::kHermiteEnergySource};
    if (in.softening && p.softening != *in.softening) in.energy0.reset();  // another potential
    const io::RunEnergy e0 = run_first_energy(in.energy0, here);
    if (e_start && std::isfinite(e0.energy)) in.energy0 = e0;  // the output continues the same run
    if (o.profile) h.set_profiling(true);
    if (const std::string ready = wait_for_every_rank(); !ready.empty()) std::fprintf(stderr, "nbody: %s\n", ready.c_str());
    const auto start = std::chrono::steady_clock::now();
    auto last = start;
    int interrupted = rank0_decides(InterruptGuard::requested());
    try {
        // About 0.2-0.5 s of an H100's pairs between two looks at the clock and the signals, times the
        // GPUs that share them (each look brings the state back and sends it up again: ~5 ms at 128K,
        // 4-5 % of a run on four GPUs when they looked as often as one, device run 197); every rank
        // stops at the same block (a count, not a time).
        constexpr double kPairsBetweenLooks = 2.5e11;
        const double gpus_sharing = double(std::max<std::size_t>(1, config.devices.size())) * double(launch_ranks());
        while (!interrupted && h.advance_blocks(*o.t_end, kPairsBetweenLooks * gpus_sharing)) {
            if ((interrupted = rank0_decides(InterruptGuard::requested())) != 0) break;
            const auto now = std::chrono::steady_clock::now();
            if (std::chrono::duration<double>(now - last).count() >= o.progress_seconds) {
                report_progress(h, t_start, *o.t_end, std::chrono::duration<double>(now - start).count());
                last = now;
            }
        }
        if (!interrupted) h.evolve(*o.t_end);
    } catch (const std::runtime_error& e) {
        // A failing block (HermiteError: every rank meets it) or, in one process, the engine's GPUs
        // failing under it: the integrator still holds its last good state. Under mpirun any other
        // failure is one rank's, which must end every rank (main's abort), not write alone.
        if (launch_ranks() > 1 && !dynamic_cast<const hermite::HermiteError*>(&e)) throw;
        std::fprintf(stderr, "nbody: %s\n", e.what());
        if (!o.output.empty()) {
            write_output(o.output, in, h,
                         std::string("last good state (t = ") + g17(h.time()) + ", predicted to that time): " + e.what());
            std::fprintf(stderr, "wrote the last good state (t = %s) to %s\n", g17(h.time()).c_str(), o.output.c_str());
        }
        return 1;
    }
    if (interrupted) {
        const std::string status = std::string("interrupted by ") + signal_name(interrupted) + " at t = " +
                                   g17(h.time()) + " of " + g17(*o.t_end) + " (predicted to that time)";
        if (!o.output.empty()) write_output(o.output, in, h, status);
        std::fprintf(stderr, "nbody: %s%s%s\n", status.c_str(),
                     o.output.empty() ? "" : "; the state reached was written to ", o.output.c_str());
        return stopped_exit_status(interrupted);
    }
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (!is_output_rank()) return 0;  // the report is rank 0's (its output is cleared on the others)
    if (!o.output.empty()) {
        write_output(o.output, in, h, "");
        set_stop_messages("the run is complete and written to " + o.output + "; skipping the energy check",
                          "nothing: " + o.output + " is already written");
    }
    const std::optional<double> e1_or_stop = hermite_energy_or_stop(h, stop_requested);
    if (!e1_or_stop) {
        std::fprintf(stderr, "nbody: interrupted by %s during the final energy sum: the run reached t = %s%s%s; the "
                     "energy error was not computed\n",
                     signal_name(InterruptGuard::requested()), g17(h.time()).c_str(),
                     o.output.empty() ? "" : " and was written to ", o.output.c_str());
        return stopped_exit_status(InterruptGuard::requested());
    }
    const double e1 = *e1_or_stop;
    const auto& s = h.stats();
    std::printf("%s (%s engine): %zu bodies to t = %.17g in %.3f s: %llu blocks, %llu force evaluations, "
                "%.3g interactions/s\n",
                hermite::integrator_name(p.order), std::string(h.engine().name()).c_str(), h.bodies().size(), h.time(), seconds,
                (unsigned long long)s.blocks, (unsigned long long)s.body_steps, s.interactions / seconds);
    std::printf("eta %g, dt_max %g, softening %g; block levels:%s\n", h.params().eta, h.params().dt_max,
                h.params().softening, histogram(h.level_histogram(), h.params().dt_max).c_str());
    const double energy_error = e0.energy != 0 ? (e1 - e0.energy) / std::abs(e0.energy) : 0.0;
    std::printf("relative energy error: %.3e%s  (E0 = %.17g, E = %.17g)\n", energy_error,
                energy_origin_note(e0, here).c_str(), e0.energy, e1);
    if (!o.output.empty()) std::printf("wrote %s\n", o.output.c_str());
    if (o.profile) std::printf("%s", h.profile_report(seconds).c_str());
    warn_about_energy_error(energy_error, o.max_energy_error, "try a smaller --eta");
    return 0;
}

}  // namespace nbody::app
