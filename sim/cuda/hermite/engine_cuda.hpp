#pragma once
// The cuda engine as tests and benchmarks see it beyond ForceEngine: what its kernels did, GPU by
// GPU (engine_cuda.cpp; make_force_engine gives the same engine as a ForceEngine).

#include <array>
#include <cstddef>
#include <memory>
#include <vector>

#include "hermite_kernels.hpp"
#include "nbody/sim/hermite/force_engine.hpp"

namespace nbody::hermite {

class CudaEngine : public ForceEngine {
public:
    // Warp-tiles of the ds kernel without extras by loop, as Partials::tile_loops counts them: [0] self
    // test, [1] any mass, [2] one mass, [3] far apart, any mass, [4] far apart, one mass.
    using TileLoops = std::array<unsigned long long, nbody::cuda::hermite::kDsTileLoops>;
    // On: from now on every GPU's kernel counts its tiles (from zero); off: no counting (the default;
    // an atomic add per warp-tile).
    virtual void count_tile_loops(bool on) = 0;
    // The counts since count_tile_loops(true), one entry per GPU in EngineConfig::devices' order.
    virtual std::vector<TileLoops> tile_loops() const = 0;
    // Force evaluations so far that ran on every GPU; the others ran on the first GPU alone
    // (EngineConfig::several_gpus_from).
    virtual std::size_t spread_evaluations() const = 0;
};

// On EngineConfig::devices (empty: the current GPU).
std::unique_ptr<CudaEngine> make_cuda_engine(const EngineConfig& config);

}  // namespace nbody::hermite
