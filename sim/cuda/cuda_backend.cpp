#include "nbody/sim/cuda_backend.hpp"

#include <cuda_runtime_api.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <functional>
#include <limits>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "cuda_check.hpp"
#include "cuda_probe.hpp"
#include "cuda_raii.hpp"
#include "finite_check.hpp"
#include "nbody/sim/comm/nccl_communicator.hpp"
#include "force_kernel.hpp"
#include "gpu_workers.hpp"
#include "peer_gate.hpp"
#include "peer_meeting.hpp"
#include "precision_state.hpp"
#include "share_start.cuh"
#include "symmetric_kernel.hpp"
#include "tree/block_steps.hpp"
#include "tree/gpu_tree.hpp"

namespace nbody {
namespace {

using cuda::DeviceBuffer;
using cuda::Event;
using cuda::PinnedBuffer;

static_assert(sizeof(Vec4f) == sizeof(float4) && alignof(Vec4f) == alignof(float4),
              "host Vec4f and device float4 must share one layout");

// Below this the self-interaction m / eps^3 of the kernel (which sums over every j including i)
// approaches float overflow, and eps^2 below FLT_MIN is flushed to 0 under --use_fast_math: both
// turn the self term 0 * m/eps^3 into NaN.
constexpr double kMinSoftening = 1e-10;
// Bodies are indexed with int on the device; this keeps every index and n + block in range.
constexpr std::size_t kMaxBodies = std::size_t(1) << 30;

cuda::ForceVariant variant_of(const KernelConfig& c) { return {c.unroll, c.threads_per_body, c.bodies_per_thread}; }

cuda::PrecisionVariant precision_variant_of(const KernelConfig& c) {
    return cuda::precision_variant_of(c.precision, c.unroll, c.threads_per_body, c.bodies_per_thread);
}

cuda::SymmetricVariant symmetric_variant_of(const KernelConfig& c) {
    return {c.pair_mode == PairMode::SymmetricBoundingBox ? cuda::SymmetricMap::BoundingBox : cuda::SymmetricMap::Lambda,
            c.bodies_per_lane};
}

int fp32_lanes_per_sm(int major, int minor) {
    switch (major) {
        case 6: return minor == 0 ? 64 : 128;  // P100 / consumer Pascal
        case 7: return 64;                     // Volta, Turing
        case 8: return minor == 0 ? 64 : 128;  // A100 / consumer Ampere, Ada
        case 9: return 128;                    // Hopper
        case 10:
        case 11:
        case 12: return 128;  // Blackwell
        default: return 0;
    }
}

// Step calls between two rebalancings of the GPUs' shares, and the calls after a rank posts its
// share time at which every rank reads the gathered times (the gather long done by then).
constexpr long long kRebalanceEvery = 16;
constexpr long long kRebalanceLag = 8;

// Block time steps walk the due bodies' groups on one GPU (tree/block_steps.hpp); the one message
// wherever several GPUs meet them (set_time_steps, use_gpus, join_ranks, a step).
std::string block_steps_on_gpus_refusal(int gpus) {
    return "block time steps run on one GPU (this backend would share its force passes among " +
           std::to_string(gpus) + " GPUs); use --timesteps shared, or one GPU";
}

void validate_params(const StepParams& p) {
    if (!(p.dt > 0) || !std::isfinite(p.dt))
        throw std::invalid_argument("time step dt must be a finite number > 0 (got " + std::to_string(p.dt) + ")");
    if (!(p.softening >= kMinSoftening) || !std::isfinite(p.softening))
        throw std::invalid_argument(
            "the cuda backend needs softening > 0 (at least 1e-10; got " + std::to_string(p.softening) +
            "): its kernel sums over every pair including a body with itself, a term that is 0 only "
            "when r^2 + eps^2 > 0");
}

}  // namespace

struct CudaBackend::Impl {
    struct TimedPass {
        Event start, mid, stop;  // mid: this GPU's share computed, before the sum over GPUs
        double width = 1;        // the share of the pass's work this GPU computed
        bool pending = false;    // recorded, elapsed time not read yet
    };
    // Passes the host may queue ahead of the GPU and have every one timed (the viewer keeps two
    // frames in flight); further ahead, passes are timed as slots come free.
    static constexpr int kTimedPasses = 4;

    int device = 0;
    CudaDeviceInfo info;
    cuda::Stream stream;  // declared before the buffers: destroyed after them
    KernelConfig config;
    GravityConfig gravity;  // Tree: the force pass is the tree code's (tree/gpu_tree.hpp)
    cuda::GpuTree tree;
    TimeStepConfig time_steps;     // Block: step() takes steps of dt_max with tree/block_steps.hpp
    cuda::GpuBlockStepper block;
    // Since load(): passes and evaluations counted here, the levels of the last block step's start;
    // the tree terms and clamped level choices are summed on the device (force_work() reads them).
    ForceWork work;

    std::size_t n = 0;
    std::vector<float> masses;      // of the loaded system (steps never change them)
    cuda::TileMasses tile_masses;   // the full kernel's uniform-mass tiles for masses and config.block
    cuda::TileMasses symmetric_tile_masses;  // the symmetric kernel's, for its tile of 32 x bodies_per_lane
    DeviceBuffer<float4> pos[2];  // ping-pong; pos[cur] holds the current positions
    int cur = 0;
    DeviceBuffer<float4> vel;
    DeviceBuffer<float4> acc;  // a(current positions) when acc_valid, for softening acc_softening
    cuda::ForceWorkspace force_workspace;  // scratch of the full kernel's balanced split (force_kernel.hpp)
    bool acc_valid = false;
    double acc_softening = 0;
    // ds / fp64: the digits beyond the float4 buffers (precision_state.hpp says how they follow them).
    cuda::PrecisionState precise;
    cuda::FiniteCheck finite_check;  // the NaN/Inf guard's reduction scratch
    // After step_device() the current positions live in the caller's buffer, not in pos[cur].
    bool positions_external = false;
    double time = 0;
    std::size_t bytes_to_host = 0;

    // Event sets used in turn: recording a pass never waits for an earlier one to finish.
    TimedPass timing[kTimedPasses];
    int latest = -1;
    double last_ms = 0;
    double last_share_ms = 0;     // of last_ms, this GPU's share of the pass (all of it on one GPU)
    double last_share_width = 1;  // the share of the work that last_share_ms was spent on

    // Several GPUs (docs/DISTRIBUTED.md): every GPU holds the whole system and integrates it; each
    // force pass is split into shares, one per rank, made whole on every GPU by one collective.
    std::unique_ptr<comm::DeviceCommunicator> comm;  // null: one GPU
    std::vector<double> bounds{0.0, 1.0};  // rank r's share: [bounds[r], bounds[r + 1]) of the work
    // Every rank's figures at the last rebalancing: its share's time, the width of the share that
    // time was spent on, its other work's time (kShareFigures, below).
    struct RankFigures {
        double share_ms = 0, timed_width = 0, other_ms = 0;
    };
    std::vector<RankFigures> rank_figures;
    std::vector<std::unique_ptr<CudaBackend>> peers;  // the other GPUs of this process (on the first)
    std::unique_ptr<cuda::GpuWorkers> workers;        // a thread per peer, kept (with peers)
    Event handoff{cudaEventDisableTiming}, summed{cudaEventDisableTiming};
    // The GPUs of one process (`--gpus`): the collective waits for every GPU's share (peer_gate.hpp).
    std::shared_ptr<const cuda::PeerGate> gate;
    std::uint32_t gate_pass = 0;
    // ... and their host threads meet before each collective (peer_meeting.hpp), so that one that
    // fails stops the others before it: set by for_every_gpu for the length of a call.
    cuda::PeerMeeting* meeting = nullptr;
    long long collectives_queued = 0;
    long long fail_before_collective = 0;  // CudaBackend::fail_for_tests
    // On the first GPU: why the GPUs' states parted (a call failed on some of them); until the next
    // load() every call on them says so.
    std::string parted;
    long long step_calls = 0;
    // The ranks' share times cross between the GPUs without the host waiting for them: a host
    // all-gather waits for the collective queued behind the step in flight, and that wait drained
    // the viewer's frames in flight every 16th frame (device run 107, two H100s: 1.3 ms a frame
    // of launch time at 1M, 9.5 ms at 16M).
    // kShareFigures floats a rank: its share's time, the width that time was spent on (a pass the
    // GPU timed may be older than the last move of the bounds), its other work's time.
    static constexpr std::size_t kShareFigures = 3;
    struct ShareTimes {
        PinnedBuffer<float> host;    // [kShareFigures rank ...]: this rank's when posted; every rank's once `ready`
        DeviceBuffer<float> device;  // [kShareFigures ranks]
        Event ready{cudaEventDisableTiming};
        bool posted = false;
    } share_times;
    std::atomic<float> other_work_ms{0.0f};

    int ranks() const { return comm ? comm->size() : 1; }
    int rank() const { return comm ? comm->rank() : 0; }
    std::size_t slice_begin(int r) const { return cuda::share_start(n, bounds[std::size_t(r)]); }
    std::size_t slice_count(int r) const { return cuda::share_start(n, bounds[std::size_t(r) + 1]) - slice_begin(r); }

    void use_device() const { CUDA_CHECK(cudaSetDevice(device)); }

    void require_loaded(const char* what) const {
        if (n == 0) throw std::logic_error(std::string("CudaBackend::") + what + "() called before load()");
    }
    void require_own_positions(const char* what) const {
        if (positions_external)
            throw std::logic_error(std::string("CudaBackend::") + what +
                                   "(): the current positions are in the buffer last passed to step_device(); "
                                   "call adopt_device_positions() with it first");
    }

    // Reads the newest completed pass's times: the passes from the oldest on, up to the first still
    // running (those after it are queued behind it).
    void harvest() {
        if (latest < 0) return;
        for (int age = kTimedPasses - 1; age >= 0; --age) {
            TimedPass& t = timing[(latest - age + kTimedPasses) % kTimedPasses];
            if (!t.pending) continue;
            const cudaError_t q = cudaEventQuery(t.stop.get());
            if (q == cudaErrorNotReady) return;
            CUDA_CHECK(q);
            t.pending = false;
            last_ms = cuda::elapsed_ms(t.start, t.stop);
            last_share_ms = cuda::elapsed_ms(t.start, t.mid);
            last_share_width = t.width;
        }
    }

    void force(const float4* positions, float4* kick_vel, double softening, double dt) {
        harvest();
        // Every slot still running: the host is that many passes ahead, and this pass goes untimed
        // (recording its events again would leave no figure at all while the host stays ahead).
        const int k = (latest + 1) % kTimedPasses;
        TimedPass* t = timing[k].pending ? nullptr : &timing[k];
        if (t != nullptr) {
            t->width = bounds[std::size_t(rank()) + 1] - bounds[std::size_t(rank())];
            t->start.record(stream.get());
        }
        cuda::ForceArgs args;
        args.pos = positions;
        args.n = static_cast<int>(n);
        args.eps2 = static_cast<float>(softening * softening);
        args.acc = acc.get();
        // Split over GPUs the kick waits for the whole accelerations (sum_over_ranks).
        args.vel = ranks() > 1 ? nullptr : kick_vel;
        args.half_dt = static_cast<float>(0.5 * dt);
        args.workspace = &force_workspace;
        const double share_begin = bounds[std::size_t(rank())], share_end = bounds[std::size_t(rank()) + 1];
        if (gravity.gravity == Gravity::Tree)
            tree.force(positions, args.n, args.eps2, gravity.tree, config.unroll, args.acc, args.vel, args.half_dt,
                       stream.get(), cuda::WalkShare{share_begin, share_end});
        else if (config.precision != Precision::Fp32)
            precise.force(precision_variant_of(config), config.block, positions, args.acc, kick_vel, n,
                          softening * softening, 0.5 * dt, stream.get());
        else if (config.pair_mode == PairMode::Full) {
            tile_masses.update(masses.data(), n, 1, config.block, stream.get());
            args.tile_mass = tile_masses.get();
            args.i_begin = static_cast<int>(slice_begin(rank()));
            args.i_count = static_cast<int>(slice_count(rank()));
            cuda::launch_force(variant_of(config), config.block, args, stream.get());
        }
        else {
            symmetric_tile_masses.update(masses.data(), n, 1, cuda::symmetric_tile_size(config.bodies_per_lane),
                                         stream.get());
            // Split over GPUs a share of the triangle is placed by the lambda map: the bounding-box
            // grid covers the whole square (the two maps differ in block placement, not in the sums).
            cuda::SymmetricVariant v = symmetric_variant_of(config);
            if (ranks() > 1) v.map = cuda::SymmetricMap::Lambda;
            cuda::launch_symmetric_force(v, args.pos, args.n, args.eps2, args.acc, args.vel, args.half_dt,
                                         stream.get(), symmetric_tile_masses.get(),
                                         cuda::symmetric_tile_share(v, args.n, share_begin, share_end));
        }
        if (t != nullptr) t->mid.record(stream.get());
        work.evaluations += n;
        work.passes += 1;
        if (ranks() > 1) {
            sum_over_ranks();
            if (gravity.gravity == Gravity::Tree) tree.take_accelerations(acc.get(), args.n, stream.get());
            if (kick_vel != nullptr) cuda::launch_kick(kick_vel, acc.get(), args.n, args.half_dt, stream.get());
        }
        if (t != nullptr) {
            t->stop.record(stream.get());
            t->pending = true;
            latest = k;
        }
    }

    // Makes acc whole on every GPU: the every-pair kernel's i-slices are gathered (each body's sum
    // is the one-GPU sum, bit for bit); the tree's and the symmetric kernel's partial sums (zeros
    // outside a tree share) are added up. On the communicator's stream, ordered by events.
    void sum_over_ranks() {
        meet_before_collective();
        const auto comm_stream = static_cast<cudaStream_t>(comm->stream());
        handoff.record(stream.get());
        if (gate) gate->arrive(stream.get(), rank(), ++gate_pass);
        CUDA_CHECK(cudaStreamWaitEvent(comm_stream, handoff.get()));
        if (gate) gate->wait_for_others(comm_stream, rank(), gate_pass);
        float* values = reinterpret_cast<float*>(acc.get());
        if (gravity.gravity == Gravity::Direct && config.pair_mode == PairMode::Full) {
            std::vector<std::size_t> counts(static_cast<std::size_t>(ranks()));
            for (int r = 0; r < ranks(); ++r) counts[std::size_t(r)] = 4 * slice_count(r);
            comm->all_gather_v(values + 4 * slice_begin(rank()), values, counts, comm::DataType::Float32);
        } else {
            comm->all_reduce_sum(values, values, 4 * n, comm::DataType::Float32);
        }
        summed.record(comm_stream);
        CUDA_CHECK(cudaStreamWaitEvent(stream.get(), summed.get()));
    }

    void meet_before_collective() {
        if (++collectives_queued == fail_before_collective)
            throw std::runtime_error("an injected failure before collective " + std::to_string(collectives_queued));
        if (meeting != nullptr && !meeting->meet()) throw cuda::StoppedForAPeer();
    }

    // NCCL connects the ranks at their first collective of each kind (hundreds of ms between
    // processes): made here, so that the first step is not charged with it.
    void warm_up_collectives() {
        use_device();
        meet_before_collective();
        const std::size_t ranks_count = static_cast<std::size_t>(ranks());
        DeviceBuffer<float> values(4 * ranks_count + 4);
        CUDA_CHECK(cudaMemset(values.get(), 0, values.bytes()));
        std::vector<std::size_t> counts(ranks_count, 4);
        counts[0] = 8;  // uneven, as the slices usually are
        comm->all_gather_v(values.get() + (rank() == 0 ? 0 : 4 * (std::size_t(rank()) + 1)), values.get(), counts,
                           comm::DataType::Float32);
        comm->all_reduce_sum(values.get(), values.get(), 4, comm::DataType::Float32);
        const double zero = 0;
        (void)comm->all_gather_host_bytes({reinterpret_cast<const std::byte*>(&zero), sizeof zero});
        comm->synchronize();
    }

    // This GPU's time for its share of the newest timed pass (the tree: its build, which is every
    // GPU's, and its share of the walk); last_share_width is that share's width. Never blocks.
    double share_ms() {
        harvest();
        return last_share_ms;
    }

    // Every kRebalanceEvery step calls (the same calls on every rank) each rank posts its share
    // time; kRebalanceLag calls later the shares move toward each GPU's measured speed, half the
    // way each time, so a GPU that is slower (another model, a busier card, a share with denser
    // tree groups) gets less work. Every rank computes the same bounds from the same gathered times.
    void rebalance() {
        if (ranks() < 2) return;
        ++step_calls;
        if (step_calls % kRebalanceEvery == 0)
            post_share_time();
        else if (share_times.posted && step_calls % kRebalanceEvery == kRebalanceLag) {
            take_gathered_share_times();
            move_bounds();
        }
    }

    // This rank's times into its slots, gathered into every rank's slots on the communicator's
    // stream (after the collective of the step just queued, as on every rank), copied back.
    void post_share_time() {
        meet_before_collective();
        ShareTimes& t = share_times;
        const std::size_t count = kShareFigures * std::size_t(ranks()), mine = kShareFigures * std::size_t(rank());
        if (t.host.size() != count) t.host = PinnedBuffer<float>(count), t.device = DeviceBuffer<float>(count);
        const auto comm_stream = static_cast<cudaStream_t>(comm->stream());
        t.host[mine] = float(share_ms());
        t.host[mine + 1] = float(last_share_width);
        t.host[mine + 2] = other_work_ms.load();
        CUDA_CHECK(cudaMemcpyAsync(t.device.get() + mine, t.host.get() + mine, kShareFigures * sizeof(float),
                                   cudaMemcpyHostToDevice, comm_stream));
        const std::vector<std::size_t> each(std::size_t(ranks()), kShareFigures);
        comm->all_gather_v(t.device.get() + mine, t.device.get(), each, comm::DataType::Float32);
        CUDA_CHECK(cudaMemcpyAsync(t.host.get(), t.device.get(), count * sizeof(float), cudaMemcpyDeviceToHost,
                                   comm_stream));
        t.ready.record(comm_stream);
        t.posted = true;
    }

    void take_gathered_share_times() {
        CUDA_CHECK(cudaEventSynchronize(share_times.ready.get()));  // done kRebalanceLag steps ago
        share_times.posted = false;
        rank_figures.resize(std::size_t(ranks()));
        for (std::size_t r = 0; r < rank_figures.size(); ++r) {
            const float* figures = share_times.host.get() + kShareFigures * r;
            rank_figures[r] = {figures[0], figures[1], figures[2]};
        }
    }

    // Each rank's share is set where it would end with the others, its speed (share per ms) measured
    // and its other work a fixed cost: w_r = s_r (T - o_r) with the w_r adding up to 1. The cut
    // moves half the way there.
    void move_bounds() {
        const std::size_t count = rank_figures.size();
        std::vector<double> width(count), speed(count), target(count);
        double speeds = 0, delays = 0;
        for (std::size_t r = 0; r < count; ++r) {
            const RankFigures& f = rank_figures[r];
            if (!(f.share_ms > 0)) return;  // a rank without a figure yet
            width[r] = bounds[r + 1] - bounds[r];
            speed[r] = std::max(f.timed_width, 1e-3) / f.share_ms;
            speeds += speed[r];
            delays += speed[r] * f.other_ms;
        }
        const double end_ms = (1.0 + delays) / speeds;
        double targets = 0;
        for (std::size_t r = 0; r < count; ++r)
            targets += target[r] = std::max(speed[r] * (end_ms - rank_figures[r].other_ms), 0.02);
        double edge = 0;
        for (std::size_t r = 0; r + 1 < count; ++r) {
            edge += 0.5 * width[r] + 0.5 * target[r] / targets;
            bounds[r + 1] = edge;
        }
    }

    void ensure_accelerations(const float4* positions, double softening) {
        // The precision extras follow the current buffer and mode; any change invalidates a(x).
        if (precise.sync(config.precision, positions, vel.get(), n, stream.get())) acc_valid = false;
        if (acc_valid && acc_softening == softening) return;
        acc_valid = false;
        force(positions, nullptr, softening, 0.0);
        acc_valid = true;
        acc_softening = softening;
    }

    // One KDK step from `in` to `out`; acc holds a(in) on entry and a(out) on return.
    void leapfrog(const float4* in, float4* out, const StepParams& p) {
        const float dt = static_cast<float>(p.dt), half = static_cast<float>(0.5 * p.dt);
        if (precise.active())
            precise.kick_drift(in, out, vel.get(), acc.get(), n, 0.5 * p.dt, p.dt, stream.get());
        else
            cuda::launch_kick_drift(in, out, vel.get(), acc.get(), static_cast<int>(n), half, dt, stream.get());
        acc_valid = false;  // until the closing force pass has been queued
        force(out, vel.get(), p.softening, p.dt);
        acc_valid = true;
        time += p.dt;
    }

    // What block steps cannot run with: the CPU backends' reasons, then several GPUs.
    void check_block_steps(double softening) const {
        check_block_steps_can_run(gravity.gravity, softening);
        if (ranks() > 1) throw std::invalid_argument(block_steps_on_gpus_refusal(ranks()));
    }

    // One block step of dt_max = p.dt (tree/block_steps.hpp); acc holds a(pos[cur]) on entry and on
    // return. Positions change in place: a body moves at its own step's end.
    void block_step(const StepParams& p) {
        cuda::BlockStepArgs args;
        args.pos = pos[cur].get();
        args.vel = vel.get();
        args.acc = acc.get();
        args.n = static_cast<int>(n);
        args.dt_max = p.dt;
        args.softening = p.softening;
        args.config = time_steps;
        args.tree = gravity.tree;
        args.unroll = config.unroll;
        acc_valid = false;  // until the last tick, every body's, has been queued
        block.step(args, tree, work, stream.get());
        acc_valid = true;
        time += p.dt;
    }

    void advance(const StepParams& p, int count) {
        if (time_steps.mode == TimeSteps::Block) {
            for (int s = 0; s < count; ++s) block_step(p);
            return;
        }
        for (int s = 0; s < count; ++s) {
            leapfrog(pos[cur].get(), pos[1 - cur].get(), p);
            cur = 1 - cur;
        }
    }
};

void CudaBackend::for_every_gpu(const std::function<void(CudaBackend&)>& own,
                                const std::function<void(CudaBackend&)>& peer) {
    if (!impl_->parted.empty()) throw std::runtime_error(impl_->parted);
    // While the peers are set aside this backend is a one-GPU backend: `own` runs its usual code.
    std::vector<std::unique_ptr<CudaBackend>> peers = std::move(impl_->peers);
    const std::size_t gpus = peers.size() + 1;
    const auto impl_of = [&](std::size_t k) -> Impl& { return k == 0 ? *impl_ : *peers[k - 1]->impl_; };
    cuda::PeerMeeting meeting(static_cast<std::ptrdiff_t>(gpus));
    std::vector<std::exception_ptr> failed(gpus);
    for (std::size_t k = 0; k < gpus; ++k) impl_of(k).meeting = &meeting;
    impl_->workers->run([&](int k) {
        cuda::take_part(meeting, failed[std::size_t(k)], [&] {
            if (k == 0) own(*this);
            else (peer ? peer : own)(*peers[std::size_t(k) - 1]);
        });
    });
    for (std::size_t k = 0; k < gpus; ++k) impl_of(k).meeting = nullptr;
    std::vector<int> devices(gpus);
    for (std::size_t k = 0; k < gpus; ++k) devices[k] = impl_of(k).device;
    impl_->peers = std::move(peers);
    rethrow_gpu_failure(failed, devices);
}

// A call that failed on some GPUs of the process: the cause is the first GPU's own error (not a
// GPU that stopped for it). Where every GPU failed of its own cause (bad input, memory refused on
// each) they stay alike and the error goes on as it was thrown; otherwise their states parted, and
// the error names the GPU and says so.
void CudaBackend::rethrow_gpu_failure(const std::vector<std::exception_ptr>& failed, const std::vector<int>& devices) {
    const auto stopped_for_a_peer = [](const std::exception_ptr& e) {
        try {
            std::rethrow_exception(e);
        } catch (const cuda::StoppedForAPeer&) {
            return true;
        } catch (...) {
            return false;
        }
    };
    std::size_t cause = failed.size(), own_failures = 0;
    for (std::size_t k = 0; k < failed.size(); ++k)
        if (failed[k] && !stopped_for_a_peer(failed[k])) {
            ++own_failures;
            if (cause == failed.size()) cause = k;
        }
    if (cause == failed.size()) return;
    if (own_failures == failed.size()) std::rethrow_exception(failed[cause]);
    const std::string what = cuda::what_of(failed[cause]);
    const std::string gpu = "GPU " + std::to_string(cause) + " (device " + std::to_string(devices[cause]) + ")";
    impl_->parted = "several GPUs: their states parted when " + gpu + " failed (" + what +
                    "); nothing more runs on them until the state is loaded again";
    throw std::runtime_error(gpu + " failed: " + what + "; the other GPUs stopped with it");
}

void CudaBackend::fail_for_tests(int gpu, int collective) {
    if (gpu < 0 || std::size_t(gpu) > impl_->peers.size())
        throw std::invalid_argument("fail_for_tests: no GPU " + std::to_string(gpu));
    Impl& m = gpu == 0 ? *impl_ : *impl_->peers[std::size_t(gpu) - 1]->impl_;
    m.fail_before_collective = m.collectives_queued + collective;
}

CudaBackend::CudaBackend(int device) : impl_(nullptr) {
    std::string why;
    if (!cuda_probe(&why)) throw std::runtime_error("CUDA is not usable: " + why);
    int count = 0;
    CUDA_CHECK(cudaGetDeviceCount(&count));
    if (device < 0 || device >= count)
        throw std::runtime_error("CUDA device " + std::to_string(device) + " does not exist (" +
                                 std::to_string(count) + " device(s) present)");
    CUDA_CHECK(cudaSetDevice(device));
    if (const std::string problem = cuda::kernel_image_problem(); !problem.empty()) throw std::runtime_error(problem);

    // The stream and events belong to the device that is current when they are created.
    impl_ = std::make_unique<Impl>();
    Impl& m = *impl_;
    m.device = device;
    cudaDeviceProp prop{};
    CUDA_CHECK(cudaGetDeviceProperties(&prop, device));
    m.info.name = prop.name;
    m.info.sm_count = prop.multiProcessorCount;
    m.info.compute_major = prop.major;
    m.info.compute_minor = prop.minor;
    m.info.max_threads_per_block = prop.maxThreadsPerBlock;
    m.info.shared_memory_per_block_optin = prop.sharedMemPerBlockOptin;
    m.info.total_memory = prop.totalGlobalMem;
    CUDA_CHECK(cudaDeviceGetAttribute(&m.info.clock_khz, cudaDevAttrClockRate, device));
    m.info.fp32_lanes_per_sm = fp32_lanes_per_sm(prop.major, prop.minor);

    // The default config must run; if this device cannot (an exotic part), fail here, loudly.
    if (const std::string reason = check_kernel_config(m.config); !reason.empty())
        throw std::runtime_error("the default kernel config cannot run on " + m.info.name + ": " + reason);
}

CudaBackend::~CudaBackend() {
    if (impl_) CUDA_CHECK_LOG(cudaSetDevice(impl_->device));
}

void CudaBackend::load(const State& state) {
    if (!impl_->peers.empty()) {
        impl_->parted.clear();  // every GPU takes the same state again, or the call says what failed
        return for_every_gpu([&](CudaBackend& gpu) { gpu.load(state); });
    }
    state.validate();
    const std::size_t n = state.size();
    if (n > kMaxBodies)
        throw std::invalid_argument("the cuda backend takes at most " + std::to_string(kMaxBodies) + " bodies (got " +
                                    std::to_string(n) + ")");
    Impl& m = *impl_;
    m.use_device();
    // Allocate and fill the new buffers before touching the old ones: if the device runs out of
    // memory the running system survives.
    DeviceBuffer<float4> pos0(n), pos1(n), vel(n), acc(n);
    CUDA_CHECK(cudaMemcpyAsync(pos0.get(), state.pos_mass.data(), n * sizeof(float4), cudaMemcpyHostToDevice,
                               m.stream.get()));
    CUDA_CHECK(cudaMemcpyAsync(vel.get(), state.velocity.data(), n * sizeof(float4), cudaMemcpyHostToDevice,
                               m.stream.get()));
    // The host vectors must outlive the copies (pageable memory: the runtime stages them, but an
    // exception below must not leave a copy in flight from freed memory).
    m.stream.synchronize();

    m.pos[0] = std::move(pos0);
    m.pos[1] = std::move(pos1);
    m.vel = std::move(vel);
    m.acc = std::move(acc);
    m.precise.reset();
    m.n = n;
    m.masses.resize(n);
    for (std::size_t i = 0; i < n; ++i) m.masses[i] = state.pos_mass[i].w;
    m.tile_masses.invalidate();
    m.symmetric_tile_masses.invalidate();
    m.cur = 0;
    m.acc_valid = false;
    m.positions_external = false;
    m.time = state.time;
    m.bytes_to_host = 0;
    m.work = ForceWork{};
    m.tree.reset_work(m.stream.get());
    m.tree.forget_accelerations();
    m.block.reset(m.stream.get());
}

void CudaBackend::store(State& state) const {
    const Impl& m = *impl_;
    m.require_loaded("store");
    m.require_own_positions("store");
    m.use_device();
    std::vector<Vec4f> pos(m.n), vel(m.n);
    CUDA_CHECK(cudaMemcpyAsync(pos.data(), m.pos[m.cur].get(), m.n * sizeof(float4), cudaMemcpyDeviceToHost,
                               m.stream.get()));
    CUDA_CHECK(cudaMemcpyAsync(vel.data(), m.vel.get(), m.n * sizeof(float4), cudaMemcpyDeviceToHost,
                               m.stream.get()));
    m.stream.synchronize();
    impl_->bytes_to_host += 2 * m.n * sizeof(float4);
    if (state.size() != m.n) state.resize(m.n);
    state.pos_mass = std::move(pos);
    for (std::size_t i = 0; i < m.n; ++i) state.velocity[i] = {vel[i].x, vel[i].y, vel[i].z, 0.0f};
    state.time = m.time;
}

std::size_t CudaBackend::size() const { return impl_->n; }

void CudaBackend::step(const StepParams& params, int count) {
    // Block steps first: their reasons (direct gravity, softening 0) are the clearer ones.
    if (impl_->time_steps.mode == TimeSteps::Block) impl_->check_block_steps(params.softening);
    validate_params(params);
    if (count < 0) throw std::invalid_argument("step count must be >= 0 (got " + std::to_string(count) + ")");
    if (!impl_->peers.empty()) return for_every_gpu([&](CudaBackend& gpu) { gpu.step(params, count); });
    Impl& m = *impl_;
    m.require_loaded("step");
    m.require_own_positions("step");
    if (count == 0) return;
    m.use_device();
    m.ensure_accelerations(m.pos[m.cur].get(), params.softening);
    m.advance(params, count);
    m.rebalance();
}

double CudaBackend::time_steps_ms(const StepParams& params, int steps) {
    if (impl_->time_steps.mode == TimeSteps::Block) impl_->check_block_steps(params.softening);
    validate_params(params);
    if (steps < 1) throw std::invalid_argument("time_steps_ms needs at least one step");
    if (!impl_->peers.empty()) {
        double ms = 0;
        for_every_gpu([&](CudaBackend& gpu) { ms = gpu.time_steps_ms(params, steps); },
                      [&](CudaBackend& gpu) { gpu.time_steps_ms(params, steps); });
        return ms;
    }
    Impl& m = *impl_;
    m.require_loaded("time_steps_ms");
    m.require_own_positions("time_steps_ms");
    m.use_device();
    m.ensure_accelerations(m.pos[m.cur].get(), params.softening);
    Event start, stop;
    start.record(m.stream.get());
    m.advance(params, steps);
    stop.record(m.stream.get());
    CUDA_CHECK(cudaEventSynchronize(stop.get()));
    m.rebalance();
    return cuda::elapsed_ms(start, stop);
}

void CudaBackend::step_device(const void* pos_in, void* pos_out, const StepParams& params) {
    validate_params(params);
    Impl& m = *impl_;
    m.require_loaded("step_device");
    if (pos_in == nullptr || pos_out == nullptr)
        throw std::invalid_argument("CudaBackend::step_device(): null position buffer");
    if (pos_in == pos_out)
        throw std::invalid_argument("CudaBackend::step_device(): input and output positions must be distinct buffers");
    if (m.time_steps.mode == TimeSteps::Block)
        throw std::invalid_argument("CudaBackend::step_device(): block time steps step the backend's own buffers "
                                    "(step()); the interop path has shared steps");
    // The other GPUs step their own copies of the system: the positions end here, on the GPU that
    // draws them.
    if (!m.peers.empty())
        return for_every_gpu([&](CudaBackend& gpu) { gpu.step_device(pos_in, pos_out, params); },
                             [&](CudaBackend& gpu) { gpu.step(params, 1); });
    m.use_device();
    const auto* in = static_cast<const float4*>(pos_in);
    m.ensure_accelerations(in, params.softening);
    m.leapfrog(in, static_cast<float4*>(pos_out), params);
    m.positions_external = true;
    m.rebalance();
}

void CudaBackend::adopt_device_positions(const void* pos) {
    Impl& m = *impl_;
    m.require_loaded("adopt_device_positions");
    if (pos == nullptr) throw std::invalid_argument("CudaBackend::adopt_device_positions(): null buffer");
    m.use_device();
    CUDA_CHECK(cudaMemcpyAsync(m.pos[m.cur].get(), pos, m.n * sizeof(float4), cudaMemcpyDeviceToDevice,
                               m.stream.get()));
    m.precise.moved(pos, m.pos[m.cur].get());
    m.positions_external = false;
    // The buffer may hold positions other than the ones the accelerations belong to; one extra
    // force pass at the next step is cheaper than trusting that it does not. The other GPUs make
    // that pass too (its sum needs them).
    m.acc_valid = false;
    for (const auto& peer : m.peers) peer->impl_->acc_valid = false;
}

void CudaBackend::export_device_positions(void* pos) const {
    const Impl& m = *impl_;
    m.require_loaded("export_device_positions");
    m.require_own_positions("export_device_positions");
    if (pos == nullptr) throw std::invalid_argument("CudaBackend::export_device_positions(): null buffer");
    m.use_device();
    CUDA_CHECK(cudaMemcpyAsync(pos, m.pos[m.cur].get(), m.n * sizeof(float4), cudaMemcpyDeviceToDevice,
                               m.stream.get()));
    impl_->precise.copied(m.pos[m.cur].get(), pos);  // a step_device() from the copy keeps ds/fp64 digits
}

std::vector<Vec3d> CudaBackend::accelerations(double softening) {
    validate_params(StepParams{1.0, softening});
    if (!impl_->peers.empty()) {
        std::vector<Vec3d> out;
        for_every_gpu([&](CudaBackend& gpu) { out = gpu.accelerations(softening); },
                      [&](CudaBackend& gpu) {
                          Impl& peer = *gpu.impl_;
                          peer.use_device();
                          peer.ensure_accelerations(peer.pos[peer.cur].get(), softening);
                      });
        return out;
    }
    Impl& m = *impl_;
    m.require_loaded("accelerations");
    m.require_own_positions("accelerations");
    m.use_device();
    m.ensure_accelerations(m.pos[m.cur].get(), softening);
    if (std::vector<Vec3d> a64; m.precise.download_accelerations(a64, m.n, m.stream.get())) {
        m.bytes_to_host += m.n * sizeof(cuda::Double4);
        return a64;
    }
    std::vector<Vec4f> a(m.n);
    CUDA_CHECK(cudaMemcpyAsync(a.data(), m.acc.get(), m.n * sizeof(float4), cudaMemcpyDeviceToHost, m.stream.get()));
    m.stream.synchronize();
    if (m.gravity.gravity == Gravity::Tree) m.tree.check_errors();
    m.bytes_to_host += m.n * sizeof(float4);
    std::vector<Vec3d> out(m.n);
    for (std::size_t i = 0; i < m.n; ++i) out[i] = {a[i].x, a[i].y, a[i].z};
    return out;
}

double CudaBackend::time() const { return impl_->time; }

std::string CudaBackend::check_kernel_config_host(const KernelConfig& c) {
    if (c.precision != Precision::Fp32 && c.pair_mode != PairMode::Full)
        return "precision " + std::string(nbody::to_string(c.precision)) + " runs with pair mode full only (the " +
               std::string(nbody::to_string(c.pair_mode)) + " kernel is fp32)";
    if (c.pair_mode != PairMode::Full) {
        try {
            cuda::require_symmetric_instance(symmetric_variant_of(c));
        } catch (const std::invalid_argument& e) {
            return e.what();
        }
        return {};
    }
    try {
        if (c.precision != Precision::Fp32)
            cuda::require_precision_instance(precision_variant_of(c));
        else
            cuda::require_force_instance(variant_of(c));
    } catch (const std::invalid_argument& e) {
        return e.what();
    }
    if (c.block < block_granularity || c.block % block_granularity != 0)
        return "block " + std::to_string(c.block) + " is not a positive multiple of " +
               std::to_string(block_granularity) + " (the warp size)";
    if (c.block > max_block)
        return "block " + std::to_string(c.block) + " is above CUDA's limit of " + std::to_string(max_block) +
               " threads per block";
    // Unreachable with the supported values (q divides 32, which divides the block); kept so
    // that a new q cannot silently leave bodies without threads.
    if (c.block % c.threads_per_body != 0)
        return "block " + std::to_string(c.block) + " is not a multiple of threads_per_body " +
               std::to_string(c.threads_per_body);
    return {};
}

CudaBackend::KernelResources CudaBackend::kernel_resources(const KernelConfig& c) const {
    impl_->use_device();
    if (c.pair_mode != PairMode::Full) {
        const cuda::SymmetricKernelResources r = cuda::symmetric_kernel_resources(symmetric_variant_of(c));
        const cuda::SymmetricGeometry g = cuda::symmetric_geometry(symmetric_variant_of(c), 0);
        KernelResources out;
        out.registers_per_thread = r.registers_per_thread;
        out.local_bytes_per_thread = r.local_bytes_per_thread;
        out.max_threads_per_block = g.threads;
        out.shared_bytes_per_block = r.static_shared_bytes;
        return out;
    }
    if (c.precision != Precision::Fp32) {
        const cuda::PrecisionVariant v = precision_variant_of(c);
        const cuda::PrecisionKernelResources r = cuda::precision_kernel_resources(v);
        KernelResources out;
        out.registers_per_thread = r.registers_per_thread;
        out.local_bytes_per_thread = r.local_bytes_per_thread;
        out.max_threads_per_block = r.max_threads_per_block;
        out.shared_bytes_per_block = r.static_shared_bytes + cuda::precision_shared_bytes(v.mode, c.block);
        return out;
    }
    const cuda::ForceKernelResources r = cuda::force_kernel_resources(variant_of(c), c.block);
    KernelResources out;
    out.registers_per_thread = r.registers_per_thread;
    out.local_bytes_per_thread = r.local_bytes_per_thread;
    out.max_threads_per_block = r.max_threads_per_block;
    out.shared_bytes_per_block = r.static_shared_bytes + cuda::force_shared_bytes(c.block);
    return out;
}

std::string CudaBackend::check_kernel_config(const KernelConfig& c) const {
    if (std::string reason = check_kernel_config_host(c); !reason.empty()) return reason;
    if (c.pair_mode != PairMode::Full) {
        const int limit = cuda::symmetric_max_bodies(symmetric_variant_of(c));
        if (impl_->n > std::size_t(limit))
            return "the symmetric kernel with " + std::to_string(c.bodies_per_lane) + " bodies/lane handles at most " +
                   std::to_string(limit) + " bodies (" + std::to_string(impl_->n) + " loaded)";
        return {};
    }
    const CudaDeviceInfo& info = impl_->info;
    if (c.block > info.max_threads_per_block)
        return "block " + std::to_string(c.block) + " is above this device's limit of " +
               std::to_string(info.max_threads_per_block) + " threads per block";
    KernelResources r;
    try {
        r = kernel_resources(c);
    } catch (const std::exception& e) {
        return e.what();
    }
    if (c.block > r.max_threads_per_block)
        return "block " + std::to_string(c.block) + " needs too many registers: this kernel instance uses " +
               std::to_string(r.registers_per_thread) + " registers per thread, so a block can have at most " +
               std::to_string(r.max_threads_per_block) + " threads on this device";
    if (r.shared_bytes_per_block > info.shared_memory_per_block_optin)
        return "block " + std::to_string(c.block) + " needs " + std::to_string(r.shared_bytes_per_block) +
               " bytes of shared memory, above this device's limit of " +
               std::to_string(info.shared_memory_per_block_optin) + " bytes per block";
    return {};
}

void CudaBackend::set_kernel_config(const KernelConfig& config) {
    if (std::string reason = check_kernel_config(config); !reason.empty())
        throw std::invalid_argument("kernel config (" + config.to_string() + ") refused: " + reason);
    if (std::string reason = check_config_for_gpus(config, impl_->ranks()); !reason.empty())
        throw std::invalid_argument("kernel config (" + config.to_string() + ") refused: " + reason);
    for (const auto& peer : impl_->peers) peer->set_kernel_config(config);
    if (impl_->gravity.gravity == Gravity::Tree && config.precision != Precision::Fp32)
        throw std::invalid_argument("kernel config (" + config.to_string() +
                                    ") refused: the tree code runs in fp32 (switch to --gravity direct first)");
    impl_->config = config;
}

KernelConfig CudaBackend::kernel_config() const { return impl_->config; }

void CudaBackend::set_gravity(const GravityConfig& g) {
    Impl& m = *impl_;
    if (g.gravity == Gravity::Tree) {
        if (std::string reason = cuda::GpuTree::check_params(g.tree); !reason.empty())
            throw std::invalid_argument("tree parameters refused: " + reason);
        if (m.config.precision != Precision::Fp32)
            throw std::invalid_argument("the tree code runs in fp32; precision " +
                                        std::string(nbody::to_string(m.config.precision)) + " is for --gravity direct");
    }
    for (const auto& peer : m.peers) peer->set_gravity(g);
    if (g == m.gravity) return;
    m.gravity = g;
    m.acc_valid = false;  // the stored accelerations belong to the other solver or theta
}

GravityConfig CudaBackend::gravity() const { return impl_->gravity; }

void CudaBackend::set_time_steps(const TimeStepConfig& config) {
    if (std::string reason = check_time_step_config(config); !reason.empty())
        throw std::invalid_argument("time steps refused: " + reason);
    if (config.mode == TimeSteps::Block && impl_->ranks() > 1)
        throw std::invalid_argument("time steps refused: " + block_steps_on_gpus_refusal(impl_->ranks()));
    impl_->time_steps = config;
}

TimeStepConfig CudaBackend::time_steps() const { return impl_->time_steps; }

std::optional<ForceWork> CudaBackend::force_work() const {
    Impl& m = *impl_;
    // The tree's work on the GPUs of this process, each counting the terms of its share; ranks of
    // other processes count theirs, so under mpirun no figure is given.
    if (m.gravity.gravity != Gravity::Tree || (m.ranks() > 1 && m.peers.empty())) return std::nullopt;
    ForceWork w = m.work;
    w.body_terms = w.cell_terms = 0;
    const auto add_terms = [&w](Impl& gpu) {
        gpu.use_device();
        const cuda::TreeWork terms = gpu.tree.work(gpu.stream.get());
        w.body_terms += terms.body_terms;
        w.cell_terms += terms.cell_terms;
    };
    for (const auto& peer : m.peers) add_terms(*peer->impl_);
    add_terms(m);  // last: this GPU stays current
    w.clamped = m.block.clamped(m.stream.get());
    return w;
}

std::vector<std::uint8_t> CudaBackend::levels() const {
    const Impl& m = *impl_;
    if (m.time_steps.mode != TimeSteps::Block) return {};
    m.use_device();
    return m.block.levels(m.stream.get());
}

std::optional<double> CudaBackend::tree_potential_energy(double softening) {
    Impl& m = *impl_;
    if (m.gravity.gravity != Gravity::Tree) return std::nullopt;
    m.use_device();
    m.require_loaded("tree_potential_energy");
    m.require_own_positions("tree_potential_energy");
    return m.tree.potential_energy(m.pos[m.cur].get(), static_cast<int>(m.n), static_cast<float>(softening * softening),
                                   m.gravity.tree,
                                   m.stream.get());
}

CudaBackend::TreeTimes CudaBackend::tree_times() const {
    const cuda::TreeTimings t = impl_->tree.timings();
    return {t.build_ms,     t.moments_ms,   t.walk_ms,   t.nodes, impl_->tree.bytes(),
            t.body_terms, t.cell_terms, t.nodes_tested_per_group, t.groups};
}

void CudaBackend::check_tree_errors() const {
    impl_->use_device();
    impl_->tree.check_errors();
}

const std::vector<int>& CudaBackend::supported_unroll() {
    static const std::vector<int> v(cuda::kUnrollValues.begin(), cuda::kUnrollValues.end());
    return v;
}
const std::vector<int>& CudaBackend::supported_threads_per_body() {
    static const std::vector<int> v(cuda::kThreadsPerBodyValues.begin(), cuda::kThreadsPerBodyValues.end());
    return v;
}
const std::vector<int>& CudaBackend::supported_bodies_per_thread() {
    static const std::vector<int> v(cuda::kBodiesPerThreadValues.begin(), cuda::kBodiesPerThreadValues.end());
    return v;
}

double CudaBackend::last_force_ms() const {
    Impl& m = *impl_;
    m.harvest();
    return m.last_ms;
}

std::size_t CudaBackend::bytes_copied_to_host() const { return impl_->bytes_to_host; }

const CudaDeviceInfo& CudaBackend::device_info() const { return impl_->info; }

void CudaBackend::load_positions(const std::vector<Vec3d>& positions) {
    if (!impl_->peers.empty())
        return for_every_gpu([&](CudaBackend& gpu) { gpu.load_positions(positions); });
    Impl& m = *impl_;
    m.require_loaded("load_positions");
    m.require_own_positions("load_positions");
    if (positions.size() != m.n)
        throw std::invalid_argument("CudaBackend::load_positions(): " + std::to_string(positions.size()) +
                                    " positions for " + std::to_string(m.n) + " bodies");
    for (std::size_t i = 0; i < positions.size(); ++i) {
        const Vec3d& x = positions[i];
        if (!std::isfinite(x.x) || !std::isfinite(x.y) || !std::isfinite(x.z))
            throw std::invalid_argument("CudaBackend::load_positions(): body " + std::to_string(i) +
                                        " has a non-finite coordinate");
    }
    m.use_device();
    m.precise.upload_positions(m.config.precision, positions, m.pos[m.cur].get(), m.vel.get(), m.stream.get());
    m.acc_valid = false;
    m.tree.forget_accelerations();
}

std::optional<std::size_t> CudaBackend::first_non_finite() const {
    Impl& m = *impl_;  // the reduction's scratch is not part of the observable state
    m.require_loaded("first_non_finite");
    m.require_own_positions("first_non_finite");
    m.use_device();
    const std::size_t first = m.finite_check.first_non_finite(m.pos[m.cur].get(), m.vel.get(), m.n, m.stream.get());
    if (first >= m.n) return std::nullopt;
    return first;
}

std::optional<PreciseState> CudaBackend::store_precise() const {
    const Precision mode = impl_->config.precision;
    if (mode != Precision::Ds && mode != Precision::Fp64) return std::nullopt;
    State floats;
    store(floats);
    PreciseState p;
    p.position = positions_precise();
    p.velocity = velocities_precise();
    p.mass.resize(floats.size());
    for (std::size_t i = 0; i < floats.size(); ++i) p.mass[i] = floats.pos_mass[i].w;
    return p;
}

void CudaBackend::load_precise(const State& state, const PreciseState& precise) {
    precise.validate(state.size());
    load(state);
    Impl& m = *impl_;
    const Precision mode = m.config.precision;
    if (mode != Precision::Ds && mode != Precision::Fp64) return;
    m.precise.upload_positions(mode, precise.position, m.pos[m.cur].get(), m.vel.get(), m.stream.get());
    m.precise.upload_velocities(precise.velocity, m.vel.get(), m.stream.get());
    m.acc_valid = false;
}

std::vector<Vec3d> CudaBackend::positions_precise() const {
    const Impl& m = *impl_;
    m.require_loaded("positions_precise");
    m.require_own_positions("positions_precise");
    m.use_device();
    std::vector<Vec3d> out;
    m.precise.download(&out, nullptr, m.pos[m.cur].get(), m.vel.get(), m.n, m.stream.get());
    impl_->bytes_to_host += m.n * sizeof(cuda::Double4);
    return out;
}

std::vector<Vec3d> CudaBackend::velocities_precise() const {
    const Impl& m = *impl_;
    m.require_loaded("velocities_precise");
    m.use_device();
    std::vector<Vec3d> out;
    m.precise.download(nullptr, &out, m.pos[m.cur].get(), m.vel.get(), m.n, m.stream.get());
    impl_->bytes_to_host += m.n * sizeof(cuda::Double4);
    return out;
}

std::vector<int> CudaBackend::supported_unroll(Precision p) {
    if (p == Precision::Fp32) return supported_unroll();
    return {cuda::kPrecisionUnrollValues.begin(), cuda::kPrecisionUnrollValues.end()};
}
std::vector<int> CudaBackend::supported_threads_per_body(Precision p) {
    if (p == Precision::Fp32) return supported_threads_per_body();
    return {cuda::kPrecisionThreadsPerBodyValues.begin(), cuda::kPrecisionThreadsPerBodyValues.end()};
}
std::vector<int> CudaBackend::supported_bodies_per_thread(Precision p) {
    if (p == Precision::Fp32) return supported_bodies_per_thread();
    return cuda::precision_bodies_per_thread_values(precision_variant_of(KernelConfig{.precision = p}).mode);
}

KernelConfig CudaBackend::fit_to_precision(const KernelConfig& config) {
    if (config.precision == Precision::Fp32) return config;
    // The largest supported value not above the wanted one, else the smallest supported.
    auto nearest = [](const std::vector<int>& values, int wanted) {
        int best = values.front();
        for (int v : values)
            if (v <= wanted && v > best) best = v;
        return best;
    };
    KernelConfig c = config;
    c.pair_mode = PairMode::Full;
    c.unroll = nearest(supported_unroll(c.precision), c.unroll);
    c.threads_per_body = nearest(supported_threads_per_body(c.precision), c.threads_per_body);
    c.bodies_per_thread = nearest(supported_bodies_per_thread(c.precision), c.bodies_per_thread);
    return c;
}

void* CudaBackend::stream() const { return static_cast<void*>(impl_->stream.get()); }

void CudaBackend::synchronize() const {
    for (const auto& peer : impl_->peers) peer->synchronize();
    impl_->use_device();
    impl_->stream.synchronize();
}

std::string CudaBackend::check_config_for_gpus(const KernelConfig& config, int gpus) {
    if (gpus < 2) return {};
    if (config.precision != Precision::Fp32)
        return "precision " + std::string(nbody::to_string(config.precision)) + " runs on one GPU; " +
               std::to_string(gpus) + " GPUs step in fp32 (docs/DISTRIBUTED.md)";
    return {};
}

void CudaBackend::attach_rank(std::unique_ptr<comm::DeviceCommunicator> comm) {
    Impl& m = *impl_;
    if (comm->device() != m.device)
        throw std::invalid_argument("the communicator's GPU " + std::to_string(comm->device()) +
                                    " is not this backend's GPU " + std::to_string(m.device));
    const int ranks = comm->size();
    m.comm = std::move(comm);
    m.bounds.assign(std::size_t(ranks) + 1, 0.0);
    for (int r = 1; r < ranks; ++r) m.bounds[std::size_t(r)] = double(r) / ranks;
    m.bounds.back() = 1.0;
    m.rank_figures.assign(std::size_t(ranks), Impl::RankFigures{});
    m.acc_valid = false;
}

void CudaBackend::use_gpus(const std::vector<int>& devices) {
    Impl& m = *impl_;
    if (m.n != 0 || m.comm) throw std::logic_error("CudaBackend::use_gpus() is called once, before load()");
    if (devices.size() < 2) return;
    if (m.time_steps.mode == TimeSteps::Block)
        throw std::invalid_argument(block_steps_on_gpus_refusal(int(devices.size())));
    if (devices.front() != m.device)
        throw std::invalid_argument("the GPUs to step on must start with this backend's GPU " +
                                    std::to_string(m.device));
    if (std::string reason = check_config_for_gpus(m.config, int(devices.size())); !reason.empty())
        throw std::invalid_argument(reason);
    std::vector<std::unique_ptr<comm::DeviceCommunicator>> comms = comm::make_nccl_communicators(devices);
    std::vector<std::unique_ptr<CudaBackend>> peers;
    for (std::size_t k = 1; k < devices.size(); ++k) {
        auto peer = std::make_unique<CudaBackend>(devices[k]);
        peer->set_kernel_config(m.config);
        peer->set_gravity(m.gravity);
        peer->attach_rank(std::move(comms[k]));
        peers.push_back(std::move(peer));
    }
    m.use_device();
    attach_rank(std::move(comms[0]));
    std::string no_gate;
    m.gate = cuda::PeerGate::create(devices, &no_gate);
    if (!m.gate) std::fprintf(stderr, "nbody: note: %s; each GPU's collective waits for the others on its SMs\n", no_gate.c_str());
    for (auto& peer : peers) peer->impl_->gate = m.gate;
    m.peers = std::move(peers);
    m.workers = std::make_unique<cuda::GpuWorkers>(int(m.peers.size()));
    for_every_gpu([](CudaBackend& gpu) { gpu.impl_->warm_up_collectives(); });
}

void CudaBackend::join_ranks(std::unique_ptr<comm::DeviceCommunicator> comm) {
    if (impl_->n != 0 || impl_->comm) throw std::logic_error("CudaBackend::join_ranks() is called once, before load()");
    if (impl_->time_steps.mode == TimeSteps::Block && comm->size() > 1)
        throw std::invalid_argument(block_steps_on_gpus_refusal(comm->size()));
    if (std::string reason = check_config_for_gpus(impl_->config, comm->size()); !reason.empty())
        throw std::invalid_argument(reason);
    attach_rank(std::move(comm));
    impl_->warm_up_collectives();
}

int CudaBackend::gpu_count() const { return impl_->ranks(); }

int CudaBackend::calls_to_settle_shares() const { return impl_->ranks() > 1 ? int(8 * kRebalanceEvery + kRebalanceLag) : 0; }

std::string CudaBackend::describe(const std::vector<GpuShare>& shares, bool tree_phases) {
    std::string out;
    double slowest = 0, total = 0;
    for (const GpuShare& s : shares) {
        char line[160];
        std::snprintf(line, sizeof line, "%sGPU %d: %.1f %% in %.2f ms", out.empty() ? "" : "; ",
                      s.device >= 0 ? s.device : s.rank, 100.0 * (s.end - s.begin), s.ms);
        out += line;
        if (tree_phases && s.walk_ms > 0) {
            std::snprintf(line, sizeof line, " (tree build %.2f, moments %.2f, walk %.2f)", s.build_ms, s.moments_ms,
                          s.walk_ms);
            out += line;
        }
        slowest = std::max(slowest, s.ms);
        total += s.ms;
    }
    if (slowest > 0) {
        char balance[48];
        std::snprintf(balance, sizeof balance, "; balance %.2f", total / double(shares.size()) / slowest);
        out += balance;
    }
    return out;
}

void CudaBackend::set_other_work_ms(double ms) {
    if (!(ms >= 0) || !std::isfinite(ms))
        throw std::invalid_argument("other work per step must be a finite number of milliseconds >= 0 (got " +
                                    std::to_string(ms) + ")");
    impl_->other_work_ms.store(float(ms));
}

void CudaBackend::set_walk_room(const WalkRoom& room) { impl_->tree.set_walk_room(room); }

std::vector<CudaBackend::GpuShare> CudaBackend::gpu_shares() const {
    Impl& m = *impl_;
    std::vector<GpuShare> out;
    const auto add = [&out](Impl& g, int rank) {
        GpuShare s{g.device, rank, g.bounds[std::size_t(rank)], g.bounds[std::size_t(rank) + 1], g.share_ms()};
        if (g.gravity.gravity == Gravity::Tree) {
            const cuda::TreeTimings t = g.tree.timings();
            s.build_ms = t.build_ms, s.moments_ms = t.moments_ms, s.walk_ms = t.walk_ms;
        }
        out.push_back(s);
    };
    if (m.comm && m.peers.empty()) {  // one rank per process: the others' times from the last rebalancing
        for (int r = 0; r < m.ranks(); ++r)
            out.push_back({r == m.rank() ? m.device : -1, r, m.bounds[std::size_t(r)], m.bounds[std::size_t(r) + 1],
                           r == m.rank() ? m.share_ms() : m.rank_figures[std::size_t(r)].share_ms});
        return out;
    }
    add(m, m.rank());
    for (const auto& peer : m.peers) add(*peer->impl_, peer->impl_->rank());
    return out;
}

}  // namespace nbody
