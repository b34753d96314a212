// splat_clear.comp and splat.comp as CUDA kernels (`--sprites cuda`, issue 33): on a GPU the
// simulation's CUDA work and GL's come from two contexts that the GPU time-slices, so GL compute
// passes beside the tree walk halved its steps/s; kernels in the process's CUDA context run on
// SMs beside the walk instead. The sums are the same integers splat.comp adds
// (sprite_arithmetic.hpp says how the two copies of the arithmetic are kept to the same bits);
// splat_large.comp and splat_resolve.comp then read them in GL as before.
//
// Built with --fmad=false (render/CMakeLists.txt): GLSL's precise values are never fused either.

#include <cuda_runtime.h>

#include "../../sim/cuda/cuda_check.hpp"
#include "cuda_splat.hpp"

namespace nbody::render {

namespace {

using sprite::SplatUniforms;

// 128 threads held to 64 registers (__launch_bounds__ below: 8 blocks an SM), 8,192 registers a
// block: beside a tree walk with one block per SM left free (WalkRoom::Kind::Block, 16,384
// registers; gpu_tree.cu's walk_blocks has the arithmetic) at least two blocks fit on every SM,
// three at the 40 registers ptxas gives it on sm_90. The sums are integers, so the block size
// changes no bit of them.
constexpr int kBlock = 128;
constexpr int kMinBlocksPerSm = 8;

__device__ void add_light(const SplatUniforms& u, std::uint32_t* light, std::uint32_t* saturated, int plane, int x,
                          int y, float amount, std::uint32_t dither) {
    if (amount <= 0.0f || x < 0 || y < 0 || x >= u.width || y >= u.height) return;
    const std::uint32_t add = sprite::light_units(amount, u.units, dither);
    if (add == 0u) return;
    const std::uint32_t at = std::uint32_t(plane) * std::uint32_t(u.width * u.height) + std::uint32_t(y * u.width + x);
    const std::uint32_t before = atomicAdd(light + at, add);
    if (before > 0xffffffffu - add) atomicOr(saturated + (at >> 5), 1u << (at & 31u));  // wrapped
}

// splat.comp's add_to_layer: bilinear weights into the four pixels around the centre.
__device__ void add_to_layer(const SplatUniforms& u, std::uint32_t* light, std::uint32_t* saturated, int layer,
                             const sprite::Deposit& d, float share, std::uint32_t dither) {
    const float cx = floorf(d.centre_x - 0.5f), cy = floorf(d.centre_y - 0.5f);
    const float fx = d.centre_x - 0.5f - cx, fy = d.centre_y - 0.5f - cy;
    const int px = int(cx), py = int(cy);
    const float w[4] = {(1.0f - fx) * (1.0f - fy) * share, fx * (1.0f - fy) * share, (1.0f - fx) * fy * share,
                        fx * fy * share};
    const float total[3] = {d.total.x, d.total.y, d.total.z};
    for (int c = 0; c < 3; ++c) {
        const int plane = layer * 3 + c;
        add_light(u, light, saturated, plane, px, py, total[c] * w[0], dither);
        add_light(u, light, saturated, plane, px + 1, py, total[c] * w[1], dither >> 4);
        add_light(u, light, saturated, plane, px, py + 1, total[c] * w[2], dither >> 8);
        add_light(u, light, saturated, plane, px + 1, py + 1, total[c] * w[3], dither >> 12);
    }
}

__global__ void __launch_bounds__(kBlock, kMinBlocksPerSm) deposit_kernel(const SplatDepositArgs a) {
    const std::uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= a.bodies) return;
    const sprite::Sprite s = sprite::particle_sprite(a.sprite, a.positions[i], a.previous[i], a.labels[i], i);
    const SplatUniforms& u = a.splat;
    const sprite::Deposit d = sprite::plan_deposit(s, u, i);
    if (!d.drawn) return;
    float level = d.level;
    if (d.large) {
        const std::uint32_t slot = atomicAdd(a.large, 1u);
        if (slot < u.large_capacity) {
            a.large[3 + slot] = i;
            return;
        }
        level = float(u.layers - 1);  // the list is full: the widest layer is the nearest look
    }
    const int below = min(max(int(floorf(level)), 0), u.layers - 1);
    const float up = sprite::clampf(level - float(below), 0.0f, 1.0f);
    add_to_layer(u, a.light, a.saturated, below, d, 1.0f - up, d.dither);
    if (up > 0.0f && below + 1 < u.layers) add_to_layer(u, a.light, a.saturated, below + 1, d, up, d.dither >> 16);
}

}  // namespace

void splat_deposit(const SplatDepositArgs& args, void* stream) {
    const auto s = static_cast<cudaStream_t>(stream);
    // Memsets are kernels on the SMs too: GL's glClearNamedBufferData was the ~4 ms that
    // splat_clear.comp replaced (device runs 98-99); here the runtime's own fill does it.
    CUDA_CHECK(cudaMemsetAsync(args.light, 0, args.light_bytes, s));
    CUDA_CHECK(cudaMemsetAsync(args.saturated, 0, args.saturated_bytes, s));
    CUDA_CHECK(cudaMemsetAsync(args.large, 0, sizeof(std::uint32_t), s));
    if (args.bodies == 0) return;
    const unsigned blocks = (args.bodies + kBlock - 1) / kBlock;
    deposit_kernel<<<blocks, kBlock, 0, s>>>(args);
    CUDA_CHECK_LAUNCH();
}

}  // namespace nbody::render
