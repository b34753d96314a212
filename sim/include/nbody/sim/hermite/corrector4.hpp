#pragma once
// The 4th-order Hermite corrector and the block level of the next step (integrator.hpp says the
// scheme): one definition for the host integrator and for block steps run on the GPU
// (sim/cuda/hermite/device_blocks.cu, built without FMA contraction), so both give the same bits.

#include <cmath>

#include "nbody/sim/host_device.hpp"
#include "nbody/sim/types.hpp"

namespace nbody::hermite {

struct StepEnd4 {
    Vec3d x, v;
    double dt_crit = 0;  // the step Aarseth's criterion asks for next
};

NBODY_HD inline double length_of(const Vec3d& a) { return sqrt(dot(a, a)); }

// The body predicted to xp, vp at the end of its step dt, from a0, j0 at its start and a1, j1 at xp.
NBODY_HD inline StepEnd4 hermite4_step_end(const Vec3d& xp, const Vec3d& vp, const Vec3d& a0, const Vec3d& j0,
                                           const Vec3d& a1, const Vec3d& j1, double dt, double eta) {
    const double dt2 = dt * dt, dt3 = dt2 * dt;
    const Vec3d a2 = (-6.0 * (a0 - a1) - dt * (4.0 * j0 + 2.0 * j1)) / dt2;
    const Vec3d a3 = (12.0 * (a0 - a1) + 6.0 * dt * (j0 + j1)) / dt3;
    StepEnd4 e;
    e.x = xp + a2 * (dt2 * dt2 / 24.0) + a3 * (dt2 * dt3 / 120.0);
    e.v = vp + a2 * (dt3 / 6.0) + a3 * (dt2 * dt2 / 24.0);
    const Vec3d a2e = a2 + dt * a3;  // the 2nd derivative at the end of the step
    const double s2 = length_of(a2e), s3 = length_of(a3), aa = length_of(a1), jj = length_of(j1);
    const double num = aa * s2 + jj * jj, den = jj * s3 + s2 * s2;
    e.dt_crit = den > 0 ? sqrt(eta * num / den) : INFINITY;
    return e;
}

// The level of a body's next step: the first level whose step (level_dts[k] = dt_max 2^-k, k up to
// max_level + 1) is not above dt_crit; up by one level at most, and only where the doubled step starts
// on its own grid (t a multiple of it). A result above max_level is an underflow, for the caller.
NBODY_HD inline int block_level_for(double dt_crit, int old_level, double t, const double* level_dts, int max_level) {
    int k = 0;
    while (k <= max_level + 1 && level_dts[k] > dt_crit) ++k;
    if (k < old_level) {
        k = old_level - 1;
        if (fmod(t, level_dts[k]) != 0) k = old_level;
    }
    return k;
}

}  // namespace nbody::hermite
