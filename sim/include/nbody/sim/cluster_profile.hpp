#pragma once
// A star cluster's structure over time (issue 33): Lagrangian radii (the radii holding 10, 50 and
// 90 % of the mass) and the core radius, measured on the simulation side every so much model time
// for the viewer's plot. Core collapse shows as r10 and the core shrinking while r90 grows.

#include <cstddef>
#include <mutex>
#include <vector>

#include "nbody/sim/state.hpp"

namespace nbody {

struct ClusterProfile {
    double time = 0;
    double r10 = 0, r50 = 0, r90 = 0;  // about the centre of mass
    double core = 0;                    // King's: sqrt(9 sigma^2 / (4 pi G rho0)), G = 1
};

// O(N log N): distances from the centre of mass, sorted once. rho0 and the one-dimensional
// velocity dispersion sigma come from the bodies inside the radius of 1 % of the mass (at least
// 64 bodies: fewer make the core radius jump by tens of percent between measurements, the heavy
// stars of a mass spectrum weighing most): the central density without a neighbour search. Zeros for fewer than 2 bodies.
ClusterProfile measure_cluster(const State& state);

// The measurements of one run, oldest first, kept to `capacity` (older ones thinned by half when it
// is reached, so a long run keeps its whole history at a coarser spacing). Thread-safe: measured
// on the stepping thread, read by the UI.
class ClusterHistory {
  public:
    explicit ClusterHistory(std::size_t capacity = 512) : capacity_(capacity) {}
    void set_interval(double model_time);  // between measurements; <= 0: none
    bool active() const;                   // an interval is set
    bool due(double time) const;
    // When the next measurement falls due: -inf-like before the first, +inf-like when off.
    double next_time() const;
    // Measures `state` when due at its time; returns whether it did.
    bool observe(const State& state);
    void clear();
    std::vector<ClusterProfile> samples() const;

  private:
    mutable std::mutex mutex_;
    std::size_t capacity_;
    double interval_ = 0, next_ = 0;
    bool started_ = false;
    std::vector<ClusterProfile> samples_;
};

}  // namespace nbody
