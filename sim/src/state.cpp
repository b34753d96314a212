#include "nbody/sim/state.hpp"

#include <cmath>
#include <stdexcept>
#include <string>

namespace nbody {

void State::resize(std::size_t n) {
    pos_mass.resize(n);
    velocity.resize(n);
    galaxy.resize(n, 0);
    component.resize(n, Component::Unspecified);
}

void State::validate() const {
    const std::size_t n = pos_mass.size();
    if (n == 0) throw std::invalid_argument("the system has no bodies (N = 0)");
    if (velocity.size() != n || galaxy.size() != n || component.size() != n)
        throw std::invalid_argument("per-body arrays differ in length: " + std::to_string(n) + " positions, " +
                                    std::to_string(velocity.size()) + " velocities");
    for (std::size_t i = 0; i < n; ++i) {
        const Vec4f& p = pos_mass[i];
        const Vec4f& v = velocity[i];
        if (!std::isfinite(p.x) || !std::isfinite(p.y) || !std::isfinite(p.z))
            throw std::invalid_argument("body " + std::to_string(i) + " has a non-finite position");
        if (!std::isfinite(v.x) || !std::isfinite(v.y) || !std::isfinite(v.z))
            throw std::invalid_argument("body " + std::to_string(i) + " has a non-finite velocity");
        if (!std::isfinite(p.w) || p.w < 0.0f)
            throw std::invalid_argument("body " + std::to_string(i) + " has a negative or non-finite mass (" +
                                        std::to_string(p.w) + ")");
    }
}

void PreciseState::validate(std::size_t n) const {
    if (position.size() != n || velocity.size() != n || mass.size() != n)
        throw std::invalid_argument("double-precision state: " + std::to_string(position.size()) + " positions, " +
                                    std::to_string(velocity.size()) + " velocities and " +
                                    std::to_string(mass.size()) + " masses for " + std::to_string(n) + " bodies");
    for (std::size_t i = 0; i < n; ++i) {
        const Vec3d& p = position[i];
        const Vec3d& v = velocity[i];
        if (!std::isfinite(p.x) || !std::isfinite(p.y) || !std::isfinite(p.z))
            throw std::invalid_argument("body " + std::to_string(i) + " has a non-finite position");
        if (!std::isfinite(v.x) || !std::isfinite(v.y) || !std::isfinite(v.z))
            throw std::invalid_argument("body " + std::to_string(i) + " has a non-finite velocity");
        if (!std::isfinite(mass[i]) || mass[i] < 0.0)
            throw std::invalid_argument("body " + std::to_string(i) + " has a negative or non-finite mass (" +
                                        std::to_string(mass[i]) + ")");
    }
}

void PreciseState::round_into(State& state) const {
    if (state.size() != size()) state.resize(size());
    for (std::size_t i = 0; i < size(); ++i) {
        const Vec3d& p = position[i];
        const Vec3d& v = velocity[i];
        state.pos_mass[i] = {float(p.x), float(p.y), float(p.z), float(mass[i])};
        state.velocity[i] = {float(v.x), float(v.y), float(v.z), 0.0f};
    }
}

}  // namespace nbody
