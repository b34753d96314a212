#pragma once
// The Hermite force engine split over the ranks of a host communicator (MPI), in the j-parallel way
// of phi-GPU and Sapporo's multi-GPU engine: every rank runs the same Hermite integrator over all N
// bodies (replicated, deterministic), and this engine, wrapped around the rank's own engine, keeps
// only the rank's share of the j-particles. Address a lives on rank a % P at local address a / P:
// round robin, so the shares differ by at most one at any N and no N is needed in advance.
// compute() runs the inner engine over the rank's addresses among [0, nj) and adds the P partial
// forces; the nearest neighbour is the nearest of the ranks' nearest, ties to the lowest id (the cpu
// engine's rule). JParticle ids are global, so self-exclusion and neighbour ids hold on every rank.
//
// Every rank must get the same bits, or the replicated integrators would choose different block
// steps and then wait in different collectives. MPI does not promise that of MPI_Allreduce: the
// standard only "strongly recommends" that a reduction give the same result for the same arguments
// in the same order (MPI-3.1 §5.9.1, advice to implementors) and says nothing of every rank of an
// all-reduce getting the same bits. So the partial forces are all-gathered (a copy: exact) and every
// rank adds them in rank order with the same code: the same bits by construction (the ranks run one
// build: require_same_build_on_every_rank). It costs P x ni x 12 doubles received per block where an
// all-reduce would take ni x 12; at a few ranks that is small next to the ni x nj / P pairs.
//
// A force is summed in another order than on one process (each rank over every P-th j, then the
// partials), so a P-rank run agrees with the one-process run to rounding, not bit for bit.
//
// The cuda engine shares otherwise (JShare::SlotRanges), as it does over the GPUs of one process: every
// rank's engine holds every j-particle in one Morton order (the same on every rank: the same bodies,
// the same build and GPU model) and a spread evaluation (hermite::spread_evaluation) computes only the
// rank's range of the slots, whose partial forces are gathered and added in rank order; a smaller one
// runs whole on every rank, with nothing to gather. Round robin split the order's tiles (each rank's
// tile spans twice the space: fewer far tiles) and paid a gather on every block: 512K Plummer bodies
// on two ranks took 22.4 s against 13.6 s with --gpus 2 (run 122). With slot ranges the P-rank run is
// the --gpus P run of one process bit for bit (the same ranges, the same additions in the same order).
// That is this class's path in a build without NCCL; with NCCL the ranks' results meet on the GPUs
// inside the cuda engine instead (hermite::make_cuda_engine_across_ranks: the host gather here cost
// ~1 ms a block at 128K and 4 ms at 512K, runs 123-124).

#include <memory>
#include <string>
#include <vector>

#include "nbody/sim/comm/communicator.hpp"
#include "nbody/sim/hermite/force_engine.hpp"

namespace nbody::comm {

// How the ranks share the j-particles.
struct JShare {
    enum Kind {
        RoundRobin,  // address a on rank a % P alone: any engine; every evaluation gathered
        SlotRanges,  // every j-particle on every rank, each computing its range of the slots: the cuda
                     // engine made with EngineConfig::rank/ranks (and this spread_from)
    } kind = RoundRobin;
    double spread_from = hermite::kSeveralGpusFromPairs;  // SlotRanges: EngineConfig::several_gpus_from
};

class DistributedForceEngine final : public hermite::ForceEngine {
public:
    // `comm` must outlive the engine and work on host memory; `inner` holds this rank's share.
    DistributedForceEngine(std::unique_ptr<hermite::ForceEngine> inner, Communicator& comm, JShare share = {});

    // The inner engine's: what runs the pairs.
    std::string_view name() const override { return inner_->name(); }
    void reserve(std::size_t n) override;
    void set_j(std::size_t address, const hermite::JParticle& p) override;
    void set_j_batch(std::span<const int> addresses, std::span<const hermite::JParticle> ps) override;
    // Of the whole system (every rank's share).
    std::size_t j_capacity() const override { return capacity_; }

    // A collective: every rank calls it with the same t, nj, in and eps2. Neighbour lists are not
    // gathered across ranks (the integrator never asks for them): `neighbours` throws.
    void compute(double t, std::size_t nj, std::span<const hermite::IParticle> in, double eps2,
                 std::span<hermite::IForce> out, bool neighbours = false) override;
    std::span<const int> neighbours(std::size_t) const override { return {}; }
    bool neighbour_overflow(std::size_t) const override { return false; }

    void want_nearest(bool on) override { inner_->want_nearest(on); }
    void want_snap(bool on) override { inner_->want_snap(on); }
    // Of the whole system: ni x nj per compute(), as one engine would count them.
    double interactions() const override { return interactions_; }
    // The ranks' partial forces meet on the host here: the block steps stay there too (with NCCL the
    // cuda engine across ranks takes them on the GPU: hermite::make_cuda_engine_across_ranks).
    std::string device_blocks_unavailable() const override {
        return "the " + std::string(name()) + " engine across ranks through the host takes its block steps on the host";
    }
    void set_profiling(bool on) override;
    // The inner engine's phases, the wait for the slowest rank (a small collective before the gather,
    // made only while profiling) and the gather and sum of the partial forces.
    std::vector<hermite::PhaseTime> profile() const override;

    // How many of the addresses [0, n) this rank holds.
    std::size_t local_count(std::size_t n) const;
    // Whether this rank holds `address`, and where in its engine.
    bool holds(std::size_t address) const { return share_.kind == JShare::SlotRanges || address % ranks_ == rank_; }
    std::size_t local_address(std::size_t address) const {
        return share_.kind == JShare::SlotRanges ? address : address / ranks_;
    }

private:
    // The ranks' partial forces (gathered_) added in rank order into `out`.
    void add_partials(std::span<hermite::IForce> out) const;

    std::unique_ptr<hermite::ForceEngine> inner_;
    Communicator& comm_;
    std::size_t rank_ = 0, ranks_ = 1;
    JShare share_;
    std::size_t capacity_ = 0;
    // Kept between calls so that a block step allocates nothing.
    std::vector<int> local_addresses_;
    std::vector<hermite::JParticle> local_ps_;
    std::vector<hermite::IForce> partial_;
    std::vector<double> send_, gathered_;
    std::vector<std::byte> sync_bytes_;
    std::vector<std::size_t> counts_;
    double interactions_ = 0;
    bool profiling_ = false;
    double gather_seconds_ = 0, wait_seconds_ = 0;
};

}  // namespace nbody::comm
