#pragma once
// Tunables of the tiled all-pairs force kernel (GPU Gems 3 ch. 31). Plain data: the GUI edits a
// copy, the CUDA backend validates it against the device before it replaces the running one.

#include <string>
#include <string_view>

namespace nbody {

// Which pairs the force pass evaluates.
//   Full                  every ordered pair (i, j): N^2 interactions, bit-reproducible.
//   Symmetric             each unordered pair once, f_ji = -f_ij (Newton's third law); blocks placed
//                         on the lower triangle of tiles by the Navarro-Bustos-Hitschfeld map.
//   SymmetricBoundingBox  the same kernel on a full T x T grid whose upper blocks exit at once:
//                         what the map saves over it is the map's own gain.
// The symmetric modes accumulate with float atomics, so their sums are not bit-reproducible.
enum class PairMode { Full, Symmetric, SymmetricBoundingBox };

// "full", "symmetric", "symmetric-bb"; parse_pair_mode throws std::invalid_argument listing them.
std::string_view to_string(PairMode mode);
PairMode parse_pair_mode(std::string_view text);

// Arithmetic of the full-pair force pass (docs/PRECISION.md).
//   Fp32      the direct sum: fp32 positions, one fp32 running sum per body.
//   Fp32Jbag  Chamomile's FORCE-LOOP (Hamada & Iitaka 2007): each tile's (J-BAG's) partial force is
//             summed in fresh registers (in sub-bags of 16 bodies), then added to the running total
//             with Kahan compensation, so the cumulative rounding error stays near the per-term
//             floor instead of growing with the number of bodies.
//   Ds        Sapporo's double-single positions (Gaburov et al. 2009): x = x_hi + x_lo, the
//             separation (x_j,hi - x_i,hi) + (x_j,lo - x_i,lo) (their eq. 3); the rest fp32, summed
//             as in Fp32Jbag. Velocities are double-single too, so the integration keeps the digits.
//   Fp64      doubles throughout: positions, velocities, sums.
// The float4 position buffer (what the renderer draws) always holds the positions rounded to
// float (x_hi in Ds); Ds and Fp64 keep the extra digits in device buffers of their own.
enum class Precision { Fp32, Fp32Jbag, Ds, Fp64 };

// "fp32", "fp32-jbag", "ds", "fp64"; parse_precision throws std::invalid_argument listing them.
std::string_view to_string(Precision precision);
Precision parse_precision(std::string_view text);
// Every mode, in the order above (for menus and sweeps).
inline constexpr Precision kAllPrecisions[] = {Precision::Fp32, Precision::Fp32Jbag, Precision::Ds, Precision::Fp64};

struct KernelConfig {
    int unroll = 8;            // j-loop unroll factor U (compile-time instances: 1, 2, 4, 8, 16, 32)
    int block = 512;           // tile size p = threads per block, a multiple of 32
    int threads_per_body = 2;  // q threads share one body's j-range (1, 2, 4, 8, 16, 32)
    int bodies_per_thread = 4; // B i-bodies per thread held in registers (1, 2, 4): each j read
                               // from shared memory serves B interactions (RV770 i-unrolling)
    PairMode pair_mode = PairMode::Full;
    int bodies_per_lane = 4;   // symmetric modes only: i-bodies per lane (1, 2, 4, 8); a tile is
                               // 32 x bodies_per_lane bodies a side, one warp per tile; unroll,
                               // block and threads_per_body apply to the full mode only

    Precision precision = Precision::Fp32;  // modes other than Fp32 exist for PairMode::Full only,
                                            // with fewer (U, q, B) instances (CudaBackend says which)

    friend bool operator==(const KernelConfig&, const KernelConfig&) = default;
    std::string to_string() const;
};

}  // namespace nbody
