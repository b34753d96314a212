// `nbody accuracy --gravity tree`: what each theta of the tree code costs and how wrong it is.
// For a scene scaled to each N: the relative force error |a - a_ref| / |a_ref| of a random sample
// of bodies against the double-precision direct sum on the host (median, 99th percentile, max),
// next to the milliseconds of one leapfrog step (force pass + kick/drift) with that theta, and the
// same two figures for the direct solver when --compare-direct is on.

#include "accuracy_tree.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <vector>

#include "nbody/sim/atomic_file.hpp"
#include "nbody/sim/force_error.hpp"
#include "nbody/sim/memory_check.hpp"
#include "nbody/sim/scene.hpp"
#include "run_options.hpp"

#ifdef NBODY_HAVE_CUDA
#include "nbody/sim/cuda_backend.hpp"
#endif

namespace nbody::app {
namespace {

// Median milliseconds per leapfrog step over `repeats` batches of `steps` steps. The CUDA backend
// times with events (no host copy in the loop); the host backends are synchronous.
double step_ms(Backend& backend, const StepParams& p, int steps, int repeats) {
    std::vector<double> ms;
    for (int r = 0; r < repeats; ++r) {
#ifdef NBODY_HAVE_CUDA
        if (auto* cuda = dynamic_cast<CudaBackend*>(&backend)) {
            ms.push_back(cuda->time_steps_ms(p, steps) / steps);
            continue;
        }
#endif
        const auto t0 = std::chrono::steady_clock::now();
        backend.step(p, steps);
        ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count() / steps);
    }
    std::sort(ms.begin(), ms.end());
    return ms[ms.size() / 2];
}

struct Row {
    std::string solver;
    double theta = 0;
    ForceErrorStats error;
    double ms = 0;
    double body_terms = 0, cell_terms = 0;  // per body, where the backend counts them (GPU tree)
};

// The tree's interaction list per body of the last pass (0 where not counted).
void list_per_body(const Backend& backend, Row& r) {
#ifdef NBODY_HAVE_CUDA
    if (const auto* cuda = dynamic_cast<const CudaBackend*>(&backend)) {
        const CudaBackend::TreeTimes t = cuda->tree_times();
        r.body_terms = t.body_terms, r.cell_terms = t.cell_terms;
    }
#else
    (void)backend, (void)r;
#endif
}

}  // namespace

int tree_accuracy(const TreeAccuracyOptions& o, std::ostream& out) {
    if (o.sizes.empty()) throw std::invalid_argument("--bodies: give at least one N");
    if (o.thetas.empty()) throw std::invalid_argument("--theta: give at least one opening angle");
    for (double t : o.thetas)
        if (std::string reason = check_tree_params({t, o.leaf_size, o.group_size, o.alpha}); !reason.empty())
            throw std::invalid_argument("tree options refused: " + reason);
    if (o.sample < 1) throw std::invalid_argument("--sample must be >= 1" + got(double(o.sample)));
    if (o.repeats < 1 || o.steps < 1) throw std::invalid_argument("--repeats and --steps must be >= 1 (got " + std::to_string(o.repeats) + " and " + std::to_string(o.steps) + ")");
    const BackendKind kind = parse_backend_kind(o.backend);
    // Every N before the first: the scene, its copy, the backend with its tree, all accelerations.
    const Workload work{backend_name_for(kind), Precision::Fp32, false, Gravity::Tree, 0, true};
    std::vector<std::uint64_t> estimates;
    for (std::size_t n : o.sizes) estimates.push_back(check_memory_for(n, work));

    nlohmann::json records = nlohmann::json::array();
    for (std::size_t k = 0; k < o.sizes.size(); ++k) {
        const std::size_t n = o.sizes[k];
        const MemoryActivity activity("measuring the tree code at " + std::to_string(n) + " bodies", n, estimates[k]);
        Scene scene = o.scene.empty() ? default_scene(n) : load_scene(o.scene, n);
        const State initial = scene.state;
        const StepParams params = scene.params;
        std::unique_ptr<Backend> backend = make_backend(kind, std::cerr);
        out << "scene " << scene.name << " (" << scene.source << "), " << initial.size() << " bodies, softening "
            << params.softening << ", dt " << params.dt << ", backend " << backend->name() << "\n";
        if (o.alpha > 0)
            out << "  opening: the relative criterion, alpha " << o.alpha
                << ", within each theta below (--alpha 0: theta alone)\n";
        else
            out << "  opening: theta alone (--alpha 0)\n";
        const auto t_ref = std::chrono::steady_clock::now();
        const std::vector<std::size_t> which = sample_bodies(initial.size(), o.sample, o.seed);
        const std::vector<Vec3d> reference = direct_accelerations(initial, which, params.softening);
        out << "  reference: double direct sum for " << which.size() << " sampled bodies in "
            << std::chrono::duration<double>(std::chrono::steady_clock::now() - t_ref).count() << " s\n"
            << std::flush;  // a stop signal ends the command at once (cmd_accuracy.cpp): what is measured is shown

        std::vector<Row> rows;
        auto measure = [&](const GravityConfig& g, const std::string& label) {
            backend->set_gravity(g);
            backend->load(initial);
            const std::vector<Vec3d> all = backend->accelerations(params.softening);
            std::vector<Vec3d> sampled(which.size());
            for (std::size_t k = 0; k < which.size(); ++k) sampled[k] = all[which[k]];
            Row r{label, g.gravity == Gravity::Tree ? g.tree.theta : 0.0, relative_force_errors(sampled, reference), 0};
            r.ms = step_ms(*backend, params, o.steps, o.repeats);
            if (g.gravity == Gravity::Tree) list_per_body(*backend, r);
            rows.push_back(r);
            char line[260];
            int len = std::snprintf(line, sizeof line, "  %-6s %6s  error median %.2e  p99 %.2e  max %.2e   step %9.3f ms",
                                    label.c_str(),
                                    g.gravity == Gravity::Tree ? std::to_string(g.tree.theta).substr(0, 5).c_str() : "-",
                                    r.error.median, r.error.p99, r.error.max, r.ms);
            if (r.body_terms + r.cell_terms > 0 && len > 0)
                std::snprintf(line + len, sizeof line - std::size_t(len), "   list per body %.0f bodies + %.0f cells",
                              r.body_terms, r.cell_terms);
            out << line << "\n" << std::flush;
        };
        if (o.compare_direct) measure({}, "direct");
        for (double t : o.thetas) measure({Gravity::Tree, {t, o.leaf_size, o.group_size, o.alpha}}, "tree");
        if (o.compare_direct)
            for (std::size_t k = 1; k < rows.size(); ++k)
                out << "  theta " << rows[k].theta << ": " << rows[0].ms / rows[k].ms << "x faster than direct\n";
        for (const Row& r : rows)
            records.push_back({{"bodies", initial.size()},
                               {"backend", std::string(backend->name())},
                               {"solver", r.solver},
                               {"theta", r.theta},
                               {"leaf_size", o.leaf_size},
                               {"group_size", o.group_size},
                               {"alpha", o.alpha},
                               {"sample", r.error.count},
                               {"error_median", r.error.median},
                               {"error_p99", r.error.p99},
                               {"error_max", r.error.max},
                               {"step_ms", r.ms},
                               {"list_bodies_per_body", r.body_terms},
                               {"list_cells_per_body", r.cell_terms}});
    }
    if (!o.json.empty()) {
        write_file_atomically(o.json, [&](std::ostream& f) { f << records.dump(2) << "\n"; });
        out << "wrote " << o.json << "\n";
    }
    return 0;
}

}  // namespace nbody::app
