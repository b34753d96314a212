#include "simulation.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <limits>
#include <stdexcept>

#include "integrator_options.hpp"
#include "output_paths.hpp"
#include "nbody/sim/diagnostics.hpp"
#include "nbody/sim/encounter_spec.hpp"
#include "nbody/sim/io/hermite_snapshot.hpp"
#include "nbody/sim/scene_spec.hpp"
#include "nbody/sim/io/particle_files.hpp"
#include "nbody/sim/io/scene_metadata.hpp"
#include "nbody/sim/io/snapshot.hpp"

namespace nbody::python {

namespace {

constexpr double kCheckpointSeconds = 2.0;
// A particle file's or array's units, as the viewer shows a particle file (viewer_scenes.cpp).
const UnitSystem kNbodyUnits{"N-body length", "N-body velocity", "N-body mass", "N-body time", 0.0, 0.0};  // the NaN guard's fallback copy, as `nbody run` takes it

std::string g17(double x) {
    char text[40];
    std::snprintf(text, sizeof text, "%.17g", x);
    return text;
}

bool is_scene_file(const std::string& path) {
    std::string ext = std::filesystem::path(path).extension().string();
    std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return char(std::tolower(c)); });
    return ext == ".toml";
}

PreciseState widen(const State& s) {
    PreciseState p;
    for (std::size_t i = 0; i < s.size(); ++i) {
        p.position.push_back(xyz(s.pos_mass[i]));
        p.velocity.push_back(xyz(s.velocity[i]));
        p.mass.push_back(s.pos_mass[i].w);
    }
    return p;
}

}  // namespace

namespace {

LoadedSystem system_of(Scene scene, const std::string& path) {
    LoadedSystem in;
    in.state = std::move(scene.state);
    in.precise = std::move(scene.precise);
    in.origin = {scene.params, scene.steps_per_frame, scene.name, path, {}, std::nullopt};
    io::put_scene_metadata(scene, in.origin.scene_metadata);
    in.camera = scene.camera;
    in.galaxy_names = scene.galaxy_names;
    in.units = scene.units;
    in.scene_integrator = scene.integrator;
    in.has_run_params = true;
    return in;
}

void check_bodies(std::optional<long long> bodies) {
    if (bodies && *bodies < 1) throw std::invalid_argument("bodies must be >= 1 (got " + std::to_string(*bodies) + ")");
}

}  // namespace

LoadedSystem load_system(const std::string& path, std::optional<long long> bodies) {
    check_bodies(bodies);
    if (is_scene_file(path)) {
        LoadedSystem in =
            system_of(load_scene(path, bodies ? std::optional<std::size_t>(std::size_t(*bodies)) : std::nullopt), path);
        in.file_integrator = in.scene_integrator.name;
        return in;
    }
    if (bodies)
        throw std::invalid_argument("bodies scales a scene (.toml): " + path + " is a particle file with its own N");
    LoadedSystem in;
    in.origin.params = StepParams{1e-3, 0.01};  // `nbody run`'s defaults for a file without them
    if (io::particle_format_for(path) == io::ParticleFormat::Snapshot) {
        auto snap = std::make_shared<io::Snapshot>(io::read_snapshot(path));
        in.state = snap->state;
        in.precise = snap->precise;
        in.origin = {snap->params, snap->steps_per_frame, snap->scene_name, snap->scene_source, {}, std::nullopt};
        io::copy_scene_metadata(snap->metadata, in.origin.scene_metadata);
        in.has_run_params = true;
        in.file_integrator = app::integrator_of_file(path);  // `nbody run -i` continues a Hermite snapshot with Hermite
        in.snapshot = std::move(snap);
        in.path = path;
        return in;
    }
    in.state = io::read_particles(path, &in.precise);
    in.origin.name = std::filesystem::path(path).filename().string();
    in.origin.source = path;
    return in;
}

LoadedSystem load_encounter(const std::string& preset_path, const EncounterChanges& changes,
                           std::optional<long long> bodies) {
    check_bodies(bodies);
    const EncounterPreset preset = encounter_preset(read_scene_spec(preset_path));
    EncounterSettings settings = preset.settings;
    if (changes.mass_ratio) settings.mass_ratio = *changes.mass_ratio;
    if (changes.pericentre) settings.pericentre = *changes.pericentre;
    if (changes.eccentricity) settings.eccentricity = *changes.eccentricity;
    if (changes.separation) settings.separation = *changes.separation, settings.start_by_time = false;
    if (changes.time_to_pericentre) settings.time_to_pericentre = *changes.time_to_pericentre, settings.start_by_time = true;
    if (bodies) settings.bodies = std::size_t(*bodies);
    return system_of(build_scene(make_encounter(preset, settings)), preset_path);
}

Simulation::Simulation(LoadedSystem system, const std::string& backend, const IntegratorChoice& integrator)
    : integrator_(integrator.name), backend_choice_(backend), origin_(std::move(system.origin)),
      camera_(std::move(system.camera)), galaxy_names_(std::move(system.galaxy_names)),
      units_(system.units.value_or(kNbodyUnits)),
      labels_(std::move(system.state)), precise_(std::move(system.precise)) {
    labels_.validate();
    if (precise_) precise_->validate(labels_.size());
    (void)parse_backend_kind(backend_choice_);  // the CLI's message for an unknown name
    if (!(origin_.params.dt > 0) || !std::isfinite(origin_.params.dt))
        throw std::invalid_argument("dt must be > 0 (got " + g17(origin_.params.dt) + ")");
    if (!(origin_.params.softening >= 0) || !std::isfinite(origin_.params.softening))
        throw std::invalid_argument("softening must be >= 0 (got " + g17(origin_.params.softening) + ")");
    const app::Integrator kind = app::parse_integrator(integrator_);
    if (!app::is_hermite(kind)) {
        start_leapfrog(precise_);
        return;
    }
    hermite_params_.order = app::hermite_order(kind);
    // As `nbody run --integrator`: eta and dt_max from the call, else the scene's or the Hermite
    // snapshot's (eta only when chosen for this order), else the defaults.
    std::optional<double> file_eta = system.scene_integrator.eta, file_dt_max = system.scene_integrator.dt_max;
    std::string eta_of = system.scene_integrator.name;
    std::optional<hermite::Bodies> resume;
    if (system.snapshot) {
        const io::SavedHermiteParams saved = io::saved_hermite_params(system.snapshot->metadata);
        file_eta = saved.eta, file_dt_max = saved.dt_max, eta_of = saved.eta_of;
        std::string note;
        resume = io::saved_hermite_state(*system.snapshot, system.path, hermite_params_.order, &note);
        if (!note.empty()) std::cerr << note << "\n";
    }
    hermite_params_.eta = integrator.eta                           ? *integrator.eta
                          : file_eta && eta_of == integrator_ ? *file_eta
                                                                   : hermite::default_eta(hermite_params_.order);
    hermite_params_.dt_max = integrator.dt_max ? *integrator.dt_max : file_dt_max.value_or(0.125);
    // `nbody run --integrator hermite4` takes a scene's or snapshot's softening, else 0.
    hermite_params_.softening = system.has_run_params ? origin_.params.softening : 0.0;
    if (!(hermite_params_.eta > 0) || !(hermite_params_.dt_max > 0))
        throw std::invalid_argument("eta and dt_max must be > 0 (got " + g17(hermite_params_.eta) + ", " +
                                    g17(hermite_params_.dt_max) + ")");
    start_hermite(resume);
}

void Simulation::start_leapfrog(const std::optional<PreciseState>& precise) {
    backend_ = make_backend(parse_backend_kind(backend_choice_), std::cerr);
    if (const std::string kernel = app::apply_kernel_options(*backend_, kernel_, size()); !kernel.empty())
        std::cerr << "nbody: " << kernel << "\n";
    if (precise)
        backend_->load_precise(labels_, *precise);
    else
        backend_->load(labels_);
    guard_ = std::make_unique<GuardedRun>(*backend_, labels_, origin_.params, steps_);
    last_checkpoint_ = std::chrono::steady_clock::now();
    host_stale_ = true;  // the backend's own copy says whether it keeps doubles (store_precise)
}

void Simulation::start_hermite(const std::optional<hermite::Bodies>& resume) {
    const hermite::EngineKind kind =
        backend_choice_ == "reference" ? hermite::EngineKind::Cpu : hermite::parse_engine_kind(backend_choice_);
    std::string why;
    auto engine = hermite::make_force_engine(kind, {}, &why, hermite_params_.order == 6, size());
    std::cerr << why << "\n";
    const PreciseState start = precise_ ? *precise_ : widen(labels_);
    hermite_ = std::make_unique<hermite::HermiteIntegrator>(std::move(engine), hermite_params_);
    if (resume)
        hermite_->resume(*resume, labels_.time);
    else
        hermite_->start(start.mass, start.position, start.velocity, labels_.time);
    host_stale_ = true;
}

std::string Simulation::backend_name() const {
    return std::string(hermite_ ? hermite_->engine().name() : backend_->name());
}

double Simulation::time() const { return hermite_ ? hermite_->time() : backend_->time(); }

void Simulation::require_leapfrog(const char* what) const {
    if (hermite_)
        throw std::invalid_argument(std::string(what) + " applies to the leapfrog integrator; " + integrator_ +
                                    " runs to a model time with block steps: use integrate(t_end)");
}

void Simulation::set_dt(double dt) {
    require_leapfrog("dt");
    if (!(dt > 0) || !std::isfinite(dt)) throw std::invalid_argument("dt must be > 0 (got " + g17(dt) + ")");
    origin_.params.dt = dt;
    guard_ = std::make_unique<GuardedRun>(*backend_, labels_, origin_.params, steps_);
}

void Simulation::set_softening(double softening) {
    if (!(softening >= 0) || !std::isfinite(softening))
        throw std::invalid_argument("softening must be >= 0 (got " + g17(softening) + ")");
    origin_.params.softening = softening;
    if (hermite_) {
        refresh_host();
        hermite_params_.softening = softening;
        start_hermite();
        return;
    }
    guard_ = std::make_unique<GuardedRun>(*backend_, labels_, origin_.params, steps_);
}

void Simulation::step(long long count) {
    require_leapfrog("step(n)");
    if (count < 0) throw std::invalid_argument("step count must be >= 0 (got " + std::to_string(count) + ")");
    while (count > 0) {
        const int chunk = int(std::min<long long>(count, std::numeric_limits<int>::max()));
        host_stale_ = true;
        const bool finite = guard_->advance(chunk);
        steps_ = guard_->step();
        if (!finite) {
            const NonFiniteEvent& e = *guard_->event();
            char text[320];
            std::snprintf(text, sizeof text,
                          "the simulation became non-finite: body %zu at step %lld (dt %g, softening %g: two bodies "
                          "too close for this softening, or a time step too large); the last finite state (step "
                          "%lld, t = %.17g) is kept",
                          e.body, e.step, origin_.params.dt, origin_.params.softening, steps_, backend_->time());
            guard_ = std::make_unique<GuardedRun>(*backend_, labels_, origin_.params, steps_);
            throw std::runtime_error(text);
        }
        count -= chunk;
    }
    if (std::chrono::steady_clock::now() - last_checkpoint_ > std::chrono::duration<double>(kCheckpointSeconds)) {
        guard_->checkpoint();
        last_checkpoint_ = std::chrono::steady_clock::now();
    }
}

long long Simulation::steps_to(double t_end) const {
    if (!std::isfinite(t_end)) throw std::invalid_argument("t_end must be a finite time (got " + g17(t_end) + ")");
    if (!(t_end >= time())) throw std::invalid_argument("t_end " + g17(t_end) + " is before the current time " + g17(time()));
    if (hermite_) return 0;
    // As `nbody run --t-end`: the whole steps of dt that reach t_end (the last may pass it by < dt).
    return static_cast<long long>(std::ceil((t_end - time()) / origin_.params.dt - 1e-9));
}

bool Simulation::integrate_batch(double t_end, long long& steps_left, double seconds) {
    const auto start = std::chrono::steady_clock::now();
    const auto elapsed = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(); };
    if (hermite_) {
        host_stale_ = true;
        do {
            if (!hermite_->advance(t_end)) {
                hermite_->evolve(t_end);
                return true;
            }
        } while (elapsed() < seconds);
        return false;
    }
    while (steps_left > 0 && elapsed() < seconds) {
        const long long count = std::min(batch_, steps_left);
        const auto t0 = std::chrono::steady_clock::now();
        step(count);
        steps_left -= count;
        // The next batch takes about a tenth of `seconds`: short enough to answer Ctrl-C quickly.
        const double per_step = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() / double(count);
        batch_ = std::clamp<long long>(per_step > 0 ? static_cast<long long>(0.1 * seconds / per_step) : batch_ * 2, 1,
                                       std::min<long long>(batch_ * 4, std::numeric_limits<int>::max()));
    }
    return steps_left == 0;
}

void Simulation::refresh_host() {
    if (!host_stale_) return;
    if (hermite_) {
        PreciseState p;
        hermite_->predicted(p.position, p.velocity);  // the state itself when synchronised
        p.mass = hermite_->bodies().mass;
        p.round_into(labels_);
        labels_.time = hermite_->time();
        precise_ = std::move(p);
    } else {
        backend_->store(labels_);
        labels_.time = backend_->time();
        precise_ = backend_->store_precise();
    }
    host_stale_ = false;
}

const State& Simulation::state() {
    refresh_host();
    return labels_;
}

const std::optional<PreciseState>& Simulation::precise() {
    refresh_host();
    return precise_;
}

void Simulation::set_state(const State& state, const std::optional<PreciseState>& precise) {
    refresh_host();
    if (state.size() != size())
        throw std::invalid_argument("the new state has " + std::to_string(state.size()) + " bodies; the simulation has " +
                                    std::to_string(size()) + " (make a new Simulation to change N)");
    State next = labels_;
    next.pos_mass = state.pos_mass;
    next.velocity = state.velocity;
    next.validate();
    if (precise) precise->validate(size());
    labels_ = std::move(next);
    if (hermite_) {
        precise_ = precise ? precise : std::optional<PreciseState>(widen(labels_));
        start_hermite();
        return;
    }
    start_leapfrog(precise);
}

void Simulation::add(const State& more, const std::optional<PreciseState>& more_precise) {
    more.validate();
    refresh_host();
    State next = labels_;
    std::optional<PreciseState> precise = precise_;
    if (!precise && more_precise) precise = widen(labels_);
    next.pos_mass.insert(next.pos_mass.end(), more.pos_mass.begin(), more.pos_mass.end());
    next.velocity.insert(next.velocity.end(), more.velocity.begin(), more.velocity.end());
    next.galaxy.insert(next.galaxy.end(), more.galaxy.begin(), more.galaxy.end());
    next.component.insert(next.component.end(), more.component.begin(), more.component.end());
    if (precise) {
        const PreciseState extra = more_precise ? *more_precise : widen(more);
        precise->position.insert(precise->position.end(), extra.position.begin(), extra.position.end());
        precise->velocity.insert(precise->velocity.end(), extra.velocity.begin(), extra.velocity.end());
        precise->mass.insert(precise->mass.end(), extra.mass.begin(), extra.mass.end());
    }
    next.validate();
    labels_ = std::move(next);
    precise_ = std::move(precise);
    if (hermite_) return start_hermite();
    start_leapfrog(precise_);
}

double Simulation::energy() {
    // The rule `run` and the viewer follow: a cuda run of 100,000 bodies or more sums its
    // potential on the GPU in fp64 (minutes on the host's cores).
    if (hermite_) return *hermite_energy_or_stop(*hermite_, {});
    return compute_diagnostics(state(), origin_.params.softening).total;
}

Vec3d Simulation::momentum() {
    refresh_host();
    Vec3d p;
    if (precise_) {
        for (std::size_t i = 0; i < size(); ++i) p += precise_->velocity[i] * precise_->mass[i];
        return p;
    }
    for (std::size_t i = 0; i < size(); ++i) p += xyz(labels_.velocity[i]) * double(labels_.pos_mass[i].w);
    return p;
}

std::vector<Vec3d> Simulation::accelerations(const std::optional<std::string>& gravity, std::optional<double> theta) {
    app::KernelOptions asked = kernel_;
    if (gravity) {
        asked.gravity.gravity = *gravity;
        if (*gravity == "direct") asked.gravity = {"direct", {}, {}, {}};
    }
    if (theta) asked.gravity.theta = theta;
    if (hermite_) {
        // The integrator keeps no force solver of its own to switch: a double backend on the same state.
        refresh_host();
        auto backend = make_backend(asked.gravity.gravity == "tree" ? BackendKind::Cpu : BackendKind::Reference, std::cerr);
        backend->set_gravity(asked.gravity.config());
        backend->load_precise(labels_, *precise_);
        return backend->accelerations(origin_.params.softening);
    }
    if (!gravity && !theta) return backend_->accelerations(origin_.params.softening);
    const app::KernelOptions running = kernel_;
    set_kernel_options(asked);
    std::vector<Vec3d> a;
    try {
        a = backend_->accelerations(origin_.params.softening);
    } catch (...) {
        set_kernel_options(running);
        throw;
    }
    set_kernel_options(running);
    return a;
}

void Simulation::set_kernel_options(const app::KernelOptions& options) {
    require_leapfrog("kernel and gravity options");
    try {
        (void)app::apply_kernel_options(*backend_, options, size());
    } catch (...) {
        (void)app::apply_kernel_options(*backend_, kernel_, size());  // accepted before, so accepted again
        throw;
    }
    kernel_ = options;
}

std::string Simulation::kernel_description() const {
    if (hermite_) return std::string(hermite_->engine().name()) + " engine, " + integrator_;
    return backend_->kernel_config().to_string() + ", gravity " + backend_->gravity().to_string();
}

void Simulation::save(const std::string& path, bool overwrite) {
    app::check_outputs({{"save", path, app::particle_output_kind(path, "save")}}, {origin_.source}, overwrite);
    refresh_host();
    if (hermite_) return io::write_hermite_state(path, origin_, labels_, *hermite_);
    io::write_run_state(path, origin_, labels_, precise_);
}

}  // namespace nbody::python
