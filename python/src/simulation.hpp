#pragma once
// The state behind nbody.Simulation: a system, its integrator (leapfrog on a Backend, or the
// Hermite block-step integrator) and where it came from. Plain C++ with no Python in it; the
// bindings (module.cpp) convert arrays and exceptions and release the GIL around the work.
//
// The same calls as `nbody run`: scenes through load_scene, particle files through
// io::read_particles / io::read_snapshot, the backend through make_backend, kernel options through
// apply_kernel_options (the CLI's checks and messages), steps through GuardedRun (the NaN/Inf
// guard), files through io::write_run_state / io::write_hermite_state. So `sim.step(100)` gives the
// bits `nbody run --steps 100` writes.

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "nbody/sim/backend.hpp"
#include "nbody/sim/finite_guard.hpp"
#include "nbody/sim/hermite/integrator.hpp"
#include "nbody/sim/io/run_output.hpp"
#include "nbody/sim/io/snapshot.hpp"
#include "nbody/sim/scene.hpp"
#include "run_options.hpp"

namespace nbody::python {

// Which integrator and its parameters; eta and dt_max apply to the Hermite ones.
struct IntegratorChoice {
    std::string name = "leapfrog";  // leapfrog | hermite4 | hermite6
    std::optional<double> eta, dt_max;
};

// A system as loaded, before an integrator takes it.
struct LoadedSystem {
    State state;
    std::optional<PreciseState> precise;  // the file's double state
    io::RunOrigin origin;                 // dt, softening, name, scene metadata
    std::optional<CameraSpec> camera;     // a scene's camera
    std::vector<std::string> galaxy_names;
    std::optional<UnitSystem> units;      // a scene's (none: N-body units)
    SceneIntegrator scene_integrator;     // what a scene file asks for
    bool has_run_params = false;          // dt and softening came from a scene or snapshot
    std::string file_integrator;          // the integrator the file asks for (a scene's, a Hermite snapshot's)
    std::shared_ptr<const io::Snapshot> snapshot;  // a snapshot's Hermite parameters and block-step state
    std::string path;
};

// A scene file scaled to `bodies` when given, or a particle file (.csv, TIPSY, .nbsnap).
LoadedSystem load_system(const std::string& path, std::optional<long long> bodies);

// The encounter editor's settings (nbody/sim/encounter_spec.hpp) changed from a preset's: a
// collision scene of two galaxies. Only the given ones change; separation and time_to_pericentre
// each choose how the start is placed.
struct EncounterChanges {
    std::optional<double> mass_ratio, pericentre, eccentricity, separation, time_to_pericentre;
};
LoadedSystem load_encounter(const std::string& preset_path, const EncounterChanges& changes,
                            std::optional<long long> bodies);

class Simulation {
  public:
    // Validates the system (State::validate: the first bad body named) and starts the integrator.
    Simulation(LoadedSystem system, const std::string& backend, const IntegratorChoice& integrator);
    Simulation(const Simulation&) = delete;
    Simulation& operator=(const Simulation&) = delete;

    bool hermite() const { return hermite_ != nullptr; }
    const std::string& integrator_name() const { return integrator_; }
    std::string backend_name() const;
    std::size_t size() const { return labels_.size(); }
    double time() const;
    const StepParams& params() const { return origin_.params; }
    void set_dt(double dt);
    void set_softening(double softening);
    long long steps_taken() const { return steps_; }

    // Leapfrog steps, checked for NaN/Inf after each call (throws std::runtime_error naming the
    // step and body, with the last finite state kept). Hermite refuses: it runs to a model time.
    void step(long long count);
    // Leapfrog: the whole steps of dt that reach t_end. Hermite: block steps up to t_end, then
    // synchronised at t_end exactly.
    long long steps_to(double t_end) const;
    // One batch of work toward t_end that takes about `seconds`; returns true when t_end is reached
    // (the caller checks for Ctrl-C between batches, the state always at a batch boundary).
    // `steps_left` starts at steps_to(t_end) and counts down (leapfrog).
    bool integrate_batch(double t_end, long long& steps_left, double seconds);

    // The host state: floats (with labels) and, where the integrator keeps one, the double state.
    const State& state();
    const std::optional<PreciseState>& precise();
    // Replaces positions, velocities and masses (same N; labels kept). `precise` when the values
    // were given in double and the integrator keeps a double state. Restarts the integrator there.
    void set_state(const State& state, const std::optional<PreciseState>& precise);

    // Appends bodies (labels: galaxy 0, component unspecified unless `more` has them) and restarts
    // the integrator on the whole system. `more_precise` when the new values were given in double.
    void add(const State& more, const std::optional<PreciseState>& more_precise);

    double energy();
    Vec3d momentum();
    // Accelerations in double at the current positions with the given solver (none: the running one).
    std::vector<Vec3d> accelerations(const std::optional<std::string>& gravity, std::optional<double> theta);

    // Kernel and solver options, applied as the CLI applies them; an invalid set is refused with
    // the CLI's message (std::invalid_argument) and the running one kept.
    const app::KernelOptions& kernel_options() const { return kernel_; }
    void set_kernel_options(const app::KernelOptions& options);
    std::string kernel_description() const;

    // Checked first as `nbody run --out` is (app/cli/output_paths.hpp): the folder is made or
    // refused, an existing file of another kind or the simulation's own input file is replaced only
    // with `overwrite`; then written whole or not at all.
    void save(const std::string& path, bool overwrite);

    const std::optional<CameraSpec>& camera() const { return camera_; }
    const std::vector<std::string>& galaxy_names() const { return galaxy_names_; }
    const UnitSystem& units() const { return units_; }

  private:
    void start_leapfrog(const std::optional<PreciseState>& precise);
    // From precise_ (or the floats) at labels_.time, or resuming a saved block-step state exactly.
    void start_hermite(const std::optional<hermite::Bodies>& resume = std::nullopt);
    void refresh_host();
    void require_leapfrog(const char* what) const;

    std::string integrator_;
    std::string backend_choice_;
    io::RunOrigin origin_;
    std::optional<CameraSpec> camera_;
    std::vector<std::string> galaxy_names_;
    UnitSystem units_;  // a scene's own, else N-body units
    State labels_;  // labels, and the host copy of the state (fresh when !host_stale_)
    std::optional<PreciseState> precise_;
    bool host_stale_ = false;
    long long steps_ = 0;
    app::KernelOptions kernel_;

    // Leapfrog.
    std::unique_ptr<Backend> backend_;
    std::unique_ptr<GuardedRun> guard_;
    std::chrono::steady_clock::time_point last_checkpoint_;
    long long batch_ = 1;  // integrate's batch of steps, grown to the time it is given

    // Hermite.
    hermite::HermiteParams hermite_params_;
    std::unique_ptr<hermite::HermiteIntegrator> hermite_;
};

}  // namespace nbody::python
