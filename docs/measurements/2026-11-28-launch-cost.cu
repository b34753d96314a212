// One-off measurement (device run 194): what queueing a Hermite block's ~12 small launches costs a
// host thread when T threads each drive their own GPU in one process (as `--gpus T` does), against
// one thread a process (as mpirun ranks), and whether a CUDA graph of the same kernels, its
// arguments set per block (cudaGraphExecKernelNodeSetParams) or not at all, costs less.
// Build: nvcc -O2 -std=c++17 -arch=sm_90 -o launch-cost docs/measurements/2026-11-28-launch-cost.cu
// Run:   launch-cost THREADS MODE   (MODE: direct | graph-set | graph)
#include <cuda_runtime.h>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <thread>
#include <vector>

#define CK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { std::fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e)); std::exit(1); } } while (0)

__global__ void small(float* out, int n, float t) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = out[i] * 0.5f + t;
}

constexpr int kLaunches = 12, kBlocks = 3000, kWarm = 200;

double drive(int device, const char* mode) {
    CK(cudaSetDevice(device));
    cudaStream_t s;
    CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    float* buf;
    CK(cudaMalloc(&buf, sizeof(float) * 65536));
    CK(cudaMemset(buf, 0, sizeof(float) * 65536));
    const bool graph = mode[0] == 'g', set = graph && mode[5] == '-';
    cudaGraphExec_t exec = nullptr;
    std::vector<cudaGraphNode_t> nodes(kLaunches);
    if (graph) {
        cudaGraph_t g;
        CK(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal));
        for (int k = 0; k < kLaunches; ++k) small<<<32, 128, 0, s>>>(buf, 4096, float(k));
        CK(cudaStreamEndCapture(s, &g));
        size_t count = kLaunches;
        CK(cudaGraphGetNodes(g, nodes.data(), &count));
        CK(cudaGraphInstantiate(&exec, g, 0));
    }
    double seconds = 0;
    for (int b = 0; b < kWarm + kBlocks; ++b) {
        const auto t0 = std::chrono::steady_clock::now();
        const int n = 1024 + (b % 7) * 512, grid = (n + 127) / 128;
        if (!graph) {
            for (int k = 0; k < kLaunches; ++k) small<<<grid, 128, 0, s>>>(buf, n, float(b + k));
        } else {
            if (set)
                for (int k = 0; k < kLaunches; ++k) {
                    float t = float(b + k);
                    void* args[] = {&buf, const_cast<int*>(&n), &t};
                    cudaKernelNodeParams p{};
                    p.func = (void*)small, p.gridDim = dim3(grid), p.blockDim = dim3(128), p.kernelParams = args;
                    CK(cudaGraphExecKernelNodeSetParams(exec, nodes[k], &p));
                }
            CK(cudaGraphLaunch(exec, s));
        }
        const auto t1 = std::chrono::steady_clock::now();
        CK(cudaStreamSynchronize(s));
        if (b >= kWarm) seconds += std::chrono::duration<double>(t1 - t0).count();
    }
    return seconds / kBlocks * 1e6;
}

int main(int argc, char** argv) {
    if (argc != 3) { std::fprintf(stderr, "usage: launch-cost THREADS direct|graph-set|graph\n"); return 2; }
    const int threads = std::atoi(argv[1]);
    std::vector<double> us(threads);
    std::vector<std::thread> pool;
    for (int t = 0; t < threads; ++t) pool.emplace_back([&, t] { us[t] = drive(t, argv[2]); });
    for (auto& p : pool) p.join();
    std::printf("%d thread(s), %s: queueing %d launches a block takes", threads, argv[2], kLaunches);
    for (double u : us) std::printf(" %.1f", u);
    std::printf(" us\n");
}
