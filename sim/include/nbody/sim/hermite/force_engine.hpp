#pragma once
// The force engine of the Hermite integrator: a GRAPE-6 in software. It holds the j-particles
// (the sources, in GRAPE-6's Taylor form), predicts them to a time t and returns, for a list of
// i-particles (the sinks, predicted by the caller), the acceleration, jerk and potential from all
// j-particles except the one with the i-particle's own id, the nearest neighbour and, on request,
// the neighbours within a radius. The built-in integrator (integrator.hpp) and libg6.so
// (g6/g6lib.h) both drive one of these, so their trajectories agree bit for bit.
//
// Two engines: `cpu` (double, the reference, threaded) and `cuda` (the j-prediction and the force
// on the GPU, positions in double-single as in Sapporo eq. 3 or fp64; sim/cuda/hermite_kernels.cu).
// Both compute the snap for the 6th order (the cuda engine in fp64).

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "nbody/sim/hermite/block_clock.hpp"
#include "nbody/sim/hermite/predictor.hpp"
#include "nbody/sim/types.hpp"

namespace nbody::comm {
class DeviceCommunicator;
}

namespace nbody::hermite {

// A j-particle as GRAPE-6 stores it: position, velocity and the Taylor coefficients a/2 and j/6 at
// its own time t. The predictor is x + dt (v + dt (a2 + dt j6)), v + dt (2 a2 + dt 3 j6). The
// 6th-order integrator adds snap/24 and crackle/120 (zero for the 4th order and GRAPE-6, where
// adding them changes no bit of the prediction).
struct JParticle {
    int id = -1;           // GRAPE-6 "index": an i-particle with this id does not feel it
    double t = 0;          // time of x, v, a2, j6
    double mass = 0;
    Vec3d x, v, a2, j6;
    Vec3d s24, c120;
};

struct IParticle {
    int id = -1;
    Vec3d x, v;            // predicted to the engine's time by the caller
    double h2 = 0;         // neighbour sphere radius squared (0: no neighbours wanted)
    Vec3d a;               // predicted acceleration: read only when the engine computes the snap
};

struct IForce {
    Vec3d acc, jerk;
    Vec3d snap;            // d^2 acc / dt^2, only from an engine asked for it (want_snap)
    double pot = 0;        // -sum m_j / sqrt(r^2 + eps^2)
    int nearest = -1;      // id of the nearest j-particle (smallest r^2, softening ignored)
    double nearest_r2 = 0;
};

inline Vec3d predict_position(const JParticle& p, double dt) {
    return {predict_position(p.x.x, p.v.x, p.a2.x, p.j6.x, p.s24.x, p.c120.x, dt),
            predict_position(p.x.y, p.v.y, p.a2.y, p.j6.y, p.s24.y, p.c120.y, dt),
            predict_position(p.x.z, p.v.z, p.a2.z, p.j6.z, p.s24.z, p.c120.z, dt)};
}
inline Vec3d predict_velocity(const JParticle& p, double dt) {
    return {predict_velocity(p.v.x, p.a2.x, p.j6.x, p.s24.x, p.c120.x, dt),
            predict_velocity(p.v.y, p.a2.y, p.j6.y, p.s24.y, p.c120.y, dt),
            predict_velocity(p.v.z, p.a2.z, p.j6.z, p.s24.z, p.c120.z, dt)};
}
// The acceleration at t + dt, for the snap of the 6th-order integrator.
inline Vec3d predict_acceleration(const JParticle& p, double dt) {
    return 2.0 * p.a2 + dt * (6.0 * p.j6 + dt * (12.0 * p.s24 + dt * 20.0 * p.c120));
}

// A named share of a run's wall time (ForceEngine::profile, HermiteIntegrator::profile): what
// `nbody run --integrator hermite4 --profile` prints.
struct PhaseTime {
    std::string name;
    double seconds = 0;
};

enum class EngineKind { Cpu, Cuda, Auto };
// Parses "cpu", "cuda" or "auto"; throws std::invalid_argument listing them.
EngineKind parse_engine_kind(std::string_view text);

// On several GPUs (EngineConfig::devices), a force evaluation of fewer pairs than this (active
// bodies x j-particles) runs on the first GPU alone: a GPU more costs the host ~40 us a block to queue
// its copies and kernels and to add its results (run 98's profile: "queue" 40-48 us a block per GPU),
// and saves half the kernel's time, ~ni nj / 0.4e12 s / 2 for a small block (runs 41-42: 0.35-0.6e12
// interactions/s below 1,024 active bodies), so two GPUs pay from about 2 x 40e-6 x 0.4e12 = 3.2e7
// pairs: 256 active bodies of 128K, 2,048 of 16K. Measured (device run 108, two H100s, 128K, one GPU
// against two per compute() call): 0.076 / 0.085 ms at 64 active bodies, 0.097 / 0.093 at 256, 0.302 /
// 0.208 at 1,024: the crossing is at 256 x 128K = 2^25 pairs, as estimated
// (`nbody_hermite_bench engine 131072 20 ACTIVE`, with HERMITE_BENCH_GPUS=2 HERMITE_BENCH_SEVERAL_FROM=0
// for two GPUs; docs/measurements/2026-11-27-hermite-two-gpus.sh).
inline constexpr double kSeveralGpusFromPairs = 33554432.0;  // 2^25

// Whether an evaluation of `ni` active bodies on `nj` j-particles is spread over `sharers` GPUs or
// ranks, each over its range of the slots, rather than run whole by one (the first GPU; under mpirun
// every rank): the one rule of the cuda engine and of comm::DistributedForceEngine.
inline bool spread_evaluation(std::size_t sharers, std::size_t ni, std::size_t nj, double from_pairs) {
    return sharers > 1 && nj >= sharers && double(ni) * double(nj) >= from_pairs;
}

// Run-time variant of the CUDA engine's kernels (ignored by the cpu engine).
struct EngineConfig {
    std::string precision = "ds";  // ds (double-single positions, Sapporo eq. 3) | fp64
    int block = 128;               // threads per block of the force kernel (64, 128, 256)
    int unroll = 4;                // j-loop unroll (1, 4, 8); 128 x 4 fastest end to end on the H200 (docs/HERMITE.md)
    int bodies_per_thread = 0;     // i-bodies per thread (1, 2, 4; 2 and 4 ds only); 0: four from 32,768 active
                                   // bodies on, two from 8,192, one below (docs/HERMITE.md)
    int j_split = 0;               // blocks sharing one i-block's j-range (0: chosen to fill the GPU)
    int max_neighbours = 256;      // per i-particle, as Sapporo's default
    // Two or more: the cuda engine splits the j-particles over these GPUs, each computing partial
    // forces that the host adds in double (Sapporo's multi-GPU scheme): every GPU holds every
    // j-particle, in one Morton order, and computes over its own range of the slots
    // (sim/cuda/hermite/engine_cuda.cpp). One: that GPU. Empty: the current GPU.
    std::vector<int> devices;
    // With several devices: evaluations of fewer pairs than this run on the first GPU alone (0: every
    // evaluation on every GPU, as the tests want).
    double several_gpus_from = kSeveralGpusFromPairs;
    // Under mpirun (comm::DistributedForceEngine, JShare::SlotRanges): this engine, on one GPU, is
    // rank `rank` of `ranks` processes whose engines all hold every j-particle in the same order; a
    // spread evaluation computes only this rank's range of the slots (the range GPU `rank` of `ranks`
    // in one process computes), any other the whole. 1: alone.
    int rank = 0, ranks = 1;
    // For tests only (no option sets it): in block steps on several GPUs of one process, the thread of
    // GPU `gpu` fails before its `spread_block`-th spread evaluation (1: the first), as a refused
    // allocation there would, to show that the others stop rather than wait for it.
    struct InjectedFault {
        int gpu = -1;
        int spread_block = 0;
    } fault_for_tests;
};

// Block steps of the 4th order taken whole on the engine's GPUs (HermiteIntegrator::advance_blocks):
// the integrator's levels in, the blocks taken out. Each block is the host integrator's to the bit:
// the same active bodies in the same order, the same prediction and corrector (corrector4.hpp), the
// same force evaluation; only the host's work between the evaluations is gone.
struct DeviceBlocks {
    // In and out: bodies on each block level 0..max_level and the (relative) time their steps start.
    std::vector<std::size_t> level_count;
    std::vector<double> level_time;
    const double* level_dts = nullptr;  // dt_max 2^-k for k = 0..max_level + 1
    int max_level = 0;
    double eta = 0, eps2 = 0;
    double t_end = 0;       // relative: no block ends after it
    double pair_budget = 0; // no block after the first starts once the blocks taken have computed this many pairs
    // Out.
    double now = 0;         // relative time of the last block taken
    std::uint64_t blocks = 0, body_steps = 0;
    double interactions = 0;
    // The next block failed a check (a force or corrected state not finite, a step below the smallest
    // level): nothing of it is kept, and the host integrator takes it again to say why.
    bool stopped = false;

    // block_clock.hpp's level_end() of level k.
    double level_end(std::size_t k) const { return hermite::level_end(level_count[k] > 0, level_time[k], level_dts[k]); }
};
// The per-body state (by address) that block steps on the GPU change, for the integrator's arrays.
struct DeviceBlockState {
    std::span<Vec3d> x, v, a, jerk;
    std::span<double> pot, t;
    std::span<int> level;
};

class ForceEngine {
public:
    virtual ~ForceEngine() = default;
    ForceEngine() = default;
    ForceEngine(const ForceEngine&) = delete;
    ForceEngine& operator=(const ForceEngine&) = delete;

    virtual std::string_view name() const = 0;

    // Makes room for j-particles at addresses [0, n); existing ones are kept.
    virtual void reserve(std::size_t n) = 0;
    // Stores (or replaces) the j-particle at `address`; grows the memory when needed.
    virtual void set_j(std::size_t address, const JParticle& p) = 0;
    // set_j(addresses[k], ps[k]) for every k (distinct addresses: a block's corrected bodies), which
    // an engine may store in parallel.
    virtual void set_j_batch(std::span<const int> addresses, std::span<const JParticle> ps) {
        for (std::size_t k = 0; k < addresses.size(); ++k) set_j(std::size_t(addresses[k]), ps[k]);
    }
    virtual std::size_t j_capacity() const = 0;

    // Predicts j-particles [0, nj) to time t and computes the forces on `in` (softening eps2) into
    // `out` (same size). With `neighbours`, also the neighbour lists (j ids with r^2 < h2, self
    // excluded), read back with neighbours(); a list longer than max_neighbours is cut and
    // flagged by neighbour_overflow().
    virtual void compute(double t, std::size_t nj, std::span<const IParticle> in, double eps2,
                         std::span<IForce> out, bool neighbours = false) = 0;

    // Of the last compute() with neighbours; i indexes `in`.
    virtual std::span<const int> neighbours(std::size_t i) const = 0;
    virtual bool neighbour_overflow(std::size_t i) const = 0;

    // Whether compute() finds each i-particle's nearest neighbour (IForce::nearest). The cpu engine
    // always does; the cuda engine skips it unless asked (3 of ~36 instructions per interaction).
    virtual void want_nearest(bool) {}
    // Whether compute() also returns the snap (IForce::snap, from IParticle::a and the j-particles'
    // predicted accelerations), which the 6th-order integrator needs. The cpu engine computes it,
    // the cuda engine in fp64; an engine that cannot throws std::invalid_argument saying why.
    virtual void want_snap(bool on) {
        if (on) throw std::invalid_argument("the " + std::string(name()) + " Hermite engine computes no snap, which the 6th-order "
                                            "integrator needs: use the cpu engine (--backend cpu)");
    }

    // Block steps on the GPU (DeviceBlocks): why this engine, as configured, cannot take them (empty:
    // it can). The j-memory must hold every body as the integrator's j_particle() gives it.
    virtual std::string device_blocks_unavailable() const { return "the " + std::string(name()) + " engine steps on the host"; }
    // Takes block steps until the next would end after run.t_end or start past run.pair_budget, or a
    // block fails its checks. `state` has the integrator's jerks and levels in (the j-memory has the
    // rest) and every array out, by address. Every rank of a run across ranks calls it alike.
    virtual void step_blocks(DeviceBlocks& run, const DeviceBlockState& state) {
        (void)run, (void)state;
        throw std::logic_error(device_blocks_unavailable());
    }

    // Several GPUs of one process: NCCL communicators between them (one per GPU, in the engine's order),
    // through which block steps on the GPU meet; without them those steps run on the host. Throws
    // std::invalid_argument when they do not match or the engine has no use for them.
    virtual void join_local_gpus(std::vector<std::unique_ptr<comm::DeviceCommunicator>> gpus) {
        (void)gpus;
        throw std::invalid_argument("the " + std::string(name()) + " Hermite engine has no use for communicators between GPUs");
    }

    // Pairwise interactions computed so far (i x j, self pairs included), for rate figures.
    virtual double interactions() const = 0;

    // From now on, the engine times its own phases within compute() (staging, the wait for the GPU,
    // ...) for profile(); an engine without phases of its own keeps none. A few clock reads per call.
    virtual void set_profiling(bool) {}
    virtual std::vector<PhaseTime> profile() const { return {}; }
};

// True when this build has the cuda engine and a device is usable; `why_not` gets the reason.
bool cuda_engine_usable(std::string* why_not = nullptr);

// The GPUs a spec names for EngineConfig::devices: "all", a count N (the first N) or a list
// "0,2". Throws std::invalid_argument naming the spec and what this machine has.
std::vector<int> engine_devices(const std::string& spec);

// The cuda engine as rank config.rank of config.ranks processes, on its one GPU (config.devices):
// every rank holds every j-particle, a spread evaluation (spread_evaluation) computes the rank's range
// of the slots, and the ranks' results are all-gathered over `ranks` (NCCL, on the rank's GPU) and
// added in rank order, as one process adds its GPUs' (the --gpus P run bit for bit); a smaller
// evaluation runs whole on every rank. Every rank makes it (a collective). Throws
// std::invalid_argument when `ranks` does not match the config, std::runtime_error without CUDA.
std::unique_ptr<ForceEngine> make_cuda_engine_across_ranks(const EngineConfig& config,
                                                           std::unique_ptr<comm::DeviceCommunicator> ranks);

// "NVIDIA H100 80GB HBM3, 132 SMs, sm_90": what must be the same on every rank whose engines share
// evaluations by slot ranges (the kernel's j-split follows the SM count). Empty in a build without CUDA.
std::string gpu_model(int device);

// Below this many bodies `Auto` takes the cpu engine: a GPU's per-step latency costs more than a
// small system's whole force pass. Device run 30 (H200, 16 CPU cores, Plummer to t = 1): even at
// 256 bodies (hermite4 0.06 s cpu, 0.07 s cuda; hermite6 0.20 s both), the cpu ahead below, the GPU
// 5x ahead at 1,024 and 20x at 8,192; three bodies to t = 70: 0.02 s against 2.1 s (run 29).
inline constexpr std::size_t kGpuFromBodies = 256;

// `Auto`: cuda when a GPU is usable and the system has `bodies` >= kGpuFromBodies (0: not known),
// else cpu. `why` (optional) receives a line saying which and why. `needs_snap` (the 6th-order
// integrator): the cuda engine in fp64 whatever config.precision says.
std::unique_ptr<ForceEngine> make_force_engine(EngineKind kind, const EngineConfig& config = {},
                                               std::string* why = nullptr, bool needs_snap = false,
                                               std::size_t bodies = 0);

}  // namespace nbody::hermite
