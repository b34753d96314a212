#pragma once
// The one-GPU cuda engine as the multi-GPU engine drives it (engine_multi_gpu.cpp): a ForceEngine
// that also takes its share of a batch of j-particles from the whole batch, so that every GPU's
// share is written at once, each into its own page-locked buffer, without copying the batch apart.

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
};

// On the current GPU (engine_cuda.cpp).
std::unique_ptr<CudaEngine> make_cuda_engine(const EngineConfig& config);

}  // namespace nbody::hermite
