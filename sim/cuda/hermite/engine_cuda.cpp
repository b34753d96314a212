// The cuda force engine: j-memory on the GPU, updated in batches of the bodies the host
// corrected; per compute(): scatter the updates, predict every j-particle, force on the i-batch
// (j-split across blocks), reduce, copy back, all queued on one stream through page-locked
// buffers with a single wait at the end. See hermite_kernels.hpp.
//
// On several GPUs (EngineConfig::devices; Sapporo's multi-GPU scheme, Gaburov et al. 2009: the
// j-particles split over the GPUs, each computing the partial forces of the whole i-batch, the host
// adding them in double, in GPU order) the j-particles are split by slot: every GPU keeps a whole
// copy of the j-memory in the same slots (the same Morton order for large batches) and computes over
// its own contiguous range of them. So a batch's kernel ids are the same slots on every GPU and each
// GPU's kernel takes the far tiles and skips the self test as one GPU's does (split by address, a % P,
// a GPU's ids were not its slots, every near tile ran the self test and half of a large batch had no
// place in a GPU's order: docs/DISTRIBUTED.md). The host's side is one GPU's, done once: the
// j-updates and the i-batch are staged once in one page-locked buffer that every GPU copies up, the
// order is made once and applied on every GPU. Every GPU receives every j-update (the bytes one GPU
// receives), so that any GPU can compute over any range: small evaluations
// (EngineConfig::several_gpus_from) run on the first GPU alone. The nearest neighbour is the
// partials' smallest r^2, the lowest id on ties, so it does not depend on the split; neighbour lists
// are merged and sorted.

#include <cuda_runtime_api.h>

#include <algorithm>
#include <atomic>
#include <exception>
#include <thread>
#include <tuple>
#include <utility>
#include <chrono>
#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

#include "../../src/hermite/batch_order.hpp"
#include "../../src/hermite/parallel.hpp"
#include "../cuda_raii.hpp"
#include "../peer_meeting.hpp"
#include "engine_cuda.hpp"
#include "device_blocks.hpp"
#include "hermite_kernels.hpp"
#include "nbody/sim/comm/nccl_communicator.hpp"
#include "nbody/sim/hermite/force_engine.hpp"

namespace nbody::hermite {

namespace k = nbody::cuda::hermite;
using k::r4;
using k::Real4;
using nbody::cuda::DeviceBuffer;
using nbody::cuda::ScopedDevice;

int cuda_device_count() {
    int count = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess) {
        cudaGetLastError();
        return 0;
    }
    return count;
}

std::string cuda_device_model(int device) {
    cudaDeviceProp p{};
    CUDA_CHECK(cudaGetDeviceProperties(&p, device));
    return std::string(p.name) + ", " + std::to_string(p.multiProcessorCount) + " SMs, sm_" + std::to_string(p.major) +
           std::to_string(p.minor);
}

bool cuda_engine_available(std::string* why_not) {
    int count = 0;
    const cudaError_t err = cudaGetDeviceCount(&count);
    if (err != cudaSuccess) {
        if (why_not) *why_not = std::string("no usable CUDA device (") + cudaGetErrorString(err) + ")";
        cudaGetLastError();
        return false;
    }
    if (count == 0) {
        if (why_not) *why_not = "no CUDA device";
        return false;
    }
    return true;
}

namespace {

// Batches of this many active bodies or more take the ds kernel's far tiles, with the j-particles in
// Morton order and the batch sorted to match (docs/HERMITE.md, version 4): a warp's 64-128 bodies are
// then close together. The order is made again once the bodies have been updated kReorderAfter times
// over on average (reorder(): made on the first GPU, the host reads back 4 bytes a body; the profile's
// "spatial order: N reorders" row times it).
inline constexpr int kFarTilesFrom = 32768;
inline constexpr std::size_t kReorderAfter = 4;

// Seconds since `since`, added to `phase` and `since` moved to now (profiling only).
void lap(std::chrono::steady_clock::time_point& since, double& phase) {
    const auto now = std::chrono::steady_clock::now();
    phase += std::chrono::duration<double>(now - since).count();
    since = now;
}

// One GPU of the engine: a whole copy of the j-memory and the i-side buffers of its share. Made with
// its device current (its events belong to that device); whatever touches it makes it current.
struct Gpu {
    explicit Gpu(int d) : device(d) { CUDA_CHECK(cudaDeviceGetAttribute(&sm_count, cudaDevAttrMultiProcessorCount, device)); }

    int device;
    int sm_count = 1;
    DeviceBuffer<Real4> xm, vt, a2, j6, s24, c120, pos64, vel64, acc64;
    DeviceBuffer<float4> hi, lo, vel;
    // r: [acc | jerk | snap] of the i-batch, then the nearest indices (ints); r_stage its host side.
    DeviceBuffer<Real4> r, p_acc, p_jerk, p_snap;
    DeviceBuffer<Real4> sorted_in;  // a sorted batch's rows, then its results in the caller's order
    DeviceBuffer<int> p_nn, nb_count, nb_ids;
    nbody::cuda::PinnedBuffer<Real4> r_stage;
    DeviceBuffer<unsigned char> in_dev;           // the staged [JUpdate x n | the i-batch rows], see send()
    DeviceBuffer<unsigned long long> tile_loops;  // count_tile_loops
    // The spatial order (reorder()), kept between reorders and grown when needed: address -> slot as
    // the host's slot(), the order to apply, the slots it takes the j-particles from and a row to
    // permute through; on the first GPU, which makes the order, its keys and CUB's scratch.
    DeviceBuffer<int> slot_of, order, source;
    DeviceBuffer<Real4> permute_scratch;
    DeviceBuffer<unsigned char> order_scratch;
    std::size_t ni_capacity = 0;                  // i-bodies (padded) the i-side buffers hold
    bool reading_stage = false;                   // a copy from the engine's page-locked buffer may still run
    // Of the last launch: the slots [first, first + count) this GPU computes over, and its j-split.
    std::size_t first = 0, count = 0;
    int split = 1;
    nbody::cuda::Event gpu_start, gpu_stop;
    double wait_s = 0, busy_s = 0;  // the profile
    // Block steps on the GPU (step_blocks): per slot the jerk (w: the level) and the potential; the
    // batch's slots, its predicted [x | v] and staged corrector [x | v]; counters ([0] the batch's size,
    // [1] its first bad body, then the bodies per new level); the selection's scratch; the level steps.
    // The sharers' results of a spread evaluation (gather_results: the ranks', or this process's GPUs'
    // in block steps), between two events.
    DeviceBuffer<Real4> jerk_level, pot, batch_xv, staged, gathered, download;
    DeviceBuffer<int> slots, block_counters;
    nbody::cuda::PinnedBuffer<int> counters_host;  // block_counters read back each block
    DeviceBuffer<unsigned char> select_scratch;
    DeviceBuffer<double> level_dts;
    nbody::cuda::Event computed{cudaEventDisableTiming}, gathered_ready{cudaEventDisableTiming};
};

class CudaForceEngine final : public CudaEngine {
public:
    explicit CudaForceEngine(const EngineConfig& c) : config_(c) {
        if (c.precision == "ds")
            variant_.precision = k::Precision::Ds;
        else if (c.precision == "fp64")
            variant_.precision = k::Precision::Fp64;
        else
            throw std::invalid_argument("Hermite precision '" + c.precision + "' (supported: ds, fp64)");
        variant_.block = c.block;
        variant_.unroll = c.unroll;
        // Fails now, with the list, rather than at the first step; with bodies_per_thread 0 (chosen
        // per evaluation) the variants larger batches take are checked too.
        for (int ni : {1, k::kTwoBodiesPerThreadFrom, k::kFourBodiesPerThreadFrom}) {
            variant_.bodies_per_thread =
                k::bodies_per_thread_for(c.bodies_per_thread, variant_.precision, k::kNoExtras, ni, c.block);
            k::hermite_force(variant_, {}, 0, {}, 0, 0, 1, {}, {}, nullptr);
        }
        if (c.ranks > 1 && (c.devices.size() > 1 || c.rank < 0 || c.rank >= c.ranks))
            throw std::invalid_argument("cuda force engine: rank " + std::to_string(c.rank) + " of " +
                                        std::to_string(c.ranks) + " on " + std::to_string(c.devices.size()) +
                                        " GPUs (a rank's engine runs on one GPU)");
        std::vector<int> devices = c.devices;
        if (devices.empty()) {
            devices.push_back(0);
            CUDA_CHECK(cudaGetDevice(&devices.front()));
        }
        for (const int d : devices) {
            const ScopedDevice on(d);
            gpus_.push_back(std::make_unique<Gpu>(d));
        }
    }
    ~CudaForceEngine() override {
        // Each GPU's memory and events released with its own device current.
        int previous = 0;
        CUDA_CHECK_LOG(cudaGetDevice(&previous));
        if (ranks_) {  // on the rank's GPU, before the communicator (which waits for its stream)
            CUDA_CHECK_LOG(cudaSetDevice(gpus_.front()->device));
            gpus_.front()->gathered = DeviceBuffer<Real4>();
            ranks_.reset();
        }
        local_comms_.clear();  // each waits for its stream on its own device
        for (auto& gpu : gpus_) {
            CUDA_CHECK_LOG(cudaSetDevice(gpu->device));
            gpu.reset();
        }
        CUDA_CHECK_LOG(cudaSetDevice(previous));
    }

    std::string_view name() const override { return "cuda"; }

    void join_ranks(std::unique_ptr<comm::DeviceCommunicator> ranks) {
        if (!ranks || config_.ranks < 2 || ranks->size() != config_.ranks || ranks->rank() != config_.rank ||
            ranks->device() != gpus_.front()->device)
            throw std::invalid_argument("cuda force engine: the communicator does not match rank " +
                                        std::to_string(config_.rank) + " of " + std::to_string(config_.ranks) +
                                        " on GPU " + std::to_string(gpus_.front()->device));
        ranks_ = std::move(ranks);
    }

    void reserve(std::size_t n) override {
        if (n <= capacity_) return;
        flush();
        const std::size_t cap = std::max<std::size_t>(n, 1024);
        for (auto& gpu : gpus_) {
            const ScopedDevice on(gpu->device);
            for (DeviceBuffer<Real4>* a : j_arrays(*gpu)) *a = grown(*a, cap);
            gpu->hi = DeviceBuffer<float4>(cap), gpu->lo = DeviceBuffer<float4>(cap), gpu->vel = DeviceBuffer<float4>(cap);
            if (variant_.precision == k::Precision::Fp64) gpu->pos64 = DeviceBuffer<Real4>(cap), gpu->vel64 = DeviceBuffer<Real4>(cap);
            if (variant_.snap) gpu->acc64 = DeviceBuffer<Real4>(cap);
        }
        capacity_ = cap;
    }

    // The 6th order: the snap kernel is fp64 (docs/HERMITE.md), and the j-memory gains snap/24 and
    // crackle/120. Asked for before the first j-particle is stored (the integrator's constructor).
    void want_snap(bool on) override {
        if (on == variant_.snap) return;
        if (on && variant_.precision != k::Precision::Fp64)
            throw std::invalid_argument("the cuda engine computes the snap in fp64 only (precision is " + config_.precision +
                                        "): use --precision fp64");
        if (capacity_ > 0 || pending_ > 0)
            throw std::logic_error("cuda force engine: want_snap after j-particles were stored");
        variant_.snap = on;
    }

    void set_j(std::size_t address, const JParticle& p) override {
        const int a = int(address);
        set_j_batch(std::span<const int>(&a, 1), std::span<const JParticle>(&p, 1));
    }
    // Written straight into the page-locked buffer that the next compute() copies up to every GPU, in
    // parallel for large batches.
    void set_j_batch(std::span<const int> addresses, std::span<const JParticle> ps) override {
        if (addresses.empty()) return;
        const std::size_t last = std::size_t(*std::max_element(addresses.begin(), addresses.end()));
        if (last >= capacity_) reserve(std::max(last + 1, capacity_ + capacity_ / 2));
        if (id_is_address_.size() <= last) id_is_address_.resize(last + 1, 1);
        k::JUpdate* const at = append_updates(addresses.size());
        updates_since_order_ += addresses.size();
        std::atomic<std::ptrdiff_t> other_ids{0};
        parallel_for(
            addresses.size(),
            [&](std::size_t begin, std::size_t end) {
                std::ptrdiff_t others = 0;
                for (std::size_t q = begin; q < end; ++q) {
                    const std::size_t address = std::size_t(addresses[q]);
                    const JParticle& p = ps[q];
                    const char is_address = p.id == int(address);
                    others += std::ptrdiff_t(!is_address) - std::ptrdiff_t(!id_is_address_[address]);
                    id_is_address_[address] = is_address;
                    k::JUpdate& u = at[q];
                    u.address = (long long)slot(address);
                    u.xm = r4(p.x.x, p.x.y, p.x.z, p.mass);
                    u.vt = r4(p.v.x, p.v.y, p.v.z, p.t);
                    u.a2 = r4(p.a2.x, p.a2.y, p.a2.z, double(p.id));
                    u.j6 = r4(p.j6.x, p.j6.y, p.j6.z, 0);
                    u.s24 = r4(p.s24.x, p.s24.y, p.s24.z, 0);
                    u.c120 = r4(p.c120.x, p.c120.y, p.c120.z, 0);
                }
                other_ids += others;
            },
            host_threads_from());
        other_ids_ += other_ids.load();
    }
    std::size_t j_capacity() const override { return capacity_; }

    void compute(double t, std::size_t nj, std::span<const IParticle> in, double eps2, std::span<IForce> out,
                 bool want_neighbours) override {
        if (out.size() != in.size()) throw std::invalid_argument("cuda force engine: output size differs from input");
        launch(t, nj, in, eps2, want_neighbours);
        finish(out);
    }

    std::span<const int> neighbours(std::size_t i) const override {
        if (i >= lists_.size()) return {};
        return lists_[i];
    }
    bool neighbour_overflow(std::size_t i) const override { return i < overflow_.size() && overflow_[i]; }
    double interactions() const override { return interactions_; }
    void want_nearest(bool on) override { extras_ = on ? k::kNearest : k::kNoExtras; }

    void set_profiling(bool on) override { profiling_ = on; }
    // One GPU: the host's phases and the GPU's in the order of a compute(). Several: the same, each
    // GPU's wait and busy time apart, and the unpacking is the sum of the GPUs' partials.
    std::vector<PhaseTime> profile() const override {
        const bool several = gpus_.size() > 1;
        auto of_gpu = [&](const Gpu& gpu, const char* what) {
            return several ? "GPU " + std::to_string(gpu.device) + ": " + what : std::string(what);
        };
        std::vector<PhaseTime> out{{"spatial order: " + std::to_string(reorders_) + " reorders", phases_[kReorder]},
                                   {"spatial order: batch sort", phases_[kBatchSort]},
                                   {"buffers, GPU shares", phases_[kBuffers]},
                                   {"stage (j-updates, i-batch)", phases_[kStage]},
                                   {"queue (copies, kernels)", phases_[kQueue]}};
        for (const auto& gpu : gpus_) out.push_back({of_gpu(*gpu, "wait for the GPU"), gpu->wait_s});
        out.push_back({several ? "unpack and add the GPUs' results" : "unpack results", phases_[kUnpack]});
        for (const auto& gpu : gpus_) out.push_back({of_gpu(*gpu, "GPU busy (events; in the wait)"), gpu->busy_s});
        return out;
    }

    void count_tile_loops(bool on) override {
        counting_tiles_ = on;
        if (!on) return;
        for (auto& gpu : gpus_) {
            const ScopedDevice on_gpu(gpu->device);
            if (gpu->tile_loops.empty()) gpu->tile_loops = DeviceBuffer<unsigned long long>(k::kDsTileLoops);
            CUDA_CHECK(cudaMemset(gpu->tile_loops.get(), 0, gpu->tile_loops.bytes()));
        }
    }
    std::vector<TileLoops> tile_loops() const override {
        std::vector<TileLoops> out(gpus_.size(), TileLoops{});
        for (std::size_t g = 0; g < gpus_.size(); ++g) {
            if (gpus_[g]->tile_loops.empty()) continue;
            const ScopedDevice on(gpus_[g]->device);
            CUDA_CHECK(cudaMemcpy(out[g].data(), gpus_[g]->tile_loops.get(), gpus_[g]->tile_loops.bytes(), cudaMemcpyDeviceToHost));
        }
        return out;
    }
    std::size_t spread_evaluations() const override { return spread_evaluations_; }

    void join_local_gpus(std::vector<std::unique_ptr<comm::DeviceCommunicator>> comms) override {
        bool match = config_.ranks == 1 && comms.size() == gpus_.size() && gpus_.size() > 1;
        for (std::size_t g = 0; match && g < comms.size(); ++g)
            match = comms[g] && comms[g]->device() == gpus_[g]->device && comms[g]->rank() == int(g) &&
                    comms[g]->size() == int(gpus_.size());
        if (!match) throw std::invalid_argument("cuda force engine: the communicators do not match its GPUs, one each in order");
        local_comms_ = std::move(comms);
    }

    std::string device_blocks_unavailable() const override {
        if (variant_.snap) return "the 6th order's snap kernel takes its block steps on the host";
        if (variant_.precision != k::Precision::Ds) return "the fp64 kernel takes its block steps on the host (ds takes them on the GPU)";
        if (config_.ranks == 1 && gpus_.size() > 1 && local_comms_.empty())
            return "several GPUs without NCCL communicators between them take their block steps on the host";
        return {};
    }

    // The integrator's next blocks from its levels, each taken as Block below says, until one would
    // end after run.t_end, the pair budget is spent or a block fails its checks (take_blocks).
    void step_blocks(DeviceBlocks& run, const DeviceBlockState& state) override {
        if (const std::string why = device_blocks_unavailable(); !why.empty()) throw std::logic_error("cuda force engine: " + why);
        if (!lost_.empty()) throw std::runtime_error(lost_);
        const std::size_t n = state.x.size();
        const std::size_t levels = std::size_t(run.max_level) + 1;
        if (n == 0 || n > capacity_ || run.max_level > 62 || run.level_count.size() != levels || run.level_time.size() != levels)
            throw std::invalid_argument("cuda force engine: block steps of " + std::to_string(n) + " bodies on " +
                                        std::to_string(levels) + " levels with " + std::to_string(capacity_) + " stored");
        flush();
        extras_ = k::kNoExtras;  // block steps look for no neighbour
        upload_block_state(run, state, n);
        fit_every_block(n);
        take_blocks(run, n);
        download_block_state(state, n);
    }

private:
    // compute() in two halves: launch() stages the batch once and queues every GPU's copies and
    // kernels in turn (GPU g computes while the host queues GPU g + 1's); finish() waits for each
    // GPU and unpacks (several: adds) the results.
    void launch(double t, std::size_t nj, std::span<const IParticle> in, double eps2, bool want_neighbours) {
        if (!lost_.empty()) throw std::runtime_error(lost_);
        if (nj > capacity_) throw std::invalid_argument("cuda force engine: " + std::to_string(nj) + " j-particles asked for, " + std::to_string(capacity_) + " stored");
        const int ni = int(in.size());
        launched_ = {true, std::size_t(ni), nj, want_neighbours, 1};
        if (ni == 0) return;
        auto since = profiling_ ? std::chrono::steady_clock::now() : std::chrono::steady_clock::time_point();
        k::ForceVariant v = variant_;
        v.extras = want_neighbours ? (k::kNearest | k::kNeighbours) : extras_;
        if (v.extras != k::kNoExtras || v.snap) v.block = 128, v.unroll = 4;
        v.bodies_per_thread = k::bodies_per_thread_for(config_.bodies_per_thread, v.precision, v.extras, ni, v.block);
        v.far_tiles = v.precision == k::Precision::Ds && v.extras == k::kNoExtras && !v.snap && ni >= kFarTilesFrom;
        keep_order(nj, v.far_tiles);
        if (profiling_) lap(since, phases_[kReorder]);
        const std::span<const std::uint32_t> batch_order = v.far_tiles ? sort_batch(in) : std::span<const std::uint32_t>();
        if (profiling_) lap(since, phases_[kBatchSort]);
        // In Morton order a tile's ids are scattered, and the self test would run on every tile that is
        // not far: where every id is its address, the kernel sees slots instead (an i-body gets the slot
        // of its own j-particle; an id beyond nj gets -3, which no j-particle has). The slots are the
        // same on every GPU. Batches below kFarTilesFrom too, once the order is made (it stays for
        // them): with addresses for ids every tile of the order ran the self test, with slots a warp's
        // few dozen bodies fall in a tile's range of 128 slots on ~6-12 % of tiles at 128K. Not with the
        // extras, whose nearest neighbour is an id (and whose loop always tests).
        const bool slot_ids = v.precision == k::Precision::Ds && v.extras == k::kNoExtras && !v.snap && other_ids_ == 0;
        auto kernel_id = [&](int id) { return !slot_ids ? id : id >= 0 && std::size_t(id) < nj ? int(slot(std::size_t(id))) : -3; };
        const int ni_pad = (ni + v.block - 1) / v.block * v.block;
        const bool ranked = config_.ranks > 1;
        const std::size_t used = sharers_of(ni, nj);
        const std::size_t local = ranked ? 1 : used;  // this process's GPUs that compute
        if (used > 1) ++spread_evaluations_;
        for (std::size_t g = 0; g < local; ++g) fit_range(*gpus_[g], g, used, v, ni, nj);
        launched_.gpus = local;
        if (profiling_) lap(since, phases_[kBuffers]);

        // One stream per GPU, one wait: the corrected j-particles and the i-batch [x(ni) | v(ni) (|
        // a(ni))] go up in one copy from page-locked memory, the results come back in one copy ([acc(ni)
        // | jerk(ni) (| snap(ni))] and the nearest indices); the host waits once, at the end (a few
        // hundred active bodies take tens of microseconds on the GPU, so each copy's latency counted
        // as much as the kernel: device runs 21 and 39, docs/HERMITE.md).
        const std::size_t rows = i_rows();
        // A sorted batch goes up in the caller's order with its order (ints) after the rows, and is
        // gathered on the GPU; its results are scattered back there, so that the host reads and writes
        // the caller's bodies in order (sorting on the host would visit 256K-1M bodies at random).
        const std::size_t batch_bytes = sizeof(Real4) * rows * std::size_t(ni) + (v.far_tiles ? sizeof(int) * std::size_t(ni) : 0);
        const std::size_t batch_at = stage(batch_bytes, [&](unsigned char* at) {
            Real4* staged = reinterpret_cast<Real4*>(at);
            std::copy(batch_order.begin(), batch_order.end(), reinterpret_cast<int*>(staged + rows * std::size_t(ni)));
            parallel_for(
                std::size_t(ni),
                [&](std::size_t begin, std::size_t end) {
                    for (std::size_t i = begin; i < end; ++i) {
                        const IParticle& p = in[i];
                        staged[i] = r4(p.x.x, p.x.y, p.x.z, p.h2);
                        staged[std::size_t(ni) + i] = r4(p.v.x, p.v.y, p.v.z, double(kernel_id(p.id)));
                        if (v.snap) staged[2 * std::size_t(ni) + i] = r4(p.a.x, p.a.y, p.a.z, 0);
                    }
                },
                host_threads_from());
        });
        if (profiling_) lap(since, phases_[kStage]);
        for (std::size_t g = 0; g < gpus_.size(); ++g) {
            Gpu& gpu = *gpus_[g];
            const ScopedDevice on(gpu.device);
            if (g >= local) {  // the j-updates only: every GPU keeps every j-particle
                send(gpu, false);
                continue;
            }
            if (profiling_) gpu.gpu_start.record(nullptr);
            Real4* ixv = reinterpret_cast<Real4*>(send(gpu, true) + batch_at);
            const int* const sorted_from = v.far_tiles ? reinterpret_cast<const int*>(ixv + rows * std::size_t(ni)) : nullptr;
            if (v.far_tiles) {
                for (std::size_t r = 0; r < rows; ++r)
                    k::gather_real4(gpu.sorted_in.get() + r * std::size_t(ni), ixv + r * std::size_t(ni), sorted_from, ni, nullptr);
                ixv = gpu.sorted_in.get();
            }
            const k::IBatch batch{ixv, ixv + ni, v.snap ? ixv + 2 * ni : nullptr};
            queue_force(gpu, v, batch, ni, ni_pad, t, eps2, slot_ids, want_neighbours);
            if (v.far_tiles) {  // back to the caller's order (no nearest neighbours without extras: all -1)
                for (std::size_t r = 0; r < rows; ++r)
                    k::scatter_real4(gpu.sorted_in.get() + r * std::size_t(ni), gpu.r.get() + r * std::size_t(ni), sorted_from, ni, nullptr);
                CUDA_CHECK(cudaMemcpyAsync(gpu.r.get(), gpu.sorted_in.get(), sizeof(Real4) * rows * std::size_t(ni),
                                           cudaMemcpyDeviceToDevice, nullptr));
            }
            if (ranked && used > 1) gather_results(gpu, *ranks_, std::size_t(ni));
            CUDA_CHECK(cudaMemcpyAsync(gpu.r_stage.get(), gpu.r.get(), sizeof(Real4) * rows * std::size_t(ni) + sizeof(int) * std::size_t(ni),
                                       cudaMemcpyDeviceToHost, nullptr));
            if (profiling_) gpu.gpu_stop.record(nullptr);
        }
        if (profiling_) lap(since, phases_[kQueue]);
    }

    void finish(std::span<IForce> out) {
        if (!launched_.pending) throw std::logic_error("cuda force engine: finish() without launch()");
        launched_.pending = false;
        if (out.size() != launched_.ni) throw std::invalid_argument("cuda force engine: output size differs from input");
        const std::size_t ni = launched_.ni, used = launched_.gpus;
        const bool want_neighbours = launched_.neighbours;
        lists_.assign(want_neighbours ? ni : 0, {});
        overflow_.assign(want_neighbours ? ni : 0, 0);
        if (ni == 0) return;
        auto since = profiling_ ? std::chrono::steady_clock::now() : std::chrono::steady_clock::time_point();
        const std::size_t rows = i_rows();
        for (std::size_t g = 0; g < used; ++g) {
            Gpu& gpu = *gpus_[g];
            const ScopedDevice on(gpu.device);
            CUDA_CHECK(cudaStreamSynchronize(nullptr));
            gpu.reading_stage = false;
            if (profiling_) lap(since, gpu.wait_s), gpu.busy_s += 1e-3 * nbody::cuda::elapsed_ms(gpu.gpu_start, gpu.gpu_stop);
        }
        // Each body's results added over the GPUs in GPU order, in double; the nearest neighbour the
        // smallest r^2 over them, the lowest id on ties (one GPU: its results as they are; across
        // ranks the GPU has added them already, by the same rule: add_result_blocks).
        parallel_for(
            ni,
            [&](std::size_t begin, std::size_t end) {
                for (std::size_t i = begin; i < end; ++i) {
                    const Real4* const first = gpus_[0]->r_stage.get();
                    Real4 a = first[i], jn = first[ni + i], s = variant_.snap ? first[2 * ni + i] : r4(0, 0, 0, 0);
                    int nearest = reinterpret_cast<const int*>(first + rows * ni)[i];
                    double nearest_r2 = jn.w;
                    for (std::size_t g = 1; g < used; ++g)
                        k::add_result_part(a, jn, s, nearest, nearest_r2, gpus_[g]->r_stage.get(), ni, i, variant_.snap);
                    IForce& f = out[i];
                    f.acc = {a.x, a.y, a.z};
                    f.pot = a.w;
                    f.jerk = {jn.x, jn.y, jn.z};
                    f.nearest = nearest;
                    f.nearest_r2 = nearest >= 0 ? nearest_r2 : 0.0;
                    if (variant_.snap) f.snap = {s.x, s.y, s.z};
                }
            },
            host_threads_from());
        if (want_neighbours) collect_neighbours(ni, used);
        interactions_ += double(ni) * double(launched_.nj);
        if (profiling_) lap(since, phases_[kUnpack]);
    }

    // Each GPU's lists of the last evaluation, merged and sorted (the atomics fill them in any order),
    // cut at max_neighbours.
    void collect_neighbours(std::size_t ni, std::size_t used) {
        const std::size_t capacity = std::size_t(config_.max_neighbours);
        std::vector<int> counts(ni, 0), ids(ni * capacity, 0);
        for (std::size_t g = 0; g < used; ++g) {
            const Gpu& gpu = *gpus_[g];
            const ScopedDevice on(gpu.device);
            CUDA_CHECK(cudaMemcpy(counts.data(), gpu.nb_count.get(), sizeof(int) * counts.size(), cudaMemcpyDeviceToHost));
            CUDA_CHECK(cudaMemcpy(ids.data(), gpu.nb_ids.get(), sizeof(int) * ids.size(), cudaMemcpyDeviceToHost));
            for (std::size_t i = 0; i < ni; ++i) {
                const std::size_t c = std::min(std::size_t(counts[i]), capacity);
                overflow_[i] |= std::size_t(counts[i]) > capacity;
                const auto begin = ids.begin() + std::ptrdiff_t(i * capacity);
                lists_[i].insert(lists_[i].end(), begin, begin + std::ptrdiff_t(c));
            }
        }
        for (std::size_t i = 0; i < ni; ++i) {
            std::sort(lists_[i].begin(), lists_[i].end());
            if (lists_[i].size() > capacity) lists_[i].resize(capacity), overflow_[i] = 1;
        }
    }

    std::size_t slot(std::size_t address) const { return address < slot_of_.size() ? slot_of_[address] : address; }

    // The kernel reads slots 0 .. nj-1, so the order maps the first nj addresses onto them (a compute
    // over another nj makes it again); a batch with far tiles wants it spatial and fresh.
    void keep_order(std::size_t nj, bool spatial) {
        if (reorder_due({!slot_of_.empty(), ordered_nj_, updates_since_order_}, nj, spatial)) reorder(nj, spatial);
    }
    // Whether keep_order() makes the order again, from what it reads (block steps on a thread per GPU
    // keep a copy each): a new nj, or a spatial batch without an order or after kReorderAfter x nj updates.
    struct OrderState {
        bool ordered = false;
        std::size_t ordered_nj = 0, updates_since = 0;
    };
    static bool reorder_due(const OrderState& o, std::size_t nj, bool spatial) {
        return (o.ordered && nj != o.ordered_nj) || (spatial && (!o.ordered || o.updates_since >= kReorderAfter * nj));
    }

    // Moves the j-particles to Morton order of their last positions (spatial) or back to their
    // addresses, on every GPU; the updates still queued carry the old slots, so they go first. The
    // first GPU makes the order from its j-memory (every GPU's equals it: positions at each body's own
    // time) and the host reads it back, 4 bytes a body, for its slot maps: the one wait. The other
    // GPUs get the same bytes from the host rather than from the first GPU's memory: the host has
    // them anyway; a peer copy would spare one host-to-device copy of 4 bytes a body per GPU but need
    // an event between the GPUs to keep the first GPU's buffer until every copy of it is done.
    void reorder(std::size_t nj, bool spatial) {
        flush();
        ++reorders_;
        const std::size_t n = std::max(nj, ordered_nj_);
        if (n == 0) return;
        address_of_.resize(n);  // the whole order first (slot -> address), then its spatial part
        Gpu& first = *gpus_.front();
        {
            const ScopedDevice on(first.device);
            fit_order_buffers(first, n);
            const std::size_t scratch = k::morton_order_scratch_bytes(int(n));
            if (first.order_scratch.size() < scratch) first.order_scratch = DeviceBuffer<unsigned char>(scratch);
            k::morton_order_j(first.xm.get(), first.slot_of.get(), spatial ? int(nj) : 0, int(n), first.order.get(),
                              first.order_scratch.get(), first.order_scratch.size(), nullptr);
            CUDA_CHECK(cudaMemcpy(address_of_.data(), first.order.get(), sizeof(int) * n, cudaMemcpyDeviceToHost));
        }
        for (auto& gpu : gpus_) {
            const ScopedDevice on(gpu->device);
            fit_order_buffers(*gpu, n);
            // From pageable memory: staged before the call returns, so address_of_ may change after it.
            if (gpu != gpus_.front())
                CUDA_CHECK(cudaMemcpyAsync(gpu->order.get(), address_of_.data(), sizeof(int) * n, cudaMemcpyHostToDevice, nullptr));
            k::apply_order_j(j_memory(*gpu), gpu->order.get(), gpu->slot_of.get(), int(n), gpu->source.get(),
                             gpu->permute_scratch.get(), nullptr);
            if (gpu->jerk_level.size() >= n)  // block steps on the GPU: their per-slot state moves along
                k::permute_j({gpu->jerk_level.get(), gpu->pot.get(), nullptr, nullptr, nullptr, nullptr}, gpu->source.get(),
                             int(n), gpu->permute_scratch.get(), nullptr);
        }
        if (spatial) {
            slot_of_.resize(n);
            parallel_for(
                n,
                [&](std::size_t begin, std::size_t end) {
                    for (std::size_t s = begin; s < end; ++s) slot_of_[address_of_[s]] = std::uint32_t(s);
                },
                host_threads_from());
            address_of_.resize(nj), ordered_nj_ = nj;
        } else {
            slot_of_.clear(), address_of_.clear(), ordered_nj_ = 0;
        }
        updates_since_order_ = 0;
    }
    // `gpu`'s order buffers for n j-particles (its device current); the slot map keeps its entries and
    // maps the new ones to themselves.
    void fit_order_buffers(Gpu& gpu, std::size_t n) {
        if (gpu.slot_of.size() >= n) return;
        const std::size_t cap = std::max(n, capacity_);
        DeviceBuffer<int> slots(cap);
        if (!gpu.slot_of.empty()) CUDA_CHECK(cudaMemcpy(slots.get(), gpu.slot_of.get(), gpu.slot_of.bytes(), cudaMemcpyDeviceToDevice));
        k::identity_slots(slots.get(), int(gpu.slot_of.size()), int(cap), nullptr);
        gpu.slot_of = std::move(slots);
        gpu.order = DeviceBuffer<int>(cap), gpu.source = DeviceBuffer<int>(cap), gpu.permute_scratch = DeviceBuffer<Real4>(cap);
    }

    // The batch by the slot of the j-particle with each body's id (the integrator's ids are its
    // addresses; where a GRAPE-6 program numbers them otherwise, or repeats one, those bodies go last
    // in their order: the batch is less compact and fewer tiles go far, the results are the same).
    // Returns place -> index in the batch.
    std::span<const std::uint32_t> sort_batch(std::span<const IParticle> in) {
        bool every_address_in_order = in.size() == address_of_.size();
        for (std::size_t q = 0; q < in.size() && every_address_in_order; ++q) every_address_in_order = in[q].id == int(q);
        if (every_address_in_order) return address_of_;  // every body active, as the integrator lists them
        return batch_order_.order(in.size(), [&](std::size_t q) { return in[q].id; }, slot_of_, host_threads_from());
    }

    // Waits for every GPU whose copy from the page-locked buffer may still run (no wait since it was
    // queued), so that the buffer can be written.
    void wait_for_stage_readers() {
        for (auto& gpu : gpus_) {
            if (!gpu->reading_stage) continue;
            const ScopedDevice on(gpu->device);  // the caller's thread may have another GPU current
            CUDA_CHECK(cudaStreamSynchronize(nullptr));
            gpu->reading_stage = false;
        }
    }
    // Room for `count` more j-updates at the start of the page-locked buffer, after those queued.
    k::JUpdate* append_updates(std::size_t count) {
        wait_for_stage_readers();
        stage_room((pending_ + count) * sizeof(k::JUpdate));
        k::JUpdate* const at = reinterpret_cast<k::JUpdate*>(in_stage_.get()) + pending_;
        pending_ += count;
        return at;
    }
    // The page-locked buffer at least `bytes` long, the queued updates kept (each GPU's device twin
    // grows in send()).
    void stage_room(std::size_t bytes) {
        if (in_stage_.size() >= bytes) return;
        nbody::cuda::PinnedBuffer<unsigned char> grown(bytes * 2);
        std::copy_n(in_stage_.get(), pending_ * sizeof(k::JUpdate), grown.get());
        in_stage_ = std::move(grown);
    }

    // The queued j-updates, then `batch_bytes` that `fill_batch` writes after them, staged once for
    // every GPU (send() copies them up). Returns where the batch starts.
    template <class FillBatch>
    std::size_t stage(std::size_t batch_bytes, const FillBatch& fill_batch) {
        wait_for_stage_readers();
        const std::size_t update_bytes = (pending_ * sizeof(k::JUpdate) + sizeof(Real4) - 1) / sizeof(Real4) * sizeof(Real4);
        stage_room(update_bytes + batch_bytes);
        fill_batch(in_stage_.get() + update_bytes);
        staged_ = {pending_, update_bytes, update_bytes + batch_bytes};
        pending_ = 0;
        return update_bytes;
    }
    // On `gpu` (current): the staged updates, and the batch after them where `with_batch`, copied up
    // in one copy without waiting; the updates scattered into its j-memory. Returns the device address
    // of the staged bytes.
    unsigned char* send(Gpu& gpu, bool with_batch) {
        const std::size_t bytes = with_batch ? staged_.bytes : staged_.update_bytes;
        if (gpu.in_dev.size() < bytes) gpu.in_dev = DeviceBuffer<unsigned char>(in_stage_.size());
        if (bytes == 0) return gpu.in_dev.get();
        CUDA_CHECK(cudaMemcpyAsync(gpu.in_dev.get(), in_stage_.get(), bytes, cudaMemcpyHostToDevice, nullptr));
        gpu.reading_stage = true;
        k::scatter_j(j_memory(gpu), reinterpret_cast<const k::JUpdate*>(gpu.in_dev.get()), int(staged_.updates), nullptr);
        return gpu.in_dev.get();
    }
    // The queued j-updates into every GPU's j-memory now.
    void flush() {
        if (pending_ == 0) return;
        stage(0, [](unsigned char*) {});
        for (auto& gpu : gpus_) {
            const ScopedDevice on(gpu->device);
            send(*gpu, false);
        }
    }

    // The j-memory arrays (snap/24 and crackle/120 only for the 6th order), as the kernels see them.
    std::vector<DeviceBuffer<Real4>*> j_arrays(Gpu& gpu) const {
        std::vector<DeviceBuffer<Real4>*> a{&gpu.xm, &gpu.vt, &gpu.a2, &gpu.j6};
        if (variant_.snap) a.insert(a.end(), {&gpu.s24, &gpu.c120});
        return a;
    }
    k::JMemory j_memory(Gpu& gpu) const {
        return {gpu.xm.get(), gpu.vt.get(), gpu.a2.get(), gpu.j6.get(), variant_.snap ? gpu.s24.get() : nullptr,
                variant_.snap ? gpu.c120.get() : nullptr};
    }
    // The predicted j-particles from slot `first` on: a GPU's share as the force kernel reads it.
    static k::Predicted from_slot(k::Predicted p, std::size_t first) {
        for (float4** a : {&p.hi, &p.lo, &p.vel})
            if (*a != nullptr) *a += first;
        for (Real4** a : {&p.pos64, &p.vel64, &p.acc64})
            if (*a != nullptr) *a += first;
        return p;
    }
    // `old` copied into a zeroed buffer of `cap` elements (on the current device).
    static DeviceBuffer<Real4> grown(const DeviceBuffer<Real4>& old, std::size_t cap) {
        DeviceBuffer<Real4> b(cap);
        CUDA_CHECK(cudaMemset(b.get(), 0, b.bytes()));
        if (old.size() > 0) CUDA_CHECK(cudaMemcpy(b.get(), old.get(), old.bytes(), cudaMemcpyDeviceToDevice));
        return b;
    }
    // The sharers' results of a spread evaluation (gpu.r: rows, then the nearest indices) all-gathered
    // over `over` (the ranks under mpirun, this process's GPUs for block steps on the GPU) on its
    // stream, between two events on the engine's, and added there in sharer order, the
    // bits one process gets adding its GPUs' in finish(), into gpu.r: finish() then reads one block, as
    // for one GPU. A block is padded to whole Real4s (r has the room: ensure_i) so that every sharer's
    // rows start aligned. Adding on the host instead brought P blocks down a rank's PCIe link (four
    // ranks: 2.28x one GPU against --gpus 4's 2.80x at 512K, run 126).
    std::size_t result_block(std::size_t ni) const {
        return i_rows() * ni + (ni * sizeof(int) + sizeof(Real4) - 1) / sizeof(Real4);
    }
    void gather_results(Gpu& gpu, comm::DeviceCommunicator& over, std::size_t ni) {
        const std::size_t block = result_block(ni), parts = std::size_t(over.size());
        if (gpu.gathered.size() < block * parts) gpu.gathered = DeviceBuffer<Real4>(block * parts);
        const auto stream = static_cast<cudaStream_t>(over.stream());
        gpu.computed.record(nullptr);
        CUDA_CHECK(cudaStreamWaitEvent(stream, gpu.computed.get(), 0));
        const std::vector<std::size_t> counts(parts, block * sizeof(Real4));
        over.all_gather_v(gpu.r.get(), gpu.gathered.get(), counts, comm::DataType::Byte);
        gpu.gathered_ready.record(stream);
        CUDA_CHECK(cudaStreamWaitEvent(nullptr, gpu.gathered_ready.get(), 0));
        k::add_result_blocks(gpu.gathered.get(), over.size(), block, int(ni), int(i_rows()), gpu.r.get(), nullptr);
    }

    // The sharers of an evaluation of ni bodies on nj j-particles (1: one computes them all): this
    // process's GPUs, or under mpirun the ranks, of which this process is one, on its one GPU.
    std::size_t sharers_of(int ni, std::size_t nj) const {
        const bool ranked = config_.ranks > 1;
        if (ranked && !ranks_) throw std::logic_error("cuda force engine: rank " + std::to_string(config_.rank) + " without join_ranks()");
        const std::size_t sharers = ranked ? std::size_t(config_.ranks) : gpus_.size();
        return spread_evaluation(sharers, std::size_t(ni), nj, config_.several_gpus_from) ? sharers : 1;
    }
    // GPU g of the process: its range of the slots (its share's of `used` sharers: whole tiles where nj
    // allows, so that each GPU's tiles, and the kernel's loop for each warp and tile, are one GPU's; all
    // of them for one), j-split and i-side buffers.
    void fit_range(Gpu& gpu, std::size_t g, std::size_t used, const k::ForceVariant& v, int ni, std::size_t nj) {
        const ScopedDevice on(gpu.device);
        std::tie(gpu.first, gpu.count) = slot_range(g, used, v, nj);
        gpu.split = j_split(ni, gpu.count, v, gpu.sm_count);
        ensure_i(gpu, std::size_t((ni + v.block - 1) / v.block * v.block), std::size_t(gpu.split));
    }
    // GPU g's first slot and count of nj.
    std::pair<std::size_t, std::size_t> slot_range(std::size_t g, std::size_t used, const k::ForceVariant& v, std::size_t nj) const {
        const std::size_t tile = std::size_t(v.block);
        auto range_start = [&](std::size_t s) {
            const std::size_t at = nj * s / used;
            return s == used ? nj : nj >= used * tile ? at / tile * tile : at;
        };
        const std::size_t share = used == 1 ? 0 : config_.ranks > 1 ? std::size_t(config_.rank) : g;
        const std::size_t first = range_start(share);
        return {first, range_start(share + 1) - first};
    }
    int j_split(int ni, std::size_t count, const k::ForceVariant& v, int sm_count) const {
        return config_.j_split > 0 ? config_.j_split
                                   : k::choose_j_split(ni, int(count), v.block, sm_count, v.bodies_per_thread, v.far_tiles);
    }

    // On `gpu` (current): the j-particles of its range predicted to t, and the forces on `batch` from
    // them, reduced into gpu.r (the rows, then the nearest indices).
    void queue_force(Gpu& gpu, const k::ForceVariant& v, const k::IBatch& batch, int ni, int ni_pad, double t, double eps2,
                     bool slot_ids, bool want_neighbours) {
        const k::Predicted pred{gpu.hi.get(), gpu.lo.get(), gpu.vel.get(), gpu.pos64.get(), gpu.vel64.get(), gpu.acc64.get()};
        k::predict_j(j_memory(gpu), int(gpu.first + gpu.count), t, variant_.precision, pred, nullptr, slot_ids, int(gpu.first));
        k::NeighbourLists lists{gpu.nb_count.get(), gpu.nb_ids.get(), config_.max_neighbours};
        if (want_neighbours) CUDA_CHECK(cudaMemsetAsync(gpu.nb_count.get(), 0, sizeof(int) * std::size_t(ni), nullptr));
        k::Partials part{gpu.p_acc.get(), gpu.p_jerk.get(), gpu.p_nn.get(), v.snap ? gpu.p_snap.get() : nullptr};
        if (counting_tiles_) part.tile_loops = gpu.tile_loops.get();
        k::hermite_force(v, from_slot(pred, gpu.first), int(gpu.count), batch, ni, eps2, gpu.split, part, lists, nullptr);
        // The nearest indices follow the rows in r, so that one copy brings everything back.
        int* const nearest = reinterpret_cast<int*>(gpu.r.get() + i_rows() * std::size_t(ni));
        k::reduce_partials(part, ni, ni_pad, gpu.split,
                           {gpu.r.get(), gpu.r.get() + ni, nearest, v.snap ? gpu.r.get() + 2 * ni : nullptr}, nullptr);
    }

    // A block on the GPUs (step_blocks): the active bodies selected on each GPU (in the host batch's
    // order), predicted, their forces computed (spread over the GPUs or ranks as compute() would, then
    // gathered and added in the same order; otherwise every GPU computes them whole, the first GPU's
    // bits), corrected and, if every check passed, committed, on every GPU alike. The host reads each
    // GPU's counters, the one wait a block, and moves the levels by the first GPU's.
    struct Block {
        double t = 0;
        unsigned long long mask = 0;  // the active levels
        int ni = 0, ni_pad = 0;       // ni 0: no block (the run's end, its budget, or a failure)
        std::size_t nj = 0;           // every body
        k::ForceVariant variant;
        std::size_t sharers = 1;      // sharers_of
    };
    // The next block from the levels (ni 0: none), without touching the engine.
    Block decide_block(const DeviceBlocks& run, std::size_t nj) const {
        if (run.stopped) return {};
        const std::size_t levels = run.level_count.size();
        const double t_next = next_block_time(levels, [&run](std::size_t k) { return run.level_end(k); });
        if (!(t_next <= run.t_end) || (run.blocks > 0 && run.interactions >= run.pair_budget)) return {};
        std::size_t ni = 0;
        unsigned long long mask = 0;
        for (std::size_t k = 0; k < levels; ++k)
            if (run.level_end(k) == t_next) mask |= 1ull << k, ni += run.level_count[k];
        Block b = block_of(int(ni), nj);
        b.t = t_next, b.mask = mask;
        return b;
    }
    // A block of ni bodies on nj: its kernel variant and padding (ds, no extras, no snap:
    // device_blocks_unavailable).
    Block block_of(int ni, std::size_t nj) const {
        Block b;
        b.ni = ni, b.nj = nj;
        b.variant = variant_;
        b.variant.extras = k::kNoExtras;
        b.variant.bodies_per_thread = k::bodies_per_thread_for(config_.bodies_per_thread, b.variant.precision, k::kNoExtras, b.ni, b.variant.block);
        b.variant.far_tiles = b.ni >= kFarTilesFrom;
        b.ni_pad = (b.ni + b.variant.block - 1) / b.variant.block * b.variant.block;
        return b;
    }
    void fit_block_buffers(Gpu& gpu, std::size_t ni_pad) {
        if (gpu.slots.size() >= ni_pad) return;
        const ScopedDevice on(gpu.device);
        gpu.slots = DeviceBuffer<int>(ni_pad);
        gpu.batch_xv = DeviceBuffer<Real4>(2 * ni_pad), gpu.staged = DeviceBuffer<Real4>(2 * ni_pad);
    }
    // Every GPU's block buffers and partial sums sized for any block of up to nj bodies, before the
    // blocks: a block that allocated waited for its GPU (cudaFree) and, in the threads of one process,
    // for the other threads' allocations in the driver (device run 197: fitting the blocks took 70-80 ms
    // of a 0.68 s run at 128K on four GPUs in one process, 25 ms a rank, 9-12 ms on one GPU). The sizes
    // are the largest over every block size (scanned once per nj: ~2 nj / 128 evaluations of the split
    // rule); the fit of each block still grows them should one exceed that.
    void fit_every_block(std::size_t nj) {
        if (nj != partials_for_.nj) {
            partials_for_ = {nj, std::vector<std::size_t>(gpus_.size(), 0)};
            const int step = variant_.block;
            for (int pad = step; pad < int(nj) + step; pad += step)
                for (const int ni : {pad - step + 1, std::min(pad, int(nj))}) {
                    if (ni < 1 || ni > int(nj)) continue;
                    const Block b = block_of(ni, nj);
                    const std::size_t used = sharers_of(ni, nj);
                    for (std::size_t g = 0; g < gpus_.size(); ++g) {
                        const std::size_t count = slot_range(g, used, b.variant, nj).second;
                        const int split = j_split(ni, count, b.variant, gpus_[g]->sm_count);
                        partials_for_.most[g] = std::max(partials_for_.most[g], std::size_t(b.ni_pad) * std::size_t(split));
                    }
                }
        }
        const std::size_t most_pad = block_of(int(nj), nj).ni_pad;
        for (std::size_t g = 0; g < gpus_.size(); ++g) {
            Gpu& gpu = *gpus_[g];
            fit_block_buffers(gpu, std::size_t(most_pad));
            const ScopedDevice on(gpu.device);
            ensure_rows(gpu, std::size_t(most_pad));
            ensure_partials(gpu, partials_for_.most[g]);
        }
    }
    // On `gpu`: the block's bodies selected, predicted and their forces (this GPU's range of the slots).
    void queue_block(Gpu& gpu, const Block& b, const DeviceBlocks& run) {
        const ScopedDevice on(gpu.device);
        const k::BlockState state{gpu.jerk_level.get(), gpu.pot.get()};
        k::select_active(state, gpu.slot_of.get(), int(b.nj), b.mask,
                         b.variant.far_tiles, gpu.slots.get(), gpu.block_counters.get(), gpu.select_scratch.get(),
                         gpu.select_scratch.size(), nullptr);
        Real4* const x = gpu.batch_xv.get();
        k::predict_batch(j_memory(gpu), gpu.slots.get(), b.ni, b.t, x, x + b.ni, gpu.block_counters.get() + 1,
                         gpu.block_counters.get() + 2, int(run.level_count.size()), nullptr);
        queue_force(gpu, b.variant, {x, x + b.ni, nullptr}, b.ni, b.ni_pad, b.t, run.eps2, true, false);
    }
    // On `gpu`: the corrector, the commit unless a body failed, and its counters read back.
    void finish_block(Gpu& gpu, const Block& b, const DeviceBlocks& run) {
        const ScopedDevice on(gpu.device);
        const k::BlockState state{gpu.jerk_level.get(), gpu.pot.get()};
        const Real4* const x = gpu.batch_xv.get();
        const k::CorrectArgs args{b.t, run.eta, gpu.level_dts.get(), run.max_level};
        k::correct_batch(j_memory(gpu), state, gpu.slots.get(), b.ni, x, x + b.ni, gpu.r.get(), args, gpu.staged.get(),
                         gpu.block_counters.get() + 1, nullptr);
        k::commit_batch(j_memory(gpu), state, gpu.slots.get(), b.ni, gpu.r.get(), gpu.staged.get(), b.t,
                        gpu.block_counters.get() + 1, gpu.block_counters.get() + 2, nullptr);
        CUDA_CHECK(cudaMemcpyAsync(gpu.counters_host.get(), gpu.block_counters.get(), sizeof(int) * (run.level_count.size() + 2),
                                   cudaMemcpyDeviceToHost, nullptr));
        CUDA_CHECK(cudaStreamSynchronize(nullptr));
    }
    // The levels moved by `gpu`'s counts (every GPU's are the same); false where a body failed (nothing
    // committed: run.stopped). The engine's own count of interactions is the first GPU's to add to.
    bool account_block(DeviceBlocks& run, const Block& b, const Gpu& gpu, bool count) {
        const int* const counters = gpu.counters_host.get();
        if (counters[1] != k::kNoBadBody) {
            run.stopped = true;
            return false;
        }
        const int* const moved = counters + 2;
        for (std::size_t k = 0; k < run.level_count.size(); ++k)
            if ((b.mask >> k) & 1ull) run.level_count[k] = 0;
        for (std::size_t k = 0; k < run.level_count.size(); ++k)
            if (moved[k] > 0) run.level_count[k] += std::size_t(moved[k]), run.level_time[k] = b.t;
        run.now = b.t;
        ++run.blocks;
        run.body_steps += std::size_t(b.ni);
        run.interactions += double(b.ni) * double(b.nj);
        if (count) interactions_ += double(b.ni) * double(b.nj);
        return true;
    }
    // The blocks on this process's GPU, or on each of its GPUs driven by a thread of its own as an
    // mpirun rank drives its GPU (one thread queueing every GPU's ~12 calls a block took 170 us a
    // block more than four ranks on four H200s, run 181; a thread per GPU, 100 us more: runs 182-183,
    // most of it the blocks' allocations, made before them since run 199: fit_every_block). Every thread decides
    // the blocks from its own copy of the levels (the same decisions from the same counts), fits its
    // own GPU, gathers through its own communicator (NCCL: one thread per communicator), and moves
    // its levels by its own GPU's counts. They meet where the engine's order is made again (reorder()
    // touches every GPU and the host's slot maps: the first thread makes it while the others wait)
    // and before each spread evaluation's gather (a meeting a block cost nothing measurable, run 182),
    // so that a thread that fails (a refused allocation, a launch) never leaves the others in a gather
    // (peer_meeting.hpp).
    void take_blocks(DeviceBlocks& run, std::size_t nj) {
        const std::size_t gpus = gpus_.size();
        nbody::cuda::PeerMeeting meeting(static_cast<std::ptrdiff_t>(gpus));
        const OrderState order_at_start{!slot_of_.empty(), ordered_nj_, updates_since_order_};
        std::vector<std::exception_ptr> failed(gpus);
        auto drive = [&](std::size_t g) {
            DeviceBlocks copy;
            DeviceBlocks& mine = g == 0 ? run : copy;
            if (g > 0) copy = run;
            OrderState order = order_at_start;
            Gpu& gpu = *gpus_[g];
            int spread_blocks = 0;
            nbody::cuda::take_part(meeting, failed[g], [&] {
                for (Block b = decide_block(mine, nj); b.ni > 0; b = decide_block(mine, nj)) {
                    if (reorder_due(order, nj, b.variant.far_tiles)) {
                        if (!meeting.meet()) break;
                        if (g == 0) keep_order(nj, b.variant.far_tiles);
                        if (!meeting.meet()) break;
                        const bool spatial = b.variant.far_tiles;  // what keep_order's reorder leaves
                        order = {spatial, spatial ? nj : 0, 0};
                    }
                    order.updates_since += std::size_t(b.ni);
                    if (g == 0) updates_since_order_ += std::size_t(b.ni);
                    b.sharers = sharers_of(b.ni, nj);
                    if (g == 0 && b.sharers > 1) ++spread_evaluations_;
                    fit_range(gpu, g, b.sharers, b.variant, b.ni, nj);
                    fit_block_buffers(gpu, std::size_t(b.ni_pad));
                    queue_block(gpu, b, mine);
                    if (b.sharers > 1) {
                        fail_if_injected(g, ++spread_blocks);
                        if (!meeting.meet()) break;
                        const ScopedDevice on(gpu.device);
                        gather_results(gpu, config_.ranks > 1 ? *ranks_ : *local_comms_[g], std::size_t(b.ni));
                    }
                    finish_block(gpu, b, mine);
                    if (!account_block(mine, b, gpu, g == 0)) break;
                }
            });
        };
        std::vector<std::thread> threads;
        for (std::size_t g = 1; g < gpus; ++g) threads.emplace_back(drive, g);
        drive(0);
        for (std::thread& t : threads) t.join();
        for (std::size_t g = 0; g < gpus; ++g)
            if (failed[g]) lose_gpu_state(g, failed[g]);
    }
    // A GPU's thread failed in take_blocks: the GPUs may have taken blocks the host never saw (and
    // not all the same ones), so the engine takes no more work; the integrator keeps the state it had
    // before the call. Throws the cause, naming the GPU.
    [[noreturn]] void lose_gpu_state(std::size_t g, const std::exception_ptr& failure) {
        const std::string cause = nbody::cuda::what_of(failure);
        const std::string where = "GPU " + std::to_string(g) + " (device " + std::to_string(gpus_[g]->device) + ")";
        lost_ = "cuda force engine: the block steps on the GPUs stopped when " + where + " failed (" + cause +
                "); the run keeps the state before those steps, and this engine takes no more (start the run again)";
        throw std::runtime_error("cuda force engine: " + where + " failed in a block step: " + cause);
    }
    // EngineConfig::fault_for_tests: GPU g's thread fails before its k-th spread evaluation's meeting.
    void fail_if_injected(std::size_t g, int spread_block) const {
        const EngineConfig::InjectedFault& f = config_.fault_for_tests;
        if (f.gpu == int(g) && f.spread_block == spread_block)
            throw std::runtime_error("an injected failure before spread evaluation " + std::to_string(spread_block));
    }
    // Every GPU's block-step buffers, its per-slot jerks, levels and potentials from the integrator's (by
    // address: scattered to the slots on the GPU) and the level steps. The j-memory holds the rest.
    void upload_block_state(const DeviceBlocks& run, const DeviceBlockState& state, std::size_t n) {
        const std::size_t counters = std::size_t(run.max_level) + 3;
        if (block_io_.size() < 5 * n) block_io_ = nbody::cuda::PinnedBuffer<Real4>(5 * capacity_);
        Real4* const up = block_io_.get();
        parallel_for(
            n,
            [&](std::size_t begin, std::size_t end) {
                for (std::size_t a = begin; a < end; ++a) {
                    up[a] = r4(state.jerk[a].x, state.jerk[a].y, state.jerk[a].z, double(state.level[a]));
                    up[n + a] = r4(state.pot[a], 0, 0, 0);  // a body no block steps keeps its own
                }
            },
            host_threads_from());
        for (auto& gpu_ptr : gpus_) {
            Gpu& gpu = *gpu_ptr;
            const ScopedDevice on(gpu.device);
            fit_order_buffers(gpu, n);
            if (gpu.jerk_level.size() < capacity_) gpu.jerk_level = DeviceBuffer<Real4>(capacity_), gpu.pot = DeviceBuffer<Real4>(capacity_);
            if (gpu.block_counters.size() < counters)
                gpu.block_counters = DeviceBuffer<int>(counters), gpu.counters_host = nbody::cuda::PinnedBuffer<int>(counters);
            if (gpu.level_dts.size() < counters - 1) gpu.level_dts = DeviceBuffer<double>(counters - 1);
            CUDA_CHECK(cudaMemcpy(gpu.level_dts.get(), run.level_dts, sizeof(double) * (counters - 1), cudaMemcpyHostToDevice));
            const std::size_t scratch = k::select_scratch_bytes(int(n));
            if (gpu.select_scratch.size() < scratch) gpu.select_scratch = DeviceBuffer<unsigned char>(scratch);
            for (Real4* to : {gpu.jerk_level.get(), gpu.pot.get()}) {  // through the scratch row, one at a time
                CUDA_CHECK(cudaMemcpyAsync(gpu.permute_scratch.get(), to == gpu.pot.get() ? up + n : up, sizeof(Real4) * n,
                                           cudaMemcpyHostToDevice, nullptr));
                k::scatter_real4(to, gpu.permute_scratch.get(), gpu.slot_of.get(), int(n), nullptr);
            }
        }
    }
    // The state the blocks changed, by address, from the first GPU (every GPU holds the same).
    void download_block_state(const DeviceBlockState& state, std::size_t n) {
        for (auto& gpu : gpus_) {
            const ScopedDevice on(gpu->device);
            CUDA_CHECK(cudaStreamSynchronize(nullptr));
        }
        Gpu& first = *gpus_.front();
        const ScopedDevice on(first.device);
        if (first.download.size() < 5 * n) first.download = DeviceBuffer<Real4>(5 * capacity_);
        const Real4* const rows[] = {first.xm.get(), first.vt.get(), first.a2.get(), first.jerk_level.get(), first.pot.get()};
        for (std::size_t r = 0; r < 5; ++r) k::gather_real4(first.download.get() + r * n, rows[r], first.slot_of.get(), int(n), nullptr);
        CUDA_CHECK(cudaMemcpyAsync(block_io_.get(), first.download.get(), sizeof(Real4) * 5 * n, cudaMemcpyDeviceToHost, nullptr));
        CUDA_CHECK(cudaStreamSynchronize(nullptr));
        const Real4* const xm = block_io_.get();
        const Real4 *const vt = xm + n, *const a2 = xm + 2 * n, *const jl = xm + 3 * n, *const pot = xm + 4 * n;
        parallel_for(
            n,
            [&](std::size_t begin, std::size_t end) {
                for (std::size_t a = begin; a < end; ++a) {
                    state.x[a] = {xm[a].x, xm[a].y, xm[a].z};
                    state.v[a] = {vt[a].x, vt[a].y, vt[a].z};
                    state.t[a] = vt[a].w;
                    state.a[a] = Vec3d{a2[a].x, a2[a].y, a2[a].z} * 2.0;  // a / 2 is exact
                    state.jerk[a] = {jl[a].x, jl[a].y, jl[a].z};
                    state.level[a] = int(jl[a].w);
                    state.pot[a] = pot[a].x;
                }
            },
            host_threads_from());
    }

    // Rows of the i-side buffers per i-body: x and v in, acc and jerk out; the 6th order's third row
    // is the predicted a in and the snap out.
    std::size_t i_rows() const { return variant_.snap ? 3 : 2; }
    // `gpu`'s i-side buffers for ni_pad bodies and a j-split of `split` (its device current).
    void ensure_i(Gpu& gpu, std::size_t ni_pad, std::size_t split) {
        ensure_rows(gpu, ni_pad);
        ensure_partials(gpu, ni_pad * split);
    }
    void ensure_rows(Gpu& gpu, std::size_t ni_pad) {
        if (gpu.ni_capacity < ni_pad) {
            const std::size_t rows = i_rows();
            // r: the rows, then the nearest indices (ni ints: ni / 8 more Real4, rounded up).
            const std::size_t r_size = rows * ni_pad + (ni_pad * sizeof(int) + sizeof(Real4) - 1) / sizeof(Real4);
            gpu.r = DeviceBuffer<Real4>(r_size), gpu.r_stage = nbody::cuda::PinnedBuffer<Real4>(r_size);
            gpu.nb_count = DeviceBuffer<int>(ni_pad);
            gpu.sorted_in = DeviceBuffer<Real4>(rows * ni_pad);
            gpu.nb_ids = DeviceBuffer<int>(ni_pad * std::size_t(config_.max_neighbours));
            gpu.ni_capacity = ni_pad;
        }
    }
    void ensure_partials(Gpu& gpu, std::size_t entries) {
        if (gpu.p_acc.size() < entries) {
            gpu.p_acc = DeviceBuffer<Real4>(entries), gpu.p_jerk = DeviceBuffer<Real4>(entries);
            gpu.p_nn = DeviceBuffer<int>(entries);
            if (variant_.snap) gpu.p_snap = DeviceBuffer<Real4>(entries);
        }
    }

    EngineConfig config_;
    k::ForceVariant variant_;
    int extras_ = k::kNearest;
    std::vector<std::unique_ptr<Gpu>> gpus_;  // gpus_[g] on config_.devices[g] (or the current GPU)
    std::size_t capacity_ = 0;                // j-particles every GPU holds room for
    std::size_t pending_ = 0;                 // j-updates queued at the start of in_stage_
    // The page-locked buffer of every GPU's copies up: [JUpdate x pending | the i-batch rows].
    nbody::cuda::PinnedBuffer<unsigned char> in_stage_;
    struct Staged {
        std::size_t updates = 0, update_bytes = 0, bytes = 0;
    } staged_;  // what stage() last put in in_stage_
    // The j-particles in Morton order (kFarTilesFrom): slot_of_[address] for the first ordered_nj_
    // addresses, the address itself beyond them and while slot_of_ is empty; address_of_ its inverse;
    // batch_order_ a sorted batch that is not every address in order (place -> body).
    std::vector<std::uint32_t> slot_of_, address_of_;
    BatchOrder batch_order_;
    std::vector<char> id_is_address_;  // by address: set_j gave the j-particle its address as id
    std::ptrdiff_t other_ids_ = 0;     // j-particles whose id is not their address
    std::size_t ordered_nj_ = 0, updates_since_order_ = 0;
    std::vector<std::vector<int>> lists_;
    std::vector<char> overflow_;
    double interactions_ = 0;
    std::size_t spread_evaluations_ = 0;
    bool counting_tiles_ = false;
    // The profile (set_profiling): host seconds by phase of compute() (each GPU's wait and busy time
    // in its Gpu).
    enum { kReorder, kBatchSort, kBuffers, kStage, kQueue, kUnpack, kPhases };
    bool profiling_ = false;
    double phases_[kPhases] = {};
    std::size_t reorders_ = 0;  // reorder() calls, profiled or not
    struct Launched {
        bool pending = false;  // launch() queued work that finish() has not collected
        std::size_t ni = 0, nj = 0;
        bool neighbours = false;
        std::size_t gpus = 1;  // the GPUs it runs on: the first `gpus`
    } launched_;

    // Across ranks (EngineConfig::rank/ranks, join_ranks): the ranks' results of a spread evaluation
    // are all-gathered on the GPUs over `ranks_` and added there (gather_ranks).
    std::unique_ptr<comm::DeviceCommunicator> ranks_;
    // Block steps on the GPU: NCCL communicators between this process's GPUs (join_local_gpus), and the
    // page-locked counters read each block, their reset values, and the state's way up and down.
    std::vector<std::unique_ptr<comm::DeviceCommunicator>> local_comms_;
    std::string lost_;  // why the GPUs' state no longer matches the host's (lose_gpu_state): no more work
    struct PartialsFor {
        std::size_t nj = 0;
        std::vector<std::size_t> most;  // per GPU: the most partial sums a block of up to nj bodies asks
    } partials_for_;  // fit_every_block
    nbody::cuda::PinnedBuffer<Real4> block_io_;
};

}  // namespace

std::unique_ptr<CudaEngine> make_cuda_engine(const EngineConfig& config) { return std::make_unique<CudaForceEngine>(config); }

std::unique_ptr<ForceEngine> make_cuda_force_engine(const EngineConfig& config) { return make_cuda_engine(config); }

std::unique_ptr<ForceEngine> make_cuda_engine_across_ranks(const EngineConfig& config,
                                                           std::unique_ptr<comm::DeviceCommunicator> ranks) {
    auto engine = std::make_unique<CudaForceEngine>(config);
    engine->join_ranks(std::move(ranks));
    return engine;
}

}  // namespace nbody::hermite
