#pragma once
// The block-space map lambda(omega) of Navarro, Bustos & Hitschfeld ("A non-linear GPU thread map
// for triangular domains", eq. 4 and 5): a linear block index k onto the cell (row, col) of a lower
// triangular grid of T x T tiles, so that a launch of T(T+1)/2 blocks covers the triangle with no
// block discarded (the bounding box launches T^2 and discards T(T-1)/2).
//
//   with diagonal (eq. 4):    row = floor(sqrt(1/4 + 2k) - 1/2),  col = k - row(row+1)/2,  col <= row
//   without diagonal (eq. 5): row = floor(sqrt(1/4 + 2k) + 1/2),  col = k - row(row-1)/2,  col <  row
//
// Three ways to evaluate the square root, all usable on host and device:
//   *_exact  float estimate, then integer correction loops: right for every k < 2^32 by
//            construction (the loops stop at the unique row with tri(row) <= k < tri(row+1)).
//   *_fast   what the kernel uses: sqrt(x) = x * rsqrt(x) (MUFU.RSQ on the device, 1 / sqrtf on the
//            host), floor, then ONE integer correction step. Why one step is enough: for a k in
//            row i, sqrt(2k + 1/4) lies in [i + 1/2, i + 3/2); any estimate within 1/2 of it has its
//            floor in {i, i + 1}, and one compare of tri(floor) with k picks the right one. The
//            float estimate is off by at most sqrt(x) * (rsqrt error + ~2^-23): with rsqrtf's
//            documented 2 ulp (2^-22 relative) that is < 0.025 up to T = 65536, a margin of 20x.
//            (The paper adds a small epsilon instead; see *_paper.) Cost on the device: I2F, FFMA,
//            MUFU.RSQ, FMUL, F2I, 64-bit IMADs for tri(r) and a compare-and-subtract: ~20 instructions per
//            block (SASS), against ~9,600 for the tile it finds.
//   *_paper  the paper's variant: floor(x * rsqrt(x) -/+ 1/2 + eps) with no integer step. It is
//            exact only while eps exceeds the float error and stays below the gap between
//            sqrt(2k + 1/4) and the next integer boundary (~1/row): with the host's 1 / sqrtf and
//            eps = 3e-4 the first wrong k is in row 2410 (tests/cuda/symmetric_map_test.cpp).
//            The N-body tile grids reach row 65535, so the kernel does not use it.
//
// tri(r) = r(r+1)/2 is evaluated in 64 bits: at T = 65536 the product r(r+1) passes 2^32.

#include <cstdint>

#if defined(__CUDACC__)
#define NBODY_TRI_HD __host__ __device__ __forceinline__
#else
#include <cmath>
#define NBODY_TRI_HD inline
#endif

namespace nbody::cuda::tri {

// Tiles per side whose every k the tests verify (host: exhaustive to 4096, row boundaries to 65536;
// device: exhaustive to 65536). k < tri(65536) = 2,147,516,416 fits in 32 bits.
inline constexpr std::uint32_t kMaxTilesPerSide = 65536;

struct Coord {
    std::uint32_t row = 0;
    std::uint32_t col = 0;
};

// Cells of the lower triangle (with diagonal) in rows [0, r): r(r + 1) / 2.
NBODY_TRI_HD std::uint64_t triangular(std::uint64_t r) { return r * (r + 1) / 2; }

// 1 / sqrt(x) as the device computes it (MUFU.RSQ: rsqrtf is always the approximate instruction).
// The host has no such instruction; 1 / sqrtf stands in for it, and the tests also run the map
// with rsqrt values perturbed by far more than MUFU's error.
struct FastRsqrt {
    NBODY_TRI_HD float operator()(float x) const {
#if defined(__CUDA_ARCH__)
        return rsqrtf(x);
#else
        return 1.0f / std::sqrt(x);
#endif
    }
};

namespace detail {
NBODY_TRI_HD float sqrt_estimate(float x) {
#if defined(__CUDA_ARCH__)
    return sqrtf(x);
#else
    return std::sqrt(x);
#endif
}
// 2k + 1/4 in float (k is rounded to 24 bits beyond 2^24; the callers correct for it or not).
NBODY_TRI_HD float two_k_plus_quarter(std::uint32_t k) { return 2.0f * static_cast<float>(k) + 0.25f; }
}  // namespace detail

// ---- with diagonal (eq. 4) ------------------------------------------------------------------------

NBODY_TRI_HD Coord lambda_exact(std::uint32_t k) {
    const float s = detail::sqrt_estimate(detail::two_k_plus_quarter(k)) - 0.5f;
    std::uint64_t r = s > 0.0f ? static_cast<std::uint64_t>(s) : 0;
    while (triangular(r + 1) <= k) ++r;
    while (triangular(r) > k) --r;
    return {static_cast<std::uint32_t>(r), static_cast<std::uint32_t>(k - triangular(r))};
}

template <class Rsqrt = FastRsqrt>
NBODY_TRI_HD Coord lambda_fast(std::uint32_t k, Rsqrt rsqrt = {}) {
    const float x = detail::two_k_plus_quarter(k);
    const float s = x * rsqrt(x);  // >= ~1/2 for every k, so the conversion below is a floor
    std::uint64_t r = static_cast<std::uint32_t>(s);
    r -= triangular(r) > k ? 1 : 0;
    return {static_cast<std::uint32_t>(r), static_cast<std::uint32_t>(k - triangular(r))};
}

template <class Rsqrt = FastRsqrt>
NBODY_TRI_HD Coord lambda_paper(std::uint32_t k, float eps, Rsqrt rsqrt = {}) {
    const float x = detail::two_k_plus_quarter(k);
    const float e = x * rsqrt(x) - 0.5f + eps;
    const std::uint64_t r = e > 0.0f ? static_cast<std::uint64_t>(e) : 0;
    // Not corrected: when r is wrong, col is garbage (possibly "negative", i.e. wrapped).
    return {static_cast<std::uint32_t>(r), static_cast<std::uint32_t>(k - triangular(r))};
}

// ---- without diagonal (eq. 5): rows 1 .. T-1, col < row ------------------------------------------
// Row r of this triangle starts at k = r(r-1)/2 = triangular(r - 1), so its row is the eq. 4 row
// plus one; the estimates below are eq. 5 written out, corrected the same way.

NBODY_TRI_HD Coord lambda_nodiag_exact(std::uint32_t k) {
    const Coord c = lambda_exact(k);
    return {c.row + 1, c.col};
}

template <class Rsqrt = FastRsqrt>
NBODY_TRI_HD Coord lambda_nodiag_fast(std::uint32_t k, Rsqrt rsqrt = {}) {
    const float x = detail::two_k_plus_quarter(k);
    const float s = x * rsqrt(x);  // in [row - 1/2, row + 1/2) up to the float error
    std::uint64_t r = static_cast<std::uint64_t>(static_cast<std::uint32_t>(s)) + 1;  // row or row + 1
    r -= triangular(r - 1) > k ? 1 : 0;
    return {static_cast<std::uint32_t>(r), static_cast<std::uint32_t>(k - triangular(r - 1))};
}

template <class Rsqrt = FastRsqrt>
NBODY_TRI_HD Coord lambda_nodiag_paper(std::uint32_t k, float eps, Rsqrt rsqrt = {}) {
    const float x = detail::two_k_plus_quarter(k);
    const std::uint64_t r = static_cast<std::uint64_t>(x * rsqrt(x) + 0.5f + eps);  // >= 1
    return {static_cast<std::uint32_t>(r), static_cast<std::uint32_t>(k - triangular(r - 1))};
}

// The paper variant's epsilon: of 0, 1e-5, 1e-4, 3e-4, 1e-3, 3e-3 and 1e-2 (every k checked on the
// host with 1 / sqrtf), 3e-4 stays exact the longest, to row 2409 (1e-4: 2053, 1e-3: 928).
// Documented and tested, not used by the kernel.
inline constexpr float kPaperEpsilon = 3e-4f;

// True when (row, col) is the cell of k: tri(row) <= k < tri(row + 1), i.e. col <= row and
// tri(row) + col == k. With diagonal; for eq. 5 pass {row - 1, col}.
NBODY_TRI_HD bool is_cell_of(std::uint64_t k, Coord c) {
    return c.col <= c.row && triangular(c.row) + c.col == k;
}

}  // namespace nbody::cuda::tri
