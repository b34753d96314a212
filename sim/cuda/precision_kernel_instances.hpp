#pragma once
// What the precision kernels' dispatch (precision_kernels.cu) and their instances
// (precision_kernels_*.cu) share: the kernel kinds, the launch parameters, the list of compiled
// (kind, U, q, B) variants and the accessor through which the dispatch reaches an instance compiled
// in another translation unit. Host-visible; the kernel code is in precision_kernel_body.cuh.

#include <cuda_runtime.h>

#include "precision_kernels.hpp"

namespace nbody::cuda::detail {

// The kernel kinds: a mode and its formulation (precision_kernel_body.cuh, struct Kind).
constexpr int kKindJbag = 0, kKindDsRef = 1, kKindFp64 = 2, kKindJbagPlain = 3, kKindDsEq3 = 4;

// Launch parameters (constant bank). The balanced split as in force_kernel.cu: the I x T grid of
// (i-block, tile) steps in row-major order, block g takes steps [first_step(g), first_step(g + 1));
// classic (counters == nullptr): block g is i-block g, all T tiles.
struct PrecisionKernelParams {
    PrecisionForceArgs a;
    int tiles;
    int share;
    int extra;
    void* partials;      // [contributor k][n] float4 (fp32 kinds) or Double4 (Fp64)
    unsigned* counters;  // [I]
    float scale;         // Frame::scale (1 for the kinds without accumulate_f32)
};

using PrecisionKernelFn = void (*)(PrecisionKernelParams);

// The instance (kind K, U, q, B): defined in precision_kernel_body.cuh, explicitly instantiated for
// one family's variants in precision_kernels_<family>.cu. Only the variants listed below exist.
template <int K, int U, int Q, int B>
PrecisionKernelFn precision_kernel_instance();

// The supported variants, one list per kernel family (each compiled in its own translation unit,
// precision_kernels_*.cu, so that a build spreads the instances over its cores) and their union,
// which the dispatch switch expands. Keep in step with the arrays in precision_kernels.hpp and
// precision_bodies_per_thread_values().
#define NBODY_PREC_Q(X, K, U, B) X(K, U, 1, B) X(K, U, 2, B) X(K, U, 4, B) X(K, U, 8, B)
#define NBODY_PREC_U(X, K, B) NBODY_PREC_Q(X, K, 4, B) NBODY_PREC_Q(X, K, 8, B)
#define NBODY_PREC_B(X, K) NBODY_PREC_U(X, K, 1) NBODY_PREC_U(X, K, 2) NBODY_PREC_U(X, K, 4)
// The A/B formulations (NBODY_JBAG_SUM=plain, NBODY_DS_SEPARATION=eq3) for kPrecisionExperimentVariants.
#define NBODY_PREC_EXPERIMENT(X, K) X(K, 8, 2, 4) X(K, 8, 1, 4) X(K, 4, 1, 4) X(K, 8, 2, 2)
#define NBODY_PREC_VARIANTS_JBAG(X) NBODY_PREC_B(X, kKindJbag) NBODY_PREC_EXPERIMENT(X, kKindJbagPlain)
#define NBODY_PREC_VARIANTS_DS(X) NBODY_PREC_B(X, kKindDsRef) NBODY_PREC_EXPERIMENT(X, kKindDsEq3)
#define NBODY_PREC_VARIANTS_FP64(X) NBODY_PREC_U(X, kKindFp64, 1)
#define NBODY_PREC_VARIANTS(X) \
    NBODY_PREC_VARIANTS_JBAG(X) NBODY_PREC_VARIANTS_DS(X) NBODY_PREC_VARIANTS_FP64(X)

}  // namespace nbody::cuda::detail
