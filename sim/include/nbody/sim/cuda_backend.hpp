#pragma once
// The CUDA backend: the tiled all-pairs kernel (GPU Gems 3 ch. 31) and leapfrog on the device.
// This header includes no CUDA headers, so app/ and render/ can use it from plain C++.
//
// Positions normally live in the backend's own ping-pong device buffers. For CUDA-GL interop the
// caller passes raw device pointers instead (mapped vertex buffers): step_device() reads the
// current positions from one and writes the new ones into the other, with velocities and
// accelerations staying in the backend's device memory. No host copy happens on either path.

#include <cstddef>
#include <cstdint>
#include <exception>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "nbody/sim/backend.hpp"
#include "nbody/sim/comm/nccl_communicator.hpp"
#include "nbody/sim/tree/walk_room.hpp"

namespace nbody {

struct CudaDeviceInfo {
    std::string name;
    int sm_count = 0;
    int compute_major = 0, compute_minor = 0;
    int max_threads_per_block = 0;
    std::size_t shared_memory_per_block_optin = 0;
    std::size_t total_memory = 0;
    int clock_khz = 0;           // peak SM clock (cudaDevAttrClockRate)
    int fp32_lanes_per_sm = 0;   // FP32 instructions per SM per clock (128 on sm_90), 0 if unknown

    // FP32 instructions per second the device can issue: SMs x lanes x clock. An FFMA counts once.
    double fp32_instructions_per_second() const {
        return double(sm_count) * double(fp32_lanes_per_sm) * double(clock_khz) * 1e3;
    }
};

class CudaBackend final : public Backend {
public:
    // Throws std::runtime_error with the reason when no device is usable (no driver, no device,
    // built without CUDA).
    explicit CudaBackend(int device = 0);
    ~CudaBackend() override;

    std::string_view name() const override { return "cuda"; }
    void load(const State& state) override;
    void store(State& state) const override;
    std::size_t size() const override;
    void step(const StepParams& params, int count = 1) override;
    std::vector<Vec3d> accelerations(double softening) override;
    double time() const override;
    // In ds and fp64: positions and velocities with every digit kept (positions_precise()), masses
    // from the float4 buffer (fp64 keeps the masses it was loaded with, as floats). Else nullopt.
    std::optional<PreciseState> store_precise() const override;
    // In ds and fp64 the double positions and velocities are uploaded after load(state)
    // (load_positions()); in fp32 modes the floats of `state` are stepped.
    void load_precise(const State& state, const PreciseState& precise) override;
    // One CUB reduction over the current float4 positions and velocities (finite_check.cu), one
    // integer copied back; waits for the stream. In ds and fp64 the float4 buffers are kept
    // current too, so they show a non-finite double as well (a double beyond float's range
    // counts as non-finite here).
    std::optional<std::size_t> first_non_finite() const override;

    // Throws std::invalid_argument with the reason when the device cannot run `config`; the
    // running configuration and the state are left untouched then.
    void set_kernel_config(const KernelConfig& config) override;
    KernelConfig kernel_config() const override;

    // Empty when `config` can run on this device, else the reason it cannot: an unsupported
    // unroll / threads_per_body / bodies_per_thread, a block that is not a multiple of 32, more
    // threads per block than the device or the instance's registers allow, or more shared memory
    // than the device's opt-in limit. The block always has `block` threads; threads_per_body only
    // decides how they are grouped (a block computes block * bodies_per_thread / threads_per_body
    // bodies), so block * threads_per_body is not a limit.
    std::string check_kernel_config(const KernelConfig& config) const;

    // The checks of check_kernel_config() that need no device (compiled instances and block shape).
    static std::string check_kernel_config_host(const KernelConfig& config);
    // Values with a compiled kernel instance, for menus and sweeps.
    static const std::vector<int>& supported_unroll();
    static const std::vector<int>& supported_threads_per_body();
    static const std::vector<int>& supported_bodies_per_thread();
    static constexpr int block_granularity = 32;  // block must be a multiple of this
    static constexpr int max_block = 1024;        // before the per-instance register limit

    // Precision modes (KernelConfig::precision, docs/PRECISION.md). fp32-jbag, ds and fp64 have
    // fewer compiled (U, q, B) than fp32 and run with pair mode full only; these list them (for
    // Precision::Fp32 the lists above).
    static std::vector<int> supported_unroll(Precision precision);
    static std::vector<int> supported_threads_per_body(Precision precision);
    static std::vector<int> supported_bodies_per_thread(Precision precision);
    // `config` with unroll, threads_per_body and bodies_per_thread moved to the nearest values that
    // have an instance in its precision (the largest not above, else the smallest) and pair mode
    // full; unchanged for fp32. For a UI or CLI that switches precision on top of a tuned config.
    static KernelConfig fit_to_precision(const KernelConfig& config);

    // Replaces the positions by double-precision ones (after load(); masses and velocities kept).
    // The float4 buffer gets them rounded to float; ds keeps the lo parts and fp64 the doubles, so
    // a system built in double (e.g. far from the origin) keeps its digits in those modes. In fp32
    // and fp32-jbag it is a load of the rounded positions. Switching precision later converts
    // (ds <-> fp64 exactly) or, to fp32, rounds.
    void load_positions(const std::vector<Vec3d>& positions);
    // Positions and velocities with every digit the current precision keeps (ds: hi + lo; fp64:
    // the doubles; fp32 modes: the floats).
    std::vector<Vec3d> positions_precise() const;
    std::vector<Vec3d> velocities_precise() const;

    // Registers and local memory (spills) of the instance `config` selects, on this device.
    struct KernelResources {
        int registers_per_thread = 0;
        std::size_t local_bytes_per_thread = 0;
        int max_threads_per_block = 0;
        std::size_t shared_bytes_per_block = 0;  // for config.block
    };
    KernelResources kernel_resources(const KernelConfig& config) const;

    // One leapfrog step from device positions `pos_in` to `pos_out` (each size() float4s, distinct
    // buffers, e.g. mapped OpenGL vertex buffers). In ds and fp64 the extra digits follow the
    // buffer the backend last wrote: a `pos_in` it did not write restarts them from its floats. Afterwards the current positions are those in
    // `pos_out`; call adopt_device_positions() before store()/step() if the caller's buffers
    // are to become the backend's own again.
    void step_device(const void* pos_in, void* pos_out, const StepParams& params);
    // Copies size() float4 positions from a device buffer into the backend's own (device to
    // device), e.g. when leaving interop mode.
    void adopt_device_positions(const void* pos);
    // Copies the backend's current positions into a device buffer (device to device).
    void export_device_positions(void* pos) const;

    // Milliseconds the last force pass took, measured with CUDA events (0 before the first).
    // Never blocks: step() records events and this reads the newest pair that has completed, so
    // while the GPU is still busy it returns the figure of an earlier pass.
    double last_force_ms() const;

    // Runs `steps` leapfrog steps (as step() does, time advances) and returns the milliseconds
    // the GPU took for them, measured with events around the batch after any pending force pass
    // for the initial accelerations; waits for the GPU. For benchmarks.
    double time_steps_ms(const StepParams& params, int steps);

    // The stream every kernel of this backend runs on (a cudaStream_t), e.g. for mapping interop
    // buffers on it. It is a blocking stream, so work on the legacy default stream is ordered
    // with it too.
    void* stream() const;
    // Waits until all work queued by this backend has finished.
    void synchronize() const;
    // Bytes copied device-to-host since load(): stays 0 on the interop path.
    std::size_t bytes_copied_to_host() const;

    const CudaDeviceInfo& device_info() const;

    // --gravity tree: the GPU tree code (docs/TREE.md) replaces the all-pairs kernel in the force
    // pass; the body order of every buffer is unchanged. Tree parameters beyond the GPU's limits
    // (group size 128, leaf size 64) and precision modes other than fp32 are refused.
    void set_gravity(const GravityConfig& config) override;
    // Under --gravity tree: the GPU tree's potential walk at the current positions (GpuTree::
    // potential_energy), summed in double on the device; waits for it.
    std::optional<double> tree_potential_energy(double softening) override;
    GravityConfig gravity() const override;
    // The newest completed tree pass's phases (zeros before the first) and the tree's memory.
    struct TreeTimes {
        double build_ms = 0, moments_ms = 0, walk_ms = 0;
        std::size_t nodes = 0, bytes = 0;
        // Per body: body-body and body-cell terms evaluated; per group: nodes tested.
        double body_terms = 0, cell_terms = 0, nodes_tested_per_group = 0;
        std::size_t groups = 0;
    };
    TreeTimes tree_times() const;
    // Waits for the last pass; throws std::runtime_error if a tree pass met a non-finite body.
    void check_tree_errors() const;

    // Block time steps (time_steps.hpp; docs/TREE.md, "Block time steps") with the GPU tree, on one
    // GPU: the host BlockStepper's scheme with levels, predictions and kicks on the device
    // (tree/block_steps.hpp) and GpuTree::force_active walking the due bodies' groups. step()
    // refuses them under direct gravity, with softening 0 or several GPUs; step_device() (interop)
    // has shared steps only. Shared steps stay the default.
    void set_time_steps(const TimeStepConfig& config) override;
    TimeStepConfig time_steps() const override;
    // Under --gravity tree on one GPU: force passes and evaluations since load(), the tree's terms
    // and the clamped level choices summed on the device (waits for the stream); else nullopt.
    std::optional<ForceWork> force_work() const override;
    // Each body's level in the last step of dt_max (empty under shared steps); waits.
    std::vector<std::uint8_t> levels() const;

    // ---- several GPUs (docs/DISTRIBUTED.md) ----
    // Every GPU holds the whole system and integrates it; each force pass is cut into one share per
    // GPU (the every-pair kernel: slices of the i-bodies; each pair once: parts of the triangle of
    // tiles; the tree: parts of its groups, after every GPU built the tree) and made whole on every
    // GPU by one NCCL collective before the closing kick. The every-pair and tree results are bit
    // for bit the one-GPU results (under the classic split, force_kernel.hpp); the shares follow
    // each GPU's measured speed.
    //
    // Steps on `devices` (this backend's GPU first) in this process from now on: a peer backend per
    // other GPU, driven from this one (one thread per GPU per call). Call once, before load().
    // Throws std::runtime_error from NCCL or CUDA, std::invalid_argument for a config that runs on
    // one GPU only (check_config_for_gpus).
    void use_gpus(const std::vector<int>& devices);
    // One rank of a launch with one GPU per process (mpirun): `comm` spans the ranks, on this
    // backend's GPU. Call once, before load().
    void join_ranks(std::unique_ptr<comm::DeviceCommunicator> comm);
    // Empty when `config` can step on `gpus` GPUs, else why not (precision modes and the
    // bounding-box map run on one GPU).
    static std::string check_config_for_gpus(const KernelConfig& config, int gpus);
    int gpu_count() const;  // GPUs the force pass is split over (1 by default)
    // Step calls after which several GPUs' shares have moved to the GPUs' measured speeds (each call
    // counts once, every 16th posts the times, 8 later the cut moves half the way there: eight
    // moves; a GPU's fixed work, its whole-tree build, slows the approach); 0 on one GPU. `bench`
    // takes them untimed, one call at a time, so that each move reads the last cut's times.
    int calls_to_settle_shares() const;
    struct GpuShare {
        int device = 0;   // -1: a GPU of another process (mpirun)
        int rank = 0;
        double begin = 0, end = 1;  // the fraction of each force pass's work
        double ms = 0;    // the share's last time (the tree: its walk), 0 before the first
        // The tree code: that GPU's phases of its newest timed pass (CUDA events; 0 otherwise or for
        // another process's GPU). Their sum short of `ms` is time in the share spent outside them.
        double build_ms = 0, moments_ms = 0, walk_ms = 0;
    };
    std::vector<GpuShare> gpu_shares() const;
    // Milliseconds of other work this backend's GPU does per step call, beside its share (the
    // viewer's drawing, on the GPU that draws): the shares are cut so that every GPU's share plus
    // its other work ends together, so the drawing GPU gets less of the force pass. 0 by default;
    // may be called from any thread, taken at the next rebalancing.
    void set_other_work_ms(double ms);
    // What the tree walk leaves of this backend's GPU to kernels of other streams in this process
    // (WalkRoom: the viewer's CUDA sprites drawn beside the steps); none by default. The same
    // accelerations bit for bit. Any thread; taken by the next force pass; this GPU only (the one
    // that draws), not the peers of use_gpus(). std::invalid_argument for a refused slice count.
    void set_walk_room(const WalkRoom& room);

    // "GPU 0: 50.2 % in 3.41 ms; GPU 1: 49.8 % in 3.40 ms; balance 1.00" (balance: the mean share
    // time over the slowest; 1 is perfect). With `tree_phases`, each tree share's phases after its
    // time: "GPU 0: 44.0 % in 8.33 ms (tree build 0.98, moments 0.93, walk 6.40); ..." (bench).
    static std::string describe(const std::vector<GpuShare>& shares, bool tree_phases = false);
    // For tests only (no option sets it): GPU `gpu` of use_gpus() (0: this backend's) throws before
    // its `collective`-th collective from now (1: the next), as a refused allocation there would,
    // to show that the other GPUs stop rather than wait in it.
    void fail_for_tests(int gpu, int collective);

private:
    void attach_rank(std::unique_ptr<comm::DeviceCommunicator> comm);
    // Runs `own` on this backend (as one GPU) and `peer` (else `own`) on every peer, each on its kept
    // thread (cuda::GpuWorkers), all at once.
    void for_every_gpu(const std::function<void(CudaBackend&)>& own,
                       const std::function<void(CudaBackend&)>& peer = {});
    void rethrow_gpu_failure(const std::vector<std::exception_ptr>& failed, const std::vector<int>& devices);

    struct Impl;
    std::unique_ptr<Impl> impl_;
};

}  // namespace nbody
