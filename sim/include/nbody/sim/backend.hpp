#pragma once
// One interface for every way of stepping the system: `reference` (double precision, the truth
// the others are tested against), `cpu` (fp32, multi-threaded) and `cuda`.
//
// Integration is leapfrog kick-drift-kick with Plummer softening:
//   v += a dt/2;  x += v dt;  a = F(x);  v += a dt/2
// The backend keeps the accelerations of the current positions, so velocities are synchronised
// with positions at every whole step (what diagnostics need) and each step costs one force pass.

#include <cstddef>
#include <iosfwd>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "nbody/sim/gravity.hpp"
#include "nbody/sim/kernel_config.hpp"
#include "nbody/sim/state.hpp"
#include "nbody/sim/time_steps.hpp"
#include "nbody/sim/types.hpp"

namespace nbody {

struct StepParams {
    double dt = 1e-3;
    double softening = 0.01;  // Plummer epsilon; the force uses r^2 + eps^2
};

class Backend {
public:
    virtual ~Backend() = default;
    Backend() = default;
    Backend(const Backend&) = delete;
    Backend& operator=(const Backend&) = delete;

    virtual std::string_view name() const = 0;

    // Replaces the system. Accelerations are computed lazily at the next step.
    virtual void load(const State& state) = 0;
    // Copies positions, masses and velocities back (galaxy/component labels are the caller's).
    virtual void store(State& state) const = 0;
    virtual std::size_t size() const = 0;

    // The state in double precision where the backend integrates in double (reference; cuda in
    // ds and fp64), so that a snapshot can restore it exactly; std::nullopt where the floats of
    // store() are all there is.
    virtual std::optional<PreciseState> store_precise() const { return std::nullopt; }
    // load(state), then positions, velocities and masses taken from `precise` (same N) where the
    // backend keeps them in double; the others step the floats of `state`. Throws
    // std::invalid_argument when `precise` does not fit `state`.
    virtual void load_precise(const State& state, const PreciseState& precise) {
        precise.validate(state.size());
        load(state);
    }

    // Advances `count` leapfrog steps.
    virtual void step(const StepParams& params, int count = 1) = 0;

    // Accelerations at the current positions, in double, for tests and the accuracy report.
    virtual std::vector<Vec3d> accelerations(double softening) = 0;

    // The NaN/Inf guard's check: the first body whose position, mass or velocity is not finite,
    // or std::nullopt. Cheap next to a step (O(N)); the cuda backend reduces on the device and
    // copies back one integer. The default stores the state to the host and scans it.
    virtual std::optional<std::size_t> first_non_finite() const;

    // The softened potential energy (1/2) sum_i m_i phi_i at the current positions, with phi from
    // the tree code's walk (the force's criterion and cells; docs/TREE.md), summed in double:
    // about one force pass. std::nullopt when the backend runs direct gravity.
    virtual std::optional<double> tree_potential_energy(double /*softening*/) { return std::nullopt; }

    // Simulation time reached (load() sets it from the state).
    virtual double time() const = 0;

    // Kernel tuning; backends without a tunable kernel accept and ignore it.
    virtual void set_kernel_config(const KernelConfig&) {}
    virtual KernelConfig kernel_config() const { return {}; }

    // Gravity solver (gravity.hpp): direct (the default) or tree. Throws std::invalid_argument with
    // the reason when the backend has no tree code or the tree parameters are out of range; the
    // running choice is kept then. Positions and velocities are kept across a switch.
    virtual void set_gravity(const GravityConfig& config);
    virtual GravityConfig gravity() const { return {}; }

    // Shared (the default) or block time steps (time_steps.hpp). Under block steps, step() takes
    // params.dt as dt_max: each step of dt_max ends with every body synchronised (positions,
    // velocities, accelerations), so diagnostics, output and store() see one time. Throws
    // std::invalid_argument with the reason where the backend has no block steps (the default:
    // shared only) or the config is out of range; the running choice is kept then.
    virtual void set_time_steps(const TimeStepConfig& config);
    virtual TimeStepConfig time_steps() const { return {}; }
    // The force work since load() (evaluations, passes, tree terms, levels), where the backend
    // counts it; std::nullopt otherwise.
    virtual std::optional<ForceWork> force_work() const { return std::nullopt; }
};

enum class BackendKind { Reference, Cpu, Cuda, Auto };

// Parses "reference", "cpu", "cuda" or "auto"; throws std::invalid_argument listing them.
BackendKind parse_backend_kind(std::string_view text);
std::string_view to_string(BackendKind kind);

// Creates a backend. `Auto` takes cuda when a GPU is usable and cpu otherwise, and writes a line
// saying which (and why) to `notice`. `Cuda` with no usable GPU throws std::runtime_error with
// the reason (no driver, no device, built without CUDA).
std::unique_ptr<Backend> make_backend(BackendKind kind, std::ostream& notice);

// True when this build has the CUDA backend and a device is usable; `why_not` gets the reason.
bool cuda_available(std::string* why_not = nullptr);

// The GPU this process runs on: what cuda_available() checks and the memory checks read, and the
// current device after them. GPU 0 unless set; under mpirun each rank sets its own (the local rank's
// modulo the GPUs seen) before any probe, so that no rank opens a context on another rank's GPU (run
// 121: rank 1 of two held 518 MiB on GPU 0). A build without CUDA ignores it.
void set_process_gpu(int local_rank);

}  // namespace nbody
