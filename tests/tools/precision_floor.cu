// The per-term floor of the fp32 interaction (docs/PRECISION.md, "The per-term floor"): Emax on
// Plummer spheres when every term is evaluated in fp32 as the kernels do but the terms are summed
// in double, so that no summation order enters. One column per way of taking m / r^3:
//   fp32 kernel   m rsqrt(r^2)^3, force_kernel.cu (MUFU.RSQ's error three times)
//   jbag/ds       m rsqrt(r^6), precision_kernels.cu (once)
//   exact 1/r^3   m / r^3 of the same float r^2 in double: what no rsqrt can beat
//   exact r^2     r^2 in double from the float separation: the separation's rounding alone
// and MUFU.RSQ's error over 4M random arguments. A developer tool run on the GPU machine by
// scripts/gpu-accuracy.sh; not a test (it asserts nothing).
//
//   nbody_precision_floor [N,N,...] [seeds]     defaults: 2048,4096,...,32768 and 1
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "nbody/sim/ic/plummer.hpp"

namespace {

constexpr int kForms = 4;
const char* const kFormNames[kForms] = {"fp32 kernel", "jbag/ds", "exact 1/r^3", "exact r^2"};

void check(cudaError_t e, const char* what) {
    if (e != cudaSuccess) {
        std::fprintf(stderr, "precision_floor: %s: %s\n", what, cudaGetErrorString(e));
        std::exit(1);
    }
}

// Built with --use_fast_math like the kernels: rsqrtf is MUFU.RSQ, the r^2 chain is FFMA.
__global__ void terms_in_double(const float4* pos, int n, float eps2, double* out) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const float4 pi = pos[i];
    double acc[kForms][3] = {};
    for (int j = 0; j < n; ++j) {
        const float4 pj = pos[j];
        const float dx = pj.x - pi.x, dy = pj.y - pi.y, dz = pj.z - pi.z;
        const float r2 = fmaf(dx, dx, fmaf(dy, dy, fmaf(dz, dz, eps2)));
        const float y = rsqrtf(r2);
        const double r2d = r2;
        const double r2x = double(dx) * dx + double(dy) * dy + double(dz) * dz + double(eps2);
        const double s[kForms] = {(pj.w * y) * (y * y), pj.w * rsqrtf((r2 * r2) * r2), pj.w / (r2d * sqrt(r2d)),
                                  pj.w / (r2x * sqrt(r2x))};
        for (int f = 0; f < kForms; ++f) {
            acc[f][0] += double(dx) * s[f];
            acc[f][1] += double(dy) * s[f];
            acc[f][2] += double(dz) * s[f];
        }
    }
    for (int f = 0; f < kForms; ++f)
        for (int c = 0; c < 3; ++c) out[(static_cast<size_t>(i) * kForms + f) * 3 + c] = acc[f][c];
}

__global__ void rsqrt_of(const float* x, int n, float* y) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = rsqrtf(x[i]);
}

std::vector<long> parse_list(const char* s) {
    std::vector<long> v;
    std::stringstream in(s);
    std::string item;
    while (std::getline(in, item, ',')) v.push_back(std::stol(item));
    return v;
}

}  // namespace

int main(int argc, char** argv) {
    const std::vector<long> sizes = argc > 1 ? parse_list(argv[1]) : std::vector<long>{2048, 4096, 8192, 16384, 32768};
    const int seeds = argc > 2 ? std::atoi(argv[2]) : 1;
    const float eps2 = 0.01f;  // Chamomile's test, as `nbody accuracy`

    {
        const int n = 1 << 22;
        std::vector<float> x(n), y(n);
        std::mt19937 g(3);
        std::uniform_real_distribution<double> u(std::log(0.01), std::log(100.0));
        for (float& v : x) v = static_cast<float>(std::exp(u(g)));
        float *dx = nullptr, *dy = nullptr;
        check(cudaMalloc(&dx, n * sizeof(float)), "cudaMalloc");
        check(cudaMalloc(&dy, n * sizeof(float)), "cudaMalloc");
        check(cudaMemcpy(dx, x.data(), n * sizeof(float), cudaMemcpyHostToDevice), "cudaMemcpy");
        rsqrt_of<<<(n + 255) / 256, 256>>>(dx, n, dy);
        check(cudaMemcpy(y.data(), dy, n * sizeof(float), cudaMemcpyDeviceToHost), "rsqrt kernel");
        double worst = 0, sq = 0, sum = 0;
        for (int i = 0; i < n; ++i) {
            const double exact = 1.0 / std::sqrt(static_cast<double>(x[i]));
            const double e = (y[i] - exact) / exact;
            worst = std::max(worst, std::fabs(e));
            sq += e * e;
            sum += e;
        }
        std::printf("MUFU.RSQ (rsqrtf) relative error over %d arguments in [0.01, 100): max %.3g (%.2f x 2^-24), rms %.3g, mean %.3g\n\n",
                    n, worst, worst / std::ldexp(1.0, -24), std::sqrt(sq / n), sum / n);
        cudaFree(dx);
        cudaFree(dy);
    }

    std::printf("Emax with the terms summed in double (Plummer, softening 0.1):\n%8s %5s", "N", "seed");
    for (const char* name : kFormNames) std::printf(" %13s", name);
    std::printf("\n");
    for (long n : sizes)
        for (int seed = 1; seed <= seeds; ++seed) {
            nbody::ic::PlummerParams pp;
            pp.bodies = static_cast<std::size_t>(n);
            pp.seed = static_cast<std::uint64_t>(seed);
            const nbody::State st = nbody::ic::make_plummer(pp);
            std::vector<float4> p(n);
            for (long i = 0; i < n; ++i)
                p[i] = make_float4(st.pos_mass[i].x, st.pos_mass[i].y, st.pos_mass[i].z, st.pos_mass[i].w);
            float4* dp = nullptr;
            double* dout = nullptr;
            check(cudaMalloc(&dp, n * sizeof(float4)), "cudaMalloc");
            check(cudaMalloc(&dout, n * kForms * 3 * sizeof(double)), "cudaMalloc");
            check(cudaMemcpy(dp, p.data(), n * sizeof(float4), cudaMemcpyHostToDevice), "cudaMemcpy");
            terms_in_double<<<(n + 127) / 128, 128>>>(dp, static_cast<int>(n), eps2, dout);
            std::vector<double> out(static_cast<size_t>(n) * kForms * 3);
            check(cudaMemcpy(out.data(), dout, out.size() * sizeof(double), cudaMemcpyDeviceToHost), "terms kernel");
            cudaFree(dp);
            cudaFree(dout);
            // The reference: the same float positions, everything in double.
            std::vector<double> emax(kForms, 0.0);
            for (long i = 0; i < n; ++i) {
                double ref[3] = {};
                for (long j = 0; j < n; ++j) {
                    const double dx = double(p[j].x) - p[i].x, dy = double(p[j].y) - p[i].y, dz = double(p[j].z) - p[i].z;
                    const double r2 = dx * dx + dy * dy + dz * dz + double(eps2);
                    const double s = p[j].w / (r2 * std::sqrt(r2));
                    ref[0] += s * dx, ref[1] += s * dy, ref[2] += s * dz;
                }
                const double norm = std::sqrt(ref[0] * ref[0] + ref[1] * ref[1] + ref[2] * ref[2]);
                for (int f = 0; f < kForms; ++f) {
                    const double* a = &out[(static_cast<size_t>(i) * kForms + f) * 3];
                    const double e = std::sqrt((a[0] - ref[0]) * (a[0] - ref[0]) + (a[1] - ref[1]) * (a[1] - ref[1]) +
                                               (a[2] - ref[2]) * (a[2] - ref[2])) / norm;
                    emax[f] = std::max(emax[f], e);
                }
            }
            std::printf("%8ld %5d", n, seed);
            for (double e : emax) std::printf(" %13.3g", e);
            std::printf("\n");
            std::fflush(stdout);
        }
    return 0;
}
