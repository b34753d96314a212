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
    // direct sum.
    double theta = 0.5;
    int leaf_size = 16;    // a cell with at most this many bodies is not split further
    // Bodies that share one tree walk (one interaction list). 128 against 64 at 1M bodies, theta
    // 0.5, on the H200: +7 % step time (7.30 / 6.83 ms), median error 1.59e-4 against 1.77e-4,
    // p99 1.76e-3 against 1.99e-3 (docs/TREE.md, run 9).
    int group_size = 128;

    // Written out: the .cu files that see this header are compiled as C++17.
    friend bool operator==(const TreeParams& a, const TreeParams& b) {
        return a.theta == b.theta && a.leaf_size == b.leaf_size && a.group_size == b.group_size;
    }
    friend bool operator!=(const TreeParams& a, const TreeParams& b) { return !(a == b); }
};

// Allowed ranges, checked by check_tree_params().
inline constexpr double kMinTheta = 1e-6, kMaxTheta = 2.0;
inline constexpr int kMaxLeafSize = 256, kMaxGroupSize = 1024;

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
