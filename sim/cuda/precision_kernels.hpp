#pragma once
// Driver functions of the precision variants of the tiled all-pairs kernel (precision_kernels.cu)
// and of the integration kernels that go with them. Plain functions on raw device pointers, sizes
// and a variant; this header pulls in the CUDA runtime API and nothing heavier. The fp32 direct
// sum is force_kernel.cu's kernel; the modes here are (docs/PRECISION.md):
//
//   Fp32Jbag  Chamomile's FORCE-LOOP (Hamada & Iitaka 2007, eq. 2). A lane's share of one
//             shared-memory tile is its J-BAG: summed in fresh registers, then added to the
//             running total. Two refinements, both costing a few FADDs per 16 or per p/q
//             interactions (~2% of the instructions): within a J-BAG, runs of kSubBag bodies are
//             summed in fresh registers first, and the running total is a compensated (Kahan)
//             sum. Together they keep the cumulative error at the per-term rounding floor up to
//             N = 128K instead of growing with the number of bags (emulated table in the doc).
//   Ds        Sapporo's double-single positions (Gaburov et al. 2009): x = x_hi + x_lo with both
//             parts floats. The separation is taken in a frame centred on a reference point R
//             (the mean of an even sample of the bodies): every body is moved to x - R in double
//             and rounded to float once, when it is staged (j: once per tile, i: once per
//             i-block), so the inner loop is Fp32Jbag's. Sapporo's own per-interaction form,
//             (x_j,hi - x_i,hi) + (x_j,lo - x_i,lo) (their eq. 3, 6 FADDs per interaction more),
//             is kept as the A/B formulation NBODY_DS_SEPARATION=eq3. Velocities are
//             double-single too, and kicks and drifts add in double-single arithmetic.
//   Fp64      doubles throughout: positions, velocities, the separation, rsqrt and the sums.
//
// Every kernel has force_kernel.cu's version 2 structure: the balanced split over the SMs
// (ForceGrid; NBODY_FORCE_GRID overrides it for these kernels too), two tiles with one barrier
// per tile, and the rotated (m, x, y, z) tile entries of the fp32 modes.
//
// Developer overrides for A/B runs of the same binary (read at every launch), compiled only for
// kPrecisionExperimentVariants: NBODY_JBAG_SUM = kahan (default) | plain (Chamomile's FORCE-LOOP
// literally: J-BAGs in fresh registers added plainly, no sub-bags), NBODY_DS_SEPARATION = ref
// (default) | eq3.
//
// Compile-time parameters, as in force_kernel.hpp: U (j-loop unroll), q (threads per body) and B
// (i-bodies per thread). A restricted set is instantiated to keep compile time sane (CI builds
// three architectures on two cores): U in kPrecisionUnrollValues, q in
// kPrecisionThreadsPerBodyValues, B in precision_bodies_per_thread_values(mode). The block size p
// is a run-time parameter (a multiple of 32).
//
// The float4 buffers (positions x, y, z, m; velocities; accelerations) always hold the current
// values rounded to float (x_hi in Ds), so the renderer, store() and the fp32 kernels can read
// them in any mode. Ds keeps the lo parts of positions and velocities in buffers of their own;
// Fp64 keeps positions, velocities and accelerations in Double4 buffers.

#include <cuda_runtime_api.h>

#include <array>
#include <cstddef>
#include <string>
#include <vector>

#include "force_kernel.hpp"

namespace nbody::cuda {

enum class PrecisionMode { Fp32Jbag, Ds, Fp64 };

// "fp32-jbag", "ds", "fp64": the names of nbody::Precision, for messages.
const char* precision_mode_name(PrecisionMode mode);

// The values around the tuned fp32 default (U 8, q 2, B 4 at the time of writing), so that every
// mode can run the same config as fp32 and the rates compare like with like.
inline constexpr std::array<int, 2> kPrecisionUnrollValues{4, 8};
inline constexpr std::array<int, 4> kPrecisionThreadsPerBodyValues{1, 2, 4, 8};
// B = 1, 2, 4 for the fp32 modes, where register blocking buys issue slots; fp64 is bound by its
// FP64 pipe, which B does not relieve, so it has B = 1 only.
std::vector<int> precision_bodies_per_thread_values(PrecisionMode mode);
struct PrecisionExperimentVariant {
    int unroll, threads_per_body, bodies_per_thread;
};
// The (U, q, B) with instances of the A/B formulations: the fp32 default and the best 256K
// configs of the first H200 run.
inline constexpr std::array<PrecisionExperimentVariant, 4> kPrecisionExperimentVariants{
    {{8, 2, 4}, {8, 1, 4}, {4, 1, 4}, {8, 2, 2}}};
// Bodies per sub-bag inside a J-BAG (Fp32Jbag, Ds). A multiple of every U above.
inline constexpr int kSubBag = 16;

// Four doubles, 16-byte aligned: sm_90 has no 32-byte loads, so a body is read as two double2s.
struct alignas(16) Double4 {
    double x, y, z, w;
};
static_assert(sizeof(Double4) == 32, "Double4 must be four packed doubles");

struct PrecisionVariant {
    PrecisionMode mode = PrecisionMode::Fp32Jbag;
    int unroll = 4;
    int threads_per_body = 1;
    int bodies_per_thread = 1;
};

// Throws std::invalid_argument naming the unsupported value(s) and listing the supported ones
// when `v` has no compiled instance (or an override is malformed). Needs no device: this is the
// dispatch switch itself.
void require_precision_instance(const PrecisionVariant& v);

// The formulation a launch of `mode` uses now: "kahan" or "plain" (fp32-jbag), "ref" or "eq3"
// (ds), "fp64". Throws std::invalid_argument for a malformed override.
const char* precision_formulation(PrecisionMode mode);

struct PrecisionKernelResources {
    int max_threads_per_block = 0;
    int registers_per_thread = 0;
    std::size_t local_bytes_per_thread = 0;
    std::size_t static_shared_bytes = 0;
};
// Throws std::invalid_argument for a variant without instance, std::runtime_error when the CUDA
// runtime refuses.
PrecisionKernelResources precision_kernel_resources(const PrecisionVariant& v);

// Dynamic shared memory of one block, an upper bound for the device-limit check: two tiles of
// `block` j-bodies (16 bytes each in Fp32Jbag, 32 in Ds (eq3: hi and lo) and Fp64).
std::size_t precision_shared_bytes(PrecisionMode mode, int block);

struct PrecisionForceArgs {
    int n = 0;
    double eps2 = 0;                 // softening^2 > 0 (rounded to float by the fp32 modes)
    double half_dt = 0;              // the closing kick's dt/2, used when vel (fp32 modes) / vel64 is set
    const float4* pos = nullptr;     // Fp32Jbag: (x, y, z, m); Ds: (x_hi, y_hi, z_hi, m)
    const float4* pos_lo = nullptr;  // Ds: (x_lo, y_lo, z_lo, 0)
    const Double4* pos64 = nullptr;  // Fp64: (x, y, z, m)
    float4* acc = nullptr;           // out, Fp32Jbag and Ds: (ax, ay, az, 0)
    Double4* acc64 = nullptr;        // out, Fp64
    // The closing kick v += a dt/2 when non-null (nullptr: force only). Fp32Jbag: vel; Ds: vel
    // (hi) and vel_lo; Fp64: vel64, and vel gets the result rounded to float.
    float4* vel = nullptr;
    float4* vel_lo = nullptr;
    Double4* vel64 = nullptr;
    ForceWorkspace* workspace = nullptr;  // the balanced split's scratch; nullptr: classic only
};

// How launch_precision_force() would run `v` for n bodies on the current device: the split it
// picks (as force_kernel.cu's plan_force), the blocks it launches and the most contributors one
// i-block can have (1 for classic).
struct PrecisionPlan {
    ForceGrid grid = ForceGrid::Classic;
    int iblocks = 0;        // I
    int tiles = 0;          // T = ceil(n / block)
    int blocks = 0;         // launched: I (classic) or min(I*T, SMs x resident blocks/SM)
    int blocks_per_sm = 0;
    int max_contributors = 1;
    double classic_efficiency = 1;
};
PrecisionPlan plan_precision_force(const PrecisionVariant& v, int block, int n, bool have_workspace);

// Launches the force pass on `stream`. The caller has validated (variant, block) against the
// device; bad launches still surface as std::runtime_error from CUDA_CHECK_LAUNCH.
void launch_precision_force(const PrecisionVariant& v, int block, const PrecisionForceArgs& args,
                            cudaStream_t stream);

// Opening kick and drift of a leapfrog step in double-single arithmetic: v += a dt/2 (the product
// in fp32, the sum double-single), x += v dt (likewise). Reads x_hi from pos_in and writes it to
// pos_out (mass copied); the lo parts and velocities are updated in place.
void launch_kick_drift_ds(const float4* pos_in, float4* pos_out, float4* pos_lo, float4* vel, float4* vel_lo,
                          const float4* acc, int n, float half_dt, float dt, cudaStream_t stream);

// The same in double; also writes the positions rounded to float into pos_out (for the renderer)
// and the velocities rounded to float into vel.
void launch_kick_drift_fp64(Double4* pos64, float4* pos_out, Double4* vel64, float4* vel,
                            const Double4* acc64, int n, double half_dt, double dt, cudaStream_t stream);

// Conversions between the representations, n bodies each:
//   widen:        out = hi + lo in double (lo may be null: out = hi); out.w = hi.w
//   lo_of_double: lo = float(x - hi) (hi already holds float(x)); lo.w = 0
//   set_positions: from doubles src (w ignored): pos.xyz = float(src) keeping pos.w (the mass);
//                 when lo is set lo = float(src - hi); when pos64 is set pos64 = (src, pos.w)
void launch_widen(const float4* hi, const float4* lo, Double4* out, int n, cudaStream_t stream);
void launch_lo_of_double(const Double4* x, const float4* hi, float4* lo, int n, cudaStream_t stream);
void launch_set_positions(const Double4* src, float4* pos, float4* lo, Double4* pos64, int n,
                          cudaStream_t stream);

}  // namespace nbody::cuda
