#include "nbody/sim/comm/distributed_force_engine.hpp"

#include <chrono>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

namespace nbody::comm {
namespace {

using hermite::IForce;

// One i-particle's partial force as the ranks exchange it: acc, jerk, snap, pot, the nearest's r^2
// (infinite when the rank has none) and id (a double holds every int exactly).
constexpr std::size_t kValuesPerForce = 12;

void pack(const IForce& f, double* to) {
    const double values[kValuesPerForce] = {f.acc.x,  f.acc.y,  f.acc.z, f.jerk.x, f.jerk.y, f.jerk.z,
                                            f.snap.x, f.snap.y, f.snap.z, f.pot,
                                            f.nearest >= 0 ? f.nearest_r2 : std::numeric_limits<double>::infinity(),
                                            double(f.nearest)};
    std::copy(values, values + kValuesPerForce, to);
}

}  // namespace

DistributedForceEngine::DistributedForceEngine(std::unique_ptr<hermite::ForceEngine> inner, Communicator& comm,
                                               JShare share)
    : inner_(std::move(inner)), comm_(comm), rank_(std::size_t(comm.rank())), ranks_(std::size_t(comm.size())),
      share_(share) {
    if (!inner_) throw std::invalid_argument("the Hermite engine across ranks: no engine to split");
    if (comm.memory() != MemorySpace::Host)
        throw std::invalid_argument("the Hermite engine across ranks needs a host-memory communicator, not " +
                                    std::string(comm.name()));
}

std::size_t DistributedForceEngine::local_count(std::size_t n) const {
    if (share_.kind == JShare::SlotRanges) return n;
    return n > rank_ ? (n - rank_ - 1) / ranks_ + 1 : 0;
}

void DistributedForceEngine::reserve(std::size_t n) {
    inner_->reserve(local_count(n));
    capacity_ = std::max(capacity_, n);
}

void DistributedForceEngine::set_j(std::size_t address, const hermite::JParticle& p) {
    capacity_ = std::max(capacity_, address + 1);
    if (holds(address)) inner_->set_j(local_address(address), p);
}

void DistributedForceEngine::set_j_batch(std::span<const int> addresses, std::span<const hermite::JParticle> ps) {
    if (share_.kind == JShare::SlotRanges) {  // every rank holds every j-particle at its address
        for (const int address : addresses) capacity_ = std::max(capacity_, std::size_t(address) + 1);
        return inner_->set_j_batch(addresses, ps);
    }
    local_addresses_.clear();
    local_ps_.clear();
    for (std::size_t k = 0; k < addresses.size(); ++k) {
        const auto address = std::size_t(addresses[k]);
        capacity_ = std::max(capacity_, address + 1);
        if (!holds(address)) continue;
        local_addresses_.push_back(int(local_address(address)));
        local_ps_.push_back(ps[k]);
    }
    inner_->set_j_batch(local_addresses_, local_ps_);
}

void DistributedForceEngine::compute(double t, std::size_t nj, std::span<const hermite::IParticle> in, double eps2,
                                     std::span<IForce> out, bool neighbours) {
    if (neighbours)
        throw std::invalid_argument("the Hermite engine across " + std::to_string(ranks_) +
                                    " MPI ranks does not gather neighbour lists; run in one process for them");
    if (out.size() != in.size()) throw std::invalid_argument("force engine: output size differs from input");
    if (share_.kind == JShare::SlotRanges && !hermite::spread_evaluation(ranks_, in.size(), nj, share_.spread_from)) {
        inner_->compute(t, nj, in, eps2, out);  // whole on every rank: nothing to gather
        interactions_ += double(in.size()) * double(nj);
        return;
    }
    partial_.resize(in.size());
    inner_->compute(t, local_count(nj), in, eps2, partial_);
    auto began = profiling_ ? std::chrono::steady_clock::now() : std::chrono::steady_clock::time_point{};
    if (profiling_) {
        // A small collective first, when profiling, so that the wait for the slowest rank is told
        // apart from the transfer (one more collective a block).
        const std::byte mine{};
        sync_bytes_.resize(ranks_);
        counts_.assign(ranks_, 1);
        all_gather_v(comm_, &mine, sync_bytes_.data(), counts_);
        const auto now = std::chrono::steady_clock::now();
        wait_seconds_ += std::chrono::duration<double>(now - began).count();
        began = now;
    }
    const std::size_t count = in.size() * kValuesPerForce;
    send_.resize(count);
    for (std::size_t i = 0; i < in.size(); ++i) pack(partial_[i], send_.data() + i * kValuesPerForce);
    counts_.assign(ranks_, count);
    gathered_.resize(count * ranks_);
    all_gather_v(comm_, send_.data(), gathered_.data(), counts_);
    add_partials(out);
    if (profiling_) gather_seconds_ += std::chrono::duration<double>(std::chrono::steady_clock::now() - began).count();
    interactions_ += double(in.size()) * double(nj);
}

void DistributedForceEngine::add_partials(std::span<IForce> out) const {
    const std::size_t stride = out.size() * kValuesPerForce;  // one rank's block
    for (std::size_t i = 0; i < out.size(); ++i) {
        IForce f;
        ValueIndex nearest{std::numeric_limits<double>::infinity(), -1};
        for (std::size_t r = 0; r < ranks_; ++r) {
            const double* v = gathered_.data() + r * stride + i * kValuesPerForce;
            f.acc += Vec3d{v[0], v[1], v[2]};
            f.jerk += Vec3d{v[3], v[4], v[5]};
            f.snap += Vec3d{v[6], v[7], v[8]};
            f.pot += v[9];
            if (v[11] >= 0) nearest = nearest.index < 0 ? ValueIndex{v[10], std::int64_t(v[11])}
                                                        : min_with_index(nearest, {v[10], std::int64_t(v[11])});
        }
        f.nearest = int(nearest.index);
        f.nearest_r2 = nearest.index >= 0 ? nearest.value : 0.0;
        out[i] = f;
    }
}

void DistributedForceEngine::set_profiling(bool on) {
    profiling_ = on;
    inner_->set_profiling(on);
}

std::vector<hermite::PhaseTime> DistributedForceEngine::profile() const {
    std::vector<hermite::PhaseTime> phases = inner_->profile();
    if (profiling_ || gather_seconds_ > 0) {
        phases.push_back({"wait for the slowest of " + std::to_string(ranks_) + " ranks", wait_seconds_});
        phases.push_back({"gather and add " + std::to_string(ranks_) + " ranks' sums", gather_seconds_});
    }
    return phases;
}

}  // namespace nbody::comm
