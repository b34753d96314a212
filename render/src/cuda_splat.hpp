#pragma once
// The CUDA deposit's driver function (cuda_splat.cu): plain pointers and sizes, no CUDA or GL
// types, so that cuda_splat_deposit.cpp reaches the kernels without nvcc.

#include <cstddef>
#include <cstdint>

#include "nbody/render/sprite_arithmetic.hpp"

namespace nbody::render {

struct SplatDepositArgs {
    const sprite::F4* positions = nullptr;  // x, y, z, mass per particle (the current buffer)
    const sprite::F4* previous = nullptr;   // the buffer before (colour by speed)
    const std::uint32_t* labels = nullptr;  // galaxy | component << 16
    std::uint32_t bodies = 0;
    std::uint32_t* light = nullptr;  // [plane][pixel] sums, splat.comp's Light
    std::size_t light_bytes = 0;
    std::uint32_t* saturated = nullptr;  // one bit per plane pixel
    std::size_t saturated_bytes = 0;
    std::uint32_t* large = nullptr;  // count, two words unused, then indices (splat_large.comp's list)
    sprite::SpriteUniforms sprite;
    sprite::SplatUniforms splat;
};

// Zeroes the sums and the list's count, then adds every particle's light (splat.comp), on
// `stream` (a cudaStream_t). Throws with the CUDA error on a failed launch.
void splat_deposit(const SplatDepositArgs& args, void* stream);

}  // namespace nbody::render
