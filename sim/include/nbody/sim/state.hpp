#pragma once
// The simulated system as the host sees it. Positions carry the mass in w (x, y, z, m): the layout
// the GPU kernel reads and the renderer's vertex buffer holds. Velocities are float4 too (w unused)
// so that both arrays are 16-byte aligned streams.

#include <cstddef>
#include <cstdint>
#include <vector>

#include "nbody/sim/types.hpp"

namespace nbody {

// What a particle is part of; the viewer colours by it. Plain point masses are `Unspecified`.
enum class Component : std::uint8_t { Unspecified = 0, Disk = 1, Bulge = 2, Halo = 3, Star = 4 };

struct State {
    std::vector<Vec4f> pos_mass;            // x, y, z, m
    std::vector<Vec4f> velocity;            // vx, vy, vz, unused
    std::vector<std::uint16_t> galaxy;      // which galaxy a particle belongs to (0 when one)
    std::vector<Component> component;       // which component of its galaxy
    double time = 0.0;                      // simulation time in internal units (G = 1)

    std::size_t size() const { return pos_mass.size(); }
    bool empty() const { return pos_mass.empty(); }

    // Resizes every per-particle array together; new particles are at rest at the origin.
    void resize(std::size_t n);

    // Throws std::invalid_argument naming the first problem: mismatched array sizes, a negative
    // or non-finite mass, a non-finite coordinate, or an empty system.
    void validate() const;
};

}  // namespace nbody
