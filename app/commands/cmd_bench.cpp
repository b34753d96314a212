// `nbody bench`: headless timing of the leapfrog step (force pass + integration) on a Plummer
// sphere or a scene's bodies (--scene), over a list of N and of kernel configs. Needs no OpenGL.
// Without kernel options it times the default config for the GPU and N (kernel_defaults.hpp).
//
// Figures per run: ms per step (median of the repeats), interactions/s = N^2 / time (every pair,
// the self term included, as the kernel computes it), GFLOP/s at 20 flops per interaction (GPU
// Gems 3 / cuda-samples count) and at 38 (the Warren-Salmon count some papers use), and the
// percentage of the FP32 ceiling: SMs x FP32 lanes x clock / 12 FP32 instructions per
// interaction (../shared/DEVICE.md).
//
// --split and --kernel-flags time the full kernel's design choices against each other in one
// process (same clocks, interleaved): they set the kernel driver's developer overrides
// NBODY_FORCE_GRID and NBODY_FORCE_FLAGS (sim/cuda/force_kernel.hpp) around each group of runs.

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <utility>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "autotune.hpp"
#include "output_paths.hpp"
#include "commands.hpp"
#include "distributed_run.hpp"
#include "nbody/sim/atomic_file.hpp"
#include "nbody/sim/backend.hpp"
#include "nbody/sim/direct_sum_backend.hpp"
#include "nbody/sim/ic/plummer.hpp"
#include "nbody/sim/kernel_defaults.hpp"
#include "nbody/sim/memory_check.hpp"
#include "nbody/sim/scene.hpp"
#include "recorder_interrupt.hpp"
#include "run_options.hpp"
#include "time_step_options.hpp"

#ifdef NBODY_HAVE_CUDA
#include "nbody/sim/cuda_backend.hpp"
#endif

namespace nbody::app {
namespace {

constexpr double kFlopsGems = 20.0;
constexpr double kFlopsWarren = 38.0;
constexpr double kFp32InstructionsPerInteraction = 12.0;
constexpr std::size_t kFullCheckMaxBodies = 16384;  // above: a strided sample of bodies
constexpr std::size_t kCheckSample = 2048;
constexpr double kPlummerDt = 1e-3;
constexpr double kPlummerSoftening = 0.01;

struct BenchOptions {
    std::vector<int> gpus;  // --gpus: the GPUs of this process to step on (empty: one)
    std::vector<std::string> bodies;
    std::string backend = "auto";
    std::vector<int> unroll, block, threads_per_body, bodies_per_thread, bodies_per_lane;
    std::vector<std::string> pairs;
    std::vector<std::string> precisions;  // fp32 | fp32-jbag | ds | fp64 (docs/PRECISION.md)
    std::vector<std::string> splits;      // auto | classic | balanced (NBODY_FORCE_GRID)
    std::vector<int> kernel_flags;        // 0..31 (NBODY_FORCE_FLAGS)
    bool sweep = false;
    bool autotune = false;
    bool check = false;
    int repeats = 5;
    int warmup = 2;
    int steps = 0;  // per repeat; 0 = automatic
    double min_repeat_ms = 20;
    std::optional<double> dt;         // default: the scene's, else kPlummerDt
    std::optional<double> softening;  // default: the scene's, else kPlummerSoftening
    std::string scene;                // a scene file whose bodies are timed; empty: a Plummer sphere
    unsigned long long seed = 1;
    std::string json;
    std::string cache;  // auto-tune cache; empty = default path
    GravityOptions gravity;  // --gravity tree times the tree code (interactions/s still counts N^2)
    TimeStepOptions time_steps;  // --timesteps block: a step is one of dt_max, its evaluations reported
    bool no_cache = false;
    bool overwrite = false;
};

struct Record {
    std::size_t bodies = 0;
    std::optional<KernelConfig> config;  // none for host backends
    std::string split;                   // the NBODY_FORCE_GRID in force ("" = unset: auto)
    std::optional<int> kernel_flags;     // the NBODY_FORCE_FLAGS in force (none = the product's)
    bool valid = true;
    std::string reason;
    bool autotuned = false;
    Timing timing;
    double interactions_per_second = 0;
    std::optional<double> percent_ceiling;
    std::optional<int> registers;
    std::optional<double> check_error;
    std::size_t check_bodies = 0;
    double check_tolerance = 0;
    std::optional<double> evaluations_per_step;  // host backends: bodies whose force one step computed
};

std::string fmt(const char* f, double v) {
    char buf[64];
    std::snprintf(buf, sizeof buf, f, v);
    return buf;
}

// Reference accelerations in double for the bodies `idx` (all when N is small): the
// ReferenceBackend itself for N <= kFullCheckMaxBodies, else the same sum (self term skipped)
// for a strided sample, which costs sample x N instead of N^2.
struct CheckReference {
    std::vector<std::size_t> idx;
    std::vector<Vec3d> acc;
};

CheckReference make_check_reference(const State& s, double softening) {
    CheckReference r;
    const std::size_t n = s.size();
    if (n <= kFullCheckMaxBodies) {
        ReferenceBackend ref;
        ref.load(s);
        r.acc = ref.accelerations(softening);
        r.idx.resize(n);
        for (std::size_t i = 0; i < n; ++i) r.idx[i] = i;
        return r;
    }
    const double eps2 = softening * softening;
    const std::size_t stride = n / kCheckSample;
    for (std::size_t i = 0; i < n; i += stride) r.idx.push_back(i);
    r.acc.resize(r.idx.size());
    for (std::size_t k = 0; k < r.idx.size(); ++k) {
        const std::size_t i = r.idx[k];
        const Vec3d xi = xyz(s.pos_mass[i]);
        Vec3d a;
        for (std::size_t j = 0; j < n; ++j) {
            if (j == i) continue;
            const Vec3d d = xyz(s.pos_mass[j]) - xi;
            const double r2 = dot(d, d) + eps2;
            a += d * (double(s.pos_mass[j].w) / (r2 * std::sqrt(r2)));
        }
        r.acc[k] = a;
    }
    return r;
}

double max_relative_error(const std::vector<Vec3d>& a, const CheckReference& ref) {
    double worst = 0;
    for (std::size_t k = 0; k < ref.idx.size(); ++k) {
        const double r = norm(ref.acc[k]);
        const double e = norm(a[ref.idx[k]] - ref.acc[k]) / (r > 0 ? r : 1.0);
        if (!(e <= worst)) worst = e;
    }
    return worst;
}

// fp32 summation error grows like sqrt(N): 2e-5 is the test bound at N = 4096 (Chamomile eq. 3).
double check_tolerance(std::size_t n) { return 2e-5 * std::max(1.0, std::sqrt(double(n) / 4096.0)); }

std::vector<int> axis(const std::vector<int>& given, bool sweep, const std::vector<int>& all, int fallback) {
    if (!given.empty()) return given;
    if (sweep) return all;
    return {fallback};
}

#ifdef NBODY_HAVE_CUDA
// Several GPUs cut each pass by shares that move to the GPUs' measured speeds every 16 step calls
// (CudaBackend::calls_to_settle_shares). Timed before that, a bench measured the even first cut:
// device run 172, two H100s, the tree at 1M: GPU 0 3.53 ms for its half against 2.50 ms for GPU
// 1's. The settling calls are untimed and bounded to ~10 s, so that a slow step (every pair at
// 4M) does not make a bench minutes longer. Each waits for its step: with the host calls ahead
// the moves read the times of older cuts (run 175: four moves left the first GPU at 44 % of the
// walk at 1M where its half of the groups walks 1.7x slower than the other's).
void settle_gpu_shares(CudaBackend& cuda, const StepParams& params) {
    const int calls = cuda.calls_to_settle_shares();
    if (calls <= 0) return;
    const auto start = std::chrono::steady_clock::now();
    int made = 0;
    while (made < calls) {
        cuda.step(params, 1);
        cuda.synchronize();
        ++made;
        if (std::chrono::steady_clock::now() - start > std::chrono::seconds(10)) break;
    }
    static bool said = false;
    if (made < calls)
        std::printf("  (the GPUs' shares had %d of the %d untimed step calls they take to settle: 10 s limit)\n", made,
                    calls);
    else if (!said)
        std::printf("  (the GPUs' shares settled first, over %d untimed step calls: they move every 16)\n", calls);
    said = true;
}
#endif

void print_header(bool cuda) {
    if (cuda)
        std::printf("%9s %-12s %3s %5s %3s %2s %-10s %6s %10s %10s %9s %9s %6s %4s  %s\n", "N", "pairs", "U",
                    "p", "q", "B", "split/F", "steps", "ms/step", "int/s", "GF/s@20", "GF/s@38", "%ceil",
                    "regs", "check");
    else
        std::printf("%9s %6s %10s %10s %9s %9s  %s\n", "N", "steps", "ms/step", "int/s", "GF/s@20", "GF/s@38",
                    "check");
}

void print_record(const Record& r, bool cuda) {
    std::string check;
    if (r.check_error)
        check = fmt("%.2e", *r.check_error) + (*r.check_error <= r.check_tolerance ? " ok" : " FAIL");
    if (r.autotuned) check += check.empty() ? "(auto-tuned)" : " (auto-tuned)";
    if (cuda) {
        const KernelConfig& c = *r.config;
        // The symmetric kernels have one tunable, bodies per lane, shown in the B column.
        const bool full = c.pair_mode == PairMode::Full;
        const std::string u = full ? std::to_string(c.unroll) : "-",
                          p = full ? std::to_string(c.block) : "32",
                          q = full ? std::to_string(c.threads_per_body) : "-";
        const int b = full ? c.bodies_per_thread : c.bodies_per_lane;
        const std::string pairs =
            std::string(to_string(c.pair_mode)) +
            (c.precision == Precision::Fp32 ? "" : "/" + std::string(to_string(c.precision)));
        const std::string variant = (r.split.empty() ? std::string("auto") : r.split) + "/" +
                                    (r.kernel_flags ? std::to_string(*r.kernel_flags) : std::string("-"));
        if (!r.valid) {
            std::printf("%9zu %-12s %3s %5s %3s %2d %-10s  refused: %s\n", r.bodies, pairs.c_str(), u.c_str(),
                        p.c_str(), q.c_str(), b, variant.c_str(), r.reason.c_str());
        } else {
            std::printf("%9zu %-12s %3s %5s %3s %2d %-10s %6d %10.4f %10.3e %9.0f %9.0f %6.1f %4d  %s\n",
                        r.bodies, pairs.c_str(), u.c_str(), p.c_str(), q.c_str(), b, variant.c_str(),
                        r.timing.steps_per_repeat, r.timing.ms_per_step, r.interactions_per_second,
                        r.interactions_per_second * kFlopsGems / 1e9,
                        r.interactions_per_second * kFlopsWarren / 1e9, r.percent_ceiling.value_or(0),
                        r.registers.value_or(0), check.c_str());
        }
    } else {
        if (r.evaluations_per_step)  // what block time steps save: force evaluations per step of dt
            check += std::string(check.empty() ? "" : "  ") + "force evaluations/step " +
                     fmt("%.4g", *r.evaluations_per_step) + fmt(" (%.3g N)", *r.evaluations_per_step / double(r.bodies));
        std::printf("%9zu %6d %10.4f %10.3e %9.1f %9.1f  %s\n", r.bodies, r.timing.steps_per_repeat,
                    r.timing.ms_per_step, r.interactions_per_second,
                    r.interactions_per_second * kFlopsGems / 1e9,
                    r.interactions_per_second * kFlopsWarren / 1e9, check.c_str());
    }
    std::fflush(stdout);
}

// The bodies whose force one more step computes (std::nullopt where the backend does not count).
std::optional<double> evaluations_of_one_step(Backend& backend, const StepParams& params) {
    const std::optional<ForceWork> before = backend.force_work();
    if (!before) return std::nullopt;
    backend.step(params);
    return double(backend.force_work()->evaluations - before->evaluations);
}

nlohmann::json to_json(const Record& r) {
    nlohmann::json j;
    j["bodies"] = r.bodies;
    if (r.config) {
        j["unroll"] = r.config->unroll;
        j["block"] = r.config->block;
        j["threads_per_body"] = r.config->threads_per_body;
        j["bodies_per_thread"] = r.config->bodies_per_thread;
        j["pair_mode"] = std::string(to_string(r.config->pair_mode));
        j["bodies_per_lane"] = r.config->bodies_per_lane;
        j["precision"] = std::string(to_string(r.config->precision));
        j["split"] = r.split.empty() ? std::string("auto") : r.split;
        j["kernel_flags"] = r.kernel_flags ? nlohmann::json(*r.kernel_flags) : nlohmann::json(nullptr);
    } else {
        for (const char* k : {"unroll", "block", "threads_per_body", "bodies_per_thread", "pair_mode", "bodies_per_lane"})
            j[k] = nullptr;
    }
    j["valid"] = r.valid;
    if (!r.valid) {
        j["reason"] = r.reason;
        j["ms_per_step"] = nullptr;
        j["interactions_per_second"] = nullptr;
        return j;
    }
    j["autotuned"] = r.autotuned;
    j["steps_per_repeat"] = r.timing.steps_per_repeat;
    j["repeats"] = r.timing.samples.size();
    j["ms_per_step"] = r.timing.ms_per_step;
    j["ms_per_step_min"] = r.timing.ms_per_step_min;
    j["ms_per_step_samples"] = r.timing.samples;
    j["interactions_per_second"] = r.interactions_per_second;
    j["force_evaluations_per_step"] =
        r.evaluations_per_step ? nlohmann::json(*r.evaluations_per_step) : nlohmann::json(nullptr);
    j["gflops_20"] = r.interactions_per_second * kFlopsGems / 1e9;
    j["gflops_38"] = r.interactions_per_second * kFlopsWarren / 1e9;
    j["percent_fp32_ceiling"] = r.percent_ceiling ? nlohmann::json(*r.percent_ceiling) : nlohmann::json(nullptr);
    j["registers_per_thread"] = r.registers ? nlohmann::json(*r.registers) : nlohmann::json(nullptr);
    if (r.check_error) {
        j["check_max_relative_error"] = *r.check_error;
        j["check_bodies"] = r.check_bodies;
        j["check_tolerance"] = r.check_tolerance;
        j["check_passed"] = *r.check_error <= r.check_tolerance;
    }
    return j;
}

// Sets (or, for an empty value, removes) one of the kernel driver's overrides for the runs that
// follow, and restores the caller's value when the bench ends.
class EnvOverride {
  public:
    explicit EnvOverride(const char* name) : name_(name) {
        if (const char* v = std::getenv(name)) saved_ = std::string(v);
    }
    ~EnvOverride() {
        if (saved_)
            ::setenv(name_, saved_->c_str(), 1);
        else
            ::unsetenv(name_);
    }
    EnvOverride(const EnvOverride&) = delete;
    EnvOverride& operator=(const EnvOverride&) = delete;
    void set(const std::string& value) {
        if (value.empty())
            ::unsetenv(name_);
        else
            ::setenv(name_, value.c_str(), 1);
    }
    // The value in force before any set(): what a run without the option uses.
    std::string initial() const { return saved_.value_or(""); }

  private:
    const char* name_;
    std::optional<std::string> saved_;
};

#ifdef NBODY_HAVE_CUDA
// c.block, halved until the instance's register use allows it (a config without a compiled
// instance keeps its block: it is refused later with that reason).
int largest_block_that_fits(const CudaBackend& cuda, const KernelConfig& c) {
    int limit = 0;
    try {
        limit = cuda.kernel_resources(c).max_threads_per_block;
    } catch (const std::exception&) {
        return c.block;
    }
    int block = c.block;
    while (block > 32 && block > limit) block /= 2;
    return block;
}

// The configs timed at N = n: each axis given, or every value with --sweep, else the default
// config's value for this GPU and n (sim/src/kernel_defaults.cpp), so that a bench without kernel
// options times what run/view/record run by default.
std::vector<KernelConfig> configs_for(const BenchOptions& o, const CudaBackend& cuda, std::size_t n) {
    std::vector<KernelConfig> configs;
    const CudaDeviceInfo& info = cuda.device_info();
    const KernelConfig d = default_kernel_config(info.compute_major, info.compute_minor, n);
    std::vector<PairMode> modes;
    for (const std::string& m : o.pairs) modes.push_back(parse_pair_mode(m));
    if (modes.empty() && o.sweep) modes = {PairMode::Full, PairMode::Symmetric, PairMode::SymmetricBoundingBox};
    // No pair mode and no every-pair tunable given: the default config itself, in its own pair mode.
    const bool full_axis_given = !o.unroll.empty() || !o.block.empty() || !o.threads_per_body.empty() ||
                                 !o.bodies_per_thread.empty() || !o.precisions.empty();
    if (modes.empty() && d.pair_mode != PairMode::Full && !full_axis_given) modes = {d.pair_mode};
    const bool time_full = modes.empty() || std::find(modes.begin(), modes.end(), PairMode::Full) != modes.end();
    for (PairMode m : modes) {
        if (m == PairMode::Full) continue;
        for (int b : axis(o.bodies_per_lane, o.sweep, {1, 2, 4, 8}, d.bodies_per_lane)) {
            KernelConfig c = d;
            c.pair_mode = m;
            c.bodies_per_lane = b;
            configs.push_back(c);
        }
    }
    if (time_full)
        for (int u : axis(o.unroll, o.sweep, CudaBackend::supported_unroll(), d.unroll))
            for (int p : axis(o.block, o.sweep, {32, 64, 128, 256, 512, 1024}, d.block))
                for (int q : axis(o.threads_per_body, o.sweep, CudaBackend::supported_threads_per_body(),
                                  d.threads_per_body))
                    for (int b : axis(o.bodies_per_thread, o.sweep,
                                      CudaBackend::supported_bodies_per_thread(), d.bodies_per_thread)) {
                        KernelConfig c;
                        c.unroll = u, c.block = p, c.threads_per_body = q, c.bodies_per_thread = b;
                        configs.push_back(c);
                    }
    // --precision: the configs above in each mode. Axes not given explicitly move to the mode's
    // nearest compiled values (duplicates dropped), and a block not given to the largest power of
    // two the instance's registers allow (ds and fp32-jbag use ~95 per thread: at most 640 threads
    // on an H200, so the fp32 default's 1024 would only be refused); explicit ones are kept, and
    // refused with the reason when the mode has no instance for them.
    if (!o.precisions.empty()) {
        std::vector<KernelConfig> expanded;
        for (const std::string& name : o.precisions) {
            const Precision prec = parse_precision(name);
            for (KernelConfig c : configs) {
                c.precision = prec;
                const KernelConfig fit = CudaBackend::fit_to_precision(c);
                if (o.unroll.empty()) c.unroll = fit.unroll;
                if (o.threads_per_body.empty()) c.threads_per_body = fit.threads_per_body;
                if (o.bodies_per_thread.empty()) c.bodies_per_thread = fit.bodies_per_thread;
                if (o.block.empty()) c.block = largest_block_that_fits(cuda, c);
                if (std::find(expanded.begin(), expanded.end(), c) == expanded.end())
                    expanded.push_back(c);
            }
        }
        configs = std::move(expanded);
    }
    return configs;
}
#endif

// The bodies timed at N = n and their step parameters: the scene scaled to n bodies (its dt and
// softening unless given), or a Plummer sphere.
struct BenchSystem {
    State state;
    StepParams params;
};

BenchSystem make_bench_system(const BenchOptions& o, std::size_t n) {
    BenchSystem b;
    if (!o.scene.empty()) {
        Scene scene = load_scene(o.scene, n);
        b.state = std::move(scene.state);
        b.params = {o.dt.value_or(scene.params.dt), o.softening.value_or(scene.params.softening)};
        if (!(b.params.softening > 0))
            throw std::invalid_argument("--scene " + o.scene + " has softening 0; the GPU kernels need > 0 (give --softening)");
        return b;
    }
    ic::PlummerParams pp;
    pp.bodies = n;
    pp.seed = o.seed;
    b.state = ic::make_plummer(pp);
    b.params = {o.dt.value_or(kPlummerDt), o.softening.value_or(kPlummerSoftening)};
    return b;
}

int bench(const BenchOptions& o) {
    // The outputs first: a sweep of minutes must not end in a file that cannot be written.
    check_outputs({{"--json", o.json, OutputKind::Json},
                   {"--cache", o.autotune && !o.no_cache ? o.cache : std::string(), OutputKind::Json}},
                  {}, o.overwrite);
    std::vector<std::size_t> sizes;
    for (const std::string& b : o.bodies) sizes.push_back(parse_body_count(b, "--bodies"));
    if (o.repeats < 1) throw std::invalid_argument("--repeats must be >= 1" + got(o.repeats));
    if (o.warmup < 0) throw std::invalid_argument("--warmup must be >= 0" + got(o.warmup));
    if (o.steps < 0) throw std::invalid_argument("--steps must be >= 0, 0: automatic" + got(o.steps));
    if (!(o.min_repeat_ms > 0)) throw std::invalid_argument("--min-ms must be > 0" + got(o.min_repeat_ms));
    if (o.dt && (!(*o.dt > 0) || !std::isfinite(*o.dt))) throw std::invalid_argument("--dt must be > 0" + got(*o.dt));
    if (o.softening && (!(*o.softening > 0) || !std::isfinite(*o.softening)))
        throw std::invalid_argument("--softening must be > 0" + got(*o.softening));
    if (!o.scene.empty() && !std::filesystem::is_regular_file(o.scene))
        throw std::invalid_argument("--scene: '" + o.scene + "' is not a readable file");
    for (const std::string& g : o.splits)
        if (g != "auto" && g != "classic" && g != "balanced")
            throw std::invalid_argument("--split: '" + g + "' is not one of auto, classic, balanced");
    for (int f : o.kernel_flags)
        if (f < 0 || f > 31)
            throw std::invalid_argument("--kernel-flags: " + std::to_string(f) + " is not in 0..31");

    const BackendKind kind = parse_backend_kind(o.backend);
    if (kind == BackendKind::Reference)
        throw std::invalid_argument("--backend reference is not a benchmark target; use cpu or cuda");
    const GravityConfig gravity = o.gravity.config();
    if (gravity.gravity == Gravity::Tree && o.check)
        throw std::invalid_argument("--check holds the kernel to the direct sum's rounding; for the tree code's error "
                                    "use nbody accuracy --gravity tree");
    const TimeStepConfig time_steps = o.time_steps.config(gravity);
    std::unique_ptr<Backend> backend = make_stepping_backend(kind, o.gpus, std::cerr);
    backend->set_gravity(gravity);
    backend->set_time_steps(time_steps);
    if (gravity.gravity == Gravity::Tree)
        std::printf("gravity %s: interactions/s below are N^2 / step time, the direct sum's count (what the tree "
                    "saves shows as a rate above the hardware's)\n",
                    gravity.to_string().c_str());
#ifdef NBODY_HAVE_CUDA
    CudaBackend* cuda = dynamic_cast<CudaBackend*>(backend.get());
#else
    void* cuda = nullptr;
#endif
    const bool is_cuda = cuda != nullptr;

    if (sizes.empty())
        sizes =
            is_cuda ? std::vector<std::size_t>{16384, 65536, 262144} : std::vector<std::size_t>{1024, 4096};
    // Every N before the first run: a list that ends in one too many is refused before minutes of timing.
    const Workload work{std::string(backend->name()), Precision::Fp32, false, gravity.gravity};
    std::map<std::size_t, std::uint64_t> estimates;
    for (const std::size_t n : sizes) estimates[n] = check_memory_for(n, work);

    const bool config_given = o.sweep || o.autotune || !o.unroll.empty() || !o.block.empty() ||
                              !o.threads_per_body.empty() || !o.bodies_per_thread.empty() ||
                              !o.pairs.empty() || !o.bodies_per_lane.empty() || !o.splits.empty() ||
                              !o.kernel_flags.empty();
    if (!is_cuda && config_given)
        std::fprintf(stderr, "nbody bench: %s\n",
                     kernel_tunables_unused(backend->name(), "--unroll, --block, --threads-per-body, --bodies-per-thread, "
                                                             "--pairs, --bodies-per-lane, --split, --kernel-flags, "
                                                             "--sweep and --autotune")
                         .c_str());

    nlohmann::json doc;
    doc["tool"] = "nbody bench";
    doc["backend"] = std::string(backend->name());
    doc["seed"] = o.seed;
    doc["initial_conditions"] = o.scene.empty() ? std::string("plummer") : o.scene;
    doc["gravity"] = gravity.to_string();
    doc["time_steps"] = time_steps.to_string();
    doc["flops_per_interaction"] = {kFlopsGems, kFlopsWarren};

    double ceiling_interactions = 0;  // interactions/s at 12 FP32 instructions each
#ifdef NBODY_HAVE_CUDA
    if (cuda) {
        const CudaDeviceInfo& info = cuda->device_info();
        ceiling_interactions = info.fp32_instructions_per_second() / kFp32InstructionsPerInteraction;
        doc["device"] = {{"name", info.name},
                         {"sm_count", info.sm_count},
                         {"compute_capability", std::to_string(info.compute_major) + "." + std::to_string(info.compute_minor)},
                         {"clock_khz", info.clock_khz},
                         {"fp32_lanes_per_sm", info.fp32_lanes_per_sm},
                         {"fp32_instructions_per_second", info.fp32_instructions_per_second()},
                         {"ceiling_interactions_per_second", ceiling_interactions}};
        std::printf("device: %s, %d SMs, sm_%d%d, %.0f MHz: FP32 ceiling %.2fe12 instr/s = %.2fe12 interactions/s "
                    "at 12 instr each\n",
                    info.name.c_str(), info.sm_count, info.compute_major, info.compute_minor, info.clock_khz / 1e3,
                    info.fp32_instructions_per_second() / 1e12, ceiling_interactions / 1e12);
        if (cuda->gpu_count() > 1) {
            doc["gpus"] = cuda->gpu_count();
            std::printf("stepping on %d GPUs through NCCL (the ceiling above is one GPU's)\n", cuda->gpu_count());
        }
    } else
#endif
    {
        doc["device"] = {{"name", "host"}};
        std::printf("backend %s (host timing with steady_clock)\n", std::string(backend->name()).c_str());
    }

    const TimingOptions timing{o.warmup, o.repeats, o.min_repeat_ms, o.steps};
    std::vector<Record> records;
    bool check_failed = false;
    // A run may take minutes (a few steps at large N on the host): a stop signal during one ends
    // the bench at once, and with --json the runs measured before it are not lost, because the
    // file is rewritten after each run (marked as unfinished until the last).
    const auto what_a_stop_loses = [&o](std::size_t measured) {
        return "the run in progress was not finished; the " + std::to_string(measured) +
               (measured == 1 ? " run measured before it is" : " runs measured before it are") +
               (o.json.empty() ? " in the table above (no --json, so no file was written)"
                               : " in " + o.json + ", marked as unfinished");
    };
    const auto save_runs_so_far = [&] {
        if (o.json.empty()) return;
        nlohmann::json partial = doc;
        partial["runs"] = nlohmann::json::array();
        for (const Record& r : records) partial["runs"].push_back(to_json(r));
        partial["interrupted"] = "unfinished: the runs measured before the bench stopped";
        write_file_atomically(o.json, [&](std::ostream& out) { out << partial.dump(2) << '\n'; });
    };
    print_header(is_cuda);

    set_stop_messages("stopping before the next run; the runs measured " +
                          (o.json.empty() ? std::string("are in the table above (no --json)")
                                          : "will be written to " + o.json + ", marked as interrupted"),
                      o.json.empty() ? "nothing is written" : o.json + " keeps the runs measured, marked as unfinished");
    for (const std::size_t n : sizes) {
        if (stop_requested()) break;
        std::optional<StopEndsAtOnce> building(std::in_place, what_a_stop_loses(records.size()));
        const MemoryActivity activity("timing " + std::to_string(n) + " bodies", n, estimates[n]);
        const BenchSystem system = make_bench_system(o, n);
        const State& initial = system.state;
        const StepParams params = system.params;
        if (!doc.contains("dt")) {
            doc["dt"] = params.dt;
            doc["softening"] = params.softening;
        }
        std::optional<CheckReference> ref;
        if (o.check) ref = make_check_reference(initial, params.softening);
        building.reset();

        auto finish = [&](Record& r) {
            r.interactions_per_second = double(n) * double(n) / (r.timing.ms_per_step * 1e-3);
            if (ceiling_interactions > 0) r.percent_ceiling = 100.0 * r.interactions_per_second / ceiling_interactions;
            print_record(r, is_cuda);
            if (r.check_error && *r.check_error > r.check_tolerance) check_failed = true;
            records.push_back(r);
            save_runs_so_far();
        };
        auto run_one = [&](Record& r) {
            const StopEndsAtOnce measuring(what_a_stop_loses(records.size()));
            backend->load(initial);
            if (ref) {
                // Checked at the initial state, where the reference was computed: the kernel is
                // what is under test, and the reference costs O(N^2) only once per N.
                r.check_error = max_relative_error(backend->accelerations(params.softening), *ref);
                r.check_bodies = ref->idx.size();
                r.check_tolerance = check_tolerance(n);
            }
#ifdef NBODY_HAVE_CUDA
            // Every pair's slices and the triangle's parts are even work by construction; the tree's
            // groups are not (their lists grow where the pull is weak).
            if (cuda != nullptr && gravity.gravity == Gravity::Tree) settle_gpu_shares(*cuda, params);
#endif
            r.timing = time_backend(*backend, params, timing);
            r.evaluations_per_step = evaluations_of_one_step(*backend, params);
        };

        if (!is_cuda) {
            Record r;
            r.bodies = n;
            run_one(r);
            finish(r);
            continue;
        }
#ifdef NBODY_HAVE_CUDA
        EnvOverride grid_env("NBODY_FORCE_GRID"), flags_env("NBODY_FORCE_FLAGS");
        const std::vector<std::string> splits =
            o.splits.empty() ? std::vector<std::string>{grid_env.initial()} : o.splits;
        std::vector<std::string> flag_values;
        for (int f : o.kernel_flags) flag_values.push_back(std::to_string(f));
        if (flag_values.empty()) flag_values.push_back(flags_env.initial());
        for (const std::string& split : splits)
            for (const std::string& flags : flag_values)
                for (const KernelConfig& c : configs_for(o, *cuda, n)) {
                    if (stop_requested()) break;
                    grid_env.set(split);
                    flags_env.set(flags);
                    Record r;
                    r.bodies = n;
                    r.config = c;
                    r.split = split;
                    if (!flags.empty()) r.kernel_flags = std::stoi(flags);
                    r.reason = cuda->check_kernel_config(c);
                    r.valid = r.reason.empty();
                    if (!r.valid) {
                        print_record(r, true);
                        records.push_back(r);
                        continue;
                    }
                    cuda->set_kernel_config(c);
                    r.registers = cuda->kernel_resources(c).registers_per_thread;
                    run_one(r);
                    finish(r);
                }
        grid_env.set(grid_env.initial());  // the tuner runs as the caller's environment says
        flags_env.set(flags_env.initial());
        if (o.autotune && !stop_requested()) {
            backend->load(initial);
            const std::string gpu = cuda->device_info().name;
            const AutotuneResult tuned = nbody::app::autotune(*cuda, params);
            std::printf("auto-tune N=%zu: U=%d p=%d q=%d B=%d, %.4f ms/step (%d configs timed)\n", n, tuned.config.unroll,
                        tuned.config.block, tuned.config.threads_per_body, tuned.config.bodies_per_thread,
                        tuned.ms_per_step, tuned.configs_timed);
            if (!o.no_cache) {
                const std::string path = o.cache.empty() ? default_autotune_cache_path() : o.cache;
                try {
                    store_cached_config(path, gpu, n, tuned);
                } catch (const std::exception& e) {
                    std::fprintf(stderr, "nbody bench: warning: auto-tune result not cached: %s\n", e.what());
                }
            }
            Record r;
            r.bodies = n;
            r.config = tuned.config;
            r.autotuned = true;
            r.registers = cuda->kernel_resources(tuned.config).registers_per_thread;
            run_one(r);
            finish(r);
        }
#endif
    }

#ifdef NBODY_HAVE_CUDA
    if (cuda != nullptr && cuda->gpu_count() > 1)
        std::printf("GPU shares of the last run: %s\n", CudaBackend::describe(cuda->gpu_shares(), true).c_str());
#endif
    // Best per N when several configs ran.
    if (is_cuda) {
        std::map<std::size_t, const Record*> best;
        for (const Record& r : records)
            if (r.valid &&
                (!best.count(r.bodies) || r.timing.ms_per_step < best[r.bodies]->timing.ms_per_step))
                best[r.bodies] = &r;
        nlohmann::json jb = nlohmann::json::array();
        if (records.size() > sizes.size()) std::printf("best:\n");
        for (const auto& [n, r] : best) {
            if (records.size() > sizes.size())
                std::printf(
                    "  N=%zu: %s U=%d p=%d q=%d B=%d split %s flags %s  %.4f ms/step  %.3e int/s  %.1f%% of "
                    "FP32 "
                    "ceiling\n",
                    n, std::string(to_string(r->config->pair_mode)).c_str(), r->config->unroll,
                    r->config->block, r->config->threads_per_body, r->config->bodies_per_thread,
                    r->split.empty() ? "auto" : r->split.c_str(),
                    r->kernel_flags ? std::to_string(*r->kernel_flags).c_str() : "-", r->timing.ms_per_step,
                    r->interactions_per_second, r->percent_ceiling.value_or(0));
            jb.push_back(to_json(*r));
        }
        doc["best"] = jb;
    }

    nlohmann::json runs = nlohmann::json::array();
    for (const Record& r : records) runs.push_back(to_json(r));
    doc["runs"] = runs;
    const int stopped_by = InterruptGuard::requested();
    if (stopped_by) doc["interrupted"] = std::string("by ") + signal_name(stopped_by) + " after " +
                                         std::to_string(records.size()) + " runs; the rest were not measured";
    if (!o.json.empty()) {
        write_file_atomically(o.json, [&](std::ostream& out) { out << doc.dump(2) << '\n'; });
        std::printf("wrote %s (%zu runs)\n", o.json.c_str(), records.size());
        std::fflush(stdout);
    }
    if (check_failed)
        std::fprintf(stderr, "nbody bench: --check: some runs exceeded the accuracy tolerance (see the table)\n");
    if (stopped_by) {
        std::fprintf(stderr, "nbody bench: interrupted by %s: %zu run%s measured%s; the run in progress and those after it "
                     "were not\n",
                     signal_name(stopped_by), records.size(), records.size() == 1 ? "" : "s",
                     o.json.empty() ? " (in the table above; no --json, so no file was written)"
                                    : (" and written to " + o.json + ", marked as interrupted").c_str());
        return stopped_exit_status(stopped_by);
    }
    return check_failed ? 1 : 0;
}

}  // namespace

void add_bench_command(CLI::App& app, int& exit_code) {
    auto options = std::make_shared<BenchOptions>();
    CLI::App* cmd = app.add_subcommand(
        "bench", "Time the leapfrog step (force + integration) on Plummer spheres or a scene's bodies");
    cmd->add_option("--scene", options->scene,
                    "Time this scene's bodies (scaled to each --bodies N) instead of a Plummer sphere; its dt "
                    "and softening unless --dt/--softening are given");
    cmd->add_option("--bodies,-n", options->bodies, "Comma-separated N list, e.g. 16K,64K,256K (K = 1024, M = 1048576)")
        ->delimiter(',');
    cmd->add_option("--backend", options->backend, "cuda, cpu or auto")->capture_default_str();
    cmd->add_option("--unroll", options->unroll, "j-loop unroll factors to time (1,2,4,8,16,32)")->delimiter(',');
    cmd->add_option("--block", options->block, "block sizes to time (multiples of 32 up to 1024)")->delimiter(',');
    cmd->add_option("--threads-per-body", options->threads_per_body, "threads per body to time (1,2,4,8,16,32)")
        ->delimiter(',');
    cmd->add_option("--bodies-per-thread", options->bodies_per_thread,
                    "i-bodies per thread to time (1,2,4,8)")
        ->delimiter(',');
    cmd->add_option("--pairs", options->pairs,
                    "pair modes to time: full (every pair), symmetric (each pair once, lambda map), "
                    "symmetric-bb (bounding-box grid); default: the mode of the default config at each N (the table of docs/PERFORMANCE.md section 12), all three with --sweep")
        ->delimiter(',');
    cmd->add_option("--bodies-per-lane", options->bodies_per_lane,
                    "symmetric kernels: i-bodies per lane (1,2,4,8)")
        ->delimiter(',');
    cmd->add_option(
           "--precision", options->precisions,
           "full kernel arithmetic to time: fp32 (default), fp32-jbag, ds, fp64; each config in each "
           "(tunables not given move to the mode's compiled values)")
        ->delimiter(',');
    cmd->add_option("--split", options->splits,
                    "full kernel, A/B timing: how work is spread over blocks, auto, classic (one block per "
                    "i-block) or balanced (persistent blocks, equal shares); sets NBODY_FORCE_GRID")
        ->delimiter(',');
    cmd->add_option(
           "--kernel-flags", options->kernel_flags,
           "full kernel, A/B timing: design flags 0..31 (1: rotated tile, 2: one barrier per tile, 4: "
           "uniform-mass tiles, 8: 64-register budget, 16: 128-register budget; 7 is the product, 3 version 2, "
           "0 version 1; 0, 1, 2, 3, 5, 15 and 23 exist only for a few U/q/B); sets NBODY_FORCE_FLAGS")
        ->delimiter(',');
    cmd->add_flag(
        "--sweep", options->sweep,
        "Every supported value on each axis not given explicitly (blocks 32..1024 in powers of two)");
    cmd->add_flag("--autotune", options->autotune,
                  "Also run the auto-tuner for each N, time its pick and store it in the auto-tune cache");
    cmd->add_option("--cache", options->cache,
                    "Auto-tune cache file (default: $XDG_CACHE_HOME/nbody/autotune.json)")
        ->check(output_path_check());
    cmd->add_flag("--no-cache", options->no_cache, "Do not write the auto-tune cache");
    cmd->add_flag(
        "--check", options->check,
        "Compare each config's accelerations with the double-precision reference (max relative error)");
    cmd->add_option("--repeats", options->repeats, "Timed batches per run; the median is reported")
        ->capture_default_str();
    cmd->add_option("--warmup", options->warmup, "Untimed steps before timing (with --gpus and the tree code, untimed step calls come first until the GPUs' shares settle: 136, or ~10 s)")->capture_default_str();
    cmd->add_option("--steps", options->steps, "Steps per timed batch (0: enough for --min-ms)")
        ->capture_default_str();
    cmd->add_option("--min-ms", options->min_repeat_ms,
                    "Minimum length of a timed batch in ms when --steps is 0")
        ->capture_default_str();
    cmd->add_option("--dt", options->dt, "Time step (default: the scene's, else 1e-3)");
    cmd->add_option("--softening", options->softening, "Plummer softening, > 0 (default: the scene's, else 0.01)");
    cmd->add_option("--seed", options->seed, "Seed of the Plummer sphere")->capture_default_str();
    add_gravity_options(*cmd, options->gravity);
    add_time_step_options(*cmd, options->time_steps, true);
    cmd->add_option("--json", options->json, "Write one record per run to this JSON file (checked before the runs)")
        ->check(output_path_check());
    add_overwrite_flag(*cmd, options->overwrite);
    const auto gpus = add_gpus_option(*cmd);
    cmd->callback([options, gpus, &exit_code] {
        options->gpus = check_gpus_request(*gpus);
        exit_code = bench(*options);
    });
}

}  // namespace nbody::app
