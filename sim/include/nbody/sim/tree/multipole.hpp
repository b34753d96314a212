#pragma once
// The arithmetic the CPU and GPU tree codes share, so that the CPU tree is a true oracle of the
// GPU one: Morton keys and the monopole + quadrupole cell interaction. Plain host code here;
// compiled by nvcc the functions are __host__ __device__.

#include <cmath>
#include <cstdint>

#if defined(__CUDACC__)
#define NBODY_TREE_HD __host__ __device__ __forceinline__
#else
#define NBODY_TREE_HD inline
#endif

namespace nbody::tree {

// 21 bits per axis: a 63-bit key, so a tree is at most 21 levels deep below the root. Cells at
// that depth are the bounding cube / 2^21: bodies closer than that share a key and a leaf.
inline constexpr int kKeyBits = 21;
inline constexpr int kMaxLevel = kKeyBits;
inline constexpr std::uint32_t kKeyCells = 1u << kKeyBits;

// Spreads the low 21 bits of v so that bit k lands on bit 3k.
NBODY_TREE_HD std::uint64_t spread_bits(std::uint64_t v) {
    v &= 0x1fffffull;
    v = (v | (v << 32)) & 0x001f00000000ffffull;
    v = (v | (v << 16)) & 0x001f0000ff0000ffull;
    v = (v | (v << 8)) & 0x100f00f00f00f00full;
    v = (v | (v << 4)) & 0x10c30c30c30c30c3ull;
    v = (v | (v << 2)) & 0x1249249249249249ull;
    return v;
}

// Inverse of spread_bits: gathers bits 0, 3, 6, ... of v into the low 21 bits.
NBODY_TREE_HD std::uint32_t compact_bits(std::uint64_t v) {
    v &= 0x1249249249249249ull;
    v = (v | (v >> 2)) & 0x10c30c30c30c30c3ull;
    v = (v | (v >> 4)) & 0x100f00f00f00f00full;
    v = (v | (v >> 8)) & 0x001f0000ff0000ffull;
    v = (v | (v >> 16)) & 0x001f00000000ffffull;
    v = (v | (v >> 32)) & 0x1fffffull;
    return static_cast<std::uint32_t>(v);
}

// Key of the cell (ix, iy, iz) of the 2^21 grid; x is the most significant bit of each octant
// digit. Octant digit of level L (children of a level-L cell) = (key >> 3 (20 - L)) & 7.
NBODY_TREE_HD std::uint64_t morton_key(std::uint32_t ix, std::uint32_t iy, std::uint32_t iz) {
    return (spread_bits(ix) << 2) | (spread_bits(iy) << 1) | spread_bits(iz);
}

// Grid cell of coordinate u, already scaled to [0, 2^21): clamped so that rounding at the top edge
// (and any value outside) stays in range. NaN must be excluded by the caller.
template <class Real>
NBODY_TREE_HD std::uint32_t grid_cell(Real u) {
    if (!(u > Real(0))) return 0;
    if (u >= Real(kKeyCells - 1)) return kKeyCells - 1;
    return static_cast<std::uint32_t>(u);
}

// A cell seen from a body: total mass m, and the traceless quadrupole about the centre of mass
// Q_ab = sum_k m_k (3 x_a x_b - |x|^2 delta_ab) (x relative to the centre of mass).
template <class Real>
struct CellMoments {
    Real m;
    Real qxx, qyy, qzz, qxy, qxz, qyz;
};

template <class Real>
NBODY_TREE_HD Real inverse_sqrt(Real r2) {
#if defined(__CUDA_ARCH__)
    if constexpr (sizeof(Real) == sizeof(float)) return rsqrtf(r2);
    else return rsqrt(r2);
#else
    return Real(1) / std::sqrt(r2);
#endif
}

// Adds the pull of a cell whose centre of mass is at d = com - x_i (softened: r^2 = |d|^2 + eps^2):
//   a = m d / r^3 - Q d / r^5 + (5/2) (d.Q.d) d / r^7
// (minus the gradient of phi = -m/r - (1/2) d.Q.d / r^5). 33 flops plus one rsqrt. WithPotential
// also adds phi to `phi` from the same 1/r and d.Q.d (4 flops more); the acceleration's arithmetic
// is the same statement for statement, so its result is bit for bit that of accumulate_cell.
template <bool WithPotential, class Real>
NBODY_TREE_HD void cell_terms(Real dx, Real dy, Real dz, const CellMoments<Real>& c, Real eps2, Real& ax, Real& ay,
                              Real& az, Real& phi) {
    // The order of the sums is the GPU's cost: where a * b + c contracts into one FMA (nvcc), eps2
    // first makes |d|^2 + eps2 three FMAs, and adding each component's two terms to the sum one at
    // a time makes them two FMAs. 31 FP32 instructions + 1 MUFU a term, against 35 for
    // d.d + eps2 and a += (d s - Q d / r^5) (docs/TREE.md, "The walk by occupied slices"); the
    // same count on a CPU without FMA.
    const Real r2 = eps2 + dx * dx + dy * dy + dz * dz;
    const Real inv_r = inverse_sqrt(r2);
    const Real inv_r2 = inv_r * inv_r;
    const Real inv_r3 = inv_r * inv_r2;
    const Real inv_r5 = inv_r3 * inv_r2;
    const Real qdx = c.qxx * dx + c.qxy * dy + c.qxz * dz;
    const Real qdy = c.qxy * dx + c.qyy * dy + c.qyz * dz;
    const Real qdz = c.qxz * dx + c.qyz * dy + c.qzz * dz;
    const Real dqd = dx * qdx + dy * qdy + dz * qdz;
    const Real s = c.m * inv_r3 + Real(2.5) * dqd * inv_r5 * inv_r2;
    ax = ax + dx * s - qdx * inv_r5;
    ay = ay + dy * s - qdy * inv_r5;
    az = az + dz * s - qdz * inv_r5;
    if constexpr (WithPotential) phi -= inv_r * (c.m + Real(0.5) * dqd * inv_r2 * inv_r2);
}

template <class Real>
NBODY_TREE_HD void accumulate_cell(Real dx, Real dy, Real dz, const CellMoments<Real>& c, Real eps2, Real& ax,
                                   Real& ay, Real& az) {
    Real unused = 0;
    cell_terms<false>(dx, dy, dz, c, eps2, ax, ay, az, unused);
}

// The potential of the same cell at the body, phi = -m/r - (1/2) (d.Q.d) / r^5 (softened r as
// above): the energy's counterpart of accumulate_cell, 17 flops and one rsqrt. The quadrupole
// term does not depend on the sign of d.
template <class Real>
NBODY_TREE_HD Real cell_potential(Real dx, Real dy, Real dz, const CellMoments<Real>& c, Real eps2) {
    const Real r2 = dx * dx + dy * dy + dz * dz + eps2;
    const Real inv_r = inverse_sqrt(r2);
    const Real inv_r2 = inv_r * inv_r;
    const Real dqd = c.qxx * dx * dx + c.qyy * dy * dy + c.qzz * dz * dz +
                     Real(2) * (c.qxy * dx * dy + c.qxz * dx * dz + c.qyz * dy * dz);
    return -inv_r * (c.m + Real(0.5) * dqd * inv_r2 * inv_r2);
}

// Squared distance from the point p to the box [lo, hi] (0 inside).
template <class Real>
NBODY_TREE_HD Real box_distance2(Real px, Real py, Real pz, Real lox, Real loy, Real loz, Real hix, Real hiy,
                                 Real hiz) {
    const Real dx = px < lox ? lox - px : (px > hix ? px - hix : Real(0));
    const Real dy = py < loy ? loy - py : (py > hiy ? py - hiy : Real(0));
    const Real dz = pz < loz ? loz - pz : (pz > hiz ? pz - hiz : Real(0));
    return dx * dx + dy * dy + dz * dz;
}

}  // namespace nbody::tree
