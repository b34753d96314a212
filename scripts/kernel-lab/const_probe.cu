// Kernel lab probe (issue 17, run 81): is the every-pair loop faster when the j-bodies come from
// constant memory, where ptxas reads them with ULDC.64 into uniform registers and the differences
// become FADD R, UR (one register-file operand instead of two), than from a shared-memory tile
// (LDS.128, as the product does)? Both kernels run the product's interact_unrolled (unit masses,
// rotated tile) over the same 4096 j-bodies `reps` times, one block of 1024 threads per SM, no
// barrier inside the timed loop: a clean A/B of the loop alone, not a force kernel.
//   nvcc ... -DPROBE_U=8 -DPROBE_B=4 const_probe.cu; ./const_probe
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "lab_check.h"

#include "force_interaction.cuh"

#ifndef PROBE_U
#define PROBE_U 8
#endif
#ifndef PROBE_B
#define PROBE_B 4
#endif
constexpr int kJ = 4096;  // 64 KiB of float4: the whole user constant bank
constexpr int kThreads = 1024;

__constant__ float4 const_j[kJ];


template <bool FromConstant>
__global__ void __launch_bounds__(kThreads, 1) probe(const float4* pos, const float4* tile_j, float4* out, int reps,
                                                      float eps2, int nj) {
    extern __shared__ float4 shared_j[];
    const int t = threadIdx.x;
    float3 xi[PROBE_B], ai[PROBE_B];
#pragma unroll
    for (int b = 0; b < PROBE_B; ++b) {
        const float4 p = pos[(blockIdx.x * PROBE_B + b) * kThreads + t];
        xi[b] = make_float3(p.x, p.y, p.z);
        ai[b] = make_float3(0.0f, 0.0f, 0.0f);
    }
    if (!FromConstant) {
        for (int j = t; j < kJ; j += kThreads) shared_j[j] = tile_j[j];
        __syncthreads();
    }
    for (int r = 0; r < reps; ++r) {
        if (FromConstant) {
            // Indexed by the loop counter itself (ptxas keeps it uniform and reads with ULDC.64 into
            // uniform registers); through a pointer, as interact_unrolled takes the tile, it used
            // LDC.64 into vector registers instead (seen in the cubin here).
            for (int k = 0; k < nj; k += PROBE_U) {
#pragma unroll
                for (int u = 0; u < PROBE_U; ++u) {
                    const float4& pj = const_j[k + u];
#pragma unroll
                    for (int b = 0; b < PROBE_B; ++b)
                        nbody::cuda::detail::accumulate<true, true>(xi[b], pj, eps2, ai[b]);
                }
            }
        } else {
            nbody::cuda::detail::interact_unrolled<PROBE_U, 1, PROBE_B, true, true>(shared_j, nj, xi, ai, eps2);
        }
    }
#pragma unroll
    for (int b = 0; b < PROBE_B; ++b)
        out[(blockIdx.x * PROBE_B + b) * kThreads + t] = make_float4(ai[b].x, ai[b].y, ai[b].z, 0.0f);
}

template <bool FromConstant>
double run(int sms, int reps, const float4* pos, const float4* tile_j, float4* out, std::vector<float4>& host_out) {
    const size_t smem = FromConstant ? 0 : kJ * sizeof(float4);
    CK(cudaFuncSetAttribute(probe<FromConstant>, cudaFuncAttributeMaxDynamicSharedMemorySize, int(smem)));
    probe<FromConstant><<<sms, kThreads, smem>>>(pos, tile_j, out, 1, 1e-4f, kJ);
    CK(cudaGetLastError());
    cudaEvent_t e0, e1;
    CK(cudaEventCreate(&e0));
    CK(cudaEventCreate(&e1));
    float best = 1e30f;
    for (int k = 0; k < 5; ++k) {
        CK(cudaEventRecord(e0));
        probe<FromConstant><<<sms, kThreads, smem>>>(pos, tile_j, out, reps, 1e-4f, kJ);
        CK(cudaEventRecord(e1));
        CK(cudaEventSynchronize(e1));
        float ms = 0;
        CK(cudaEventElapsedTime(&ms, e0, e1));
        best = std::min(best, ms);
    }
    cudaFuncAttributes attr{};
    CK(cudaFuncGetAttributes(&attr, probe<FromConstant>));
    host_out.resize(size_t(sms) * PROBE_B * kThreads);
    CK(cudaMemcpy(host_out.data(), out, host_out.size() * sizeof(float4), cudaMemcpyDeviceToHost));
    const double rate = double(sms) * PROBE_B * kThreads * kJ * reps / (best * 1e-3);
    std::printf("U%-2d B%d %-8s regs %2d  %8.3f ms  %.4e interactions/s\n", PROBE_U, PROBE_B,
                FromConstant ? "constant" : "shared", attr.numRegs, best, rate);
    return rate;
}

int main() {
    int sms = 0;
    CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    const size_t ni = size_t(sms) * PROBE_B * kThreads;
    std::vector<float4> pos(ni), tile(kJ);
    srand(7);
    auto u = [] { return float(rand()) / RAND_MAX * 2.0f - 1.0f; };
    for (auto& p : pos) p = make_float4(u(), u(), u(), 1.0f);
    for (auto& p : tile) p = make_float4(1.0f, u(), u(), u());  // rotated: (m, x, y, z)
    float4 *d_pos, *d_tile, *d_out;
    CK(cudaMalloc(&d_pos, ni * sizeof(float4)));
    CK(cudaMalloc(&d_tile, kJ * sizeof(float4)));
    CK(cudaMalloc(&d_out, ni * sizeof(float4)));
    CK(cudaMemcpy(d_pos, pos.data(), ni * sizeof(float4), cudaMemcpyHostToDevice));
    CK(cudaMemcpy(d_tile, tile.data(), kJ * sizeof(float4), cudaMemcpyHostToDevice));
    CK(cudaMemcpyToSymbol(const_j, tile.data(), kJ * sizeof(float4)));
    std::vector<float4> a, b;
    const int reps = 16;
    const double shared_rate = run<false>(sms, reps, d_pos, d_tile, d_out, a);
    const double const_rate = run<true>(sms, reps, d_pos, d_tile, d_out, b);
    double worst = 0;  // the two must agree: the same sums in the same order
    for (size_t k = 0; k < a.size(); ++k)
        worst = std::max(worst, double(std::abs(a[k].x - b[k].x) + std::abs(a[k].y - b[k].y) + std::abs(a[k].z - b[k].z)));
    std::printf("U%-2d B%d constant / shared %.4f   max |difference| %.1e\n", PROBE_U, PROBE_B, const_rate / shared_rate,
                worst);
    return 0;
}
