#pragma once
// The CPU tree code (threaded): Barnes-Hut octree over Morton-sorted bodies, monopole +
// quadrupole moments computed bottom-up in double, and a walk per group of nearby bodies that
// builds one interaction list (bodies of opened leaves, accepted cells) shared by the group.
// The same opening criterion and cell arithmetic (multipole.hpp) as the GPU tree, whose test
// oracle it is. Bodies keep their order: inputs and outputs are indexed as given.

#include <cstddef>
#include <cstdint>

#include "nbody/sim/gravity.hpp"

namespace nbody::tree {

// What one force pass did; times in milliseconds of wall clock.
struct TreeStats {
    std::size_t nodes = 0, leaves = 0, groups = 0;
    int depth = 0;                   // deepest level reached (root = 0; at most kMaxLevel)
    std::size_t largest_leaf = 0;    // bodies in the fullest leaf (> leaf_size only where keys coincide)
    double body_interactions = 0;    // body-body terms evaluated (including each body with itself)
    double cell_interactions = 0;    // body-cell terms evaluated
    double build_ms = 0, moments_ms = 0, walk_ms = 0;  // walk_ms includes the evaluation
};

// The accelerations of the bodies' previous pass (input order), by which the relative opening
// criterion (TreeParams::alpha > 0) measures each group; all null: estimated by a walk with the
// geometric criterion alone first.
template <class Real>
struct PreviousAccelerations {
    const Real* ax = nullptr;
    const Real* ay = nullptr;
    const Real* az = nullptr;
};

// Accelerations of n bodies (x, y, z, m in input order) by the tree code with Plummer softening
// eps2 = eps^2 (>= 0; a pair at zero separation with eps2 = 0 contributes nothing, as a body with
// itself). Writes ax, ay, az in input order. Throws std::invalid_argument naming the first body
// with a non-finite coordinate or mass, or when `params` are out of range (check_tree_params).
// Real = float (the cpu backend) or double (the reference backend with --gravity tree).
// With the relative criterion (params.alpha > 0) each group is measured by its bodies' previous
// accelerations: `previous` says ax, ay, az hold them on entry (the last pass's, same bodies);
// false: a walk with the geometric criterion alone estimates them first (twice the walk).
template <class Real>
void tree_accelerations(const Real* x, const Real* y, const Real* z, const Real* m, std::size_t n, Real eps2,
                        const TreeParams& params, Real* ax, Real* ay, Real* az, TreeStats* stats = nullptr,
                        bool previous = false);

// Block time steps (block_steps.hpp): the accelerations of the n_active bodies listed in `active`
// (input indices, ascending) alone, from the tree of all n bodies; ax, ay, az written at those
// indices only. The groups that hold no listed body are not walked, and a group's bounding box for
// the opening test is that of its listed bodies. With every body listed, the accelerations are bit
// for bit those of tree_accelerations. stats count the terms of the listed bodies only.
template <class Real>
void tree_accelerations_active(const Real* x, const Real* y, const Real* z, const Real* m, std::size_t n, Real eps2,
                               const TreeParams& params, const std::uint32_t* active, std::size_t n_active, Real* ax,
                               Real* ay, Real* az, TreeStats* stats = nullptr, bool previous = false);

// The potential of every body from the same tree walk (same tree, criterion and lists as
// tree_accelerations): phi_i = -sum_j m_j / r_ij over the bodies of the opened leaves (i itself
// excluded) plus cell_potential() of the accepted cells; written to phi in input order. Only the
// potential is evaluated (a separate entry: the force pass keeps its own loops), so a pass costs
// the walk and about half the arithmetic of a force pass. Same errors as tree_accelerations.
template <class Real>
void tree_potentials(const Real* x, const Real* y, const Real* z, const Real* m, std::size_t n, Real eps2,
                     const TreeParams& params, Real* phi, TreeStats* stats = nullptr,
                     PreviousAccelerations<Real> previous = {});

// Both in one pass: accelerations (bit for bit those of tree_accelerations) and potentials from one
// walk, one list and one 1/r per term: costs a force pass plus a multiply per term. What a backend
// runs when the energy is asked before its first force pass (the start of a run).
template <class Real>
void tree_accelerations_and_potentials(const Real* x, const Real* y, const Real* z, const Real* m, std::size_t n,
                                       Real eps2, const TreeParams& params, Real* ax, Real* ay, Real* az, Real* phi,
                                       TreeStats* stats = nullptr, bool previous = false);

// The softened potential energy W = (1/2) sum_i m_i phi_i from tree_potentials, summed in double.
template <class Real>
double tree_potential_energy(const Real* x, const Real* y, const Real* z, const Real* m, std::size_t n, Real eps2,
                             const TreeParams& params, TreeStats* stats = nullptr,
                             PreviousAccelerations<Real> previous = {});

extern template void tree_accelerations_and_potentials<float>(const float*, const float*, const float*,
                                                              const float*, std::size_t, float, const TreeParams&,
                                                              float*, float*, float*, float*, TreeStats*, bool);
extern template void tree_accelerations_and_potentials<double>(const double*, const double*, const double*,
                                                               const double*, std::size_t, double, const TreeParams&,
                                                               double*, double*, double*, double*, TreeStats*, bool);
extern template void tree_accelerations_active<float>(const float*, const float*, const float*, const float*,
                                                      std::size_t, float, const TreeParams&, const std::uint32_t*,
                                                      std::size_t, float*, float*, float*, TreeStats*, bool);
extern template void tree_accelerations_active<double>(const double*, const double*, const double*, const double*,
                                                       std::size_t, double, const TreeParams&, const std::uint32_t*,
                                                       std::size_t, double*, double*, double*, TreeStats*, bool);
extern template void tree_potentials<float>(const float*, const float*, const float*, const float*, std::size_t,
                                            float, const TreeParams&, float*, TreeStats*,
                                            PreviousAccelerations<float>);
extern template void tree_potentials<double>(const double*, const double*, const double*, const double*,
                                             std::size_t, double, const TreeParams&, double*, TreeStats*,
                                             PreviousAccelerations<double>);
extern template double tree_potential_energy<float>(const float*, const float*, const float*, const float*,
                                                    std::size_t, float, const TreeParams&, TreeStats*,
                                                    PreviousAccelerations<float>);
extern template double tree_potential_energy<double>(const double*, const double*, const double*, const double*,
                                                     std::size_t, double, const TreeParams&, TreeStats*,
                                                     PreviousAccelerations<double>);
extern template void tree_accelerations<float>(const float*, const float*, const float*, const float*,
                                               std::size_t, float, const TreeParams&, float*, float*, float*,
                                               TreeStats*, bool);
extern template void tree_accelerations<double>(const double*, const double*, const double*, const double*,
                                                std::size_t, double, const TreeParams&, double*, double*, double*,
                                                TreeStats*, bool);

}  // namespace nbody::tree
