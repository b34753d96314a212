#include "integrator_options.hpp"

#include <cctype>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <limits>
#include <map>
#include <stdexcept>

#include "nbody/sim/io/hermite_snapshot.hpp"
#include "nbody/sim/scene.hpp"
#include "nbody/sim/time_steps.hpp"

namespace nbody::app {

Integrator parse_integrator(const std::string& name) {
    if (name == "leapfrog") return Integrator::Leapfrog;
    if (name == "hermite4") return Integrator::Hermite4;
    if (name == "hermite6") return Integrator::Hermite6;
    throw std::invalid_argument("unknown --integrator '" + name + "' (supported: leapfrog, hermite4, hermite6)");
}

const char* to_string(Integrator integrator) {
    switch (integrator) {
        case Integrator::Hermite4: return "hermite4";
        case Integrator::Hermite6: return "hermite6";
        default: return "leapfrog";
    }
}

namespace {

std::string g(double x) {
    char buf[40];
    std::snprintf(buf, sizeof buf, "%g", x);
    return buf;
}

}  // namespace

void add_integrator_options(CLI::App& cmd, IntegratorOptions& o, const char* t_end_help) {
    cmd.add_option("--integrator", o.integrator,
                   "leapfrog (shared step --dt, galaxies), hermite4 (4th-order Hermite, block time steps, double; "
                   "star clusters and few-body systems) or hermite6 (6th-order Hermite, the same block steps, forces in "
                   "double on the cpu or the GPU; few-body systems and clusters to 1e-8 and better). Default: the scene's [scene] integrator, else leapfrog");
    cmd.add_option("--t-end", o.t_end, t_end_help);
    cmd.add_option("--eta", o.eta,
                   "hermite4, hermite6: the time-step accuracy parameter (Aarseth's criterion; for hermite6 its "
                   "6th-order form). Default: the scene's, else 0.01 for hermite4 and 0.1 for hermite6. "
                   "run --timesteps block (leapfrog): eta of dt_i = eta sqrt(softening / |a_i|), default " +
                       g(kDefaultBlockEta));
    cmd.add_option("--dt-max", o.dt_max,
                   "hermite4, hermite6: largest block step, rounded down to a power of two (default: the scene's, else 0.125)");
}

std::string integrator_of_file(const std::string& path) {
    std::string ext = std::filesystem::path(path).extension().string();
    for (char& c : ext) c = char(std::tolower(static_cast<unsigned char>(c)));
    if (ext == ".toml") return read_scene_integrator(path).name;
    if (ext != ".nbsnap") return {};
    std::map<std::string, std::string> metadata;
    try {
        metadata = io::read_snapshot_metadata(path);  // not the bodies: the loader reads the file next
    } catch (const std::runtime_error&) {
        return {};  // a file that cannot be read: the loader names the problem in full
    }
    const io::SavedHermiteParams saved = io::saved_hermite_params(metadata);
    return saved.from_hermite_run ? saved.eta_of : std::string();
}

Integrator resolve_integrator(const IntegratorOptions& o, const std::string& scene_integrator,
                              std::initializer_list<LeapfrogOnly> leapfrog_only, bool block_leapfrog) {
    const Integrator chosen =
        parse_integrator(o.integrator ? *o.integrator : scene_integrator.empty() ? "leapfrog" : scene_integrator);
    const char* origin = o.integrator ? "" : " (the scene's integrator; --integrator leapfrog overrides it)";
    // inf would run forever, NaN never ends either; both leapfrog (a step count) and Hermite refuse them.
    if (o.t_end && !std::isfinite(*o.t_end))
        throw std::invalid_argument("--t-end must be a finite model time (got " + g(*o.t_end) + ")");
    if (chosen == Integrator::Leapfrog) {
        if (o.dt_max || (o.eta && !block_leapfrog))
            throw std::invalid_argument(std::string("--eta and --dt-max belong to --integrator hermite4 or hermite6") +
                                        (o.dt_max ? "; leapfrog's --timesteps block takes --dt as its largest step"
                                                  : "; run --timesteps block (leapfrog) takes --eta too"));
        return chosen;
    }
    for (const LeapfrogOnly& option : leapfrog_only)
        if (option.given)
            throw std::invalid_argument(std::string(option.name) + " is leapfrog's; " + to_string(chosen) + " " +
                                        (option.instead ? option.instead : "chooses its own block steps (--eta, --dt-max)") +
                                        origin);
    if (o.eta && (!(*o.eta > 0) || !std::isfinite(*o.eta)))
        throw std::invalid_argument("--eta must be > 0 (got " + g(*o.eta) + ")");
    if (o.dt_max && (!(*o.dt_max > 0) || !std::isfinite(*o.dt_max)))
        throw std::invalid_argument("--dt-max must be > 0 (got " + g(*o.dt_max) + ")");
    return chosen;
}

long long steps_to_reach(double t_end, double t_start, double dt) {
    const double span = (t_end - t_start) / dt;
    if (!(span >= 0) || !std::isfinite(span))
        throw std::invalid_argument("--t-end " + g(t_end) + " must not be before the start time " + g(t_start));
    // The whole steps of dt that reach t_end (the last may pass it by < dt); a count beyond long
    // long would wrap to a negative one.
    const double steps = std::ceil(span - 1e-9);
    if (steps >= 9.2e18)
        throw std::invalid_argument("--t-end " + g(t_end) + " with --dt " + g(dt) + " is " + g(steps) +
                                    " steps from t = " + g(t_start) + ", beyond the supported " +
                                    std::to_string(std::numeric_limits<long long>::max()) + "; give a smaller --t-end or a larger --dt");
    return static_cast<long long>(steps);
}

void check_block_steps_to_reach(double t_end, double t_start, double dt_max) {
    // Beyond 2^53 steps of dt_max a double's time no longer advances by one: the run would never end.
    const double blocks = (t_end - t_start) / dt_max;
    if (blocks > 9007199254740992.0)
        throw std::invalid_argument("--t-end " + g(t_end) + " is " + g(blocks) + " block steps of dt_max " + g(dt_max) +
                                    " from t = " + g(t_start) + ", beyond 2^53 (9.0e15), where the model time no "
                                    "longer advances by a step; give a smaller --t-end");
}

}  // namespace nbody::app
