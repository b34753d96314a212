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

std::string_view to_string(Precision precision) {
    switch (precision) {
        case Precision::Fp32: return "fp32";
        case Precision::Fp32Jbag: return "fp32-jbag";
        case Precision::Ds: return "ds";
        case Precision::Fp64: return "fp64";
    }
    return "unknown";
}

Precision parse_precision(std::string_view text) {
    for (Precision p : kAllPrecisions)
        if (text == to_string(p)) return p;
    throw std::invalid_argument("unknown precision '" + std::string(text) +
                                "'; supported: fp32, fp32-jbag, ds, fp64");
}

std::string KernelConfig::to_string() const {
    // The precision is named only when it is not the default, so fp32 descriptions stay as they were.
    const std::string prec =
        precision == Precision::Fp32 ? std::string() : ", precision " + std::string(nbody::to_string(precision));
    if (pair_mode != PairMode::Full)
        return std::string(nbody::to_string(pair_mode)) + ", bodies/lane " + std::to_string(bodies_per_lane) + prec;
    return "unroll " + std::to_string(unroll) + ", block " + std::to_string(block) + ", threads/body " +
           std::to_string(threads_per_body) + ", bodies/thread " + std::to_string(bodies_per_thread) + prec;
}

}  // namespace nbody
