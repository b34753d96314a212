#include "nbody/sim/energy_source.hpp"

#include <cstdio>
#include <stdexcept>
#include <vector>

#include "nbody/sim/tree/host_tree.hpp"

namespace nbody {

std::string_view to_string(EnergySource source) { return source == EnergySource::Tree ? "tree" : "exact"; }

EnergySource parse_energy_source(std::string_view text) {
    if (text == "tree") return EnergySource::Tree;
    if (text == "exact") return EnergySource::Exact;
    throw std::invalid_argument("--energy: '" + std::string(text) +
                                "' is not an energy source; use tree (from the tree walk, O(N log N)) or exact "
                                "(every pair in double, O(N^2))");
}

EnergySource choose_energy_source(const std::optional<EnergySource>& requested, const GravityConfig& gravity) {
    const bool tree_run = gravity.gravity == Gravity::Tree;
    if (!requested) return tree_run ? EnergySource::Tree : EnergySource::Exact;
    if (*requested == EnergySource::Tree && !tree_run)
        throw std::invalid_argument("--energy tree takes the potential from the tree walk: it needs --gravity tree "
                                    "(a direct run sums every pair: --energy exact, its default)");
    return *requested;
}

Diagnostics compute_diagnostics(const State& state, double softening, Backend& backend, EnergySource source) {
    return *compute_diagnostics_or_stop(state, softening, backend, source, {});
}

std::optional<Diagnostics> compute_diagnostics_or_stop(const State& state, double softening, Backend& backend,
                                                       EnergySource source, const StopCheck& stop) {
    if (source == EnergySource::Exact) return compute_diagnostics_or_stop(state, softening, stop);
    const std::optional<double> potential = backend.tree_potential_energy(softening);
    if (!potential)
        throw std::logic_error("the energy from the tree was asked of backend '" + std::string(backend.name()) +
                               "', which runs " + backend.gravity().to_string());
    return diagnostics_with_potential(state, *potential);
}

Diagnostics compute_diagnostics(const State& state, double softening, const GravityConfig& gravity,
                                EnergySource source) {
    if (source == EnergySource::Exact) return compute_diagnostics(state, softening);
    const std::size_t n = state.size();
    std::vector<float> x(n), y(n), z(n), m(n);
    for (std::size_t i = 0; i < n; ++i) {
        const Vec4f& p = state.pos_mass[i];
        x[i] = p.x, y[i] = p.y, z[i] = p.z, m[i] = p.w;
    }
    const float eps = float(softening);
    return diagnostics_with_potential(
        state, tree::tree_potential_energy(x.data(), y.data(), z.data(), m.data(), n, eps * eps, gravity.tree));
}

std::string energy_cost_notice(std::size_t n, EnergySource source) {
    const double pairs = 0.5 * double(n) * double(n);
    if (source != EnergySource::Exact || pairs <= 2e9) return {};
    char text[160];
    std::snprintf(text, sizeof text, "computing the energy on the %s (%.2g pairs)...",
                  potential_on_gpu(n) ? "GPU, fp64" : "host", pairs);
    return text;
}

std::string describe_energy_source(EnergySource source, const GravityConfig& gravity) {
    if (source == EnergySource::Exact) return "potential summed over every pair in double";
    char criterion[64];
    if (gravity.tree.alpha > 0)
        std::snprintf(criterion, sizeof criterion, "theta %g, alpha %g", gravity.tree.theta, gravity.tree.alpha);
    else
        std::snprintf(criterion, sizeof criterion, "theta %g", gravity.tree.theta);
    char text[192];
    std::snprintf(text, sizeof text,
                  "potential from the tree walk (%s): the error is the integrator's plus the tree's", criterion);
    return text;
}

}  // namespace nbody
