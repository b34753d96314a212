#pragma once
// The centre of mass moves uniformly in an isolated system, so following it needs no data
// from the GPU: it is extrapolated from the last host copy of the state.

#include <glm/vec3.hpp>

#include "nbody/sim/state.hpp"

namespace nbody::app {

struct CentreOfMassTrack {
    Vec3d position, velocity;
    double time = 0;

    void anchor(const Vec3d& x, const Vec3d& v, double t) {
        position = x;
        velocity = v;
        time = t;
    }
    void anchor(const State& s) {
        double m = 0;
        Vec3d x, v;
        for (std::size_t i = 0; i < s.size(); ++i) {
            const double w = s.pos_mass[i].w;
            m += w;
            x += xyz(s.pos_mass[i]) * w;
            v += xyz(s.velocity[i]) * w;
        }
        if (m > 0) anchor(x / m, v / m, s.time);
    }
    glm::vec3 at(double t) const {
        const Vec3d p = position + velocity * (t - time);
        return {float(p.x), float(p.y), float(p.z)};
    }
};

}  // namespace nbody::app
