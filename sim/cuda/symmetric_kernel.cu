// The symmetric ("each pair once") tiled gravity kernel. See symmetric_kernel.hpp for the contract
// and docs/SYMMETRIC.md for the design and the cost model.
//
// Layout of one tile (row, col), row >= col, P = 32 B bodies per side, one warp:
//   i-bodies  row*P + 32 b + lane, b < B: in registers (position+mass, acceleration sum), lane-private
//   j-bodies  col*P + 32 s + l, "slab" s < B of 32 bodies: positions in shared memory, each slab
//             stored twice in a row (64 float4) so that lane l reads body (l + k) mod 32 at step k
//             from sj[64 s + l + k]: an immediate offset, no wrap arithmetic, and 32 consecutive
//             float4 per warp (4 wavefronts, no bank conflict).
//   j-sums    one float3 per lane that travels: after every step it moves one lane down
//             (__shfl_sync from lane + 1), so at step k lane l holds the sum of body (l + k) mod 32,
//             the same body whose position it reads. After 32 steps every j-sum has met all 32 B
//             i-bodies of the warp and is back on its home lane: one atomic add per j-body per tile.
//
// Per step and lane: 1 LDS.128, B pairs of (16 FP32 + 1 MUFU.RSQ), 3 SHFL. Per pair:
//   3 FADD     d = x_j - x_i
//   3 FFMA     r^2 = d.d + eps^2
//   1 MUFU     w = rsqrt(r^2)
//   2 FMUL     w^3
//   2 FMUL     s_i = m_j w^3, s_j = m_i w^3
//   3 FFMA     a_i += s_i d
//   3 FFMA     a_j -= s_j d  (the negation is an FFMA operand modifier, free)
// = 16 FP32 + 1 MUFU, against 2 x (12 FP32 + 1 MUFU) when the full kernel visits the pair twice.
// Overhead per pair: (1 LDS + 3 SHFL) / B from the rotation, plus loop control / (steps unrolled x B).
// No masking in the off-diagonal loop: padding bodies have zero mass and give exact zeros because
// eps^2 > 0 keeps every r^2 finite and positive; they are never written back.

#include <algorithm>
#include <cmath>
#include <climits>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include "cuda_check.hpp"
#include "cuda_raii.hpp"
#include "force_kernel.hpp"
#include "share_start.cuh"
#include "symmetric_kernel.hpp"
#include "triangular_map.hpp"

namespace nbody::cuda {
namespace sym {

constexpr unsigned kFullMask = 0xffffffffu;
constexpr std::uint64_t kMaxGridX = 2147483647u;  // CUDA's limit on gridDim.x
constexpr std::uint64_t kMaxGridYZ = 65535u;      // and on gridDim.y, gridDim.z
constexpr int kWarp = 32;
constexpr float kMinEps2 = 1e-20f;  // softening 1e-10, the CUDA backend's floor

// Steps of a slab unrolled together: about 32 pairs of code per loop body (B = 1: the whole slab).
// A whole slab at B = 8 would be 256 pairs, ~70 KB of SASS: larger than the instruction cache.
template <int B>
constexpr int step_unroll() {
    return B >= 8 ? 4 : 32 / B;
}

// The separation of a pair and w^3 = 1 / (r^2 + eps^2)^(3/2); w^3 := 0 when not `take` makes both
// updates add exactly 0 (d is finite). One extra FSEL; a run-time `take` is used only on diagonal
// tiles.
struct PairTerm {
    float dx, dy, dz, w3;
};
__device__ __forceinline__ PairTerm pair_term(const float4& pi, const float4& pj, float eps2, bool take) {
    const float dx = pj.x - pi.x;
    const float dy = pj.y - pi.y;
    const float dz = pj.z - pi.z;
    const float r2 = fmaf(dx, dx, fmaf(dy, dy, fmaf(dz, dz, eps2)));
    const float w = rsqrtf(r2);
    return {dx, dy, dz, take ? (w * w) * w : 0.0f};
}

// a_i += s_i d, a_j -= s_j d: the pair's two sides, six FFMA.
__device__ __forceinline__ void add_both_sides(const PairTerm& t, float si, float3& ai, float sj, float3& aj) {
    ai.x = fmaf(t.dx, si, ai.x);
    ai.y = fmaf(t.dy, si, ai.y);
    ai.z = fmaf(t.dz, si, ai.z);
    aj.x = fmaf(-t.dx, sj, aj.x);
    aj.y = fmaf(-t.dy, sj, aj.y);
    aj.z = fmaf(-t.dz, sj, aj.z);
}

// One pair, both sides, counted only when `take`.
__device__ __forceinline__ void pair_masked(const float4& pi, float3& ai, const float4& pj, float3& aj,
                                            float eps2, bool take) {
    const PairTerm t = pair_term(pi, pj, eps2, take);
    add_both_sides(t, pj.w * t.w3, ai, pi.w * t.w3, aj);
}

// One pair, both sides. 16 FP32 + 1 MUFU (see the table above): the constant `take` folds away.
__device__ __forceinline__ void pair(const float4& pi, float3& ai, const float4& pj, float3& aj, float eps2) {
    pair_masked(pi, ai, pj, aj, eps2, true);
}

// One pair of a uniform-mass tile (every i-body of mass m_i, every j-body of mass m_j): both sums
// take w^3 d, and are scaled by m_j and m_i once per tile. 14 FP32 + 1 MUFU: the two FMULs of
// s_i = m_j w^3 and s_j = m_i w^3 are gone (docs/SYMMETRIC.md, uniform-mass tiles).
__device__ __forceinline__ void pair_unit(const float4& pi, float3& ai, const float4& pj, float3& aj, float eps2) {
    const PairTerm t = pair_term(pi, pj, eps2, true);
    add_both_sides(t, t.w3, ai, t.w3, aj);
}

// Every lane must reach this (full mask): callers keep all 32 lanes on the same path.
__device__ __forceinline__ void rotate(float3& aj, int src) {
    aj.x = __shfl_sync(kFullMask, aj.x, src);
    aj.y = __shfl_sync(kFullMask, aj.y, src);
    aj.z = __shfl_sync(kFullMask, aj.z, src);
}

// One atomic per body per tile. sm_90 has a 16-byte vector reduction (RED.E.ADD.F32x4...), one L2
// operation for the three components (w adds 0); older parts take three scalar reductions. The
// return value is unused, so either compiles to RED (fire and forget), not ATOM.
__device__ __forceinline__ void add_to(float4* acc, const float3& a) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    atomicAdd(acc, make_float4(a.x, a.y, a.z, 0.0f));
#else
    atomicAdd(&acc->x, a.x);
    atomicAdd(&acc->y, a.y);
    atomicAdd(&acc->z, a.z);
#endif
}

__device__ __forceinline__ float4 load_or_pad(const float4* __restrict__ pos, int i, int n) {
    return i < n ? __ldg(pos + i) : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
}

// All P x P pairs of an off-diagonal tile, no masks. Unit: the uniform-mass loop, whose j-sums are
// scaled by the i-tile's mass `mass_i` before they leave (the i-sums by the caller).
template <int B, bool Unit>
__device__ __forceinline__ void off_diagonal_tile(const float4* sj, int lane, int j0, int n, const float4 (&xi)[B],
                                                  float3 (&ai)[B], float eps2, float mass_i, float4* acc) {
    constexpr int kU = step_unroll<B>();
    const int src = (lane + 1) & (kWarp - 1);
#pragma unroll 1
    for (int s = 0; s < B; ++s) {
        float3 aj = make_float3(0.0f, 0.0f, 0.0f);
        const float4* q = sj + 2 * kWarp * s + lane;
#pragma unroll kU
        for (int k = 0; k < kWarp; ++k) {
            const float4 pj = q[k];
#pragma unroll
            for (int b = 0; b < B; ++b) {
                if constexpr (Unit) pair_unit(xi[b], ai[b], pj, aj, eps2);
                else pair(xi[b], ai[b], pj, aj, eps2);
            }
            rotate(aj, src);
        }
        if constexpr (Unit) aj = make_float3(aj.x * mass_i, aj.y * mass_i, aj.z * mass_i);
        const int j = j0 + kWarp * s;
        if (j < n) add_to(acc + j, aj);
    }
}

// One block = one warp = one tile. Every early return below is block-uniform (it depends on
// blockIdx only), so the warp stays converged for the shuffles and __syncwarp.
template <SymmetricMap Map, int B>
__global__ void __launch_bounds__(kWarp)
    symmetric_tile_kernel(const float4* __restrict__ pos, int n, float eps2, float4* __restrict__ acc,
                          std::uint32_t tiles_per_side, std::uint32_t first_tile, std::uint32_t tiles,
                          const float2* __restrict__ tile_mass) {
    static_assert(B >= 1 && B <= 8, "bad bodies-per-lane");
    constexpr int P = kWarp * B;
    constexpr int kU = step_unroll<B>();
    __shared__ float4 sj[2 * P];

    std::uint32_t row, col;
    if constexpr (Map == SymmetricMap::Lambda) {
        // Fits 32 bits: grid_x * grid_y < tiles + grid_y <= tri(65536) + 2 (symmetric_geometry).
        // first_tile > 0: this GPU's share of the triangle starts there (SymmetricTiles).
        const std::uint32_t k = first_tile + blockIdx.y * gridDim.x + blockIdx.x;
        if (k >= tiles) return;  // at most grid_y - 1 blocks of a 2-D grid's last row
        const tri::Coord c = tri::lambda_fast(k);
        row = c.row;
        col = c.col;
    } else {
        col = blockIdx.x;
        row = blockIdx.z * gridDim.y + blockIdx.y;
        if (row >= tiles_per_side || col > row) return;  // the bounding box's upper triangle
    }

    const int lane = static_cast<int>(threadIdx.x);
    // T * P <= n + P - 1 <= symmetric_max_bodies + P - 1 fits in int (symmetric_max_bodies).
    const int i0 = static_cast<int>(row) * P + lane;
    const int j0 = static_cast<int>(col) * P + lane;

    float4 xi[B];
    float3 ai[B];
#pragma unroll
    for (int b = 0; b < B; ++b) {
        xi[b] = load_or_pad(pos, i0 + kWarp * b, n);
        ai[b] = make_float3(0.0f, 0.0f, 0.0f);
    }
#pragma unroll
    for (int s = 0; s < B; ++s) {
        const float4 p = load_or_pad(pos, j0 + kWarp * s, n);
        sj[2 * kWarp * s + lane] = p;
        sj[2 * kWarp * s + kWarp + lane] = p;
    }
    __syncwarp();  // the slabs are read by other lanes of this warp; no other warp touches them

    if (row != col) {
        // Uniform-mass tiles (tile_mass: (m, 1/m) per tile of P bodies, 0 when mixed), warp-uniform.
        const float mass_i = tile_mass != nullptr ? __ldg(&tile_mass[row].x) : 0.0f;
        const float mass_j = tile_mass != nullptr ? __ldg(&tile_mass[col].x) : 0.0f;
        if (mass_i > 0.0f && mass_j > 0.0f) {
            off_diagonal_tile<B, true>(sj, lane, j0, n, xi, ai, eps2, mass_i, acc);
#pragma unroll
            for (int b = 0; b < B; ++b) ai[b] = make_float3(ai[b].x * mass_j, ai[b].y * mass_j, ai[b].z * mass_j);
        } else {
            off_diagonal_tile<B, false>(sj, lane, j0, n, xi, ai, eps2, 1.0f, acc);
        }
    } else {
        // Diagonal tile: the pair of local bodies (32 b + lane, 32 s + (lane + k) mod 32) is taken
        // when the i-index is the larger one: every sub-block b > s, none with b < s (skipped at
        // compile time: s is unrolled), and on b == s the steps where lane + k wraps past 31.
        // Each unordered pair p > q is met exactly once, at lane p mod 32, b = p / 32, s = q / 32,
        // k = (q - p) mod 32. The self pair (k = 0) is never taken.
        const int src = (lane + 1) & (kWarp - 1);
#pragma unroll
        for (int s = 0; s < B; ++s) {
            float3 aj = make_float3(0.0f, 0.0f, 0.0f);
            const float4* q = sj + 2 * kWarp * s + lane;
#pragma unroll kU
            for (int k = 0; k < kWarp; ++k) {
                const float4 pj = q[k];
                const bool wrapped = lane + k >= kWarp;
#pragma unroll
                for (int b = s; b < B; ++b) pair_masked(xi[b], ai[b], pj, aj, eps2, b > s || wrapped);
                rotate(aj, src);
            }
            const int j = j0 + kWarp * s;
            if (j < n) add_to(acc + j, aj);
        }
    }

#pragma unroll
    for (int b = 0; b < B; ++b) {
        const int i = i0 + kWarp * b;
        if (i < n) add_to(acc + i, ai[b]);
    }
}

// ---- the device-side check of the triangular map ------------------------------------------------

template <TriangularMapFlavor F, bool Diagonal>
__global__ void map_check_kernel(std::uint64_t count, float eps, unsigned long long* wrong,
                                 unsigned long long* first_wrong) {
    unsigned long long bad = 0, first = ULLONG_MAX;
    const std::uint64_t stride = static_cast<std::uint64_t>(gridDim.x) * blockDim.x;
    for (std::uint64_t k = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x; k < count;
         k += stride) {
        const auto k32 = static_cast<std::uint32_t>(k);
        tri::Coord c;
        if constexpr (Diagonal) {
            if constexpr (F == TriangularMapFlavor::Exact) c = tri::lambda_exact(k32);
            if constexpr (F == TriangularMapFlavor::Fast) c = tri::lambda_fast(k32);
            if constexpr (F == TriangularMapFlavor::Paper) c = tri::lambda_paper(k32, eps);
        } else {
            if constexpr (F == TriangularMapFlavor::Exact) c = tri::lambda_nodiag_exact(k32);
            if constexpr (F == TriangularMapFlavor::Fast) c = tri::lambda_nodiag_fast(k32);
            if constexpr (F == TriangularMapFlavor::Paper) c = tri::lambda_nodiag_paper(k32, eps);
            c = c.row >= 1 ? tri::Coord{c.row - 1, c.col} : tri::Coord{0, 1};  // {0, 1}: never a cell
        }
        if (!tri::is_cell_of(k, c)) {
            ++bad;
            first = k < first ? k : first;
        }
    }
    if (bad != 0) {
        atomicAdd(wrong, bad);
        atomicMin(first_wrong, first);
    }
}

// ---- dispatch ------------------------------------------------------------------------------------

using TileKernelFn = void (*)(const float4*, int, float, float4*, std::uint32_t, std::uint32_t, std::uint32_t,
                              const float2*);

// The supported (map, B) instances, as one list that the explicit instantiations and the dispatch
// switch both expand. Keep in step with kSymmetricBodiesPerLaneValues.
#define NBODY_SYM_B(X, M) X(M, 1) X(M, 2) X(M, 4) X(M, 8)
#define NBODY_SYM_VARIANTS(X) NBODY_SYM_B(X, Lambda) NBODY_SYM_B(X, BoundingBox)

#define NBODY_SYM_INSTANTIATE(M, B)                                                                        \
    template __global__ void symmetric_tile_kernel<SymmetricMap::M, B>(const float4*, int, float, float4*, \
                                                                       std::uint32_t, std::uint32_t,       \
                                                                       std::uint32_t, const float2*);
NBODY_SYM_VARIANTS(NBODY_SYM_INSTANTIATE)
#undef NBODY_SYM_INSTANTIATE

constexpr int variant_key(SymmetricMap m, int b) { return static_cast<int>(m) * 100 + b; }

bool supported_b(int b) {
    return std::find(kSymmetricBodiesPerLaneValues.begin(), kSymmetricBodiesPerLaneValues.end(), b) !=
           kSymmetricBodiesPerLaneValues.end();
}

std::string list_b() {
    std::string out;
    for (int b : kSymmetricBodiesPerLaneValues) out += (out.empty() ? "" : ", ") + std::to_string(b);
    return out;
}

[[noreturn]] void throw_unsupported(const SymmetricVariant& v) {
    std::string msg = "no symmetric kernel instance for map=" + std::to_string(static_cast<int>(v.map)) +
                      ", bodies_per_lane=" + std::to_string(v.bodies_per_lane) + ":";
    if (v.map != SymmetricMap::Lambda && v.map != SymmetricMap::BoundingBox)
        msg += " map " + std::to_string(static_cast<int>(v.map)) +
               " is not supported (supported: lambda, bounding-box);";
    if (!supported_b(v.bodies_per_lane))
        msg += " bodies_per_lane " + std::to_string(v.bodies_per_lane) +
               " is not supported (supported: " + list_b() + ");";
    msg.back() = '.';
    throw std::invalid_argument(msg);
}

// THE dispatch: run-time (map, B) to a compiled instance. Default: error listing the values.
TileKernelFn select_tile_kernel(const SymmetricVariant& v) {
#define NBODY_SYM_CASE(M, B)              \
    case variant_key(SymmetricMap::M, B): \
        return &symmetric_tile_kernel<SymmetricMap::M, B>;
    const bool in_range = (v.map == SymmetricMap::Lambda || v.map == SymmetricMap::BoundingBox) &&
                          supported_b(v.bodies_per_lane);
    switch (in_range ? variant_key(v.map, v.bodies_per_lane) : -1) {
        NBODY_SYM_VARIANTS(NBODY_SYM_CASE)
        default:
            throw_unsupported(v);
    }
#undef NBODY_SYM_CASE
}

// 32 one-warp blocks per SM need 32 x (P x 32 B + the 1 KB the runtime reserves per block) of
// shared memory: 160 KB at B = 4, 225 KB at B = 8. Ask for the largest carveout so the L1/shared
// split never caps occupancy (the tile kernel reads global memory once per tile; L1 hardly matters).
void prefer_shared(TileKernelFn fn) {
    CUDA_CHECK(cudaFuncSetAttribute(reinterpret_cast<const void*>(fn),
                                    cudaFuncAttributePreferredSharedMemoryCarveout,
                                    cudaSharedmemCarveoutMaxShared));
}

void validate(const SymmetricVariant& v, const float4* pos, int n, float eps2, const float4* acc) {
    if (n < 0)
        throw std::invalid_argument("symmetric force: body count must be >= 0 (got " + std::to_string(n) +
                                    ")");
    const int max_n = symmetric_max_bodies(v);
    if (n > max_n)
        throw std::invalid_argument(
            "symmetric force: " + std::to_string(n) + " bodies is more than the " + std::to_string(max_n) +
            " this kernel supports with bodies_per_lane=" + std::to_string(v.bodies_per_lane) + " (at most " +
            std::to_string(tri::kMaxTilesPerSide) + " tiles of " +
            std::to_string(symmetric_tile_size(v.bodies_per_lane)) + " per side)");
    if (!(eps2 >= kMinEps2) || !(eps2 <= std::numeric_limits<float>::max()))
        throw std::invalid_argument(
            "symmetric force: eps^2 must be a finite number >= 1e-20 (softening >= 1e-10; got " +
            std::to_string(eps2) +
            "): padding bodies and coincident bodies rely on m / (r^2 + eps^2)^1.5 being finite");
    if (n > 0 && (pos == nullptr || acc == nullptr))
        throw std::invalid_argument("symmetric force: null position or acceleration array");
}

}  // namespace sym

const char* to_string(SymmetricMap map) {
    switch (map) {
        case SymmetricMap::Lambda:
            return "lambda";
        case SymmetricMap::BoundingBox:
            return "bounding-box";
    }
    return "unknown";
}

SymmetricMap parse_symmetric_map(const std::string& text) {
    if (text == "lambda") return SymmetricMap::Lambda;
    if (text == "bounding-box") return SymmetricMap::BoundingBox;
    throw std::invalid_argument("unknown triangular map '" + text + "' (supported: lambda, bounding-box)");
}

void require_symmetric_instance(const SymmetricVariant& v) { (void)sym::select_tile_kernel(v); }

int symmetric_max_bodies(const SymmetricVariant& v) {
    require_symmetric_instance(v);
    const std::int64_t by_map =
        static_cast<std::int64_t>(tri::kMaxTilesPerSide) * symmetric_tile_size(v.bodies_per_lane);
    // Leave room for the padded tile: T * P must stay below INT_MAX.
    const std::int64_t by_int = INT_MAX - symmetric_tile_size(v.bodies_per_lane);
    return static_cast<int>(std::min(by_map, by_int));
}

namespace {
// A 1-D grid of `blocks` while it fits grid_x, else the fewest rows of at most kMaxGridX.
void lambda_grid(std::uint64_t blocks, std::uint64_t& gx, std::uint64_t& gy) {
    gy = std::max<std::uint64_t>(1, (blocks + sym::kMaxGridX - 1) / sym::kMaxGridX);
    gx = (blocks + gy - 1) / gy;
}
}  // namespace

SymmetricGeometry symmetric_geometry(const SymmetricVariant& v, int n) {
    require_symmetric_instance(v);
    if (n < 0 || n > symmetric_max_bodies(v))
        throw std::invalid_argument("symmetric geometry: body count " + std::to_string(n) +
                                    " out of range [0, " + std::to_string(symmetric_max_bodies(v)) + "]");
    SymmetricGeometry g;
    g.tile = symmetric_tile_size(v.bodies_per_lane);
    g.threads = sym::kWarp;
    g.shared_bytes = 2 * static_cast<std::size_t>(g.tile) * sizeof(float4);
    g.tiles_per_side = static_cast<std::uint32_t>((static_cast<std::int64_t>(n) + g.tile - 1) / g.tile);
    g.tiles = tri::triangular(g.tiles_per_side);
    if (g.tiles == 0) return g;
    std::uint64_t gx, gy, gz;
    if (v.map == SymmetricMap::Lambda) {
        lambda_grid(g.tiles, gx, gy);
        gz = 1;
    } else {
        gx = g.tiles_per_side;
        gz = (g.tiles_per_side + sym::kMaxGridYZ - 1) / sym::kMaxGridYZ;
        gy = (g.tiles_per_side + gz - 1) / gz;
    }
    g.grid_x = static_cast<unsigned>(gx);
    g.grid_y = static_cast<unsigned>(gy);
    g.grid_z = static_cast<unsigned>(gz);
    g.blocks = gx * gy * gz;
    return g;
}

SymmetricKernelResources symmetric_kernel_resources(const SymmetricVariant& v) {
    const sym::TileKernelFn fn = sym::select_tile_kernel(v);
    cudaFuncAttributes attr{};
    CUDA_CHECK(cudaFuncGetAttributes(&attr, reinterpret_cast<const void*>(fn)));
    sym::prefer_shared(fn);
    SymmetricKernelResources r;
    r.registers_per_thread = attr.numRegs;
    r.local_bytes_per_thread = attr.localSizeBytes;
    r.static_shared_bytes = attr.sharedSizeBytes;
    CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&r.max_blocks_per_sm, fn, sym::kWarp, 0));
    return r;
}

SymmetricTiles symmetric_tile_share(const SymmetricVariant& v, int n, double begin, double end) {
    if (!(begin >= 0 && begin <= end && end <= 1))
        throw std::invalid_argument("symmetric tile share [" + std::to_string(begin) + ", " + std::to_string(end) +
                                    ") is not within [0, 1]");
    const std::uint64_t tiles = symmetric_geometry(v, n).tiles;
    return {share_start(tiles, begin), share_start(tiles, end) - share_start(tiles, begin)};
}

void launch_symmetric_force(const SymmetricVariant& v, const float4* pos, int n, float eps2, float4* acc,
                            float4* vel_or_null, float half_dt, cudaStream_t stream, const float2* tile_mass,
                            SymmetricTiles share) {
    const sym::TileKernelFn fn = sym::select_tile_kernel(v);
    sym::validate(v, pos, n, eps2, acc);
    if (n == 0) return;
    SymmetricGeometry g = symmetric_geometry(v, n);
    const std::uint64_t first = std::min(share.first, g.tiles);
    const std::uint64_t count = std::min(share.count, g.tiles - first);
    if (count < g.tiles) {
        if (v.map != SymmetricMap::Lambda)
            throw std::invalid_argument("a share of the triangle's tiles runs with the lambda map only (the "
                                        "bounding-box map covers the whole square)");
        std::uint64_t gx = 0, gy = 0;
        lambda_grid(count, gx, gy);
        g.grid_x = static_cast<unsigned>(gx), g.grid_y = static_cast<unsigned>(gy), g.grid_z = 1;
    }
    sym::prefer_shared(fn);
    CUDA_CHECK(cudaMemsetAsync(acc, 0, static_cast<std::size_t>(n) * sizeof(float4), stream));
    if (count > 0)
        fn<<<dim3(g.grid_x, g.grid_y, g.grid_z), g.threads, 0, stream>>>(
            pos, n, eps2, acc, g.tiles_per_side, static_cast<std::uint32_t>(first),
            static_cast<std::uint32_t>(first + count), tile_mass);
    CUDA_CHECK_LAUNCH();
    if (vel_or_null != nullptr) launch_kick(vel_or_null, acc, n, half_dt, stream);
}

double time_symmetric_force_ms(const SymmetricVariant& v, const float4* pos, int n, float eps2, float4* acc,
                               int repeats) {
    if (repeats < 1) throw std::invalid_argument("time_symmetric_force_ms: repeats must be >= 1");
    Stream stream;
    Event start, stop;
    launch_symmetric_force(v, pos, n, eps2, acc, nullptr, 0.0f, stream.get());  // warm-up (clocks, caches)
    stream.synchronize();
    std::vector<double> ms;
    ms.reserve(static_cast<std::size_t>(repeats));
    for (int r = 0; r < repeats; ++r) {
        start.record(stream.get());
        launch_symmetric_force(v, pos, n, eps2, acc, nullptr, 0.0f, stream.get());
        stop.record(stream.get());
        CUDA_CHECK(cudaEventSynchronize(stop.get()));
        ms.push_back(elapsed_ms(start, stop));
    }
    std::sort(ms.begin(), ms.end());
    const std::size_t h = ms.size() / 2;
    return ms.size() % 2 == 1 ? ms[h] : 0.5 * (ms[h - 1] + ms[h]);
}

TriangularMapCheck check_triangular_map_on_device(std::uint32_t tiles_per_side, TriangularMapFlavor flavor,
                                                  bool with_diagonal, float paper_eps) {
    if (tiles_per_side == 0 || tiles_per_side > tri::kMaxTilesPerSide)
        throw std::invalid_argument("check_triangular_map_on_device: tiles per side must be in [1, " +
                                    std::to_string(tri::kMaxTilesPerSide) + "] (got " +
                                    std::to_string(tiles_per_side) + ")");
    TriangularMapCheck result;
    result.checked = with_diagonal ? tri::triangular(tiles_per_side) : tri::triangular(tiles_per_side - 1);
    if (result.checked == 0) return result;

    DeviceBuffer<unsigned long long> counters(2);
    const unsigned long long init[2] = {0, ULLONG_MAX};
    CUDA_CHECK(cudaMemcpy(counters.get(), init, sizeof(init), cudaMemcpyHostToDevice));
    constexpr int kBlock = 256;
    const auto blocks = static_cast<unsigned>(
        std::min<std::uint64_t>((result.checked + kBlock - 1) / kBlock, 132u * 64u));  // grid-stride beyond
    unsigned long long* wrong = counters.get();
    unsigned long long* first = counters.get() + 1;
#define NBODY_MAP_CHECK(F)                                                     \
    case TriangularMapFlavor::F:                                               \
        if (with_diagonal)                                                     \
            sym::map_check_kernel<TriangularMapFlavor::F, true>                \
                <<<blocks, kBlock>>>(result.checked, paper_eps, wrong, first); \
        else                                                                   \
            sym::map_check_kernel<TriangularMapFlavor::F, false>               \
                <<<blocks, kBlock>>>(result.checked, paper_eps, wrong, first); \
        break;
    switch (flavor) {
        NBODY_MAP_CHECK(Exact)
        NBODY_MAP_CHECK(Fast)
        NBODY_MAP_CHECK(Paper)
        default:
            throw std::invalid_argument("check_triangular_map_on_device: unknown flavor " +
                                        std::to_string(static_cast<int>(flavor)) +
                                        " (supported: 0 exact, 1 fast, 2 paper)");
    }
#undef NBODY_MAP_CHECK
    CUDA_CHECK_LAUNCH();
    unsigned long long out[2] = {0, 0};
    CUDA_CHECK(cudaMemcpy(out, counters.get(), sizeof(out), cudaMemcpyDeviceToHost));
    result.wrong = out[0];
    result.first_wrong = out[1];
    return result;
}

}  // namespace nbody::cuda
