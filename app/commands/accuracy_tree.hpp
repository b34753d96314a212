#pragma once
// The tree-code report of `nbody accuracy` (--gravity tree): force error against a double direct
// sum on a random sample of bodies, and the step cost, for each theta (accuracy_tree.cpp).

#include <cstddef>
#include <cstdint>
#include <iosfwd>
#include <string>
#include <vector>

#include "nbody/sim/gravity.hpp"

namespace nbody::app {

struct TreeAccuracyOptions {
    std::vector<std::size_t> sizes{65536};
    std::vector<double> thetas{0.3, 0.5, 0.7};
    int leaf_size = TreeParams{}.leaf_size, group_size = TreeParams{}.group_size;  // the solver's defaults
    double alpha = TreeParams{}.alpha;
    std::string scene;            // empty: the default scene (milky-way-andromeda.toml)
    std::string backend = "auto";
    std::size_t sample = 4096;    // bodies compared with the direct sum
    std::uint64_t seed = 1;
    int steps = 3, repeats = 3;   // timed batches of leapfrog steps per theta (median)
    bool compare_direct = true;   // also the direct solver's error and step time
    std::string json;
};

int tree_accuracy(const TreeAccuracyOptions& options, std::ostream& out);

}  // namespace nbody::app
