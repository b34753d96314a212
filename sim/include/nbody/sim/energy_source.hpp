#pragma once
// Where the potential energy a run reports comes from (docs/TREE.md, "The potential from the tree").
//   Exact  -1/2 sum_{i != j} m_i m_j / r_ij over every pair, in double (diagnostics.hpp): O(N^2),
//          minutes on the host from N of about 10^5.
//   Tree   (1/2) sum_i m_i phi_i with phi from the tree walk the forces use (same criterion,
//          monopole + quadrupole cells): O(N log N), about one force pass. Its relative error at
//          theta 0.5 is well below the force error, and an energy error reported from it is the
//          integrator's plus the difference of the tree's errors at the two times.
// Tree runs default to Tree, direct runs to Exact (the only choice there).

#include <optional>
#include <string>
#include <string_view>

#include "nbody/sim/backend.hpp"
#include "nbody/sim/diagnostics.hpp"
#include "nbody/sim/gravity.hpp"

namespace nbody {

enum class EnergySource { Tree, Exact };

std::string_view to_string(EnergySource source);
// "tree" or "exact"; throws std::invalid_argument naming the value and listing them.
EnergySource parse_energy_source(std::string_view text);

// `requested` when given, else Tree for a tree run and Exact for a direct one. Tree for a direct
// run is refused (std::invalid_argument): there is no tree to take it from.
EnergySource choose_energy_source(const std::optional<EnergySource>& requested, const GravityConfig& gravity);

// The diagnostics of `state` with the potential from `source`: Exact sums every pair
// (compute_diagnostics), Tree asks `backend`, which must hold the positions of `state`.
Diagnostics compute_diagnostics(const State& state, double softening, Backend& backend, EnergySource source);

// The same, given up (nullopt) when `stop` says so between rows of the exact sum, which takes
// minutes from N ~ 10^5; the tree's walk costs about a step and is not cut short.
std::optional<Diagnostics> compute_diagnostics_or_stop(const State& state, double softening, Backend& backend,
                                                       EnergySource source, const StopCheck& stop);

// For a caller that holds only a host copy of the state (the viewer's energy, on a worker thread
// while the backend steps): Tree runs the CPU tree's potential walk in float on `state` with
// `gravity`'s parameters (the criterion every tree shares), Exact sums every pair.
Diagnostics compute_diagnostics(const State& state, double softening, const GravityConfig& gravity,
                                EnergySource source);

// The note announcing a long computation, or empty: Exact from 2e9 pairs (where it takes
// minutes on the host), saying where it runs; Tree never (it costs about a step).
std::string energy_cost_notice(std::size_t n, EnergySource source);

// What an energy line says of its source, e.g. "potential from the tree walk (theta 0.5): the
// error is the integrator's plus the tree's" or "potential summed over every pair in double".
std::string describe_energy_source(EnergySource source, const GravityConfig& gravity);

}  // namespace nbody
