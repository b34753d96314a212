#pragma once
// Driver functions of the kernels that take the 4th order's block steps whole on the GPU
// (device_blocks.cu; the engine's step_blocks in engine_cuda.cpp drives them):
//
//   select    the bodies of the active levels, as slots, in the order the host integrator hands the
//             engine its batch (ascending address; ascending slot for a batch the engine sorts: one
//             that takes the far tiles)
//   predict   each active body to the block time in double, as the host predicts its i-batch
//   correct   the corrector and the next level of each active body (corrector4.hpp), into a staging
//             area; the first body in the batch that fails a check is noted
//   commit    unless a body failed: the corrected bodies written into the j-memory (as the host's
//             set_j would write them) and counted by their new level
//
// This file is built without FMA contraction (sim/CMakeLists.txt), so that its double arithmetic
// rounds as the host's does: the same bits as the host integrator, block after block.

#include <cuda_runtime_api.h>

#include <cstddef>

#include "hermite_kernels.hpp"

namespace nbody::cuda::hermite {

// Per slot, beside the j-memory: the jerk as the integrator keeps it (j6 is jerk / 6, not exactly
// invertible), w the body's block level; and the potential of its last evaluation (x).
struct BlockState {
    Real4* jerk_level;
    Real4* pot;
};

// No body has failed a check (the first failing batch index otherwise).
inline constexpr int kNoBadBody = 0x7fffffff;

std::size_t select_scratch_bytes(int n);
// out[0 .. count) the slots of the bodies whose level is in `level_mask` (bit k: level k), by address
// (slot_of: address -> slot) or, `by_slot`, by slot. `count` (device) gets how many.
void select_active(const BlockState& state, const int* slot_of, int n, unsigned long long level_mask, bool by_slot,
                   int* out, int* count, void* scratch, std::size_t scratch_bytes, cudaStream_t stream);
// x[k] = (predicted position, h2 = 0), v[k] = (predicted velocity, id = the slot) of slots[k] at time t;
// and the block's counters made ready for correct_batch and commit_batch: *first_bad = kNoBadBody and
// level_counts[0, levels) = 0 (one launch less than a copy of them a block).
void predict_batch(const JMemory& j, const int* slots, int ni, double t, Real4* x, Real4* v, int* first_bad,
                   int* level_counts, int levels, cudaStream_t stream);
// The corrector of each active body from its predicted x, v and the forces (results: ni rows of acc |
// pot, then ni rows of jerk), into staged (ni rows of x | level, then ni rows of v). `grid`: levels may
// go up where t is a multiple of the doubled step (every block; not a synchronisation).
struct CorrectArgs {
    double t = 0, eta = 0;
    const double* level_dts = nullptr;  // device: max_level + 2 entries
    int max_level = 0;
};
void correct_batch(const JMemory& j, const BlockState& state, const int* slots, int ni, const Real4* x, const Real4* v,
                   const Real4* results, const CorrectArgs& args, Real4* staged, int* first_bad, cudaStream_t stream);
// Unless *first_bad names a body: slots' j-particles, jerks, levels and potentials from the staged
// corrector and the results; level_counts[k] += the bodies that go to level k.
void commit_batch(const JMemory& j, const BlockState& state, const int* slots, int ni, const Real4* results,
                  const Real4* staged, double t, const int* first_bad, int* level_counts, cudaStream_t stream);

}  // namespace nbody::cuda::hermite
