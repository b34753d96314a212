// The tiled all-pairs gravity kernel and the leapfrog kernels. See force_kernel.hpp for the
// parameters. Cost model (SASS with --use_fast_math, one interaction):
//   3 FADD (r = x_j - x_i), 3 FFMA (r.r + eps^2), 1 MUFU.RSQ, 3 FMUL (m_j / r^3), 3 FFMA (a += s r)
// = 12 FP32 instructions + 1 MUFU, plus 1/B shared loads (LDS.128) and loop overhead / (U B).
// With kForceMassTiles a tile whose bodies all share one mass m_t takes s = 1 / r^3 and the sums
// are kept in units of m_t: 11 FP32 + 1 MUFU (docs/PERFORMANCE.md, sections 11 and 12).
// No masking in the inner loop: a tail tile is padded with zero-mass bodies, whose terms are
// exactly 0 because eps^2 > 0 keeps r^2 + eps^2 finite and positive.

#include "force_kernel.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <mutex>
#include <stdexcept>
#include <string>
#include <vector>

#include "balanced_split.cuh"
#include "force_interaction.cuh"
#include "cuda_check.hpp"

namespace nbody::cuda {
namespace detail {

// Launch parameters, passed by value (they live in the constant bank: no registers).
// Balanced split (counters != nullptr): the work is the I x T grid of (i-block, tile) steps in
// row-major order, w = ib * T + tile, W = I * T < 2^31 steps (the host checks, as it checks that
// contributors x n < 2^31, so that every index here is an int); block g of G takes steps
// [first_step(g), first_step(g + 1)): share = W / G steps each, the first `extra` = W % G blocks
// one more. Classic split (counters == nullptr): block g is i-block g, all T tiles.
struct ForceKernelParams;
using ForceKernelFn = void (*)(ForceKernelParams);

struct ForceKernelParams {
    const float4* pos;
    int n;
    float eps2;
    float4* acc;
    float4* vel;
    float half_dt;
    int tiles;           // T = ceil(n / p)
    int share;           // W / G
    int extra;           // W % G
    float4* partials;    // [contributor k][n], balanced split only
    unsigned* counters;  // [I], balanced split only
    const float2* tile_mass;  // kForceMassTiles: [T] (m_t, 1 / m_t) of uniform tiles, (0, 0) else;
                              // nullptr: every tile takes the general loop
};

__device__ __forceinline__ float4 load_body(const float4* pos, int n, int j) {
    return j < n ? __ldg(pos + j) : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
}

// The tile layout (kForceRotatedTile): (m, x, y, z) puts x_j, y_j, z_j in registers 4k+1, 4k+2,
// 4k+3 of an LDS.128, x_i, y_i, z_i sit in 4k'+0..2 from their LDG.128: each dx = x_j - x_i then
// reads one even and one odd register (the two banks) instead of two of the same parity.
template <bool Rot>
__device__ __forceinline__ float4 to_tile(const float4& b) {
    if constexpr (Rot) return make_float4(b.w, b.x, b.y, b.z);
    else return b;
}

// Stores this thread's body of a tile into `slot` (when `write`: the last tile of a block has no
// next one, but every thread must still reach the barrier), then the barrier that publishes it.
template <bool Rot>
__device__ __forceinline__ void stage_tile(float4* slot, bool write, const float4& body) {
    if (write) *slot = to_tile<Rot>(body);
    __syncthreads();
}

// Uniform-mass tiles (kForceMassTiles). The running sums ai are kept in units of `scale`: a tile
// whose bodies all have mass m_t (ForceKernelParams::tile_mass, block-uniform) runs the unit-mass
// loop once the sums are in units of m_t; a mixed tile runs the general loop in units of 1. A
// change of unit costs 3 B FMULs and one rounding per sum: once per run of tiles of one mass, so
// an equal-mass system pays it once, on zero sums (bit-identical to version 4's common-mass tiles
// when p divides N),
// and a galaxy whose components are stored one after another a few times per body.
template <int B>
__device__ __forceinline__ void rescale(float3 (&ai)[B], float factor) {
#pragma unroll
    for (int b = 0; b < B; ++b) {
        ai[b].x *= factor;
        ai[b].y *= factor;
        ai[b].z *= factor;
    }
}

// Puts the sums in the unit the tile needs; returns whether it is a uniform tile.
template <int B>
__device__ __forceinline__ bool enter_tile_unit(const float2* tile_mass, int tile, float3 (&ai)[B], float& scale) {
    const float2 tm = tile_mass != nullptr ? __ldg(tile_mass + tile) : make_float2(0.0f, 0.0f);
    const bool uniform = tm.x > 0.0f;
    const float unit = uniform ? tm.x : 1.0f;
    if (unit != scale) {
        rescale<B>(ai, uniform ? scale * tm.y : scale);
        scale = unit;
    }
    return uniform;
}

// The j-values k .. groups-1 that the unrolled loop left: only when U does not divide p/Q (small
// blocks with large U or Q).
template <int Q, int B, bool Rot, bool UnitMass>
__device__ __forceinline__ void interact_remainder(const float4* lane_tile, int k, int groups, const float3 (&xi)[B],
                                                   float3 (&ai)[B], float eps2) {
#pragma unroll 1
    for (; k < groups; ++k) {
        const float4 pj = lane_tile[k * Q];
#pragma unroll
        for (int b = 0; b < B; ++b) accumulate<Rot, UnitMass>(xi[b], pj, eps2, ai[b]);
    }
}

// One tile, k < groups. A tile of one mass (block-uniform `unit_masses`) runs its own copy of the
// unrolled loop: twice the code of the instance, one FMUL less per interaction. Its sums are in
// units of the tile's mass, so its remainder must ignore m_j too (the tile holds the true masses).
template <int U, int Q, int B, bool Rot, bool MassTiles>
__device__ __forceinline__ void interact_tile(const float4* lane_tile, int groups, const float3 (&xi)[B],
                                              float3 (&ai)[B], float eps2, bool unit_masses) {
    if (MassTiles && unit_masses) {
        const int k = interact_unrolled<U, Q, B, Rot, true>(lane_tile, groups, xi, ai, eps2);
        interact_remainder<Q, B, Rot, true>(lane_tile, k, groups, xi, ai, eps2);
    } else {
        const int k = interact_unrolled<U, Q, B, Rot, false>(lane_tile, groups, xi, ai, eps2);
        interact_remainder<Q, B, Rot, false>(lane_tile, k, groups, xi, ai, eps2);
    }
}

// The finished sum of body i: a and, for a step, the closing kick.
__device__ __forceinline__ void store_result(const ForceKernelParams& a, int i, const float3& ai) {
    a.acc[i] = make_float4(ai.x, ai.y, ai.z, 0.0f);
    if (a.vel != nullptr) {
        float4 v = a.vel[i];
        v.x = fmaf(ai.x, a.half_dt, v.x);
        v.y = fmaf(ai.y, a.half_dt, v.y);
        v.z = fmaf(ai.z, a.half_dt, v.z);
        a.vel[i] = v;
    }
}

// An i-block split among `contributors` blocks (this one is number k): publish this block's
// partial sums; whichever contributor arrives last adds all of them up in contributor order, so
// the result does not depend on timing. The summing is spread over the block's threads by body,
// not done in the (U, q, B) layout: that keeps it out of the kernel's register budget (summing in
// that layout cost ptxas up to 24 more registers per thread, all instances).
template <int Q, int B>
__device__ __forceinline__ void finish_split_iblock(const ForceKernelParams& a, int ib, int per_block, int k,
                                                    int contributors, int first, int groups, int s,
                                                    const float3 (&ai)[B], int& finisher) {
#pragma unroll
    for (int b = 0; b < B; ++b) {
        const int i = first + b * groups;
        if (s == b % Q && i < a.n) a.partials[k * a.n + i] = make_float4(ai[b].x, ai[b].y, ai[b].z, 0.0f);
    }
    __threadfence();
    __syncthreads();
    if (threadIdx.x == 0) {
        const unsigned arrived = atomicAdd(a.counters + ib, 1u);
        finisher = arrived == static_cast<unsigned>(contributors - 1);
        if (finisher) a.counters[ib] = 0;  // every contributor has counted: ready for the next pass
    }
    __syncthreads();
    if (!finisher) return;
    __threadfence();
    const int base = ib * per_block;
#pragma unroll 1
    for (int r = threadIdx.x; r < per_block && base + r < a.n; r += blockDim.x) {
        float3 sum = make_float3(0.0f, 0.0f, 0.0f);
#pragma unroll 1
        for (int c = 0; c < contributors; ++c) {
            const float4 v = __ldcg(a.partials + c * a.n + base + r);  // L2: other SMs wrote it
            sum.x += v.x;
            sum.y += v.y;
            sum.z += v.z;
        }
        store_result(a, base + r, sum);
    }
}

// A block of p = blockDim.x threads. Thread t is lane s = t % Q of body group t / Q; in i-block ib
// the group owns bodies ib * p/Q * B + t/Q + b * p/Q, b < B (consecutive groups own consecutive
// bodies, so loads and stores stay coalesced). Every thread loads one body of each tile, so the
// tile is p bodies whatever Q and B are. Lane s reads tile[k*Q + s]: the Q lanes of a group read Q
// consecutive float4s, which every group of the warp reads too (broadcast): no bank conflicts.
// Threads whose bodies lie beyond n compute on a dummy body and write nothing: they must still
// reach every __syncthreads() and shuffle. Every branch around a barrier is block-uniform.
template <int U, int Q, int B, int F>
__device__ __forceinline__ void force_body(const ForceKernelParams& a) {
    static_assert(U >= 1 && Q >= 1 && Q <= 32 && (Q & (Q - 1)) == 0 && B >= 1 && F >= 0 && F <= kForceAllFlags,
                  "bad force kernel variant");
    constexpr bool kRot = (F & kForceRotatedTile) != 0;
    constexpr bool kSingle = (F & kForceSingleBarrier) != 0;
    constexpr bool kMassTiles = (F & kForceMassTiles) != 0;
    extern __shared__ float4 tile_smem[];  // kSingle: two tiles, used in turn
    __shared__ int finisher;               // this block adds up a split i-block's partial sums

    const int p = blockDim.x;
    const int t = threadIdx.x;
    const int s = t % Q;
    const int groups = p / Q;  // bodies per i-block for each b; also j-values per lane per tile
    const int g = blockIdx.x;

    // This block's work: `remaining` steps from tile `tile` of i-block `ib` on. Block-uniform.
    int ib, tile, remaining;
    if (a.counters == nullptr) {
        ib = g;
        tile = 0;
        remaining = a.tiles;
    } else {
        const int w0 = first_step(g, a);
        remaining = a.share + (g < a.extra ? 1 : 0);
        ib = w0 / a.tiles;
        tile = w0 - ib * a.tiles;
    }
    // Software pipelining: the next tile's body is loaded from global memory before this tile's
    // interactions run, so its latency (~600 cycles) hides behind them instead of stalling the
    // block at the barrier. Costs 4 registers.
    float4 next = load_body(a.pos, a.n, tile * p + t);
    int buf = 0;
    if constexpr (kSingle) stage_tile<kRot>(tile_smem + t, true, next);

    for (; remaining > 0; ++ib, tile = 0) {
        const int count = min(a.tiles - tile, remaining);  // this i-block's steps in this block
        remaining -= count;
        const int first = ib * groups * B + t / Q;

        float3 xi[B];
        float3 ai[B];
        float scale = 1.0f;  // kMassTiles: the unit the sums ai are in
#pragma unroll
        for (int b = 0; b < B; ++b) {
            const float4 pi = load_body(a.pos, a.n, first + b * groups);
            xi[b] = make_float3(pi.x, pi.y, pi.z);
            ai[b] = make_float3(0.0f, 0.0f, 0.0f);
        }

        const int tile_end = tile + count;
        for (; tile < tile_end; ++tile) {
            const bool more = tile + 1 < tile_end || remaining > 0;
            const int j_next = (tile + 1 == a.tiles ? 0 : tile + 1) * p + t;
            const bool unit_masses = kMassTiles && enter_tile_unit<B>(a.tile_mass, tile, ai, scale);
            if constexpr (kSingle) {
                // One barrier per tile: the other buffer was last read before the previous barrier.
                if (more) next = load_body(a.pos, a.n, j_next);
                interact_tile<U, Q, B, kRot, kMassTiles>(tile_smem + buf * p + s, groups, xi, ai, a.eps2,
                                                         unit_masses);
                stage_tile<kRot>(tile_smem + (buf ^ 1) * p + t, more, next);
                buf ^= 1;
            } else {
                stage_tile<kRot>(tile_smem + t, true, next);
                if (more) next = load_body(a.pos, a.n, j_next);
                interact_tile<U, Q, B, kRot, kMassTiles>(tile_smem + s, groups, xi, ai, a.eps2, unit_masses);
                __syncthreads();
            }
        }

        sum_over_lanes<Q>(ai);
        if constexpr (kMassTiles) rescale<B>(ai, scale);  // back to units of 1 (scale is block-uniform)

        if (a.counters != nullptr) {
            const int g_first = block_of_step(ib * a.tiles, a);
            const int g_last = block_of_step(ib * a.tiles + a.tiles - 1, a);
            if (g_first != g_last) {
                finish_split_iblock<Q, B>(a, ib, groups * B, g - g_first, g_last - g_first + 1, first, groups,
                                          s, ai, finisher);
                continue;
            }
        }
#pragma unroll
        for (int b = 0; b < B; ++b) {
            const int i = first + b * groups;
            if (s == b % Q && i < a.n) store_result(a, i, ai[b]);  // spread the B stores over the lanes
        }
    }
}

// The register budget ptxas schedules for is a launch-bounds matter (docs/PERFORMANCE.md section
// 12): no bounds (the product), 64 registers (kForceRegisters64: __launch_bounds__(1024, 1), what
// one 1024-thread block per SM can use) or 128 (kForceRegisters128: __launch_bounds__(512, 1),
// blocks of at most 512 threads). The kernel body is the same; only ptxas's allocation differs.
template <int U, int Q, int B, int F>
__global__ void force_kernel(const ForceKernelParams a) {
    force_body<U, Q, B, F>(a);
}
template <int U, int Q, int B, int F>
__global__ void __launch_bounds__(1024, 1) force_kernel_regs64(const ForceKernelParams a) {
    force_body<U, Q, B, F>(a);
}
template <int U, int Q, int B, int F>
__global__ void __launch_bounds__(512, 1) force_kernel_regs128(const ForceKernelParams a) {
    force_body<U, Q, B, F>(a);
}

__global__ void kick_drift_kernel(const float4* __restrict__ pos_in, float4* __restrict__ pos_out,
                                  float4* __restrict__ vel, const float4* __restrict__ acc, int n,
                                  float half_dt, float dt) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const float4 a = acc[i];
    float4 v = vel[i];
    v.x = fmaf(a.x, half_dt, v.x);
    v.y = fmaf(a.y, half_dt, v.y);
    v.z = fmaf(a.z, half_dt, v.z);
    const float4 x = pos_in[i];
    pos_out[i] = make_float4(fmaf(v.x, dt, x.x), fmaf(v.y, dt, x.y), fmaf(v.z, dt, x.z), x.w);
    vel[i] = v;
}


// The supported variants, as one list that both the explicit instantiations and the dispatch
// switch expand, so they cannot disagree. Keep in step with the arrays in the header.
static_assert(kForceProductFlags == 7, "the instance lists below spell the product flags as 7");
#define NBODY_FORCE_B(X, U, Q) X(U, Q, 1, 7) X(U, Q, 2, 7) X(U, Q, 4, 7)
#define NBODY_FORCE_Q(X, U)                                                                          \
    NBODY_FORCE_B(X, U, 1) NBODY_FORCE_B(X, U, 2) NBODY_FORCE_B(X, U, 4) NBODY_FORCE_B(X, U, 8)      \
    NBODY_FORCE_B(X, U, 16) NBODY_FORCE_B(X, U, 32)
// B = 8: kUnrollValuesB8 x kThreadsPerBodyValuesB8.
#define NBODY_FORCE_B8(X, U) X(U, 1, 8, 7) X(U, 2, 8, 7) X(U, 4, 8, 7) X(U, 8, 8, 7)
// Flag sets other than the product's: kForceExperimentVariants x kForceExperimentFlags.
static_assert(kForceExperimentFlags.size() == 6 && kForceExperimentFlags[0] == 0 && kForceExperimentFlags[1] == 1 &&
                  kForceExperimentFlags[2] == 2 && kForceExperimentFlags[3] == 3 && kForceExperimentFlags[4] == 5 &&
                  kForceExperimentFlags[5] == 15,
              "NBODY_FORCE_EXPERIMENT spells kForceExperimentFlags");
#define NBODY_FORCE_EXPERIMENT(X, U, Q, B) \
    X(U, Q, B, 0) X(U, Q, B, 1) X(U, Q, B, 2) X(U, Q, B, 3) X(U, Q, B, 5) X(U, Q, B, 15)
// The 128-register companions (kForceRegisterCompanion*): the product's body under
// __launch_bounds__(512, 1), launched instead of the product for blocks of 257..512 threads.
static_assert(kForceProductFlags + kForceRegisters128 == 23, "the companions below spell flags 23");
#define NBODY_FORCE_COMPANION_B(X, U, Q) X(U, Q, 2, 23) X(U, Q, 4, 23)
#define NBODY_FORCE_COMPANION(X, U) NBODY_FORCE_COMPANION_B(X, U, 1) NBODY_FORCE_COMPANION_B(X, U, 2) \
    NBODY_FORCE_COMPANION_B(X, U, 4)
#define NBODY_FORCE_VARIANTS(X)                                                                      \
    NBODY_FORCE_Q(X, 1) NBODY_FORCE_Q(X, 2) NBODY_FORCE_Q(X, 4) NBODY_FORCE_Q(X, 8)                  \
    NBODY_FORCE_Q(X, 16) NBODY_FORCE_Q(X, 32) NBODY_FORCE_B8(X, 4) NBODY_FORCE_B8(X, 8)              \
    NBODY_FORCE_EXPERIMENT(X, 32, 2, 4) NBODY_FORCE_EXPERIMENT(X, 8, 2, 4)                           \
    NBODY_FORCE_EXPERIMENT(X, 8, 4, 4) NBODY_FORCE_EXPERIMENT(X, 16, 8, 2)                           \
    NBODY_FORCE_EXPERIMENT(X, 4, 1, 1) NBODY_FORCE_EXPERIMENT(X, 16, 1, 4)                           \
    NBODY_FORCE_COMPANION(X, 8) NBODY_FORCE_COMPANION(X, 16) NBODY_FORCE_COMPANION(X, 32)

// The kernel of flags F: the register-budget bits pick the launch bounds, the rest the body.
template <int U, int Q, int B, int F>
constexpr ForceKernelFn kernel_of() {
    constexpr int body = F & kForceAllFlags;
    if constexpr ((F & kForceRegisters64) != 0) return &force_kernel_regs64<U, Q, B, body>;
    else if constexpr ((F & kForceRegisters128) != 0) return &force_kernel_regs128<U, Q, B, body>;
    else return &force_kernel<U, Q, B, body>;
}

constexpr int variant_key(int u, int q, int b, int f) { return ((u * 100 + q) * 100 + b) * 100 + f; }

template <class T, std::size_t K>
bool contains(const std::array<T, K>& values, int v) {
    for (int x : values)
        if (x == v) return true;
    return false;
}

template <std::size_t K>
std::string list(const std::array<int, K>& values) {
    std::string out;
    for (int x : values) out += (out.empty() ? "" : ", ") + std::to_string(x);
    return out;
}

bool is_experiment_variant(int u, int q, int b) {
    for (const ForceExperimentVariant& e : kForceExperimentVariants)
        if (e.unroll == u && e.threads_per_body == q && e.bodies_per_thread == b) return true;
    return false;
}

// The flags a launch uses: the variant's, else $NBODY_FORCE_FLAGS, else the product's.
int resolve_flags(const ForceVariant& v) {
    if (v.flags != kForceDefaultFlags) return v.flags;
    const char* env = std::getenv("NBODY_FORCE_FLAGS");
    if (env == nullptr || *env == '\0') return kForceProductFlags;
    const std::string text(env);
    int value = -1;
    if (!text.empty() && text.size() <= 2 && std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; }))
        value = std::stoi(text);
    if (value >= 0 && value <= kForceAllExperimentBits) return value;
    throw std::invalid_argument("NBODY_FORCE_FLAGS='" + text +
                                "' is not one of 0 .. 31 (bit 1: rotated tile, bit 2: single barrier, "
                                "bit 4: uniform-mass tiles, bit 8: 64-register budget, bit 16: 128-register "
                                "budget)");
}

// The flags an instance runs with at `block`: the product's become its 128-register companion's
// where one exists and the block is small enough for it.
int flags_for_block(const ForceVariant& v, int flags, int block) {
    if (flags == kForceProductFlags && block > kForceCompanionMinBlock && block <= kForceCompanionMaxBlock &&
        has_register_companion(v))
        return flags | kForceRegisters128;
    return flags;
}

ForceGrid resolve_grid(const ForceVariant& v) {
    if (v.grid != ForceGrid::Auto) return v.grid;
    const char* env = std::getenv("NBODY_FORCE_GRID");
    if (env == nullptr || *env == '\0') return ForceGrid::Auto;
    const std::string text(env);
    if (text == "auto") return ForceGrid::Auto;
    if (text == "classic") return ForceGrid::Classic;
    if (text == "balanced") return ForceGrid::Balanced;
    throw std::invalid_argument("NBODY_FORCE_GRID='" + text + "' is not one of auto, classic, balanced");
}

[[noreturn]] void throw_unsupported(const ForceVariant& v, int flags) {
    std::string msg = "no force kernel instance for unroll=" + std::to_string(v.unroll) +
                      ", threads_per_body=" + std::to_string(v.threads_per_body) +
                      ", bodies_per_thread=" + std::to_string(v.bodies_per_thread) + ":";
    const bool values_ok = contains(kUnrollValues, v.unroll) && contains(kThreadsPerBodyValues, v.threads_per_body) &&
                           contains(kBodiesPerThreadValues, v.bodies_per_thread);
    if (!contains(kUnrollValues, v.unroll))
        msg += " unroll " + std::to_string(v.unroll) + " is not supported (supported: " + list(kUnrollValues) + ");";
    if (!contains(kThreadsPerBodyValues, v.threads_per_body))
        msg += " threads_per_body " + std::to_string(v.threads_per_body) + " is not supported (supported: " +
               list(kThreadsPerBodyValues) + ");";
    if (!contains(kBodiesPerThreadValues, v.bodies_per_thread))
        msg += " bodies_per_thread " + std::to_string(v.bodies_per_thread) + " is not supported (supported: " +
               list(kBodiesPerThreadValues) + ");";
    if (values_ok && v.bodies_per_thread == 8 &&
        !(contains(kUnrollValuesB8, v.unroll) && contains(kThreadsPerBodyValuesB8, v.threads_per_body)))
        msg += " bodies_per_thread 8 is compiled only with unroll " + list(kUnrollValuesB8) + " and threads_per_body " +
               list(kThreadsPerBodyValuesB8) + ";";
    if (flags < 0 || flags > kForceAllExperimentBits) {
        msg += " flags " + std::to_string(flags) + " are not 0..31;";
    } else if (values_ok && flags != kForceProductFlags) {
        std::string combos;
        for (const ForceExperimentVariant& e : kForceExperimentVariants)
            combos += (combos.empty() ? "" : ", ") + std::string("U") + std::to_string(e.unroll) + " q" +
                      std::to_string(e.threads_per_body) + " B" + std::to_string(e.bodies_per_thread);
        std::string sets;
        for (int f : kForceExperimentFlags) sets += (sets.empty() ? "" : ", ") + std::to_string(f);
        msg += " kernel flags " + std::to_string(flags) + " (NBODY_FORCE_FLAGS; the product's are " +
               std::to_string(kForceProductFlags) + ") are compiled only for " + combos + ", and only as " + sets +
               ";";
    }
    msg.back() = '.';
    throw std::invalid_argument(msg);
}

// THE dispatch: run-time (U, q, B, flags) to a compiled instance. Default: error listing the values.
ForceKernelFn select_force_kernel(const ForceVariant& v, int flags) {
#define NBODY_FORCE_CASE(U, Q, B, F) \
    case variant_key(U, Q, B, F):    \
        return kernel_of<U, Q, B, F>();
    // Out-of-range values cannot alias a valid key: u, q, b and flags are checked against the
    // lists before the key is formed.
    const bool in_range = contains(kUnrollValues, v.unroll) && contains(kThreadsPerBodyValues, v.threads_per_body) &&
                          contains(kBodiesPerThreadValues, v.bodies_per_thread) && flags >= 0 &&
                          flags <= kForceAllExperimentBits;
    switch (in_range ? variant_key(v.unroll, v.threads_per_body, v.bodies_per_thread, flags) : -1) {
        NBODY_FORCE_VARIANTS(NBODY_FORCE_CASE)
        default:
            throw_unsupported(v, flags);
    }
#undef NBODY_FORCE_CASE
}

std::size_t shared_bytes(int block, int flags) {
    return (flags & kForceSingleBarrier ? 2 : 1) * static_cast<std::size_t>(block) * sizeof(float4);
}

KernelOccupancy occupancy(ForceKernelFn fn, int block, int flags) {
    return cached_occupancy(reinterpret_cast<const void*>(fn), block, shared_bytes(block, flags));
}

}  // namespace detail

void require_force_instance(const ForceVariant& v) {
    const int flags = detail::resolve_flags(v);
    (void)detail::resolve_grid(v);  // a malformed override is an error here too, not at the launch
    (void)detail::select_force_kernel(v, flags);
}

bool has_register_companion(const ForceVariant& v) {
    return detail::contains(kForceCompanionUnroll, v.unroll) &&
           detail::contains(kForceCompanionThreadsPerBody, v.threads_per_body) &&
           detail::contains(kForceCompanionBodiesPerThread, v.bodies_per_thread);
}

int force_flags_at_block(const ForceVariant& v, int block) {
    return detail::flags_for_block(v, detail::resolve_flags(v), block);
}

ForceKernelResources force_kernel_resources(const ForceVariant& v, int block) {
    const detail::ForceKernelFn fn = detail::select_force_kernel(v, force_flags_at_block(v, block));
    cudaFuncAttributes attr{};
    CUDA_CHECK(cudaFuncGetAttributes(&attr, reinterpret_cast<const void*>(fn)));
    ForceKernelResources r;
    r.max_threads_per_block = attr.maxThreadsPerBlock;
    r.registers_per_thread = attr.numRegs;
    r.local_bytes_per_thread = attr.localSizeBytes;
    r.static_shared_bytes = attr.sharedSizeBytes;
    r.max_dynamic_shared_bytes = attr.maxDynamicSharedSizeBytes;
    r.ptx_version = attr.ptxVersion;
    r.binary_version = attr.binaryVersion;
    return r;
}

void ForceWorkspace::reserve(std::size_t counters, std::size_t partials, cudaStream_t stream) {
    if (counters_.size() < counters) {
        // Work queued on `stream` may still use the old buffer: cudaFree waits for the device.
        counters_ = DeviceBuffer<unsigned>();
        counters_ = DeviceBuffer<unsigned>(counters);
        CUDA_CHECK(cudaMemsetAsync(counters_.get(), 0, counters_.bytes(), stream));
    }
    if (partials_.size() < partials) {
        partials_ = DeviceBuffer<float4>();
        partials_ = DeviceBuffer<float4>(partials);
    }
}

bool usable_tile_mass(float m) { return std::isfinite(m) && m >= 0x1p-32f && m <= 0x1p32f; }

std::vector<float2> uniform_tile_masses(const float* masses, std::size_t n, std::size_t stride_floats, int block) {
    if (block <= 0) throw std::invalid_argument("uniform_tile_masses: block must be > 0");
    const std::size_t p = static_cast<std::size_t>(block);
    std::vector<float2> out((n + p - 1) / p, make_float2(0.0f, 0.0f));
    for (std::size_t t = 0; t < out.size(); ++t) {
        const std::size_t first = t * p;
        if (first + p > n) continue;  // a tail tile is padded with massless bodies: mixed
        const float m = masses[first * stride_floats];
        if (!usable_tile_mass(m)) continue;
        bool uniform = true;
        for (std::size_t j = first + 1; j < first + p && uniform; ++j) uniform = masses[j * stride_floats] == m;
        if (uniform) out[t] = make_float2(m, 1.0f / m);
    }
    return out;
}

void TileMasses::update(const float* masses, std::size_t n, std::size_t stride_floats, int block,
                        cudaStream_t stream) {
    if (block == block_ && n == n_) return;
    // The previous upload may still be reading host_: wait for it before refilling.
    CUDA_CHECK(cudaStreamSynchronize(stream));
    host_ = uniform_tile_masses(masses, n, stride_floats, block);
    if (device_.size() < host_.size()) {
        device_ = DeviceBuffer<float2>();
        device_ = DeviceBuffer<float2>(host_.size());
    }
    if (!host_.empty())
        CUDA_CHECK(cudaMemcpyAsync(device_.get(), host_.data(), host_.size() * sizeof(float2), cudaMemcpyHostToDevice,
                                   stream));
    uniform_ = 0;
    for (const float2& tm : host_) uniform_ += tm.x > 0.0f ? 1 : 0;
    block_ = block;
    n_ = n;
}

ForcePlan plan_force(const ForceVariant& v, int block, int n, bool have_workspace) {
    ForcePlan plan;
    plan.flags = force_flags_at_block(v, block);
    const ForceGrid wanted = detail::resolve_grid(v);
    const detail::ForceKernelFn fn = detail::select_force_kernel(v, plan.flags);
    if (n <= 0) return plan;
    if (block <= 0 || block % kWarpSize != 0 || block > kMaxBlock)
        throw std::invalid_argument("force kernel block " + std::to_string(block) + " is not a multiple of 32 in 32..1024");
    plan.iblocks = force_grid_size(n, block, v);
    plan.tiles = (n + block - 1) / block;
    const KernelOccupancy occ = detail::occupancy(fn, block, plan.flags);
    plan.blocks_per_sm = occ.blocks_per_sm;
    const SplitDecision split = decide_split(wanted, plan.iblocks, plan.tiles, occ.sm_count, occ.blocks_per_sm, n,
                                             have_workspace, 1);
    plan.grid = split.grid;
    plan.blocks = split.blocks;
    plan.max_contributors = split.max_contributors;
    plan.classic_efficiency = split.classic_efficiency;
    return plan;
}

KernelOccupancy cached_occupancy(const void* kernel, int block, std::size_t shared_bytes) {
    struct Entry {
        int device;
        const void* kernel;
        int block;
        std::size_t shared;
        KernelOccupancy occ;
    };
    static std::mutex mutex;
    static std::vector<Entry> cache;
    int device = 0;
    CUDA_CHECK(cudaGetDevice(&device));
    const std::lock_guard<std::mutex> lock(mutex);
    for (const Entry& e : cache)
        if (e.device == device && e.kernel == kernel && e.block == block && e.shared == shared_bytes) return e.occ;
    KernelOccupancy occ;
    CUDA_CHECK(cudaDeviceGetAttribute(&occ.sm_count, cudaDevAttrMultiProcessorCount, device));
    CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&occ.blocks_per_sm, kernel, block, shared_bytes));
    cache.push_back({device, kernel, block, shared_bytes, occ});
    return occ;
}

SplitDecision decide_split(ForceGrid wanted, int iblocks, int tiles, int sm_count, int blocks_per_sm, int n,
                           bool have_workspace, int partials_per_contributor) {
    SplitDecision d;
    const long long slots = static_cast<long long>(sm_count) * blocks_per_sm;
    const double per_sm = double(iblocks) / sm_count;
    d.classic_efficiency = per_sm / std::ceil(per_sm);
    ForceGrid grid = wanted;
    if (grid == ForceGrid::Auto)
        grid = (d.classic_efficiency < 0.99 || iblocks < slots) ? ForceGrid::Balanced : ForceGrid::Classic;
    const long long work = static_cast<long long>(iblocks) * tiles;
    const long long blocks = std::min(work, slots);
    if (grid == ForceGrid::Balanced) {
        const long long share = blocks > 0 ? work / blocks : 0;
        // T consecutive steps meet at most ceil((T - 1) / share) + 1 blocks of >= share steps each.
        const long long contributors = share > 0 ? (tiles - 1 + share - 1) / share + 1 : 0;
        constexpr long long kIntLimit = 2147483647LL;
        if (!have_workspace || blocks <= 0 || blocks == iblocks || work > kIntLimit ||
            partials_per_contributor * contributors * n > kIntLimit)
            grid = ForceGrid::Classic;
        else
            d.max_contributors = static_cast<int>(contributors);
    }
    d.grid = grid;
    d.blocks = grid == ForceGrid::Balanced ? static_cast<int>(blocks) : iblocks;
    return d;
}

void launch_force(const ForceVariant& v, int block, const ForceArgs& a, cudaStream_t stream) {
    const ForcePlan plan = plan_force(v, block, a.n, a.workspace != nullptr);
    const detail::ForceKernelFn fn = detail::select_force_kernel(v, plan.flags);
    if (a.n <= 0) return;
    detail::ForceKernelParams k{};
    k.pos = a.pos;
    k.n = a.n;
    k.eps2 = a.eps2;
    k.acc = a.acc;
    k.vel = a.vel;
    k.half_dt = a.half_dt;
    k.tiles = plan.tiles;
    k.tile_mass = a.tile_mass;
    if (plan.grid == ForceGrid::Balanced) {
        const long long work = static_cast<long long>(plan.iblocks) * plan.tiles;  // < 2^31 (plan_force)
        k.share = static_cast<int>(work / plan.blocks);
        k.extra = static_cast<int>(work % plan.blocks);
        a.workspace->reserve(static_cast<std::size_t>(plan.iblocks),
                             static_cast<std::size_t>(plan.max_contributors) * static_cast<std::size_t>(a.n), stream);
        k.partials = a.workspace->partials();
        k.counters = a.workspace->counters();
    }
    fn<<<plan.blocks, block, detail::shared_bytes(block, plan.flags), stream>>>(k);
    CUDA_CHECK_LAUNCH();
}

void launch_kick_drift(const float4* pos_in, float4* pos_out, float4* vel, const float4* acc, int n,
                       float half_dt, float dt, cudaStream_t stream) {
    if (n <= 0) return;
    constexpr int kBlock = 256;
    detail::kick_drift_kernel<<<(n + kBlock - 1) / kBlock, kBlock, 0, stream>>>(pos_in, pos_out, vel, acc, n,
                                                                                 half_dt, dt);
    CUDA_CHECK_LAUNCH();
}

std::string kernel_image_problem() {
    cudaFuncAttributes attr{};
    const cudaError_t err =
        cudaFuncGetAttributes(&attr, reinterpret_cast<const void*>(&detail::kick_drift_kernel));
    if (err == cudaSuccess) return {};
    (void)cudaGetLastError();  // not sticky; clear it so later calls do not report it again
    int device = 0, major = 0, minor = 0;
    if (cudaGetDevice(&device) == cudaSuccess &&
        cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device) == cudaSuccess &&
        cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device) == cudaSuccess &&
        (err == cudaErrorNoKernelImageForDevice || err == cudaErrorInvalidDeviceFunction)) {
        return "this build has no kernel image for the device's architecture sm_" + std::to_string(major) +
               std::to_string(minor) + "; rebuild with -DCMAKE_CUDA_ARCHITECTURES=" + std::to_string(major) +
               std::to_string(minor) + " (" + cudaGetErrorString(err) + ")";
    }
    return std::string("the CUDA runtime cannot load the kernels: ") + cudaGetErrorName(err) + " (" +
           cudaGetErrorString(err) + ")";
}

}  // namespace nbody::cuda
