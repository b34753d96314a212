#pragma once
// Random numbers for the initial-condition generators. The standard library's distributions are
// implementation-defined (libstdc++ and libc++ give different normals for one seed), so the
// transforms are written out here: a scene file with a given seed produces the same particles on
// every platform, which is what makes a scene shareable and a bug report reproducible.

#include <cmath>
#include <cstdint>
#include <numbers>
#include <random>

#include "nbody/sim/types.hpp"

namespace nbody::ic::detail {

// SplitMix64 finaliser: turns (seed, stream) pairs into well-separated engine seeds, so that
// galaxy 2's halo does not replay galaxy 1's disk when the seeds differ by one.
inline std::uint64_t mix_seed(std::uint64_t seed, std::uint64_t stream) {
    std::uint64_t z = seed + 0x9E3779B97F4A7C15ull * (stream + 1);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

class Rng {
public:
    explicit Rng(std::uint64_t seed) : engine_(seed) {}

    // Uniform in (0, 1): never exactly 0, so logarithms and inverse CDFs stay finite.
    double uniform() {
        const std::uint64_t bits = engine_() >> 11;  // 53 random mantissa bits
        return (double(bits) + 0.5) * (1.0 / 9007199254740992.0);
    }
    double uniform(double lo, double hi) { return lo + (hi - lo) * uniform(); }

    // Standard normal by Box-Muller; the second value of each pair is kept for the next call.
    double normal() {
        if (has_spare_) {
            has_spare_ = false;
            return spare_;
        }
        const double r = std::sqrt(-2.0 * std::log(uniform()));
        const double phi = 2.0 * std::numbers::pi * uniform();
        spare_ = r * std::sin(phi);
        has_spare_ = true;
        return r * std::cos(phi);
    }

    Vec3d unit_vector() {
        const double cos_t = uniform(-1.0, 1.0), sin_t = std::sqrt(1.0 - cos_t * cos_t);
        const double phi = 2.0 * std::numbers::pi * uniform();
        return {sin_t * std::cos(phi), sin_t * std::sin(phi), cos_t};
    }

private:
    std::mt19937_64 engine_;
    double spare_ = 0.0;
    bool has_spare_ = false;
};

}  // namespace nbody::ic::detail
