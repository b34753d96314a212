#pragma once
// The one-GPU cuda engine as the multi-GPU engine drives it (engine_multi_gpu.cpp): a ForceEngine
// that also takes its share of a batch of j-particles from the whole batch (each GPU's share goes
// into its own page-locked buffer, the batch is not copied apart), and whose compute() comes in two
// halves, so that one thread keeps every GPU busy.

#include <cstddef>
#include <memory>
#include <span>

#include "nbody/sim/hermite/force_engine.hpp"

namespace nbody::hermite {

class CudaEngine : public ForceEngine {
public:
    // Stores ps[k] at local address addresses[k] / stride for every k with addresses[k] % stride ==
    // offset (distinct addresses); set_j_batch is (1, 0).
    virtual void set_j_every(std::span<const int> addresses, std::span<const JParticle> ps, std::size_t stride,
                             std::size_t offset) = 0;
    // compute() in two halves: launch() stages the batch (and the queued j-updates) and queues the
    // copies and kernels without waiting; finish() waits for them and writes `out` (in.size() long).
    // One thread launches on every GPU, then finishes on each: each GPU computes while the host
    // stages the next one's batch, and no GPU thread has to be woken per evaluation. `in` must stay
    // valid until finish().
    virtual void launch(double t, std::size_t nj, std::span<const IParticle> in, double eps2, bool neighbours) = 0;
    virtual void finish(std::span<IForce> out) = 0;
};

// On the current GPU (engine_cuda.cpp).
std::unique_ptr<CudaEngine> make_cuda_engine(const EngineConfig& config);

}  // namespace nbody::hermite
