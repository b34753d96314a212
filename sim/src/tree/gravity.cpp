#include "nbody/sim/gravity.hpp"

#include <cmath>
#include <cstdio>
#include <stdexcept>

namespace nbody {

std::string_view to_string(Gravity gravity) {
    switch (gravity) {
        case Gravity::Direct: return "direct";
        case Gravity::Tree: return "tree";
    }
    return "unknown";
}

Gravity parse_gravity(std::string_view text) {
    if (text == "direct") return Gravity::Direct;
    if (text == "tree") return Gravity::Tree;
    throw std::invalid_argument("unknown gravity solver '" + std::string(text) + "'; supported: direct, tree");
}

std::string check_tree_params(const TreeParams& p) {
    char buf[160];
    if (!(p.theta >= kMinTheta && p.theta <= kMaxTheta) || !std::isfinite(p.theta)) {
        std::snprintf(buf, sizeof buf, "theta %g is outside %g..%g", p.theta, kMinTheta, kMaxTheta);
        return buf;
    }
    if (!(p.alpha >= 0 && p.alpha <= kMaxAlpha)) {
        std::snprintf(buf, sizeof buf, "alpha %g is outside 0..%g (0: the opening angle alone)", p.alpha, kMaxAlpha);
        return buf;
    }
    if (p.leaf_size < 1 || p.leaf_size > kMaxLeafSize)
        return "leaf size " + std::to_string(p.leaf_size) + " is outside 1.." + std::to_string(kMaxLeafSize);
    if (p.group_size < 1 || p.group_size > kMaxGroupSize)
        return "group size " + std::to_string(p.group_size) + " is outside 1.." + std::to_string(kMaxGroupSize);
    return {};
}

std::string GravityConfig::to_string() const {
    if (gravity == Gravity::Direct) return "direct";
    char buf[128];
    if (tree.alpha > 0)
        std::snprintf(buf, sizeof buf, "tree theta=%g alpha=%g leaf=%d group=%d", tree.theta, tree.alpha, tree.leaf_size,
                      tree.group_size);
    else
        std::snprintf(buf, sizeof buf, "tree theta=%g leaf=%d group=%d", tree.theta, tree.leaf_size, tree.group_size);
    return buf;
}

}  // namespace nbody
