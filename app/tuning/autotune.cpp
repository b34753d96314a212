#include "autotune.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "nbody/sim/atomic_file.hpp"
#include "nbody/sim/io/input_file.hpp"

namespace nbody::app {

double median(std::vector<double> v) {
    if (v.empty()) return 0.0;
    std::sort(v.begin(), v.end());
    const std::size_t h = v.size() / 2;
    return v.size() % 2 ? v[h] : 0.5 * (v[h - 1] + v[h]);
}

namespace {

// Milliseconds `steps` steps take. Only the CUDA backend can time on the device; the others are
// synchronous, so the wall clock around step() is their time.
double timed_batch(Backend& backend, const StepParams& params, int steps) {
#ifdef NBODY_HAVE_CUDA
    if (auto* cuda = dynamic_cast<CudaBackend*>(&backend)) return cuda->time_steps_ms(params, steps);
#endif
    const auto t0 = std::chrono::steady_clock::now();
    backend.step(params, steps);
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

Timing time_backend(Backend& backend, const StepParams& params, const TimingOptions& o) {
    if (o.repeats < 1) throw std::invalid_argument("repeats must be >= 1");
    Timing t;
    double warm_ms_per_step = 0;
    if (o.warmup_steps > 0) warm_ms_per_step = timed_batch(backend, params, o.warmup_steps) / o.warmup_steps;
    t.steps_per_repeat = o.steps_per_repeat;
    if (t.steps_per_repeat <= 0) {
        if (warm_ms_per_step <= 0) warm_ms_per_step = timed_batch(backend, params, 1);
        const double want = std::ceil(o.min_repeat_ms / std::max(warm_ms_per_step, 1e-6));
        t.steps_per_repeat = static_cast<int>(std::clamp(want, 1.0, 100000.0));
    }
    for (int r = 0; r < o.repeats; ++r)
        t.samples.push_back(timed_batch(backend, params, t.steps_per_repeat) / t.steps_per_repeat);
    t.ms_per_step = median(t.samples);
    t.ms_per_step_min = *std::min_element(t.samples.begin(), t.samples.end());
    return t;
}

#ifdef NBODY_HAVE_CUDA

namespace {

struct Candidate {
    KernelConfig config;
    double ms = 0;
};

std::string describe(const KernelConfig& c) { return c.to_string(); }

}  // namespace

AutotuneResult autotune(CudaBackend& backend, const StepParams& params, const AutotuneProgress& progress) {
    if (backend.size() == 0) throw std::logic_error("auto-tune needs a loaded system");
    const KernelConfig original = backend.kernel_config();
    State saved;
    backend.store(saved);  // throws if the positions are in interop buffers: nothing changed yet

    AutotuneResult result;
    std::vector<Candidate> timed;
    auto try_config = [&](const KernelConfig& c, const TimingOptions& o) -> double {
        if (!backend.check_kernel_config(c).empty()) return -1;
        backend.set_kernel_config(c);
        const double ms = time_backend(backend, params, o).ms_per_step;
        ++result.configs_timed;
        if (progress) progress(describe(c) + ": " + std::to_string(ms) + " ms/step");
        return ms;
    };
    // Short batches: the ranking, not the figure, matters here. ~3 batches of >= 4 ms each.
    const TimingOptions quick{1, 3, 4.0, 0};

    try {
        // Stage 1: how the threads are spread over bodies, at a middle unroll and block.
        Candidate best{KernelConfig{}, -1};
        for (int q : CudaBackend::supported_threads_per_body())
            for (int b : CudaBackend::supported_bodies_per_thread()) {
                KernelConfig c;
                c.unroll = 8;
                c.block = 256;
                c.threads_per_body = q;
                c.bodies_per_thread = b;
                const double ms = try_config(c, quick);
                if (ms > 0) timed.push_back({c, ms});
                if (ms > 0 && (best.ms < 0 || ms < best.ms)) best = {c, ms};
            }
        if (best.ms < 0) throw std::runtime_error("auto-tune: no kernel config can run on this device");

        // Stage 2: unroll x block around the best (q, B).
        for (int u : CudaBackend::supported_unroll())
            for (int p : {64, 128, 256, 512, 1024}) {
                KernelConfig c = best.config;
                c.unroll = u;
                c.block = p;
                if (c == best.config) continue;
                const double ms = try_config(c, quick);
                if (ms > 0) timed.push_back({c, ms});
            }

        // The symmetric kernels (each pair once) have one tunable: bodies per lane. They join the
        // final round on their own times, so the tuner picks whichever pair mode is faster at this N.
        for (PairMode m : {PairMode::Symmetric, PairMode::SymmetricBoundingBox})
            for (int b : {2, 4, 8}) {
                KernelConfig c = best.config;
                c.pair_mode = m;
                c.bodies_per_lane = b;
                const double ms = try_config(c, quick);
                if (ms > 0) timed.push_back({c, ms});
            }

        // Stage 3: the three fastest again with more repeats; noise in one short batch must not
        // decide the winner.
        std::sort(timed.begin(), timed.end(), [](const Candidate& a, const Candidate& b) { return a.ms < b.ms; });
        timed.resize(std::min<std::size_t>(timed.size(), 3));
        const TimingOptions careful{1, 5, 10.0, 0};
        for (Candidate& c : timed) c.ms = try_config(c.config, careful);
        const auto winner =
            std::min_element(timed.begin(), timed.end(), [](const Candidate& a, const Candidate& b) { return a.ms < b.ms; });
        result.config = winner->config;
        result.ms_per_step = winner->ms;
    } catch (...) {
        // Leave the backend as it was found: config and state.
        backend.set_kernel_config(original);
        backend.load(saved);
        throw;
    }
    backend.set_kernel_config(result.config);
    backend.load(saved);
    return result;
}

std::string default_autotune_cache_path() {
    if (const char* p = std::getenv("NBODY_AUTOTUNE_CACHE"); p && *p) return p;
    if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x) return std::string(x) + "/nbody/autotune.json";
    if (const char* h = std::getenv("HOME"); h && *h) return std::string(h) + "/.cache/nbody/autotune.json";
    return "nbody-autotune.json";
}

namespace {

nlohmann::json read_cache(const std::string& path, std::string* warnings) {
    std::error_code missing;
    if (!std::filesystem::exists(path, missing)) return nlohmann::json::object();
    std::string text;
    try {
        text = io::read_input_file(path, "auto-tune cache");  // a FIFO or a device is refused, never read
    } catch (const std::exception& e) {
        if (warnings) *warnings += std::string(e.what()) + "; ignored\n";
        return nlohmann::json::object();
    }
    try {
        nlohmann::json j = nlohmann::json::parse(text);
        if (j.is_object() && j.contains("entries") && j["entries"].is_array()) return j;
        if (warnings) *warnings += "auto-tune cache '" + path + "' has no \"entries\" array; ignored\n";
    } catch (const std::exception& e) {
        if (warnings) *warnings += "auto-tune cache '" + path + "' is not valid JSON (" + e.what() + "); ignored\n";
    }
    return nlohmann::json::object();
}

}  // namespace

std::optional<AutotuneResult> load_cached_config(const std::string& path, const std::string& gpu, std::size_t bodies,
                                                 std::string* warnings) {
    const nlohmann::json j = read_cache(path, warnings);
    if (!j.contains("entries")) return std::nullopt;
    for (const auto& e : j["entries"]) {
        try {
            if (e.at("gpu").get<std::string>() != gpu || e.at("bodies").get<std::size_t>() != bodies) continue;
            AutotuneResult r;
            r.config.unroll = e.at("unroll").get<int>();
            r.config.block = e.at("block").get<int>();
            r.config.threads_per_body = e.at("threads_per_body").get<int>();
            r.config.bodies_per_thread = e.value("bodies_per_thread", 1);
            // The tuner may pick a symmetric kernel; entries written before it could have none.
            r.config.pair_mode = parse_pair_mode(e.value("pair_mode", std::string("full")));
            r.config.bodies_per_lane = e.value("bodies_per_lane", r.config.bodies_per_lane);
            r.ms_per_step = e.value("ms_per_step", 0.0);
            r.from_cache = true;
            return r;
        } catch (const std::exception& ex) {
            if (warnings) *warnings += "auto-tune cache '" + path + "': malformed entry skipped (" + ex.what() + ")\n";
        }
    }
    return std::nullopt;
}

void store_cached_config(const std::string& path, const std::string& gpu, std::size_t bodies,
                         const AutotuneResult& result) {
    nlohmann::json j = read_cache(path, nullptr);
    if (!j.contains("entries")) j["entries"] = nlohmann::json::array();
    nlohmann::json kept = nlohmann::json::array();
    for (const auto& e : j["entries"])
        if (!(e.value("gpu", std::string()) == gpu && e.value("bodies", std::size_t(0)) == bodies)) kept.push_back(e);
    kept.push_back({{"gpu", gpu},
                    {"bodies", bodies},
                    {"unroll", result.config.unroll},
                    {"block", result.config.block},
                    {"threads_per_body", result.config.threads_per_body},
                    {"bodies_per_thread", result.config.bodies_per_thread},
                    {"pair_mode", std::string(to_string(result.config.pair_mode))},
                    {"bodies_per_lane", result.config.bodies_per_lane},
                    {"ms_per_step", result.ms_per_step}});
    j["entries"] = kept;
    const std::filesystem::path parent = std::filesystem::path(path).parent_path();
    if (!parent.empty()) {
        std::error_code ec;
        std::filesystem::create_directories(parent, ec);
        if (ec) throw std::runtime_error("cannot create folder '" + parent.string() + "' for the auto-tune cache: " + ec.message());
    }
    write_file_atomically(path, [&](std::ostream& out) { out << j.dump(2) << '\n'; });
}

#endif  // NBODY_HAVE_CUDA

}  // namespace nbody::app
