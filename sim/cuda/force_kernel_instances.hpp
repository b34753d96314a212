#pragma once
// What the force kernel's dispatch (force_kernel.cu) and its instances (force_kernel_u*.cu) share:
// the launch parameters, the list of compiled (U, q, B, flags) variants, and the accessor through
// which the dispatch reaches an instance compiled in another translation unit. Host-visible; the
// kernel code is in force_kernel_body.cuh.

#include <cuda_runtime.h>

#include "force_kernel.hpp"

namespace nbody::cuda::detail {

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
    int n;        // j-bodies: every body
    int i_begin;  // the i-bodies are pos[i_begin, i_begin + i_count): a GPU's slice (all n on one GPU)
    int i_count;
    float eps2;
    float4* acc;
    float4* vel;
    float half_dt;
    int tiles;           // T = ceil(n / p)
    int share;           // W / G
    int extra;           // W % G
    float4* partials;    // [contributor k][i_count], balanced split only
    unsigned* counters;  // [I], balanced split only
    const float2* tile_mass;  // kForceMassTiles: [T] (m_t, 1 / m_t) of uniform tiles, (0, 0) else;
                              // nullptr: every tile takes the general loop
};

// The instance (U, q, B, flags F): defined in force_kernel_body.cuh and explicitly instantiated,
// for the variants of a few U, in force_kernel_u*.cu. Only the variants listed below exist.
template <int U, int Q, int B, int F>
ForceKernelFn force_kernel_instance();

// The supported variants, one list per unroll U (the instances of a few U are compiled in their
// own translation unit, force_kernel_u*.cu) and their union, which the dispatch switch expands:
// the instances and the switch cannot disagree. Keep in step with the arrays in force_kernel.hpp.
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
#define NBODY_FORCE_VARIANTS_U1(X) NBODY_FORCE_Q(X, 1)
#define NBODY_FORCE_VARIANTS_U2(X) NBODY_FORCE_Q(X, 2)
#define NBODY_FORCE_VARIANTS_U4(X) NBODY_FORCE_Q(X, 4) NBODY_FORCE_B8(X, 4) NBODY_FORCE_EXPERIMENT(X, 4, 1, 1)
#define NBODY_FORCE_VARIANTS_U8(X)                                                                   \
    NBODY_FORCE_Q(X, 8) NBODY_FORCE_B8(X, 8) NBODY_FORCE_EXPERIMENT(X, 8, 2, 4)                      \
    NBODY_FORCE_EXPERIMENT(X, 8, 4, 4) NBODY_FORCE_COMPANION(X, 8)
#define NBODY_FORCE_VARIANTS_U16(X)                                                                  \
    NBODY_FORCE_Q(X, 16) NBODY_FORCE_EXPERIMENT(X, 16, 8, 2) NBODY_FORCE_EXPERIMENT(X, 16, 1, 4)     \
    NBODY_FORCE_COMPANION(X, 16)
#define NBODY_FORCE_VARIANTS_U32(X) \
    NBODY_FORCE_Q(X, 32) NBODY_FORCE_EXPERIMENT(X, 32, 2, 4) NBODY_FORCE_COMPANION(X, 32)
#define NBODY_FORCE_VARIANTS(X)                                                                      \
    NBODY_FORCE_VARIANTS_U1(X) NBODY_FORCE_VARIANTS_U2(X) NBODY_FORCE_VARIANTS_U4(X)                 \
    NBODY_FORCE_VARIANTS_U8(X) NBODY_FORCE_VARIANTS_U16(X) NBODY_FORCE_VARIANTS_U32(X)

}  // namespace nbody::cuda::detail
