#pragma once
// Driver functions of the all-pairs force kernel and the leapfrog kernels (force_kernel.cu).
// Plain functions on raw device pointers, sizes and a variant: the only way host code reaches a
// kernel. This header pulls in the CUDA runtime API (float4, cudaStream_t) and nothing heavier.
//
// The force kernel (GPU Gems 3 ch. 31, with the j-split of fig. 31-8 done inside a warp and the
// i-loop unrolling of Fujiwara & Nakasato 2009) has three compile-time parameters:
//   U  unroll         j-loop unroll factor over a tile                      1, 2, 4, 8, 16, 32
//   q  threads_per_body  q consecutive lanes share one body; lane s takes j = k*q + s of each
//                     tile and the q partial sums are combined with warp shuffles 1 ... 32
//   B  bodies_per_thread  i-bodies a thread keeps in registers, each j read from shared memory
//                     serving B interactions                                1, 2, 4; 8 with
//                     U = 4, 8 and q <= 8 only (~80 registers: blocks of at most 768 threads)
// and one run-time parameter, the block size p (a multiple of 32): tiles of p bodies are staged
// in shared memory, and a block computes p*B/q bodies (an "i-block").
//
// Design choices are compile-time flags, so that the previous kernel can be timed against the new
// one in the same run (docs/PERFORMANCE.md, "version 2" and section 11):
//   kForceRotatedTile     the tile holds (m, x, y, z) instead of (x, y, z, m): the j coordinates
//                         land in registers of the other parity than the i coordinates (loaded as
//                         x, y, z, m), so dx = x_j - x_i reads its two operands from different
//                         register banks
//   kForceSingleBarrier   two tiles in shared memory, one __syncthreads() per tile instead of two
//   kForceMassTiles       uniform-mass tiles: a tile whose bodies all share one mass m_t (a table
//                         of T entries, TileMasses, made once per load and block size) runs a copy
//                         of the j-loop without the per-pair mass multiply, its sums kept in units
//                         of m_t: 11 FP32 instructions per interaction instead of 12. Mixed tiles
//                         run the general loop. Galaxy models store each component's bodies one
//                         after another, so most of their tiles are uniform (docs/PERFORMANCE.md 12).
// Every (U, q, B) has an instance with kForceProductFlags; the other flag sets
// (kForceExperimentFlags) exist only for a few (U, q, B) (kForceExperimentVariants), which is all
// an A/B measurement needs.
//
// How the work is spread over blocks is a run-time choice (ForceGrid):
//   classic   one block per i-block, each over all n/p tiles. With N and p*B/q powers of two the
//             block count never divides evenly among 132 SMs: the last wave leaves SMs idle
//             (128 blocks on 132 SMs: 3 % of the device unused; 256 blocks: the same 3 %).
//   balanced  as many blocks as fit on the device at once (persistent blocks), each taking an
//             equal share of the I x T (i-block, tile) steps ("stream-K"). An i-block split among
//             several blocks gets its partial sums combined by the block that finishes it last,
//             in a fixed order: results are deterministic for a given device and config (not
//             bit-identical to the classic split, whose sums are grouped differently).
//   auto      balanced when the classic split would leave more than 1 % of the SM time idle.
// Developer overrides for A/B runs of the same binary (read at every launch; an explicit
// ForceVariant field wins): NBODY_FORCE_GRID = auto | classic | balanced, NBODY_FORCE_FLAGS =
// 0..31 (the flag bits above and below).

#include <cuda_runtime_api.h>

#include <array>
#include <cstddef>
#include <string>
#include <vector>

#include "cuda_raii.hpp"

namespace nbody::cuda {

inline constexpr std::array<int, 6> kUnrollValues{1, 2, 4, 8, 16, 32};
inline constexpr std::array<int, 6> kThreadsPerBodyValues{1, 2, 4, 8, 16, 32};
inline constexpr std::array<int, 4> kBodiesPerThreadValues{1, 2, 4, 8};
// B = 8 only with these (U, q): U >= 16 makes a loop body of 128+ interactions (27 KB of code,
// beyond what the instruction cache keeps close), U <= 2 leaves the loop overhead B = 8 is meant
// to shrink, and q >= 16 gives i-blocks too small to matter.
inline constexpr std::array<int, 2> kUnrollValuesB8{4, 8};
inline constexpr std::array<int, 4> kThreadsPerBodyValuesB8{1, 2, 4, 8};
inline constexpr int kWarpSize = 32;
inline constexpr int kMaxBlock = 1024;  // CUDA's limit on threads per block, before registers

inline constexpr int kForceRotatedTile = 1;
inline constexpr int kForceSingleBarrier = 2;
inline constexpr int kForceMassTiles = 4;
inline constexpr int kForceAllFlags = kForceRotatedTile | kForceSingleBarrier | kForceMassTiles;
inline constexpr int kForceProductFlags = kForceAllFlags;
// Register-budget experiments (docs/PERFORMANCE.md section 12): the product's body compiled under
// __launch_bounds__(1024, 1) (ptxas may use 64 registers) or (512, 1) (128; blocks <= 512 threads).
inline constexpr int kForceRegisters64 = 8;
inline constexpr int kForceRegisters128 = 16;
inline constexpr int kForceAllExperimentBits = kForceAllFlags | kForceRegisters64 | kForceRegisters128;
// Version 1 (0), the version-2 product (3), its parts (1, 2), the mass tiles with two barriers (5)
// and the product under the 64-register budget (15).
inline constexpr std::array<int, 6> kForceExperimentFlags{0, 1, 2, 3, 5, 15};
// The product under the 128-register budget (flags 23) measured 3-6 % faster than the product at
// p = 512 on the H200 (docs/PERFORMANCE.md section 12): these (U, q, B) have such a companion,
// which launch_force() runs in place of the product for blocks of 257..512 threads (it cannot run
// 1024; at 256 and below it would leave too few warps per SM).
inline constexpr std::array<int, 3> kForceCompanionUnroll{8, 16, 32};
inline constexpr std::array<int, 3> kForceCompanionThreadsPerBody{1, 2, 4};
inline constexpr std::array<int, 2> kForceCompanionBodiesPerThread{2, 4};
inline constexpr int kForceCompanionMinBlock = 256;  // exclusive
inline constexpr int kForceCompanionMaxBlock = 512;
inline constexpr int kForceDefaultFlags = -1;  // kForceProductFlags unless NBODY_FORCE_FLAGS says otherwise

struct ForceExperimentVariant {
    int unroll, threads_per_body, bodies_per_thread;
};
// The (U, q, B) that also have instances with kForceExperimentFlags: the version-1 winners of the
// first H200 sweep (16K: U16 q8 B2; 64K: U8 q4 B4; 256K/1M: U32 q2 B4, U8 q2 B4), the old default
// and the version-2 winner at 64K-1M (U16 q1 B4).
inline constexpr std::array<ForceExperimentVariant, 6> kForceExperimentVariants{
    {{32, 2, 4}, {8, 2, 4}, {8, 4, 4}, {16, 8, 2}, {4, 1, 1}, {16, 1, 4}}};

enum class ForceGrid { Auto, Classic, Balanced };

struct ForceVariant {
    int unroll = 4;
    int threads_per_body = 1;
    int bodies_per_thread = 1;
    int flags = kForceDefaultFlags;  // kForce* bits, or kForceDefaultFlags
    ForceGrid grid = ForceGrid::Auto;
};

// Throws std::invalid_argument naming the unsupported value(s) and listing the supported ones
// when `v` has no compiled instance (or an NBODY_FORCE_* override is malformed). Needs no device:
// this is the dispatch switch itself.
void require_force_instance(const ForceVariant& v);

// What the compiled instance of `v` needs on the current device.
struct ForceKernelResources {
    int max_threads_per_block = 0;  // lowered below 1024 when the registers per thread demand it
    int registers_per_thread = 0;
    std::size_t local_bytes_per_thread = 0;  // > 0 means spills (never expected)
    std::size_t static_shared_bytes = 0;
    int max_dynamic_shared_bytes = 0;
    int ptx_version = 0, binary_version = 0;
};
// Whether (U, q, B) has a 128-register companion, and the flags an instance launched with `block`
// threads runs with (the companion's where it takes over). Host code, no device needed.
bool has_register_companion(const ForceVariant& v);
int force_flags_at_block(const ForceVariant& v, int block);

// Of the instance that runs at `block`. Throws std::invalid_argument for a variant without
// instance, std::runtime_error when the CUDA runtime refuses (e.g. no kernel image for this
// device's architecture).
ForceKernelResources force_kernel_resources(const ForceVariant& v, int block);

// Dynamic shared memory a block of `block` threads may use: two tiles of float4 bodies (one
// without kForceSingleBarrier). An upper bound, for the device-limit check.
constexpr std::size_t force_shared_bytes(int block) {
    return 2 * static_cast<std::size_t>(block) * sizeof(float4);
}

// Bodies one block computes (an i-block), and the i-blocks needed for n bodies.
constexpr int bodies_per_block(int block, const ForceVariant& v) {
    return block / v.threads_per_body * v.bodies_per_thread;
}
constexpr int force_grid_size(int n, int block, const ForceVariant& v) {
    const int per_block = bodies_per_block(block, v);
    return (n + per_block - 1) / per_block;
}

// Device scratch of the balanced split: one arrival counter per i-block (zero between passes)
// and the partial sums of split i-blocks. Grows on demand in launch_force() (a cudaMalloc, so
// only when N or the config grows); one per stream that launches force passes.
class ForceWorkspace {
public:
    std::size_t bytes() const { return counters_.bytes() + partials_.bytes(); }
    // Makes room for `counters` zeroed counters and `partials` float4s; zeroes new counters on
    // `stream` (the kernel leaves them zero again).
    void reserve(std::size_t counters, std::size_t partials, cudaStream_t stream);
    unsigned* counters() const { return counters_.get(); }
    float4* partials() const { return partials_.get(); }

private:
    DeviceBuffer<unsigned> counters_;
    DeviceBuffer<float4> partials_;
};

// kForceMassTiles: for each tile of `block` consecutive bodies, (m, 1 / m) when all its bodies
// have one mass m with usable_tile_mass(m) and the tile is full, else (0, 0) (the general loop).
// Host code: O(n), once per load and block size.
std::vector<float2> uniform_tile_masses(const float* masses, std::size_t n, std::size_t stride_floats, int block);
// m within 2^-32 .. 2^32: sums kept in units of m stay far from float overflow and underflow.
bool usable_tile_mass(float m);

// The device copy of uniform_tile_masses() for one (n, block); update() recomputes only when they
// changed (the masses of a loaded system never change). One per backend.
class TileMasses {
public:
    void update(const float* masses, std::size_t n, std::size_t stride_floats, int block, cudaStream_t stream);
    void invalidate() { block_ = 0; n_ = 0; }
    const float2* get() const { return device_.get(); }
    std::size_t tiles() const { return host_.size(); }
    std::size_t uniform_tiles() const { return uniform_; }

private:
    DeviceBuffer<float2> device_;
    std::vector<float2> host_;  // kept until the next update: the copy from it is asynchronous
    std::size_t uniform_ = 0;
    int block_ = 0;
    std::size_t n_ = 0;
};

struct ForceArgs {
    const float4* pos = nullptr;  // n bodies (x, y, z, m)
    int n = 0;
    // The bodies whose accelerations this pass computes (from all n): [i_begin, i_begin + i_count),
    // a GPU's slice when several share the i-bodies (docs/DISTRIBUTED.md); i_count < 0: all n. Only
    // the slice's acc (and vel) entries are written. A body's sum runs over the same tiles in the same
    // order whatever the slice, so under the classic split a slice's results are bit for bit those of
    // the whole pass.
    int i_begin = 0;
    int i_count = -1;
    float eps2 = 0;               // softening squared, > 0 (self-interaction is 0 * 1/eps^3)
    float4* acc = nullptr;        // out: accelerations (w = 0)
    float4* vel = nullptr;        // nullptr: force only; else v += a * half_dt (the closing kick)
    float half_dt = 0;
    ForceWorkspace* workspace = nullptr;  // needed by the balanced split; nullptr: classic only
    const float2* tile_mass = nullptr;    // kForceMassTiles: TileMasses for this n and block; nullptr:
                                          // every tile takes the general loop
};

// How launch_force() would run `v` for n bodies on the current device: the split it picks, the
// blocks it launches and the most contributors one i-block can have (1 for classic).
struct ForcePlan {
    ForceGrid grid = ForceGrid::Classic;
    int flags = kForceProductFlags;
    int iblocks = 0;        // I
    int tiles = 0;          // T = ceil(n / block)
    int blocks = 0;         // launched: I (classic) or min(I*T, SMs x resident blocks/SM)
    int blocks_per_sm = 0;  // resident blocks per SM (occupancy of the instance at this block)
    int max_contributors = 1;
    double classic_efficiency = 1;  // SM time used by the classic split, (I/SMs) / ceil(I/SMs)
};
// i_count: the i-bodies of a slice (ForceArgs::i_count), < 0 for all n.
ForcePlan plan_force(const ForceVariant& v, int block, int n, bool have_workspace, int i_count = -1);

// SMs of the current device and resident blocks per SM of a kernel at (block, dynamic shared
// bytes), cached per device: the occupancy calculator costs microseconds, and a launch at small N
// happens every ~100 us. Shared by this kernel and the precision kernels.
struct KernelOccupancy {
    int sm_count = 0;
    int blocks_per_sm = 0;
};
KernelOccupancy cached_occupancy(const void* kernel, int block, std::size_t shared_bytes);

// The classic-or-balanced decision, shared by this kernel and the precision kernels: I i-blocks
// of T tiles each on `sm_count` SMs holding `blocks_per_sm` resident blocks. Balanced needs the
// scratch, step and partial-sum indices that fit an int (`partials_per_contributor` partial sums
// per body and contributing block), and must differ from the classic split (G = I is the same).
struct SplitDecision {
    ForceGrid grid = ForceGrid::Classic;
    int blocks = 0;                 // launched
    int max_contributors = 1;       // blocks meeting one i-block (balanced)
    double classic_efficiency = 1;  // SM time used by the classic split, (I/SMs) / ceil(I/SMs)
};
SplitDecision decide_split(ForceGrid wanted, int iblocks, int tiles, int sm_count, int blocks_per_sm, int n,
                           bool have_workspace, int partials_per_contributor);

// Launches the force pass on `stream`. The caller has validated (variant, block) against the
// device; bad launches still surface as std::runtime_error from CUDA_CHECK_LAUNCH.
void launch_force(const ForceVariant& v, int block, const ForceArgs& args, cudaStream_t stream);

// Opening kick and drift of a leapfrog step: v += a dt/2; x_out = x_in + v dt (mass copied).
void launch_kick_drift(const float4* pos_in, float4* pos_out, float4* vel, const float4* acc, int n,
                       float half_dt, float dt, cudaStream_t stream);

// The closing kick alone: v += a half_dt for n bodies, the arithmetic the force passes use when they
// kick (one FFMA per component), so a kick after a force pass equals the kick inside it bit for bit.
void launch_kick(float4* vel, const float4* acc, int n, float half_dt, cudaStream_t stream);

// Empty when the current device can run this build's kernels, else the reason (typically a
// device architecture that the build did not compile for).
std::string kernel_image_problem();

}  // namespace nbody::cuda
