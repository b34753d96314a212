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

// The system in double precision, for the backends that integrate in double (reference; cuda in
// ds and fp64). A snapshot stores it beside the floats so that a restored run steps exactly as the
// one that saved it; CSV from such a run is written with 17 significant digits. Time and labels
// stay in State (State::time is already a double).
struct PreciseState {
    std::vector<Vec3d> position;
    std::vector<Vec3d> velocity;
    std::vector<double> mass;

    std::size_t size() const { return position.size(); }
    // Throws std::invalid_argument naming the first problem: arrays whose size is not `n`, a
    // non-finite coordinate or velocity (with the body), a negative or non-finite mass.
    void validate(std::size_t n) const;
    // The floats a State holds for these values (positions, masses and velocities rounded).
    void round_into(State& state) const;
};

}  // namespace nbody
