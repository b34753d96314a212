#pragma once
// The block steps' clock: every body of level k started its step when the level did and ends it
// dt_max 2^-k later, all of the level together. The next block is at the earliest such end and
// takes every level that ends then. One rule for the host integrator (its levels' body lists) and
// the engines that take the blocks on the GPU (the levels' counts and start times).

#include <algorithm>
#include <cmath>
#include <cstddef>

namespace nbody::hermite {

// When a level's steps end: start + dt, or +inf for a level without bodies.
inline double level_end(bool occupied, double start, double dt) { return occupied ? start + dt : INFINITY; }

// The next block's time over `levels` levels, `end(k)` giving level_end() of level k (+inf: none).
// A level is in that block where end(k) equals it.
template <class LevelEnd>
double next_block_time(std::size_t levels, const LevelEnd& end) {
    double t = INFINITY;
    for (std::size_t k = 0; k < levels; ++k) t = std::min(t, end(k));
    return t;
}

}  // namespace nbody::hermite
