#pragma once
// Which gravity solver a backend runs, and the tunables of the tree code (docs/TREE.md).
//   Direct  every pair (the all-pairs kernel): O(N^2), exact up to rounding, the default.
//   Tree    Barnes-Hut octree with monopole + quadrupole cells: O(N log N), with a force error
//           that theta controls. Bodies are walked in groups of nearby bodies that share one
//           interaction list (Barnes 1990; Bonsai, Bedorf et al. 2012).

#include <string>
#include <string_view>

namespace nbody {

enum class Gravity { Direct, Tree };

// "direct", "tree"; parse_gravity throws std::invalid_argument listing them.
std::string_view to_string(Gravity gravity);
Gravity parse_gravity(std::string_view text);

struct TreeParams {
    // Opening angle: a cell whose bodies' bounding box has longest side l and centre c, and whose
    // centre of mass lies at distance d from a group's bounding box (delta from c), is used as a
    // multipole when d > l / theta + delta. Smaller is more accurate and slower; theta -> 0 is the
    // direct sum. With the relative criterion (alpha, below; on by default) theta only bounds what
    // it accepts: 1.0 with alpha 0.0007; 0.5 was the default of theta alone (alpha 0).
    double theta = 1.0;
    int leaf_size = 16;    // a cell with at most this many bodies is not split further
    // Bodies that share one tree walk (one interaction list). 128 against 64 at 1M bodies, theta
    // 0.5, on the H200: +7 % step time (7.30 / 6.83 ms), median error 1.59e-4 against 1.77e-4,
    // p99 1.76e-3 against 1.99e-3 (docs/TREE.md, run 9).
    int group_size = 128;
    // The relative opening criterion (GADGET-2's, Springel 2005, at the quadrupole's order): with
    // alpha > 0 a cell that passes the theta test is used only when its error estimate m l^3 / d^5
    // is at most alpha times the group's smallest |a| of the previous pass, d the distance of its
    // centre of mass from the group's box; theta then only bounds it. 0: theta alone. 0.0007 with
    // theta 1.0 against theta 0.5 alone at 1M bodies on an H100 (docs/TREE.md, run 155): Plummer
    // median error 1.12e-4 against 1.28e-4, p99 3.6e-4 against 5.2e-4; the galaxy scene 1.54e-4 /
    // 1.0e-3 against 1.59e-4 / 1.8e-3; the step ~30 % shorter at 1M, ~50 % at 16M.
    double alpha = 0.0007;

    // Written out: the .cu files that see this header are compiled as C++17.
    friend bool operator==(const TreeParams& a, const TreeParams& b) {
        return a.theta == b.theta && a.leaf_size == b.leaf_size && a.group_size == b.group_size && a.alpha == b.alpha;
    }
    friend bool operator!=(const TreeParams& a, const TreeParams& b) { return !(a == b); }
};

// Allowed ranges, checked by check_tree_params().
inline constexpr double kMinTheta = 1e-6, kMaxTheta = 2.0;
inline constexpr int kMaxLeafSize = 256, kMaxGroupSize = 1024;
inline constexpr double kMaxAlpha = 1.0;

// Empty when `p` is usable, else the reason: theta outside (0, 2], leaf_size outside 1..256,
// group_size outside 1..1024.
std::string check_tree_params(const TreeParams& p);

struct GravityConfig {
    Gravity gravity = Gravity::Direct;
    TreeParams tree;

    friend bool operator==(const GravityConfig& a, const GravityConfig& b) {
        return a.gravity == b.gravity && a.tree == b.tree;
    }
    friend bool operator!=(const GravityConfig& a, const GravityConfig& b) { return !(a == b); }
    // "direct" or "tree theta=0.5 leaf=16 group=64".
    std::string to_string() const;
};

}  // namespace nbody
