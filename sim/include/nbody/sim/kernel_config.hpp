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

struct KernelConfig {
    int unroll = 4;            // j-loop unroll factor U (compile-time instances: 1, 2, 4, 8, 16, 32)
    int block = 256;           // tile size p = threads per block, a multiple of 32
    int threads_per_body = 1;  // q threads share one body's j-range (1, 2, 4, 8, 16, 32)
    int bodies_per_thread = 1; // B i-bodies per thread held in registers (1, 2, 4): each j read
                               // from shared memory serves B interactions (RV770 i-unrolling)
    PairMode pair_mode = PairMode::Full;
    int bodies_per_lane = 4;   // symmetric modes only: i-bodies per lane (1, 2, 4, 8); a tile is
                               // 32 x bodies_per_lane bodies a side, one warp per tile; unroll,
                               // block and threads_per_body apply to the full mode only

    friend bool operator==(const KernelConfig&, const KernelConfig&) = default;
    std::string to_string() const;
};

}  // namespace nbody
