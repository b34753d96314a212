#include "run_options.hpp"

#include <cctype>
#include <cmath>
#include <filesystem>
#include <utility>
#include <charconv>
#include <cstdio>
#include <stdexcept>
#include <string>

#include "nbody/sim/scene_spec.hpp"

#ifdef NBODY_HAVE_CUDA
#include "autotune.hpp"
#include "nbody/sim/cuda_backend.hpp"
#include "nbody/sim/kernel_defaults.hpp"
#endif

namespace nbody::app {

std::string shortest_number(double x) {
    char text[32];
    const auto end = std::to_chars(text, text + sizeof text, x).ptr;
    std::string shortest(text, end);
    // 0.0007, not 7e-04: the fixed form where it is as readable (a few more digits at most).
    const auto fixed_end = std::to_chars(text, text + sizeof text, x, std::chars_format::fixed).ptr;
    if (fixed_end - text <= std::ptrdiff_t(shortest.size()) + 2) return std::string(text, fixed_end);
    return shortest;
}

void add_gravity_options(CLI::App& cmd, GravityOptions& options) {
    cmd.add_option("--gravity", options.gravity,
                   "Gravity solver: direct (every pair, default) or tree (Barnes-Hut octree with quadrupoles, "
                   "O(N log N); docs/TREE.md)")
        ->capture_default_str();
    const TreeParams defaults;  // the help quotes the defaults the code uses
    cmd.add_option("--theta", options.theta,
                   "Tree opening angle (0, 2]; smaller is more accurate and slower; with --alpha it bounds what "
                   "the relative criterion accepts (default " + shortest_number(defaults.theta) + ")");
    cmd.add_option("--alpha", options.alpha,
                   "Tree: relative opening criterion 0..1: a cell is used only where its error estimate m l^3 / d^5 "
                   "is at most alpha |a| of the group's bodies' last pass, theta then bounding it; 0 = theta alone "
                   "(default " + shortest_number(defaults.alpha) + "; docs/TREE.md)");
    cmd.add_option("--leaf-size", options.leaf_size,
                   "Tree: most bodies in a leaf cell, 1..256 (default " + std::to_string(defaults.leaf_size) + ")");
    cmd.add_option("--group-size", options.group_size,
                   "Tree: bodies sharing one walk and interaction list, 1..1024 (default " +
                       std::to_string(defaults.group_size) + ")");
}

GravityConfig GravityOptions::config() const {
    GravityConfig c;
    c.gravity = parse_gravity(gravity);
    if (c.gravity == Gravity::Direct && (theta || alpha || leaf_size || group_size))
        throw std::invalid_argument("--theta, --alpha, --leaf-size and --group-size apply to --gravity tree");
    if (theta) c.tree.theta = *theta;
    if (alpha) c.tree.alpha = *alpha;
    if (leaf_size) c.tree.leaf_size = *leaf_size;
    if (group_size) c.tree.group_size = *group_size;
    if (c.gravity == Gravity::Tree)
        if (std::string reason = check_tree_params(c.tree); !reason.empty())
            throw std::invalid_argument("tree options refused: " + reason);
    return c;
}

void add_kernel_options(CLI::App& cmd, KernelOptions& options) {
    add_gravity_options(cmd, options.gravity);
    cmd.add_option("--unroll", options.unroll, "CUDA kernel: j-loop unroll factor (1, 2, 4, 8, 16, 32)");
    cmd.add_option("--block", options.block, "CUDA kernel: block size = tile p (multiple of 32, up to 1024)");
    cmd.add_option("--threads-per-body", options.threads_per_body,
                   "CUDA kernel: threads sharing one body's j-range q (1, 2, 4, 8, 16, 32)");
    cmd.add_option("--bodies-per-thread", options.bodies_per_thread,
                   "CUDA kernel: i-bodies each thread holds in registers B (1, 2, 4; 8 with unroll 4 or 8 and threads per body 1-8)");
    cmd.add_option("--pairs", options.pairs,
                   "CUDA kernel: full (every pair, default), symmetric (each pair once, triangular map) or "
                   "symmetric-bb (each pair once, bounding-box grid)");
    cmd.add_option("--bodies-per-lane", options.bodies_per_lane,
                   "CUDA symmetric kernel: i-bodies per lane (1, 2, 4, 8)");
    cmd.add_option("--precision", options.precision,
                   "CUDA kernel arithmetic: fp32 (default, direct sum), fp32-jbag (Chamomile partial sums), "
                   "ds (double-single positions, Sapporo) or fp64; the last three with --pairs full, "
                   "unroll 4/8, threads/body 1-8, bodies/thread 1-4 (fp64: 1)");
}

CLI::Validator whole_number(long long min, long long max) {
    const std::string range = std::to_string(min) + " to " + std::to_string(max);
    return CLI::Validator(
        [min, max, range](std::string& text) -> std::string {
            long long v = 0;
            const char* begin = text.data();
            const char* end = text.data() + text.size();
            if (begin != end && *begin == '+') ++begin;
            const auto [stop, ec] = std::from_chars(begin, end, v);
            if (ec == std::errc::result_out_of_range) return "'" + text + "' is beyond the supported range (" + range + ")";
            if (ec != std::errc() || stop != end) return "'" + text + "' is not a whole number";
            if (v < min || v > max) return "'" + text + "' is outside " + range;
            return "";
        },
        "INT in [" + range + "]", "whole_number");
}

CLI::Validator auto_or(const CLI::Validator& number) {
    return CLI::Validator([number](std::string& text) { return text == "auto" ? std::string() : number(text); },
                          "auto|" + number.get_description(), "auto_or_" + number.get_name());
}

namespace {

// The count `text` names ("16384", "64K", "1M"), or why it names none (then `count` is untouched).
std::string read_body_count(const std::string& text, std::size_t& count) {
    std::string digits = text;
    unsigned long long unit = 1;
    if (!digits.empty() && (digits.back() == 'k' || digits.back() == 'K'))
        unit = 1024, digits.pop_back();
    else if (!digits.empty() && (digits.back() == 'm' || digits.back() == 'M'))
        unit = 1024 * 1024, digits.pop_back();
    unsigned long long value = 0;
    const auto [stop, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
    const std::string shown = text.size() > 40 ? text.substr(0, 40) + "..." : text;
    if (digits.empty() || (ec != std::errc() && ec != std::errc::result_out_of_range) ||
        stop != digits.data() + digits.size() || (ec == std::errc() && value == 0))
        return "'" + shown + "' is not a positive count (e.g. 16384, 64K, 1M)";
    if (ec == std::errc::result_out_of_range || value > io::kMaxBodies / unit)
        return "'" + shown + "' is beyond the supported range (1 to " + std::to_string(io::kMaxBodies) + " = 1024M)";
    count = std::size_t(value * unit);
    return {};
}

}  // namespace

std::size_t parse_body_count(const std::string& text, const std::string& option) {
    std::size_t count = 0;
    if (std::string why = read_body_count(text, count); !why.empty()) throw std::invalid_argument(option + ": " + why);
    return count;
}

CLI::Validator body_count() {
    return CLI::Validator(
        [](std::string& text) {
            std::size_t count = 0;
            std::string why = read_body_count(text, count);
            if (why.empty()) text = std::to_string(count);  // the option's integer reads the plain number
            return why;
        },
        "N (e.g. 16384, 64K, 1M)", "body_count");
}

std::string backend_name_for(BackendKind kind) {
    if (kind == BackendKind::Auto) return cuda_available() ? "cuda" : "cpu";
    return std::string(to_string(kind));
}

Precision requested_precision(const KernelOptions& options) {
    return options.precision ? parse_precision(*options.precision) : Precision::Fp32;
}

namespace {

#ifdef NBODY_HAVE_CUDA
// The config the cuda backend starts from: the cached auto-tune result when no option is given and
// the cache has a usable one for this GPU and N, else the default table's.
KernelConfig starting_config(const CudaBackend& cuda, const KernelOptions& options, std::size_t bodies,
                             std::string& origin) {
    const CudaDeviceInfo& info = cuda.device_info();
    origin = describe_default_kernel_config(info.compute_major, info.compute_minor, bodies);
    const KernelConfig table = default_kernel_config(info.compute_major, info.compute_minor, bodies);
    if (options.any()) return table;
    std::string warnings;
    const auto cached = load_cached_config(default_autotune_cache_path(), info.name, bodies, &warnings);
    if (!warnings.empty()) origin += "; " + warnings;
    if (!cached) return table;
    if (const std::string reason = cuda.check_kernel_config(cached->config); !reason.empty()) {
        origin += "; the cached auto-tune result is not usable here: " + reason;
        return table;
    }
    origin = "the auto-tuned kernel config cached for this GPU and N";
    return cached->config;
}
#endif

}  // namespace

std::string apply_kernel_options(Backend& backend, const KernelOptions& options, std::size_t bodies) {
    KernelConfig config = backend.kernel_config();
    std::string origin;
#ifdef NBODY_HAVE_CUDA
    if (const auto* cuda = dynamic_cast<const CudaBackend*>(&backend)) config = starting_config(*cuda, options, bodies, origin);
#else
    (void)bodies;
#endif
    if (options.precision) {
        config.precision = parse_precision(*options.precision);
#ifdef NBODY_HAVE_CUDA
        if (dynamic_cast<const CudaBackend*>(&backend) != nullptr) config = CudaBackend::fit_to_precision(config);
#endif
        if (backend.name() != "cuda" && config.precision != Precision::Fp32)
            std::fprintf(stderr, "nbody: --precision %s applies to the cuda backend; the %s backend keeps its own "
                                 "arithmetic (%s)\n",
                         options.precision->c_str(), std::string(backend.name()).c_str(),
                         backend.name() == "reference" ? "fp64" : "fp32");
    }
    if (backend.name() != "cuda")
        if (const std::string unused = kernel_tunables_given(options); !unused.empty())
            std::fprintf(stderr, "nbody: %s\n", kernel_tunables_unused(backend.name(), unused).c_str());
    if (options.unroll) config.unroll = *options.unroll;
    if (options.block) config.block = *options.block;
    if (options.threads_per_body) config.threads_per_body = *options.threads_per_body;
    if (options.bodies_per_thread) config.bodies_per_thread = *options.bodies_per_thread;
    if (options.bodies_per_lane) config.bodies_per_lane = *options.bodies_per_lane;
    if (options.pairs) config.pair_mode = parse_pair_mode(*options.pairs);
    backend.set_kernel_config(config);
    backend.set_gravity(options.gravity.config());
    if (origin.empty()) return origin;
    const std::string used = backend.gravity().gravity == Gravity::Tree
                                 ? " [held for --gravity direct: the tree code computes the forces now]"
                                 : "";
    return "kernel " + config.to_string() + (options.any() ? " (options on top of the " : " (") + origin + ")" + used;
}

std::string got(double value) { return " (got " + shortest_number(value) + ")"; }

std::string kernel_tunables_given(const KernelOptions& o) {
    std::string given;
    for (const auto& [set, name] : {std::pair{o.unroll.has_value(), "--unroll"}, std::pair{o.block.has_value(), "--block"},
                                    std::pair{o.threads_per_body.has_value(), "--threads-per-body"},
                                    std::pair{o.bodies_per_thread.has_value(), "--bodies-per-thread"},
                                    std::pair{o.bodies_per_lane.has_value(), "--bodies-per-lane"},
                                    std::pair{o.pairs.has_value(), "--pairs"}})
        if (set) given += (given.empty() ? "" : ", ") + std::string(name);
    return given;
}

std::string kernel_tunables_unused(std::string_view backend, const std::string& options) {
    const bool several = options.find(',') != std::string::npos;
    return "the " + std::string(backend) + " backend has no kernel config: " + options +
           (several ? " tune the cuda kernel and are not used" : " tunes the cuda kernel and is not used");
}

std::optional<std::uint64_t> planned_bodies(const std::string& scene, std::optional<long long> bodies) {
    if (bodies) return std::uint64_t(*bodies);
    std::string ext = std::filesystem::path(scene).extension().string();
    for (char& c : ext) c = char(std::tolower(static_cast<unsigned char>(c)));
    if (scene.empty() || ext != ".toml") return std::nullopt;
    return read_scene_spec(scene).bodies;
}

void warn_about_energy_error(double relative_error, double limit, const char* remedy) {
    std::fflush(stdout);
    if (!(std::abs(relative_error) <= limit))
        std::fprintf(stderr,
                     "nbody: warning: the relative energy error %.3g is above %g (--max-energy-error): the result "
                     "is not trustworthy; %s\n",
                     relative_error, limit, remedy);
}

io::RunEnergy run_first_energy(const std::optional<io::RunEnergy>& saved, const io::RunEnergy& here) {
    return saved && saved->source == here.source ? *saved : here;
}

std::string energy_origin_note(const io::RunEnergy& e0, const io::RunEnergy& here) {
    if (e0.time == here.time && e0.energy == here.energy) return "";
    return " since t = " + shortest_number(e0.time) + " (E0 kept in the snapshot)";
}

}  // namespace nbody::app
