#pragma once
// Options shared by the subcommands that run the force kernel (run, view, record, bench).

#include <CLI/CLI.hpp>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "nbody/sim/backend.hpp"
#include "nbody/sim/io/body_check.hpp"
#include "nbody/sim/io/snapshot.hpp"

namespace nbody::app {

// The gravity solver (direct | tree) and the tree's tunables (nbody/sim/gravity.hpp).
struct GravityOptions {
    std::string gravity = "direct";
    std::optional<double> theta, alpha;
    std::optional<int> leaf_size, group_size;

    // The configuration these options ask for; throws std::invalid_argument for an unknown solver
    // or tree parameters out of range, and for tree options given with --gravity direct.
    GravityConfig config() const;
};

// Registers --gravity, --theta, --alpha, --leaf-size, --group-size.
void add_gravity_options(CLI::App& cmd, GravityOptions& options);

struct KernelOptions {
    std::optional<int> unroll, block, threads_per_body, bodies_per_thread, bodies_per_lane;
    std::optional<std::string> pairs;
    std::optional<std::string> precision;  // fp32 | fp32-jbag | ds | fp64
    GravityOptions gravity;

    // Whether any kernel tunable was given (the gravity solver is not one).
    bool any() const {
        return unroll || block || threads_per_body || bodies_per_thread || bodies_per_lane || pairs || precision;
    }
};

void add_kernel_options(CLI::App& cmd, KernelOptions& options);

// A CLI11 check for a whole number in [min, max]: "99999999999999999999" for a long long is
// refused with the range instead of being clamped, and "1e3" or "12abc" are refused as not whole
// numbers. Attach with ->check(whole_number(1, ...)).
CLI::Validator whole_number(long long min, long long max);
// The word "auto", or what `number` takes (its messages otherwise).
CLI::Validator auto_or(const CLI::Validator& number);

// The largest --bodies of every command: the readers' limit (io::kMaxBodies, 2^30; the kernels index
// bodies with int).
inline constexpr long long kMaxBodiesOption = static_cast<long long>(io::kMaxBodies);

// "16384", "64K", "1M" (K = 1024, M = 1048576) -> a body count from 1 to 2^30. Throws
// std::invalid_argument naming `option` and the text for anything else, a count beyond 2^30
// included (never wrapped or clamped).
std::size_t parse_body_count(const std::string& text, const std::string& option);
// The same as a CLI11 check for one count (view, run, record --bodies): rewrites "64K" as "65536" for
// the option's integer, and refuses the rest with parse_body_count's reason.
CLI::Validator body_count();

// The backend `kind` will be, by name ("reference", "cpu", "cuda"; auto: cuda when usable), for
// estimates made before it is created.
std::string backend_name_for(BackendKind kind);

// The precision the kernel options ask for (fp32 when none), for estimates made before the
// backend exists.
Precision requested_precision(const KernelOptions& options);

// Sets the kernel config a command runs `bodies` bodies with. The cuda backend starts from the
// fastest measured config for its GPU and N (nbody/sim/kernel_defaults.hpp); with no kernel option
// given, an auto-tune result cached for this GPU and N wins over it. The given tunables go on top;
// throws std::invalid_argument with the reason when the backend refuses them. A --precision other
// than fp32 first moves the tunables not given explicitly to the nearest values compiled for it
// (CudaBackend::fit_to_precision), so `--precision ds` works on top of any tuned fp32 config.
// Also applies options.gravity (Backend::set_gravity). Returns a line saying where the config came
// from (empty for backends without a kernel config).
std::string apply_kernel_options(Backend& backend, const KernelOptions& options, std::size_t bodies);

// The kernel tunables given ("--unroll, --block"; empty: none), and the note that `backend` (not
// cuda) does not use them, in one wording for every command.
std::string kernel_tunables_given(const KernelOptions& options);
std::string kernel_tunables_unused(std::string_view backend, const std::string& options);

// The N a command will run before its input is read, so that memory is estimated before the
// system is built: `bodies` (--bodies) when given, else a scene file's (.toml) N read without
// generating it; none for particle files and no scene. Throws as load_scene does for a bad scene.
std::optional<std::uint64_t> planned_bodies(const std::string& scene, std::optional<long long> bodies);

// The shortest text that reads back as `x` ("0.02", "1e+300"), for messages.
std::string shortest_number(double x);
// " (got 0.5)": the value a refused option had, for its message (shortest form that reads back).
std::string got(double value);

// After a run's figures on stdout (flushed first, so that a log shows them in order): a warning on
// stderr when |relative_error| exceeds --max-energy-error, naming what to change (`remedy`).
void warn_about_energy_error(double relative_error, double limit, const char* remedy);

// The energy a run measures its drift from (issue 33): a snapshot's E0 of the first state of the
// run it continues, when that was summed the same way (source; the caller drops it when the
// softening changed), else `here`, this leg's first energy. The run's output snapshot keeps it.
io::RunEnergy run_first_energy(const std::optional<io::RunEnergy>& saved, const io::RunEnergy& here);
// " since t = 0 (E0 kept in the snapshot)" when E0 is older than this leg, else "".
std::string energy_origin_note(const io::RunEnergy& e0, const io::RunEnergy& here);

}  // namespace nbody::app
