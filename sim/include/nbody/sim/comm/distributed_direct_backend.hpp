#pragma once
// Every-pair direct summation over the ranks of a host communicator (MPI, or serial): the i-bodies
// are cut into one contiguous slice per rank (comm::Partition::even); each step every rank kicks
// and drifts its slice, the positions are all-gathered (three all-gathers of N floats), and each
// rank sums the forces on its slice from all N bodies with the host backends' own loop
// (direct_sum_accelerations). A body's force is summed in the same order as on one rank, so a
// P-rank run is bit for bit a one-rank run of the same backend (`cpu` or `reference`).
//
// Every rank loads the same system (read from the same input): load() checks that, and a rank
// that disagrees (another N, other bodies) is refused with the reason. Cost per step and rank:
// N^2 / P interactions against 3 N values gathered (12 N bytes in fp32).

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string_view>
#include <vector>

#include "nbody/sim/backend.hpp"
#include "nbody/sim/comm/communicator.hpp"

namespace nbody::comm {

template <class Real>
class DistributedDirectBackend final : public Backend {
public:
    // `comm` must outlive the backend and work on host memory.
    explicit DistributedDirectBackend(Communicator& comm);

    std::string_view name() const override;
    void load(const State& state) override;
    // Every rank gets the whole system (a collective: every rank calls it).
    void store(State& state) const override;
    std::size_t size() const override { return x_.size(); }
    std::optional<PreciseState> store_precise() const override;
    void load_precise(const State& state, const PreciseState& precise) override;
    void step(const StepParams& params, int count = 1) override;
    std::vector<Vec3d> accelerations(double softening) override;
    std::optional<std::size_t> first_non_finite() const override;
    double time() const override { return time_; }
    // Direct only: on the host backends the tree code does not run across ranks yet (the cuda backend
    // runs it one rank per GPU; docs/DISTRIBUTED.md).
    void set_gravity(const GravityConfig& config) override;

    const Partition& partition() const { return partition_; }

private:
    void compute_accelerations(Real eps2);
    void gather_positions();
    // The slice's values of `local` (one per owned body) for all N bodies, in body order.
    std::vector<Real> gather(const std::vector<Real>& local) const;

    Communicator& comm_;
    Partition partition_;
    std::size_t begin_ = 0, count_ = 0;            // this rank's slice
    std::vector<Real> x_, y_, z_, m_;              // all N bodies
    std::vector<Real> vx_, vy_, vz_, ax_, ay_, az_;  // the slice
    double time_ = 0;
    double acc_softening_ = -1;  // softening the stored accelerations belong to; -1: none yet
};

extern template class DistributedDirectBackend<double>;
extern template class DistributedDirectBackend<float>;

// The distributed form of the host backend named `backend_name` ("cpu" or "reference") over
// `comm`; throws std::invalid_argument naming what is not distributed yet (cuda through MPI, ...).
std::unique_ptr<Backend> make_distributed_backend(std::string_view backend_name, Communicator& comm);

// FNV-1a over `bytes` bytes, continuing `hash`: a system's fingerprint for require_same_on_every_rank
// (the ranks compare 8 bytes instead of the whole system).
std::uint64_t content_hash(const void* data, std::size_t bytes, std::uint64_t hash = 1469598103934665603ULL);

// Checks that every rank holds the same `local` bytes (an N, a system's hash, run parameters);
// `what` names them and `describe` turns one rank's bytes into words for the message. On a
// mismatch rank 0 throws std::runtime_error naming the first rank that differs, its value and rank
// 0's, and `remedy`; the other ranks wait up to 10 s for rank 0 to end the launch (so that one message is
// printed), then throw the same.
void require_same_on_every_rank(Communicator& comm, std::span<const std::byte> local, std::string_view what,
                                std::string (*describe)(std::span<const std::byte>), std::string_view remedy);

}  // namespace nbody::comm
