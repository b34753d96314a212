// The precision kernels' host side (dispatch, launch plans) and their integration kernels; the
// kernels themselves are in precision_kernel_body.cuh, their instances in precision_kernels_*.cu. See
// precision_kernels.hpp for the modes and parameters, docs/PRECISION.md for the error analysis.
//
// Cost per interaction against the fp32 kernel's 12 FP32 instructions + 1 MUFU (force_kernel.cu):
//   Jbag      the same 12 + 3 FADD per kSubBag interactions (sub-bag into J-BAG) + 12 FADD per
//             J-BAG of p/q interactions (compensated add into the total): +0.2 at p/q = 256.
//   DsRef     as Jbag in the inner loop; + per staged j-body (once per tile and thread) and per
//             i-body (once per i-block) 6 DADD and 7 conversions to take x - R: ~0.1% at p/q = 256.
//   DsEq3     +6 FADD per interaction (Sapporo eq. 3) + one more LDS.128 per j: 18 against 12.
//   Fp64      3 DADD + 3 DFMA + rsqrt in double (MUFU.RSQ64H + Newton steps in DFMA) + 3 DMUL +
//             3 DFMA, on an FP64 pipe of half the FP32 width.
// As in force_kernel.cu, a tail tile is padded with zero-mass bodies (exact zero terms since
// eps^2 > 0) and every thread reaches every barrier and shuffle.
//
// --use_fast_math applies to this file (sim/CMakeLists.txt): FMA contraction and flush-to-zero.
// The error-free transformations below (two-sum, Kahan) use __fadd_rn/__fsub_rn, which the compiler
// never contracts or reorders, so they stay exact whatever the flags. Doubles are unaffected.

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <mutex>
#include <stdexcept>
#include <string>
#include <vector>

#include "cuda_check.hpp"
#include "precision_arith.cuh"
#include "precision_kernel_instances.hpp"
#include "precision_kernels.hpp"

namespace nbody::cuda {
namespace detail {

constexpr int kIntegrateBlock = 256;

// ---- integration and conversion kernels ------------------------------------------------------

__global__ void kick_drift_ds_kernel(const float4* __restrict__ pos_in, float4* __restrict__ pos_out,
                                     float4* __restrict__ pos_lo, float4* __restrict__ vel,
                                     float4* __restrict__ vel_lo, const float4* __restrict__ acc, int n,
                                     float half_dt, float dt) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const float4 a = acc[i];
    float4 v = vel[i], vl = vel_lo[i];
    ds_add(v.x, vl.x, a.x * half_dt);
    ds_add(v.y, vl.y, a.y * half_dt);
    ds_add(v.z, vl.z, a.z * half_dt);
    float4 x = pos_in[i], xl = pos_lo[i];
    // v dt with the lo part of v folded in: one rounding of a step-sized number.
    ds_add(x.x, xl.x, fmaf(v.x, dt, vl.x * dt));
    ds_add(x.y, xl.y, fmaf(v.y, dt, vl.y * dt));
    ds_add(x.z, xl.z, fmaf(v.z, dt, vl.z * dt));
    pos_out[i] = x;  // w (the mass) carried along
    pos_lo[i] = xl;
    vel[i] = v;
    vel_lo[i] = vl;
}

__global__ void kick_drift_fp64_kernel(Double4* __restrict__ pos64, float4* __restrict__ pos_out,
                                       Double4* __restrict__ vel64, float4* __restrict__ vel,
                                       const Double4* __restrict__ acc64, int n, double half_dt, double dt) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const Double4 a = load_double4(acc64, i);
    Double4 v = load_double4(vel64, i);
    v.x = fma(a.x, half_dt, v.x);
    v.y = fma(a.y, half_dt, v.y);
    v.z = fma(a.z, half_dt, v.z);
    Double4 x = load_double4(pos64, i);
    x.x = fma(v.x, dt, x.x);
    x.y = fma(v.y, dt, x.y);
    x.z = fma(v.z, dt, x.z);
    store_double4(pos64, i, x);
    store_double4(vel64, i, v);
    pos_out[i] = make_float4(float(x.x), float(x.y), float(x.z), float(x.w));
    vel[i] = make_float4(float(v.x), float(v.y), float(v.z), 0.0f);
}

__global__ void widen_kernel(const float4* __restrict__ hi, const float4* __restrict__ lo,
                             Double4* __restrict__ out, int n) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const float4 h = hi[i];
    const float4 l = lo != nullptr ? lo[i] : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    store_double4(out, i,
                  Double4{double(h.x) + double(l.x), double(h.y) + double(l.y), double(h.z) + double(l.z),
                          double(h.w)});
}

__global__ void lo_of_double_kernel(const Double4* __restrict__ x, const float4* __restrict__ hi,
                                    float4* __restrict__ lo, int n) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const Double4 d = load_double4(x, i);
    const float4 h = hi[i];
    lo[i] = make_float4(float(d.x - double(h.x)), float(d.y - double(h.y)), float(d.z - double(h.z)), 0.0f);
}

__global__ void set_positions_kernel(const Double4* __restrict__ src, float4* __restrict__ pos,
                                     float4* __restrict__ lo, Double4* __restrict__ pos64, int n) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const Double4 d = load_double4(src, i);
    float4 p = pos[i];
    p.x = float(d.x);
    p.y = float(d.y);
    p.z = float(d.z);
    pos[i] = p;
    if (lo != nullptr)
        lo[i] =
            make_float4(float(d.x - double(p.x)), float(d.y - double(p.y)), float(d.z - double(p.z)), 0.0f);
    if (pos64 != nullptr) store_double4(pos64, i, Double4{d.x, d.y, d.z, double(p.w)});
}

// ---- THE dispatch ---------------------------------------------------------------------------


constexpr int variant_key(int kind, int u, int q, int b) { return kind * 1000000 + u * 10000 + q * 100 + b; }

template <class C>
bool contains(const C& values, int v) {
    for (int x : values)
        if (x == v) return true;
    return false;
}

template <class C>
std::string list(const C& values) {
    std::string out;
    for (int x : values) out += (out.empty() ? "" : ", ") + std::to_string(x);
    return out;
}

bool known_mode(PrecisionMode m) {
    return m == PrecisionMode::Fp32Jbag || m == PrecisionMode::Ds || m == PrecisionMode::Fp64;
}

bool is_experiment_variant(const PrecisionVariant& v) {
    for (const PrecisionExperimentVariant& e : kPrecisionExperimentVariants)
        if (e.unroll == v.unroll && e.threads_per_body == v.threads_per_body && e.bodies_per_thread == v.bodies_per_thread)
            return true;
    return false;
}

// The formulation a launch uses: the product's unless the developer override names the other one.
std::string env(const char* name) {
    const char* e = std::getenv(name);
    return e == nullptr ? std::string() : std::string(e);
}

int resolve_kind(PrecisionMode m) {
    switch (m) {
        case PrecisionMode::Fp32Jbag: {
            const std::string s = env("NBODY_JBAG_SUM");
            if (s.empty() || s == "kahan") return kKindJbag;
            if (s == "plain") return kKindJbagPlain;
            throw std::invalid_argument("NBODY_JBAG_SUM='" + s + "' is not one of kahan, plain");
        }
        case PrecisionMode::Ds: {
            const std::string s = env("NBODY_DS_SEPARATION");
            if (s.empty() || s == "ref") return kKindDsRef;
            if (s == "eq3") return kKindDsEq3;
            throw std::invalid_argument("NBODY_DS_SEPARATION='" + s + "' is not one of ref, eq3");
        }
        case PrecisionMode::Fp64:
            return kKindFp64;
    }
    throw std::invalid_argument("unknown precision mode " + std::to_string(static_cast<int>(m)) +
                                " (supported: fp32-jbag, ds, fp64)");
}

ForceGrid resolve_grid() {
    const std::string text = env("NBODY_FORCE_GRID");
    if (text.empty() || text == "auto") return ForceGrid::Auto;
    if (text == "classic") return ForceGrid::Classic;
    if (text == "balanced") return ForceGrid::Balanced;
    throw std::invalid_argument("NBODY_FORCE_GRID='" + text + "' is not one of auto, classic, balanced");
}

[[noreturn]] void throw_unsupported(const PrecisionVariant& v, int kind) {
    if (!known_mode(v.mode))
        throw std::invalid_argument("unknown precision mode " + std::to_string(static_cast<int>(v.mode)) +
                                    " (supported: fp32-jbag, ds, fp64)");
    const std::string mode = precision_mode_name(v.mode);
    const std::vector<int> bvals = precision_bodies_per_thread_values(v.mode);
    std::string msg = "no " + mode + " kernel instance for unroll=" + std::to_string(v.unroll) +
                      ", threads_per_body=" + std::to_string(v.threads_per_body) +
                      ", bodies_per_thread=" + std::to_string(v.bodies_per_thread) + ":";
    const bool values_ok = contains(kPrecisionUnrollValues, v.unroll) &&
                           contains(kPrecisionThreadsPerBodyValues, v.threads_per_body) &&
                           contains(bvals, v.bodies_per_thread);
    if (!contains(kPrecisionUnrollValues, v.unroll))
        msg += " unroll " + std::to_string(v.unroll) + " is not supported in " + mode +
               " (supported: " + list(kPrecisionUnrollValues) + ");";
    if (!contains(kPrecisionThreadsPerBodyValues, v.threads_per_body))
        msg += " threads_per_body " + std::to_string(v.threads_per_body) + " is not supported in " + mode +
               " (supported: " + list(kPrecisionThreadsPerBodyValues) + ");";
    if (!contains(bvals, v.bodies_per_thread))
        msg += " bodies_per_thread " + std::to_string(v.bodies_per_thread) + " is not supported in " + mode +
               " (supported: " + list(bvals) + ");";
    if (values_ok && (kind == kKindJbagPlain || kind == kKindDsEq3)) {
        std::string combos;
        for (const PrecisionExperimentVariant& e : kPrecisionExperimentVariants)
            combos += (combos.empty() ? "" : ", ") + std::string("U") + std::to_string(e.unroll) + " q" +
                      std::to_string(e.threads_per_body) + " B" + std::to_string(e.bodies_per_thread);
        msg += std::string(kind == kKindJbagPlain ? " NBODY_JBAG_SUM=plain" : " NBODY_DS_SEPARATION=eq3") +
               " is compiled only for " + combos + ";";
    }
    msg.back() = '.';
    throw std::invalid_argument(msg);
}

// THE dispatch: run-time (kind, U, q, B) to a compiled instance. Default: an error listing the
// supported values.
PrecisionKernelFn select_precision_kernel(const PrecisionVariant& v, int kind) {
#define NBODY_PREC_CASE(K, U, Q, B) \
    case variant_key(K, U, Q, B):   \
        return precision_kernel_instance<K, U, Q, B>();
    // Out-of-range values cannot alias a valid key: they are checked before the key is formed.
    const bool in_range = known_mode(v.mode) && contains(kPrecisionUnrollValues, v.unroll) &&
                          contains(kPrecisionThreadsPerBodyValues, v.threads_per_body) &&
                          v.bodies_per_thread >= 1 && v.bodies_per_thread <= 99;
    switch (in_range ? variant_key(kind, v.unroll, v.threads_per_body, v.bodies_per_thread) : -1) {
        NBODY_PREC_VARIANTS(NBODY_PREC_CASE)
        default:
            throw_unsupported(v, kind);
    }
#undef NBODY_PREC_CASE
}

PrecisionKernelFn select_precision_kernel(const PrecisionVariant& v) {
    return select_precision_kernel(v, known_mode(v.mode) ? resolve_kind(v.mode) : -1);
}

KernelOccupancy occupancy(PrecisionKernelFn fn, int block, std::size_t shared) {
    return cached_occupancy(reinterpret_cast<const void*>(fn), block, shared);
}

int blocks_for(int n) { return (n + kIntegrateBlock - 1) / kIntegrateBlock; }

}  // namespace detail

const char* precision_mode_name(PrecisionMode mode) {
    switch (mode) {
        case PrecisionMode::Fp32Jbag:
            return "fp32-jbag";
        case PrecisionMode::Ds:
            return "ds";
        case PrecisionMode::Fp64:
            return "fp64";
    }
    return "unknown";
}

std::vector<int> precision_bodies_per_thread_values(PrecisionMode mode) {
    if (mode == PrecisionMode::Fp64) return {1};
    return {1, 2, 4};
}

void require_precision_instance(const PrecisionVariant& v) {
    (void)detail::resolve_grid();  // a malformed override is an error here too, not at the launch
    (void)detail::select_precision_kernel(v);
}

const char* precision_formulation(PrecisionMode mode) {
    switch (detail::resolve_kind(mode)) {
        case detail::kKindJbag:
            return "kahan";
        case detail::kKindJbagPlain:
            return "plain";
        case detail::kKindDsRef:
            return "ref";
        case detail::kKindDsEq3:
            return "eq3";
        default:
            return "fp64";
    }
}

PrecisionKernelResources precision_kernel_resources(const PrecisionVariant& v) {
    const detail::PrecisionKernelFn fn = detail::select_precision_kernel(v);
    cudaFuncAttributes attr{};
    CUDA_CHECK(cudaFuncGetAttributes(&attr, reinterpret_cast<const void*>(fn)));
    PrecisionKernelResources r;
    r.max_threads_per_block = attr.maxThreadsPerBlock;
    r.registers_per_thread = attr.numRegs;
    r.local_bytes_per_thread = attr.localSizeBytes;
    r.static_shared_bytes = attr.sharedSizeBytes;
    return r;
}

std::size_t precision_shared_bytes(PrecisionMode mode, int block) {
    // Two tiles (one barrier per tile). Ds's ref formulation stages one float4 per body, eq3 two;
    // the bound covers both so that the config check does not depend on the override.
    const std::size_t per_body = mode == PrecisionMode::Fp32Jbag ? sizeof(float4) : 2 * sizeof(float4);
    return 2 * static_cast<std::size_t>(block) * per_body;
}

namespace {
// Frame::scale for softening eps: the power of two S with eps S in [2^-16, 2^-15). Then r'^6 >=
// 2^-96 (far from float's 2^-126 flush-to-zero) and overflows only beyond r' = 2^21.3, i.e.
// r > 2^37 eps (1.4e10 length units at eps = 0.1), where a term becomes 0. Clamped so positions
// and masses keep their range.
float frame_scale(double eps2) {
    if (!(eps2 > 0.0) || !std::isfinite(eps2)) return 1.0f;  // refused upstream; never a bad shift
    const int e = std::ilogb(std::sqrt(eps2));              // floor(log2(eps))
    return std::ldexp(1.0f, std::clamp(-16 - e, -60, 60));
}

// The kinds whose tile holds one float4 per body and whose interaction is accumulate_f32.
bool single_float_tile(int kind) {
    return kind == detail::kKindJbag || kind == detail::kKindJbagPlain || kind == detail::kKindDsRef;
}

std::size_t launch_shared_bytes(int kind, int block) {
    const std::size_t per_body = single_float_tile(kind) ? sizeof(float4) : 2 * sizeof(float4);
    return 2 * static_cast<std::size_t>(block) * per_body;
}
}  // namespace

PrecisionPlan plan_precision_force(const PrecisionVariant& v, int block, int n, bool have_workspace) {
    PrecisionPlan plan;
    const int kind = detail::resolve_kind(v.mode);
    const ForceGrid wanted = detail::resolve_grid();
    const detail::PrecisionKernelFn fn = detail::select_precision_kernel(v, kind);
    if (n <= 0) return plan;
    if (block <= 0 || block % kWarpSize != 0 || block > kMaxBlock)
        throw std::invalid_argument("precision kernel block " + std::to_string(block) +
                                    " is not a multiple of 32 in 32..1024");
    const int per_block = block / v.threads_per_body * v.bodies_per_thread;
    plan.iblocks = (n + per_block - 1) / per_block;
    plan.tiles = (n + block - 1) / block;
    const std::size_t shared = launch_shared_bytes(kind, block);
    if (shared > 48 * 1024)  // beyond the default: opt in (the config check holds it to the device's limit)
        CUDA_CHECK(cudaFuncSetAttribute(reinterpret_cast<const void*>(fn), cudaFuncAttributeMaxDynamicSharedMemorySize,
                                        static_cast<int>(shared)));
    const KernelOccupancy occ = detail::occupancy(fn, block, shared);
    plan.blocks_per_sm = occ.blocks_per_sm;
    // Room for fp64 partials: a Double4 is two float4s per body and contributing block.
    const SplitDecision split = decide_split(wanted, plan.iblocks, plan.tiles, occ.sm_count, occ.blocks_per_sm, n,
                                             have_workspace, 2);
    plan.grid = split.grid;
    plan.blocks = split.blocks;
    plan.max_contributors = split.max_contributors;
    plan.classic_efficiency = split.classic_efficiency;
    return plan;
}

void launch_precision_force(const PrecisionVariant& v, int block, const PrecisionForceArgs& args,
                            cudaStream_t stream) {
    const int kind = detail::resolve_kind(v.mode);
    const PrecisionPlan plan = plan_precision_force(v, block, args.n, args.workspace != nullptr);
    const detail::PrecisionKernelFn fn = detail::select_precision_kernel(v, kind);
    if (args.n <= 0) return;
    detail::PrecisionKernelParams k{};
    k.a = args;
    k.tiles = plan.tiles;
    k.scale = single_float_tile(kind) ? frame_scale(args.eps2) : 1.0f;
    if (plan.grid == ForceGrid::Balanced) {
        const long long work = static_cast<long long>(plan.iblocks) * plan.tiles;  // < 2^31 (plan)
        k.share = static_cast<int>(work / plan.blocks);
        k.extra = static_cast<int>(work % plan.blocks);
        // Fp64 partials are Double4s: two float4s each.
        const std::size_t per_body = v.mode == PrecisionMode::Fp64 ? 2 : 1;
        args.workspace->reserve(static_cast<std::size_t>(plan.iblocks),
                                per_body * static_cast<std::size_t>(plan.max_contributors) *
                                    static_cast<std::size_t>(args.n),
                                stream);
        k.partials = args.workspace->partials();
        k.counters = args.workspace->counters();
    }
    fn<<<plan.blocks, block, launch_shared_bytes(kind, block), stream>>>(k);
    CUDA_CHECK_LAUNCH();
}

void launch_kick_drift_ds(const float4* pos_in, float4* pos_out, float4* pos_lo, float4* vel, float4* vel_lo,
                          const float4* acc, int n, float half_dt, float dt, cudaStream_t stream) {
    if (n <= 0) return;
    detail::kick_drift_ds_kernel<<<detail::blocks_for(n), detail::kIntegrateBlock, 0, stream>>>(
        pos_in, pos_out, pos_lo, vel, vel_lo, acc, n, half_dt, dt);
    CUDA_CHECK_LAUNCH();
}

void launch_kick_drift_fp64(Double4* pos64, float4* pos_out, Double4* vel64, float4* vel,
                            const Double4* acc64, int n, double half_dt, double dt, cudaStream_t stream) {
    if (n <= 0) return;
    detail::kick_drift_fp64_kernel<<<detail::blocks_for(n), detail::kIntegrateBlock, 0, stream>>>(
        pos64, pos_out, vel64, vel, acc64, n, half_dt, dt);
    CUDA_CHECK_LAUNCH();
}

void launch_widen(const float4* hi, const float4* lo, Double4* out, int n, cudaStream_t stream) {
    if (n <= 0) return;
    detail::widen_kernel<<<detail::blocks_for(n), detail::kIntegrateBlock, 0, stream>>>(hi, lo, out, n);
    CUDA_CHECK_LAUNCH();
}

void launch_lo_of_double(const Double4* x, const float4* hi, float4* lo, int n, cudaStream_t stream) {
    if (n <= 0) return;
    detail::lo_of_double_kernel<<<detail::blocks_for(n), detail::kIntegrateBlock, 0, stream>>>(x, hi, lo, n);
    CUDA_CHECK_LAUNCH();
}

void launch_set_positions(const Double4* src, float4* pos, float4* lo, Double4* pos64, int n,
                          cudaStream_t stream) {
    if (n <= 0) return;
    detail::set_positions_kernel<<<detail::blocks_for(n), detail::kIntegrateBlock, 0, stream>>>(src, pos, lo,
                                                                                                pos64, n);
    CUDA_CHECK_LAUNCH();
}

}  // namespace nbody::cuda
