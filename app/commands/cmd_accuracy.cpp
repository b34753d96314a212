// `nbody accuracy`: how wrong is each precision mode of the CUDA kernel, and what does it cost.
//
// For Plummer spheres (equal masses, virial equilibrium) of each N:
//   Emax = max_i |a_i - a_ref,i| / |a_ref,i|  (Chamomile, Hamada & Iitaka 2007, eq. 3) against the
//          double-precision direct sum on the host (ReferenceBackend, multi-threaded), per mode;
//   the same sphere displaced by --offset length units along (1,1,1)/sqrt(3), built in double so
//          that fp32 positions lose the digits the offset takes while ds and fp64 keep them. The
//          reference is the centred one: the force depends on differences only, and x + offset
//          is exact in double to ~1e-13, far below every Emax here;
//   each mode's interactions/s (N^2 per leapfrog step, as `nbody bench` counts them).
// With --energy: the relative energy error of a leapfrog run to t = --energy-time at N =
// --energy-bodies, per mode, the energies computed in double from the digits each mode keeps.
//
// The default softening is 0.1 (eps^2 = 0.01), the value of Chamomile's test program (their
// fig. 10), so their Table 2 (DIRECT and CS columns) can be printed beside ours.

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <limits>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "accuracy_tree.hpp"
#include "autotune.hpp"
#include "output_paths.hpp"
#include "recorder_interrupt.hpp"
#include "commands.hpp"
#include "run_options.hpp"
#include "nbody/sim/atomic_file.hpp"
#include "nbody/sim/backend.hpp"
#include "nbody/sim/direct_sum_backend.hpp"
#include "nbody/sim/finite_guard.hpp"
#include "nbody/sim/ic/plummer.hpp"
#include "nbody/sim/memory_check.hpp"

#ifdef NBODY_HAVE_CUDA
#include "nbody/sim/cuda_backend.hpp"
#endif

namespace nbody::app {
namespace {

// What `accuracy` measures without a GPU, said wherever the precision modes cannot run.
constexpr const char* kWhatRunsOnTheCpu =
    "the tree code's force error is measured on the CPU: nbody accuracy --gravity tree --backend cpu "
    "--bodies N";

// Chamomile Table 2: maximum cumulative force error for a Plummer sphere of N equal masses.
struct ChamomileRow {
    std::size_t n;
    double direct, cs;
};
constexpr ChamomileRow kChamomileTable2[] = {
    {2048, 2.2e-6, 5.4e-7},  {4096, 3.0e-6, 3.3e-7},  {8192, 5.4e-6, 5.0e-7},   {16384, 7.0e-6, 4.3e-7},
    {32768, 1.2e-5, 6.8e-7}, {65536, 1.4e-5, 1.0e-6}, {131072, 2.2e-5, 1.5e-6},
};

std::optional<ChamomileRow> chamomile(std::size_t n) {
    for (const ChamomileRow& r : kChamomileTable2)
        if (r.n == n) return r;
    return std::nullopt;
}

struct AccuracyOptions {
    std::vector<std::string> bodies{"2K", "8K", "32K", "128K"};
    std::vector<std::string> precisions{"fp32", "fp32-jbag", "ds", "fp64"};
    double softening = 0.1;
    unsigned long long seed = 1;
    double offset = 1000;
    bool energy = false;
    std::string energy_bodies = "16K";
    double energy_time = 1.0;
    double energy_dt = 1e-3;
    int repeats = 3;
    double min_repeat_ms = 20;
    std::optional<int> unroll, block, threads_per_body, bodies_per_thread;
    std::string json;
    // --gravity tree: the tree report (accuracy_tree.hpp) instead of the precision modes.
    std::string gravity = "direct";
    std::vector<double> thetas{0.5, 0.7, 1.0};  // 1.0: the solver's default, bounding the relative criterion
    int leaf_size = TreeParams{}.leaf_size, group_size = TreeParams{}.group_size;  // the solver's defaults
    double alpha = TreeParams{}.alpha;
    std::string scene, backend = "auto";
    std::size_t sample = 4096;
    int tree_steps = 3;
    bool no_direct = false;
    bool bodies_given = false;
    bool overwrite = false;
};

// Emax and the body that sets it: a single body with an unusually small |a_ref| (near the centre,
// where the pulls cancel) can set Emax alone, so the report names it.
struct WorstBody {
    double emax = 0;
    std::size_t index = 0;
    double a_ref = 0;  // |a_ref| of that body
};

WorstBody max_relative_error(const std::vector<Vec3d>& a, const std::vector<Vec3d>& ref) {
    WorstBody w;
    for (std::size_t i = 0; i < ref.size(); ++i) {
        const double r = norm(ref[i]);
        const double e = norm(a[i] - ref[i]) / (r > 0 ? r : 1.0);
        if (!(e <= w.emax)) w = {e, i, r};  // NaN counts as the worst
    }
    return w;
}

double median_norm(const std::vector<Vec3d>& v) {
    std::vector<double> n(v.size());
    for (std::size_t i = 0; i < v.size(); ++i) n[i] = norm(v[i]);
    if (n.empty()) return 0;
    std::nth_element(n.begin(), n.begin() + n.size() / 2, n.end());
    return n[n.size() / 2];
}

// Total energy in double: kinetic + softened potential -sum_{i<j} m_i m_j / sqrt(r^2 + eps^2),
// the potential spread over the hardware threads (rows interleaved: row i costs n - i pairs).
double total_energy(const std::vector<Vec3d>& x, const std::vector<Vec3d>& v, const std::vector<double>& m,
                    double softening) {
    const std::size_t n = x.size();
    double kinetic = 0;
    for (std::size_t i = 0; i < n; ++i) kinetic += 0.5 * m[i] * dot(v[i], v[i]);
    const double eps2 = softening * softening;
    const unsigned workers = std::max(1u, std::min(64u, std::thread::hardware_concurrency()));
    std::vector<double> partial(workers, 0.0);
    std::vector<std::thread> threads;
    for (unsigned w = 0; w < workers; ++w)
        threads.emplace_back([&, w] {
            double sum = 0;
            for (std::size_t i = w; i < n; i += workers) {
                double row = 0;
                for (std::size_t j = i + 1; j < n; ++j) {
                    const Vec3d d = x[j] - x[i];
                    row += m[j] / std::sqrt(dot(d, d) + eps2);
                }
                sum += m[i] * row;
            }
            partial[w] = sum;
        });
    for (std::thread& t : threads) t.join();
    double potential = 0;
    for (double p : partial) potential -= p;
    return kinetic + potential;
}

std::string sci(double v) {
    if (std::isnan(v)) return "nan";
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.2e", v);
    return buf;
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

struct ModeResult {
    Precision precision = Precision::Fp32;
    KernelConfig config;
    bool valid = true;
    std::string reason;
    double emax = 0;
    std::optional<double> emax_displaced;
    WorstBody worst;  // centred
    double ms_per_step = 0;
    double interactions_per_second = 0;
};

struct SizeResult {
    std::size_t n = 0;
    double reference_seconds = 0;
    std::vector<ModeResult> modes;
};

struct EnergyResult {
    Precision precision = Precision::Fp32;
    bool valid = true;
    std::string reason;
    long long steps = 0;
    double e0 = 0, e1 = 0, relative_error = 0, seconds = 0;
};

#ifdef NBODY_HAVE_CUDA

// The config a mode runs with: the backend's default (or the given tunables) moved to the mode's
// nearest compiled instance, explicit tunables winning.
KernelConfig config_for(const KernelConfig& base, Precision p, const AccuracyOptions& o) {
    KernelConfig c = base;
    c.precision = p;
    c = CudaBackend::fit_to_precision(c);
    if (o.unroll) c.unroll = *o.unroll;
    if (o.block) c.block = *o.block;
    if (o.threads_per_body) c.threads_per_body = *o.threads_per_body;
    if (o.bodies_per_thread) c.bodies_per_thread = *o.bodies_per_thread;
    return c;
}

std::string short_config(const KernelConfig& c) {
    return "U" + std::to_string(c.unroll) + " p" + std::to_string(c.block) + " q" +
           std::to_string(c.threads_per_body) + " B" + std::to_string(c.bodies_per_thread);
}

int accuracy(const AccuracyOptions& o, const std::vector<std::size_t>& sizes,
             const std::vector<Precision>& modes, std::size_t energy_n) {
    std::unique_ptr<Backend> backend;
    try {
        backend = make_backend(BackendKind::Cuda, std::cerr);
    } catch (const std::exception& e) {  // no GPU here: the reason, and what does run without one
        throw std::runtime_error(std::string(e.what()) + "; " + kWhatRunsOnTheCpu);
    }
    auto* cuda = dynamic_cast<CudaBackend*>(backend.get());
    if (cuda == nullptr) throw std::runtime_error("nbody accuracy needs the cuda backend");
    const KernelConfig base = cuda->kernel_config();
    const CudaDeviceInfo& info = cuda->device_info();
    std::printf("device: %s, %d SMs, sm_%d%d; host reference on %u threads\n", info.name.c_str(),
                info.sm_count, info.compute_major, info.compute_minor,
                std::max(1u, std::thread::hardware_concurrency()));
    std::fflush(stdout);

    const StepParams params{1e-3, o.softening};
    const TimingOptions timing{1, o.repeats, o.min_repeat_ms, 0};
    const double c = o.offset / std::sqrt(3.0);
    const Vec3d offset{c, c, c};
    const auto t_start = std::chrono::steady_clock::now();

    std::vector<SizeResult> results;
    for (std::size_t n : sizes) {
        ic::PlummerParams pp;
        pp.bodies = n;
        pp.seed = o.seed;
        const State state = ic::make_plummer(pp);

        SizeResult sr;
        sr.n = n;
        std::fprintf(stderr, "[%6.1f s] N=%zu: double-precision reference (%.2g pairs on the host)...\n",
                     seconds_since(t_start), n, double(n) * double(n));
        const auto t_ref = std::chrono::steady_clock::now();
        ReferenceBackend reference;
        reference.load(state);
        const std::vector<Vec3d> ref = reference.accelerations(o.softening);
        sr.reference_seconds = seconds_since(t_ref);
        const double a_median = median_norm(ref);

        std::vector<Vec3d> displaced;
        if (o.offset > 0) {
            displaced.resize(n);
            for (std::size_t i = 0; i < n; ++i) displaced[i] = xyz(state.pos_mass[i]) + offset;
        }

        for (Precision p : modes) {
            ModeResult mr;
            mr.precision = p;
            mr.config = config_for(base, p, o);
            mr.reason = cuda->check_kernel_config(mr.config);
            mr.valid = mr.reason.empty();
            if (!mr.valid) {
                std::fprintf(stderr, "[%6.1f s] N=%zu %s: refused: %s\n", seconds_since(t_start), n,
                             std::string(to_string(p)).c_str(), mr.reason.c_str());
                sr.modes.push_back(mr);
                continue;
            }
            cuda->set_kernel_config(mr.config);
            cuda->load(state);
            mr.worst = max_relative_error(cuda->accelerations(o.softening), ref);
            mr.emax = mr.worst.emax;
            if (o.offset > 0) {
                cuda->load(state);
                cuda->load_positions(displaced);
                mr.emax_displaced = max_relative_error(cuda->accelerations(o.softening), ref).emax;
            }
            cuda->load(state);
            const Timing t = time_backend(*cuda, params, timing);
            mr.ms_per_step = t.ms_per_step;
            mr.interactions_per_second = double(n) * double(n) / (t.ms_per_step * 1e-3);
            std::fprintf(stderr, "[%6.1f s] N=%zu %-9s (%s): Emax %s%s, %.3e interactions/s\n",
                         seconds_since(t_start), n, std::string(to_string(p)).c_str(),
                         short_config(mr.config).c_str(), sci(mr.emax).c_str(),
                         mr.emax_displaced ? (", displaced " + sci(*mr.emax_displaced)).c_str() : "",
                         mr.interactions_per_second);
            {
                const Vec4f& b = state.pos_mass[mr.worst.index];
                const double r = std::sqrt(double(b.x) * b.x + double(b.y) * b.y + double(b.z) * b.z);
                std::fprintf(stderr, "           worst body %zu: r = %.3g, |a_ref| = %.3g = %.3g x the median |a_ref|\n",
                             mr.worst.index, r, mr.worst.a_ref, a_median > 0 ? mr.worst.a_ref / a_median : 0.0);
            }
            sr.modes.push_back(mr);
        }
        results.push_back(std::move(sr));
    }

    std::vector<EnergyResult> energies;
    if (o.energy) {
        ic::PlummerParams pp;
        pp.bodies = energy_n;
        pp.seed = o.seed;
        const State state = ic::make_plummer(pp);
        std::vector<Vec3d> x0(energy_n), v0(energy_n);
        std::vector<double> mass(energy_n);
        for (std::size_t i = 0; i < energy_n; ++i) {
            x0[i] = xyz(state.pos_mass[i]);
            v0[i] = xyz(state.velocity[i]);
            mass[i] = state.pos_mass[i].w;
        }
        const double e0 = total_energy(x0, v0, mass, o.softening);
        const long long steps = std::llround(o.energy_time / o.energy_dt);
        const StepParams ep{o.energy_dt, o.softening};
        for (Precision p : modes) {
            EnergyResult er;
            er.precision = p;
            er.steps = steps;
            er.e0 = e0;
            const KernelConfig kc = config_for(base, p, o);
            er.reason = cuda->check_kernel_config(kc);
            er.valid = er.reason.empty();
            if (!er.valid) {
                energies.push_back(er);
                continue;
            }
            cuda->set_kernel_config(kc);
            cuda->load(state);
            const auto t0 = std::chrono::steady_clock::now();
            auto last = t0;
            // The NaN/Inf guard checks after every batch (one device reduction).
            GuardedRun guarded(*cuda, state, ep);
            while (guarded.step() < steps) {
                const long long batch = std::min<long long>(steps - guarded.step(), 50);
                if (!guarded.advance(static_cast<int>(batch))) break;
                const long long done = guarded.step();
                if (std::chrono::duration<double>(std::chrono::steady_clock::now() - last).count() > 2.0) {
                    const double elapsed = seconds_since(t0);
                    std::fprintf(stderr, "[%6.1f s] energy run %s: step %lld / %lld, ETA %.0f s\n",
                                 seconds_since(t_start), std::string(to_string(p)).c_str(), done, steps,
                                 elapsed * double(steps - done) / double(done));
                    last = std::chrono::steady_clock::now();
                }
            }
            if (guarded.event()) {
                er.valid = false;
                er.reason = "the state became non-finite: " + guarded.event()->describe(steps);
                std::fprintf(stderr, "energy run %s: %s\n", std::string(to_string(p)).c_str(), er.reason.c_str());
                energies.push_back(er);
                continue;
            }
            cuda->synchronize();
            er.seconds = seconds_since(t0);
            er.e1 = total_energy(cuda->positions_precise(), cuda->velocities_precise(), mass, o.softening);
            er.relative_error = (er.e1 - er.e0) / std::abs(er.e0);
            std::fprintf(stderr, "[%6.1f s] energy run %s: dE/E = %.3e (%.1f s)\n", seconds_since(t_start),
                         std::string(to_string(p)).c_str(), er.relative_error, er.seconds);
            energies.push_back(er);
        }
    }

    // ---- the tables -----------------------------------------------------------------------------
    auto find = [](const SizeResult& s, Precision p) -> const ModeResult* {
        for (const ModeResult& m : s.modes)
            if (m.precision == p) return &m;
        return nullptr;
    };
    auto cell = [](const ModeResult* m, bool displaced) -> std::string {
        if (m == nullptr) return "-";
        if (!m->valid) return "refused";
        if (displaced) return m->emax_displaced ? sci(*m->emax_displaced) : "-";
        return sci(m->emax);
    };
    std::string header = "       N |";
    for (Precision p : modes) {
        char b[24];
        std::snprintf(b, sizeof b, " %9s", std::string(to_string(p)).c_str());
        header += b;
    }

    std::printf(
        "\nEmax = max_i |a_i - a_ref,i| / |a_ref,i| (Chamomile eq. 3) against the double-precision direct "
        "sum;\nPlummer sphere, equal masses, virial equilibrium, softening %g, seed %llu\n\n",
        o.softening, o.seed);
    std::printf("%s | Chamomile  DIRECT        CS\n", header.c_str());
    for (const SizeResult& s : results) {
        std::printf("%8zu |", s.n);
        for (Precision p : modes) std::printf(" %9s", cell(find(s, p), false).c_str());
        if (const auto ch = chamomile(s.n))
            std::printf(" |          %8s  %8s\n", sci(ch->direct).c_str(), sci(ch->cs).c_str());
        else
            std::printf(" |                 -         -\n");
    }
    if (o.offset > 0) {
        std::printf(
            "\nThe same spheres displaced %g length units along (1,1,1)/sqrt(3), built in double:\n\n",
            o.offset);
        std::printf("%s | ds displaced/centred\n", header.c_str());
        for (const SizeResult& s : results) {
            std::printf("%8zu |", s.n);
            for (Precision p : modes) std::printf(" %9s", cell(find(s, p), true).c_str());
            const ModeResult* ds = find(s, Precision::Ds);
            if (ds != nullptr && ds->valid && ds->emax_displaced && ds->emax > 0)
                std::printf(" | %8.2f\n", *ds->emax_displaced / ds->emax);
            else
                std::printf(" |        -\n");
        }
    }
    std::printf("\nInteractions per second (N^2 per leapfrog step, median of %d batches):\n\n", o.repeats);
    std::printf("%s | rate / fp32 rate\n", header.c_str());
    for (const SizeResult& s : results) {
        std::printf("%8zu |", s.n);
        for (Precision p : modes) {
            const ModeResult* m = find(s, p);
            std::printf(" %9s", m == nullptr ? "-"
                                : !m->valid  ? "refused"
                                             : sci(m->interactions_per_second).c_str());
        }
        const ModeResult* f = find(s, Precision::Fp32);
        std::printf(" |");
        for (Precision p : modes) {
            const ModeResult* m = find(s, p);
            if (p == Precision::Fp32) continue;
            if (f != nullptr && f->valid && m != nullptr && m->valid && f->interactions_per_second > 0)
                std::printf(" %s %.3f", std::string(to_string(p)).c_str(),
                            m->interactions_per_second / f->interactions_per_second);
        }
        std::printf("\n");
    }
    std::printf("configs:");
    if (!results.empty())
        for (const ModeResult& m : results.front().modes)
            std::printf("  %s %s", std::string(to_string(m.precision)).c_str(),
                        short_config(m.config).c_str());
    std::printf("\n");
    if (!energies.empty()) {
        std::printf(
            "\nRelative energy error (E(t) - E0) / |E0| of a leapfrog run, N = %zu, dt %g, t = %g (%lld "
            "steps), energies in double from the digits each mode keeps:\n\n",
            energy_n, o.energy_dt, o.energy_time, energies.front().steps);
        for (const EnergyResult& e : energies) {
            if (!e.valid)
                std::printf("  %-9s refused: %s\n", std::string(to_string(e.precision)).c_str(),
                            e.reason.c_str());
            else
                std::printf("  %-9s %10.3e   (%.1f s)\n", std::string(to_string(e.precision)).c_str(),
                            e.relative_error, e.seconds);
        }
    }

    // The targets, stated where the data allow.
    std::printf("\nTargets:\n");
    bool jbag_ok = true, jbag_any = false;
    for (const SizeResult& s : results) {
        const ModeResult* m = find(s, Precision::Fp32Jbag);
        const auto ch = chamomile(s.n);
        if (m == nullptr || !m->valid || !ch) continue;
        jbag_any = true;
        if (!(m->emax <= ch->cs)) jbag_ok = false;
    }
    if (jbag_any)
        std::printf("  fp32-jbag Emax <= Chamomile CS at every N of their table: %s\n",
                    jbag_ok ? "yes" : "NO");
    bool ds_ok = true, ds_any = false;
    for (const SizeResult& s : results) {
        const ModeResult* m = find(s, Precision::Ds);
        if (m == nullptr || !m->valid || !m->emax_displaced) continue;
        ds_any = true;
        if (!(*m->emax_displaced <= 2 * m->emax)) ds_ok = false;
    }
    if (ds_any)
        std::printf("  ds displaced Emax within 2x of centred at every N: %s\n", ds_ok ? "yes" : "NO");
    for (Precision p : {Precision::Ds, Precision::Fp32Jbag}) {
        const double allowed = p == Precision::Ds ? 0.20 : 0.05;
        for (const SizeResult& s : results) {
            const ModeResult* f = find(s, Precision::Fp32);
            const ModeResult* m = find(s, p);
            if (f == nullptr || m == nullptr || !f->valid || !m->valid || s.n < 32768) continue;
            const double cost = 1.0 - m->interactions_per_second / f->interactions_per_second;
            std::printf("  %s cost at N=%zu: %.1f%% of fp32's rate (target <= %.0f%%): %s\n",
                        std::string(to_string(p)).c_str(), s.n, 100 * cost, 100 * allowed,
                        cost <= allowed ? "yes" : "NO");
        }
    }

    if (!o.json.empty()) {
        nlohmann::json doc;
        doc["tool"] = "nbody accuracy";
        doc["device"] = {{"name", info.name},
                         {"sm_count", info.sm_count},
                         {"compute_capability",
                          std::to_string(info.compute_major) + "." + std::to_string(info.compute_minor)}};
        doc["softening"] = o.softening;
        doc["seed"] = o.seed;
        doc["offset"] = o.offset;
        doc["initial_conditions"] = "plummer";
        doc["error_measure"] =
            "max_i |a_i - a_ref,i| / |a_ref,i| (Chamomile eq. 3), reference: ReferenceBackend (double)";
        nlohmann::json table = nlohmann::json::array();
        for (const ChamomileRow& r : kChamomileTable2)
            table.push_back({{"bodies", r.n}, {"direct", r.direct}, {"cs", r.cs}});
        doc["chamomile_table2"] = table;
        nlohmann::json rows = nlohmann::json::array();
        for (const SizeResult& s : results)
            for (const ModeResult& m : s.modes) {
                nlohmann::json j;
                j["bodies"] = s.n;
                j["precision"] = std::string(to_string(m.precision));
                j["unroll"] = m.config.unroll;
                j["block"] = m.config.block;
                j["threads_per_body"] = m.config.threads_per_body;
                j["bodies_per_thread"] = m.config.bodies_per_thread;
                j["valid"] = m.valid;
                if (!m.valid) {
                    j["reason"] = m.reason;
                } else {
                    j["emax"] = m.emax;
                    j["worst_body"] = m.worst.index;
                    j["worst_body_a_ref"] = m.worst.a_ref;
                    j["emax_displaced"] =
                        m.emax_displaced ? nlohmann::json(*m.emax_displaced) : nlohmann::json(nullptr);
                    j["ms_per_step"] = m.ms_per_step;
                    j["interactions_per_second"] = m.interactions_per_second;
                }
                j["reference_seconds"] = s.reference_seconds;
                rows.push_back(j);
            }
        doc["results"] = rows;
        nlohmann::json en = nlohmann::json::array();
        for (const EnergyResult& e : energies) {
            nlohmann::json j{{"precision", std::string(to_string(e.precision))},
                             {"bodies", energy_n},
                             {"dt", o.energy_dt},
                             {"time", o.energy_time},
                             {"steps", e.steps},
                             {"valid", e.valid}};
            if (e.valid) {
                j["e0"] = e.e0;
                j["e1"] = e.e1;
                j["relative_error"] = e.relative_error;
                j["seconds"] = e.seconds;
            } else {
                j["reason"] = e.reason;
            }
            en.push_back(j);
        }
        doc["energy"] = en;
        write_file_atomically(o.json, [&](std::ostream& out) { out << doc.dump(2) << '\n'; });
        std::printf("\nwrote %s\n", o.json.c_str());
    }
    return 0;
}

#endif  // NBODY_HAVE_CUDA

int run_tree_accuracy(const AccuracyOptions& o) {
    TreeAccuracyOptions t;
    if (o.bodies_given) {
        t.sizes.clear();
        for (const std::string& b : o.bodies) t.sizes.push_back(parse_body_count(b, "--bodies"));
    }
    t.thetas = o.thetas;
    t.leaf_size = o.leaf_size, t.group_size = o.group_size, t.alpha = o.alpha;
    t.scene = o.scene, t.backend = o.backend;
    t.sample = o.sample, t.seed = o.seed;
    t.repeats = o.repeats;
    t.steps = o.tree_steps;
    t.compare_direct = !o.no_direct;
    t.json = o.json;
    return tree_accuracy(t, std::cout);
}

// Every figure is printed (and flushed) as it is measured, and --json is written only at the end,
// so a stop signal loses only the measurement in progress, however long it takes (an O(N^2)
// reference at large N): it ends the command at once, saying so.
std::string what_a_stop_loses(const AccuracyOptions& o) {
    return "the figures printed so far are all that was measured" +
           (o.json.empty() ? std::string() : "; " + o.json + " was not written");
}

int run_accuracy(const AccuracyOptions& o) {
    // Every option is checked before any work, so mistakes cost nothing: the output for both reports.
    check_outputs({{"--json", o.json, OutputKind::Json}}, {}, o.overwrite);
    if (parse_gravity(o.gravity) == Gravity::Tree) {
        const StopEndsAtOnce stop_at_once(what_a_stop_loses(o));
        return run_tree_accuracy(o);
    }
    // The precision modes are the CUDA kernel's: there is nothing of theirs to measure on the host backends.
    if (o.backend != "cuda" && o.backend != "auto")
        throw std::invalid_argument(
            "--backend " + o.backend +
            ": without --gravity tree, nbody accuracy measures the CUDA kernel's precision "
            "modes (fp32, fp32-jbag, ds, fp64) against a double reference, which needs the "
            "cuda backend; " +
            kWhatRunsOnTheCpu);
    if (o.bodies.empty()) throw std::invalid_argument("--bodies: give at least one N");
    std::vector<std::size_t> sizes;
    for (const std::string& b : o.bodies) sizes.push_back(parse_body_count(b, "--bodies"));
    // The host reference in double and the GPU's modes, every N before the first.
    for (std::size_t n : sizes) {
        check_memory_for(n, Workload{"reference", Precision::Fp64, false, Gravity::Direct, 0, true});
        check_memory_for(n, Workload{"cuda", Precision::Fp64, false, Gravity::Direct, 0, true});
    }
    for (std::size_t n : sizes)
        if (n > (std::size_t(1) << 24))
            throw std::invalid_argument("--bodies: " + std::to_string(n) +
                                        " is too many for a host reference of N^2 pairs (at most 16M)");
    if (o.precisions.empty()) throw std::invalid_argument("--precision: give at least one mode");
    std::vector<Precision> modes;
    for (const std::string& p : o.precisions) {
        const Precision m = parse_precision(p);
        if (std::find(modes.begin(), modes.end(), m) == modes.end()) modes.push_back(m);
    }
    if (!(o.softening > 0) || !std::isfinite(o.softening))
        throw std::invalid_argument("--softening must be a finite number > 0 (got " +
                                    std::to_string(o.softening) + ")");
    if (!(o.offset >= 0) || !std::isfinite(o.offset))
        throw std::invalid_argument("--offset must be a finite distance >= 0 (got " +
                                    std::to_string(o.offset) + ")");
    if (o.offset > 1e15)
        throw std::invalid_argument("--offset " + std::to_string(o.offset) +
                                    " is beyond what double keeps the sphere's separations at");
    if (o.repeats < 1) throw std::invalid_argument("--repeats must be >= 1" + got(o.repeats));
    if (!(o.min_repeat_ms > 0)) throw std::invalid_argument("--min-ms must be > 0" + got(o.min_repeat_ms));
    const std::size_t energy_n = parse_body_count(o.energy_bodies, "--energy-bodies");
    if (!(o.energy_dt > 0) || !std::isfinite(o.energy_dt))
        throw std::invalid_argument("--energy-dt must be > 0" + got(o.energy_dt));
    if (!(o.energy_time > 0) || !std::isfinite(o.energy_time))
        throw std::invalid_argument("--energy-time must be > 0" + got(o.energy_time));
    if (o.energy && o.energy_time / o.energy_dt > 1e7)
        throw std::invalid_argument("--energy-time / --energy-dt asks for more than 1e7 steps");
    for (const auto& [value, name] : {std::pair{o.unroll, "--unroll"}, std::pair{o.block, "--block"},
                                      std::pair{o.threads_per_body, "--threads-per-body"},
                                      std::pair{o.bodies_per_thread, "--bodies-per-thread"}})
        if (value && *value < 1) throw std::invalid_argument(std::string(name) + " must be >= 1" + got(*value));
#ifdef NBODY_HAVE_CUDA
    const StopEndsAtOnce stop_at_once(what_a_stop_loses(o));
    return accuracy(o, sizes, modes, energy_n);
#else
    (void)energy_n;
    throw std::runtime_error(
        "nbody accuracy measures the CUDA kernel's precision modes, and this build has no CUDA "
        "backend (configure with a CUDA compiler); " +
        std::string(kWhatRunsOnTheCpu));
#endif
}

}  // namespace

void add_accuracy_command(CLI::App& app, int& exit_code) {
    auto o = std::make_shared<AccuracyOptions>();
    CLI::App* cmd = app.add_subcommand(
        "accuracy",
        "Force error (Chamomile Emax) and speed of each CUDA precision mode on Plummer spheres (needs "
        "the cuda backend); with --gravity tree, the tree code's force error and step time per theta "
        "(on any backend: the one measured without a GPU)");
    cmd->footer(
        "Emax = max over bodies of |a - a_ref| / |a_ref| against the double-precision direct sum on the host "
        "(Hamada & Iitaka 2007, eq. 3); their Table 2 is printed beside it. The host reference costs N^2 "
        "pairs "
        "(131072 bodies: 1.7e10, seconds on 16 cores).");
    cmd->add_option("--bodies,-n", o->bodies,
                    "Comma-separated N list (K = 1024), e.g. 2K,4K,8K,16K,32K,64K,128K (tree: default 64K)")
        ->delimiter(',')
        ->capture_default_str();
    cmd->add_option("--precision", o->precisions, "Direct: modes to measure: fp32, fp32-jbag, ds, fp64")
        ->delimiter(',')
        ->capture_default_str();
    cmd->add_option(
           "--softening", o->softening,
           "Direct: Plummer softening epsilon (Chamomile's test: eps^2 = 0.01); the tree uses its scene's")
        ->capture_default_str();
    cmd->add_option("--seed", o->seed, "Seed of the Plummer spheres (tree: of the sampled bodies)")
        ->capture_default_str();
    cmd->add_option(
           "--offset", o->offset,
           "Direct: also measure the sphere displaced this far from the origin along (1,1,1) (0: skip)")
        ->capture_default_str();
    cmd->add_flag("--energy", o->energy, "Direct: also the relative energy error of a leapfrog run per mode");
    cmd->add_option("--energy-bodies", o->energy_bodies, "N of the energy runs (giving it implies --energy)")
        ->capture_default_str()
        ->each([o](const std::string&) { o->energy = true; });
    cmd->add_option("--energy-time", o->energy_time, "Length of the energy runs in time units")
        ->capture_default_str();
    cmd->add_option("--energy-dt", o->energy_dt, "Time step of the energy runs")->capture_default_str();
    cmd->add_option("--repeats", o->repeats, "Timed batches per rate (median)")->capture_default_str();
    cmd->add_option("--min-ms", o->min_repeat_ms, "Direct: minimum length of a timed batch in ms")
        ->capture_default_str();
    cmd->add_option("--unroll", o->unroll,
                    "Kernel unroll for every mode (default: the backend's, fitted per mode)");
    cmd->add_option("--block", o->block, "Kernel block size for every mode");
    cmd->add_option("--threads-per-body", o->threads_per_body, "Kernel threads per body for every mode");
    cmd->add_option("--bodies-per-thread", o->bodies_per_thread, "Kernel bodies per thread for every mode");
    cmd->add_option("--json", o->json, "Write every figure to this JSON file (checked before the measurements)")
        ->check(output_path_check());
    add_overwrite_flag(*cmd, o->overwrite);
    cmd->add_option("--gravity", o->gravity,
                    "direct: the precision modes above; tree: the tree code's force error (median, 99th "
                    "percentile, max on a random sample against a double direct sum) and step time per --theta")
        ->capture_default_str();
    cmd->add_option("--theta", o->thetas,
                    "Tree: opening angles to measure, e.g. 0.3,0.5,0.7; with --alpha (default: the solver's) each "
                    "bounds the relative criterion")
        ->delimiter(',')
        ->capture_default_str();
    cmd->add_option("--leaf-size", o->leaf_size, "Tree: most bodies per leaf")->capture_default_str();
    cmd->add_option("--group-size", o->group_size, "Tree: bodies per walk")->capture_default_str();
    cmd->add_option("--alpha", o->alpha, "Tree: relative opening criterion (0: theta alone; docs/TREE.md)")
        ->capture_default_str();
    cmd->add_option("--scene", o->scene, "Tree: scene scaled to each --bodies (default: milky-way-andromeda.toml)");
    cmd->add_option("--backend", o->backend,
                    "Tree: cpu | reference | cuda | auto; the precision modes run on cuda (or auto) only")
        ->capture_default_str();
    cmd->add_option("--sample", o->sample, "Tree: bodies compared with the direct sum")->capture_default_str();
    cmd->add_option("--steps", o->tree_steps, "Tree: leapfrog steps per timed batch (--repeats batches, median)")
        ->capture_default_str();
    cmd->add_flag("--no-direct", o->no_direct, "Tree: skip the direct solver's row");
    cmd->callback([o, cmd, &exit_code] {
        o->bodies_given = cmd->count("--bodies") > 0;
        exit_code = run_accuracy(*o);
    });
}

}  // namespace nbody::app
