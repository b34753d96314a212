#pragma once
// The Taylor predictor of GRAPE-6's j-particles (force_engine.hpp's JParticle), in C++17 for the
// kernels that take block steps on the GPU (sim/cuda/hermite/device_blocks.cu).

#include "nbody/sim/host_device.hpp"

namespace nbody::hermite {

// The predictor both sides use (the host for i-particles, the engine for j-particles): one
// expression, so that a program calling libg6 and the built-in integrator round alike.
NBODY_HD inline double predict_position(double x, double v, double a2, double j6, double s24, double c120, double dt) {
    return x + dt * (v + dt * (a2 + dt * (j6 + dt * (s24 + dt * c120))));
}
NBODY_HD inline double predict_velocity(double v, double a2, double j6, double s24, double c120, double dt) {
    return v + dt * (2.0 * a2 + dt * 3.0 * j6 + dt * dt * (4.0 * s24 + dt * 5.0 * c120));
}

}  // namespace nbody::hermite
