#pragma once
// Block time steps on the GPU (docs/TREE.md, "Block time steps"): the device side of the cuda
// backend's --timesteps block, the same scheme as the host BlockStepper (block_steps.hpp) with the
// same BlockSchedule functions (time_steps.hpp, __host__ __device__ under nvcc) run per body in
// kernels, and GpuTree::force_active as the active bodies' force solver.
//
// Per step of dt_max: one kernel chooses every body's level from its acceleration and gives it the
// opening half kick; then at each tick where some body's step ends, one launch sequence:
//   predict  every body's position at the tick, x + v (t - t0) from its half-step velocity, into a
//            float4 buffer (mass in w); the due bodies flagged and moved there (their drift);
//   force    GpuTree::force_active over the predictions: the tree of all N, the flagged bodies'
//            groups walked, their accelerations written (the others keep theirs);
//   finish   the flagged bodies' closing half kick, then (before the last tick) their next level
//            (BlockSchedule::next_level) and its opening half kick.
// The host then copies back the bodies per level (one small copy and a wait per tick): the next
// tick with a due level and the number of due bodies come from it. Arithmetic as the shared cuda
// leapfrog (fmaf kicks and drifts, the same float steps), so a run with every body at level 0 is
// the cuda shared run bit for bit.

#include <cuda_runtime_api.h>

#include <cstdint>
#include <vector>

#include "../cuda_raii.hpp"
#include "nbody/sim/gravity.hpp"
#include "nbody/sim/time_steps.hpp"

namespace nbody::cuda {

class GpuTree;

// Counters the kernels keep on the device and the host reads after each tick.
struct BlockCounters {
    unsigned level[32];          // bodies per level (0 .. max_level <= kMaxMaxLevel = 30)
    unsigned long long clamped;  // level choices held at max_level (wanted finer) since reset()
};

// One step's inputs: the backend's buffers (input order, n bodies), acc = a(pos) on entry.
struct BlockStepArgs {
    float4* pos = nullptr;  // positions and masses, updated in place (a body moves at its own boundaries)
    float4* vel = nullptr;
    float4* acc = nullptr;
    int n = 0;
    double dt_max = 0, softening = 0;
    TimeStepConfig config;
    TreeParams tree;
    int unroll = 8;  // the walk's unroll (kernel config)
};

class GpuBlockStepper {
public:
    // One step of dt_max, queued on `stream` with a wait per tick. On return every body is at a
    // boundary and acc holds a(pos) (the last tick is every body's). Adds to `work` the passes and
    // evaluations, and sets its level_counts to the levels chosen at the step's start. Throws what
    // the tree reports (a non-finite body) at the tick after it happened.
    void step(const BlockStepArgs& args, GpuTree& tree, ForceWork& work, cudaStream_t stream);

    // Each body's level in the step just taken (empty before the first); waits for the stream.
    std::vector<std::uint8_t> levels(cudaStream_t stream) const;
    // Level choices held at max_level since the last reset(); waits for the stream.
    std::uint64_t clamped(cudaStream_t stream) const;
    void reset(cudaStream_t stream);

private:
    void reserve(int n, cudaStream_t stream);
    void read_counters(cudaStream_t stream);  // counters_ -> host_, waits

    int n_ = 0;
    DeviceBuffer<unsigned char> level_;   // per body, input order
    DeviceBuffer<unsigned char> active_;  // per body: 1 where its step ends at the current tick
    DeviceBuffer<float4> predicted_;      // every body at the current tick
    DeviceBuffer<BlockCounters> counters_;
    PinnedBuffer<BlockCounters> host_;
};

}  // namespace nbody::cuda
