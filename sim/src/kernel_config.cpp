#include "nbody/sim/kernel_config.hpp"

#include <stdexcept>
#include <string>

namespace nbody {

std::string_view to_string(PairMode mode) {
    switch (mode) {
        case PairMode::Full: return "full";
        case PairMode::Symmetric: return "symmetric";
        case PairMode::SymmetricBoundingBox: return "symmetric-bb";
    }
    return "unknown";
}

PairMode parse_pair_mode(std::string_view text) {
    for (PairMode m : {PairMode::Full, PairMode::Symmetric, PairMode::SymmetricBoundingBox})
        if (text == to_string(m)) return m;
    throw std::invalid_argument("unknown pair mode '" + std::string(text) +
                                "'; supported: full, symmetric, symmetric-bb");
}

std::string KernelConfig::to_string() const {
    if (pair_mode != PairMode::Full)
        return std::string(nbody::to_string(pair_mode)) + ", bodies/lane " + std::to_string(bodies_per_lane);
    return "unroll " + std::to_string(unroll) + ", block " + std::to_string(block) + ", threads/body " +
           std::to_string(threads_per_body) + ", bodies/thread " + std::to_string(bodies_per_thread);
}

}  // namespace nbody
