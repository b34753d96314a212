// Block time steps on the GPU; block_steps.hpp has the outline. Cost per tick at N bodies: the
// predict and finish kernels are one pass over N float4s each (~50 MB at 1M, a few tens of
// microseconds on an H100), the force pass builds the whole tree (box, keys, sort, moments: ~0.6 ms
// at 1M) and walks the active bodies' groups; the host waits once per tick for ~140 bytes.

#include "block_steps.hpp"

#include <stdexcept>
#include <string>

#include "../cuda_check.hpp"
#include "../leapfrog_step.cuh"
#include "gpu_tree.hpp"

namespace nbody::cuda {
namespace {

constexpr int kBlock = 256;  // >= 32: a block's first threads fill the per-level tables

// Real(0.5 dt_i) of BlockStepper::half_kick, as float: at level 0 it is float(0.5 dt_max), the shared
// step's half_dt.
__device__ __forceinline__ float half_step(const BlockSchedule& sched, int level, double tick_dt) {
    return static_cast<float>(0.5 * double(sched.step_ticks(level)) * tick_dt);
}

using detail::drifted;
using detail::kicked;

// A block's level changes and clamped choices, gathered in shared memory: one atomic per level used.
struct BlockTally {
    int level[32];
};

__device__ __forceinline__ void clear_tally(BlockTally& t) {
    if (threadIdx.x < 32) t.level[threadIdx.x] = 0;
    __syncthreads();
}

// Every thread of the block calls this (it holds a barrier).
__device__ __forceinline__ void flush_tally(BlockTally& t, bool clamped, BlockCounters* counters) {
    const int clamped_here = __syncthreads_count(clamped);  // also orders the tally's atomics
    if (threadIdx.x < 32 && t.level[threadIdx.x] != 0)
        atomicAdd(&counters->level[threadIdx.x], static_cast<unsigned>(t.level[threadIdx.x]));  // modulo 2^32: -1 too
    if (threadIdx.x == 0 && clamped_here > 0)
        atomicAdd(&counters->clamped, static_cast<unsigned long long>(clamped_here));
}

struct Criterion {
    double eta, eps, dt_max;
};

// The step's start: every level is free. Each body takes the level its acceleration asks for
// (BlockSchedule::wanted_level) and that level's opening half kick; the bodies per level counted.
__global__ void start_kernel(const float4* acc, float4* vel, unsigned char* level, int n, BlockSchedule sched,
                             double tick_dt, Criterion c, BlockCounters* counters) {
    __shared__ BlockTally tally;
    clear_tally(tally);
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    bool clamped = false;
    if (i < n) {
        const float4 a = acc[i];
        const int k = sched.wanted_level(acceleration_norm(a.x, a.y, a.z), c.eps, c.eta, c.dt_max, &clamped);
        level[i] = static_cast<unsigned char>(k);
        vel[i] = kicked(vel[i], a, half_step(sched, k, tick_dt));
        atomicAdd(&tally.level[k], 1);
    }
    flush_tally(tally, clamped, counters);
}

// Every body predicted at `tick` from its step's start, x + v (t - t0) with its half-step velocity
// (BlockStepper::predict_and_list); the bodies whose step ends there flagged and moved (their drift).
__global__ void predict_kernel(float4* pos, const float4* vel, const unsigned char* level, float4* predicted,
                               unsigned char* active, int n, BlockSchedule sched, unsigned long long tick,
                               double tick_dt) {
    // The drift since a step's start depends on the level alone: one float per level, as the host's.
    __shared__ float drift[32];
    __shared__ bool ends[32];
    if (threadIdx.x <= unsigned(sched.max_level())) {
        const int k = static_cast<int>(threadIdx.x);
        drift[k] = static_cast<float>(double(tick - sched.step_start(k, tick)) * tick_dt);
        ends[k] = sched.boundary(k, tick);
    }
    __syncthreads();
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const int k = level[i];
    const float d = drift[k];
    const float4 p = drifted(pos[i], vel[i], d);
    predicted[i] = p;
    active[i] = ends[k] ? 1 : 0;
    if (ends[k]) pos[i] = p;
}

// The due bodies' closing half kick with the level of the step that ends; before the last tick of
// dt_max also their next level (finer at once, coarser where that level's step starts here) and its
// opening half kick (BlockStepper::step).
__global__ void finish_kernel(const float4* acc, float4* vel, unsigned char* level, const unsigned char* active,
                              int n, BlockSchedule sched, unsigned long long tick, bool last, double tick_dt,
                              Criterion c, BlockCounters* counters) {
    __shared__ BlockTally tally;
    clear_tally(tally);
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    bool clamped = false;
    if (i < n && active[i] != 0) {
        const float4 a = acc[i];
        const int old = level[i];
        float4 v = kicked(vel[i], a, half_step(sched, old, tick_dt));
        if (!last) {
            const int wanted = sched.wanted_level(acceleration_norm(a.x, a.y, a.z), c.eps, c.eta, c.dt_max, &clamped);
            const int k = sched.next_level(old, wanted, tick);
            if (k != old) {
                level[i] = static_cast<unsigned char>(k);
                atomicAdd(&tally.level[old], -1);
                atomicAdd(&tally.level[k], 1);
            }
            v = kicked(v, a, half_step(sched, k, tick_dt));
        }
        vel[i] = v;
    }
    flush_tally(tally, clamped, counters);
}

}  // namespace

void GpuBlockStepper::reserve(int n, cudaStream_t stream) {
    if (counters_.empty()) {
        counters_ = DeviceBuffer<BlockCounters>(1);
        host_ = PinnedBuffer<BlockCounters>(1);
        CUDA_CHECK(cudaMemsetAsync(counters_.get(), 0, sizeof(BlockCounters), stream));
    }
    if (n <= int(level_.size())) {
        n_ = n;
        return;
    }
    CUDA_CHECK(cudaStreamSynchronize(stream));  // the old buffers may be in use by queued work
    level_ = DeviceBuffer<unsigned char>(n);
    active_ = DeviceBuffer<unsigned char>(n);
    predicted_ = DeviceBuffer<float4>(n);
    n_ = n;
}

void GpuBlockStepper::read_counters(cudaStream_t stream) {
    CUDA_CHECK(cudaMemcpyAsync(host_.get(), counters_.get(), sizeof(BlockCounters), cudaMemcpyDeviceToHost, stream));
    CUDA_CHECK(cudaStreamSynchronize(stream));
}

void GpuBlockStepper::step(const BlockStepArgs& a, GpuTree& tree, ForceWork& work, cudaStream_t stream) {
    if (std::string reason = check_time_step_config(a.config); !reason.empty())
        throw std::invalid_argument("time steps refused: " + reason);
    if (a.n < 1) return;
    reserve(a.n, stream);
    const BlockSchedule sched(a.config.max_level);
    const double tick_dt = a.dt_max / double(sched.ticks_per_step());
    const Criterion c{a.config.eta, a.softening, a.dt_max};
    // The shared step's eps2 (CudaBackend::Impl::force), so that level 0 is that step.
    const float eps2 = static_cast<float>(a.softening * a.softening);
    const int grid = (a.n + kBlock - 1) / kBlock;
    const int levels = sched.max_level() + 1;

    CUDA_CHECK(cudaMemsetAsync(counters_.get(), 0, sizeof(BlockCounters::level), stream));  // clamped runs on
    start_kernel<<<grid, kBlock, 0, stream>>>(a.acc, a.vel, level_.get(), a.n, sched, tick_dt, c, counters_.get());
    CUDA_CHECK_LAUNCH();
    read_counters(stream);
    work.level_counts.assign(host_.get()->level, host_.get()->level + levels);  // the levels this step starts with

    const std::uint64_t end = sched.ticks_per_step();
    for (std::uint64_t tick = 0; tick < end;) {
        tick = sched.next_event(tick, host_.get()->level);
        if (tick > end) throw std::logic_error("block steps: no level holds a body");  // n >= 1: unreachable
        long long due = 0;
        for (int k = 0; k < levels; ++k)
            if (sched.boundary(k, tick)) due += host_.get()->level[k];
        predict_kernel<<<grid, kBlock, 0, stream>>>(a.pos, a.vel, level_.get(), predicted_.get(), active_.get(), a.n,
                                                    sched, tick, tick_dt);
        CUDA_CHECK_LAUNCH();
        tree.force_active(predicted_.get(), a.n, active_.get(), static_cast<int>(due), eps2, a.tree, a.unroll, a.acc,
                          stream);
        work.evaluations += static_cast<std::uint64_t>(due);
        work.passes += 1;
        const bool last = tick == end;  // every level ends a step here: all synchronised
        finish_kernel<<<grid, kBlock, 0, stream>>>(a.acc, a.vel, level_.get(), active_.get(), a.n, sched, tick, last,
                                                   tick_dt, c, counters_.get());
        CUDA_CHECK_LAUNCH();
        if (last) break;
        read_counters(stream);  // the levels after this tick's choices give the next tick
        tree.check_errors();    // this pass's flags are on the host after that wait: no extra one
    }
}

std::vector<std::uint8_t> GpuBlockStepper::levels(cudaStream_t stream) const {
    std::vector<std::uint8_t> out(static_cast<std::size_t>(n_));
    if (n_ == 0) return out;
    CUDA_CHECK(cudaMemcpyAsync(out.data(), level_.get(), out.size(), cudaMemcpyDeviceToHost, stream));
    CUDA_CHECK(cudaStreamSynchronize(stream));
    return out;
}

std::uint64_t GpuBlockStepper::clamped(cudaStream_t stream) const {
    if (counters_.empty()) return 0;
    unsigned long long value = 0;
    CUDA_CHECK(cudaMemcpyAsync(&value, &counters_.get()->clamped, sizeof value, cudaMemcpyDeviceToHost, stream));
    CUDA_CHECK(cudaStreamSynchronize(stream));
    return value;
}

void GpuBlockStepper::reset(cudaStream_t stream) {
    if (!counters_.empty()) CUDA_CHECK(cudaMemsetAsync(counters_.get(), 0, sizeof(BlockCounters), stream));
    n_ = 0;
}

}  // namespace nbody::cuda
