#pragma once
// Driver functions of the symmetric ("each pair once") force kernel (symmetric_kernel.cu).
// Plain functions on raw device pointers and sizes, in the style of force_kernel.hpp; this header
// pulls in the CUDA runtime API (float4, cudaStream_t) and nothing heavier.
//
// Newton's third law halves the pairs: the bodies are cut into T = ceil(n / P) tiles of P bodies
// and only the tiles (row, col) with row >= col are evaluated, each adding f_ij to body i and -f_ij
// to body j. One block is one warp and one tile; P = 32 * bodies_per_lane. Inside a tile the
// j-bodies' positions sit in shared memory and their acceleration sums travel around the warp with
// __shfl_sync, so each j-sum is complete when it has met all P i-bodies, and it reaches global
// memory with one atomic float4 add per body per tile (red.global.add.v4.f32 on sm_90), not one
// per interaction. Diagonal tiles (row == col) evaluate each pair i > j once too.
//
// Two ways to place blocks on the triangle (the Navarro-Bustos-Hitschfeld comparison):
//   Lambda       T(T+1)/2 blocks; block k finds its tile with the map lambda(k) of eq. 4
//                (rsqrt estimate plus one integer correction: triangular_map.hpp).
//   BoundingBox  a T x T grid; the T(T-1)/2 blocks above the diagonal exit at once.
//
// The sums arrive in an order that depends on scheduling (float atomics), so results are not
// bit-for-bit reproducible from run to run, unlike the full kernel's. Accuracy is the same class:
// every body's sum is T tile partial sums of at most P terms each.
//
// Cost per pair (SASS, --use_fast_math; docs/SYMMETRIC.md has the derivation): 16 FP32
// instructions + 1 MUFU.RSQ, plus (1 LDS.128 + 3 SHFL) / bodies_per_lane, plus per-tile work
// of about 100 instructions per lane over 32 * bodies_per_lane^2 pairs per lane. The full kernel
// spends 24 FP32 + 2 MUFU on the same pair (both orders).

#include <cuda_runtime_api.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>

namespace nbody::cuda {

enum class SymmetricMap { Lambda, BoundingBox };

// "lambda" and "bounding-box"; parse_symmetric_map throws std::invalid_argument listing both.
const char* to_string(SymmetricMap map);
SymmetricMap parse_symmetric_map(const std::string& text);

// i-bodies each lane keeps in registers (compile-time instances). Each shared-memory read and
// each set of 3 shuffles then serves that many pairs. 4 is the default (docs/SYMMETRIC.md).
inline constexpr std::array<int, 4> kSymmetricBodiesPerLaneValues{1, 2, 4, 8};
inline constexpr int kSymmetricDefaultBodiesPerLane = 4;

struct SymmetricVariant {
    SymmetricMap map = SymmetricMap::Lambda;
    int bodies_per_lane = kSymmetricDefaultBodiesPerLane;
};

// Throws std::invalid_argument naming the bad value and listing the supported ones. No device needed.
void require_symmetric_instance(const SymmetricVariant& v);

// Bodies per tile side for a variant: 32 * bodies_per_lane.
constexpr int symmetric_tile_size(int bodies_per_lane) { return 32 * bodies_per_lane; }

// Largest n a variant accepts: kMaxTilesPerSide (65536, the range over which the map is verified)
// tiles per side, capped by int.
int symmetric_max_bodies(const SymmetricVariant& v);

// How a launch for n bodies is laid out (host arithmetic only; no device needed).
struct SymmetricGeometry {
    int tile = 0;                      // P, bodies per tile side
    std::uint32_t tiles_per_side = 0;  // T = ceil(n / P)
    std::uint64_t tiles = 0;           // tiles evaluated: T(T+1)/2
    std::uint64_t blocks = 0;          // blocks launched: grid_x * grid_y * grid_z
    unsigned grid_x = 0, grid_y = 0, grid_z = 0;
    int threads = 0;               // per block: one warp
    std::size_t shared_bytes = 0;  // static shared memory per block
};
// Lambda: k = blockIdx.y * grid_x + blockIdx.x over a 1-D grid while T(T+1)/2 <= 2^31 - 1
// (T <= 65535), else the fewest rows of at most 2^31 - 1 blocks (blocks - tiles < grid_y).
// BoundingBox: grid_x = T columns, rows spread over grid_y (<= 65535) and grid_z.
// Throws std::invalid_argument for n < 0, n > symmetric_max_bodies(v) or an unsupported variant.
SymmetricGeometry symmetric_geometry(const SymmetricVariant& v, int n);

// What the compiled tile kernel of `v` needs on the current device (for tests and reports).
struct SymmetricKernelResources {
    int registers_per_thread = 0;
    std::size_t local_bytes_per_thread = 0;  // > 0 means spills (never expected)
    std::size_t static_shared_bytes = 0;
    int max_blocks_per_sm = 0;  // occupancy: resident one-warp blocks per SM
};
SymmetricKernelResources symmetric_kernel_resources(const SymmetricVariant& v);

// acc[i] = sum over j != i of m_j (x_j - x_i) / (|x_j - x_i|^2 + eps2)^(3/2), w = 0; acc is
// overwritten (zeroed on `stream`, then accumulated). When vel is not null, a closing kick
// vel[i].xyz += acc[i].xyz * half_dt follows. Three stream operations: memset, tile kernel, kick.
// eps2 must be finite and >= 1e-20 (padding bodies of zero mass then contribute exact zeros).
// Throws std::invalid_argument on bad arguments, std::runtime_error on CUDA errors.
// tile_mass: force_kernel.hpp's TileMasses for block = symmetric_tile_size(bodies_per_lane); an
// off-diagonal tile whose i- and j-bodies are each of one mass skips the two per-pair mass FMULs
// (16 -> 14 FP32 per pair). nullptr: every tile takes the general loop.
// share: the tiles (in the lambda map's order) this pass evaluates, when several GPUs split the
// triangle (docs/DISTRIBUTED.md); acc then holds this share's partial sums for all n bodies, to be
// summed over the GPUs (vel must be null: the kick waits for the sum). The default is every tile.
struct SymmetricTiles {
    std::uint64_t first = 0;
    std::uint64_t count = UINT64_MAX;
};
// The tiles of the work fraction [begin, end) of the triangle for n bodies (tiles cost the same but
// for the diagonal's T, a 1/T effect), so that shares [f_r, f_r+1) over ranks cover every tile once.
SymmetricTiles symmetric_tile_share(const SymmetricVariant& v, int n, double begin, double end);

void launch_symmetric_force(const SymmetricVariant& v, const float4* pos, int n, float eps2, float4* acc,
                            float4* vel_or_null, float half_dt, cudaStream_t stream,
                            const float2* tile_mass = nullptr, SymmetricTiles share = {});

inline void launch_symmetric_force(SymmetricMap map, const float4* pos, int n, float eps2, float4* acc,
                                   float4* vel_or_null, float half_dt, cudaStream_t stream) {
    launch_symmetric_force(SymmetricVariant{map, kSymmetricDefaultBodiesPerLane}, pos, n, eps2, acc,
                           vel_or_null, half_dt, stream);
}

// Median time in milliseconds of `repeats` force passes (memset + tile kernel, no kick) after one
// warm-up pass, measured with CUDA events on a stream of its own. Synchronises the device.
double time_symmetric_force_ms(const SymmetricVariant& v, const float4* pos, int n, float eps2, float4* acc,
                               int repeats);
inline double time_symmetric_force_ms(SymmetricMap map, const float4* pos, int n, float eps2, float4* acc,
                                      int repeats) {
    return time_symmetric_force_ms(SymmetricVariant{map, kSymmetricDefaultBodiesPerLane}, pos, n, eps2, acc,
                                   repeats);
}

// ---- test hook: the triangular map evaluated by the device itself --------------------------------
// Runs the map for every k < T(T+1)/2 (with diagonal) or T(T-1)/2 (without) on the device and
// checks each (row, col) against tri(row) <= k < tri(row + 1). MUFU.RSQ differs from any host
// emulation, so this is the proof that the kernel's map is exact on the hardware.
enum class TriangularMapFlavor { Exact, Fast, Paper };
struct TriangularMapCheck {
    std::uint64_t checked = 0;
    std::uint64_t wrong = 0;
    std::uint64_t first_wrong = UINT64_MAX;  // smallest wrong k; UINT64_MAX when none
};
TriangularMapCheck check_triangular_map_on_device(std::uint32_t tiles_per_side, TriangularMapFlavor flavor,
                                                  bool with_diagonal, float paper_eps);

}  // namespace nbody::cuda
