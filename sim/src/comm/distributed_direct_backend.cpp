#include "nbody/sim/comm/distributed_direct_backend.hpp"

#include <chrono>
#include <cmath>
#include <cstring>
#include <stdexcept>
#include <string>
#include <thread>

#include "nbody/sim/direct_sum_backend.hpp"

namespace nbody::comm {
namespace {

// What every rank must agree on about the system it loaded.
struct SystemFingerprint {
    std::uint64_t bodies = 0;
    std::uint64_t hash = 0;  // FNV-1a over the bytes of positions, masses, velocities and time
};

SystemFingerprint fingerprint(const State& state) {
    SystemFingerprint f;
    f.bodies = state.size();
    f.hash = content_hash(state.pos_mass.data(), state.pos_mass.size() * sizeof(Vec4f));
    f.hash = content_hash(state.velocity.data(), state.velocity.size() * sizeof(Vec4f), f.hash);
    f.hash = content_hash(&state.time, sizeof state.time, f.hash);
    return f;
}

std::string describe_system(std::span<const std::byte> bytes) {
    SystemFingerprint f;
    std::memcpy(&f, bytes.data(), sizeof f);
    char text[96];
    std::snprintf(text, sizeof text, "%llu bodies (content hash %016llx)", (unsigned long long)f.bodies,
                  (unsigned long long)f.hash);
    return text;
}

std::string describe_step(std::span<const std::byte> bytes) {
    double v[2];
    std::memcpy(v, bytes.data(), sizeof v);
    char text[96];
    std::snprintf(text, sizeof text, "dt %.17g, softening %.17g", v[0], v[1]);
    return text;
}

constexpr std::string_view kSameInput = "every rank must read the same input with the same options";

template <class T>
std::span<const std::byte> bytes_of(const T& value) {
    return {reinterpret_cast<const std::byte*>(&value), sizeof value};
}

}  // namespace

std::uint64_t content_hash(const void* data, std::size_t bytes, std::uint64_t hash) {
    const auto* p = static_cast<const unsigned char*>(data);
    for (std::size_t i = 0; i < bytes; ++i) hash = (hash ^ p[i]) * 1099511628211ULL;
    return hash;
}

void require_same_on_every_rank(Communicator& comm, std::span<const std::byte> local, std::string_view what,
                                std::string (*describe)(std::span<const std::byte>), std::string_view remedy) {
    const std::vector<std::byte> all = comm.all_gather_host_bytes(local);
    const std::size_t width = local.size();
    const std::span<const std::byte> root(all.data(), width);
    for (int r = 1; r < comm.size(); ++r) {
        const std::span<const std::byte> theirs(all.data() + std::size_t(r) * width, width);
        if (std::memcmp(theirs.data(), root.data(), width) == 0) continue;
        const std::string message = "the ranks disagree on " + std::string(what) + ": rank " + std::to_string(r) +
                                    " has " + describe(theirs) + ", rank 0 has " + describe(root) + " (" +
                                    std::string(remedy) + ")";
        // Rank 0 reports and ends the launch; the others give it time so that one message is
        // printed, and only report themselves if rank 0 could not.
        if (comm.rank() != 0) std::this_thread::sleep_for(std::chrono::seconds(10));
        throw std::runtime_error(message);
    }
}

template <class Real>
DistributedDirectBackend<Real>::DistributedDirectBackend(Communicator& comm) : comm_(comm) {
    if (comm.memory() != MemorySpace::Host)
        throw std::invalid_argument("the distributed host backend needs a host-memory communicator, not " +
                                    std::string(comm.name()));
    partition_ = Partition::even(0, comm.size());
}

template <class Real>
std::string_view DistributedDirectBackend<Real>::name() const {
    return sizeof(Real) == sizeof(double) ? "reference" : "cpu";
}

template <class Real>
void DistributedDirectBackend<Real>::load(const State& state) {
    state.validate();
    const SystemFingerprint f = fingerprint(state);
    require_same_on_every_rank(comm_, bytes_of(f), "the system", describe_system, kSameInput);
    const std::size_t n = state.size();
    partition_ = Partition::even(n, comm_.size());
    begin_ = partition_.begin(comm_.rank());
    count_ = partition_.count(comm_.rank());
    for (auto* v : {&x_, &y_, &z_, &m_}) v->assign(n, Real(0));
    for (auto* v : {&vx_, &vy_, &vz_, &ax_, &ay_, &az_}) v->assign(count_, Real(0));
    for (std::size_t i = 0; i < n; ++i) {
        const Vec4f& p = state.pos_mass[i];
        x_[i] = p.x, y_[i] = p.y, z_[i] = p.z, m_[i] = p.w;
    }
    for (std::size_t k = 0; k < count_; ++k) {
        const Vec4f& v = state.velocity[begin_ + k];
        vx_[k] = v.x, vy_[k] = v.y, vz_[k] = v.z;
    }
    time_ = state.time;
    acc_softening_ = -1;
}

template <class Real>
std::vector<Real> DistributedDirectBackend<Real>::gather(const std::vector<Real>& local) const {
    std::vector<Real> all(size());
    all_gather_v(comm_, local.data(), all.data(), partition_.counts);
    return all;
}

template <class Real>
void DistributedDirectBackend<Real>::store(State& state) const {
    const std::vector<Real> vx = gather(vx_), vy = gather(vy_), vz = gather(vz_);
    const std::size_t n = size();
    if (state.size() != n) state.resize(n);
    for (std::size_t i = 0; i < n; ++i) {
        state.pos_mass[i] = {float(x_[i]), float(y_[i]), float(z_[i]), float(m_[i])};
        state.velocity[i] = {float(vx[i]), float(vy[i]), float(vz[i]), 0.0f};
    }
    state.time = time_;
}

template <class Real>
std::optional<PreciseState> DistributedDirectBackend<Real>::store_precise() const {
    if constexpr (sizeof(Real) < sizeof(double)) {
        return std::nullopt;
    } else {
        const std::vector<Real> vx = gather(vx_), vy = gather(vy_), vz = gather(vz_);
        PreciseState p;
        p.position.resize(size());
        p.velocity.resize(size());
        for (std::size_t i = 0; i < size(); ++i) {
            p.position[i] = {x_[i], y_[i], z_[i]};
            p.velocity[i] = {vx[i], vy[i], vz[i]};
        }
        p.mass = m_;
        return p;
    }
}

template <class Real>
void DistributedDirectBackend<Real>::load_precise(const State& state, const PreciseState& precise) {
    precise.validate(state.size());
    load(state);
    if constexpr (sizeof(Real) == sizeof(double)) {
        for (std::size_t i = 0; i < size(); ++i) {
            x_[i] = precise.position[i].x, y_[i] = precise.position[i].y, z_[i] = precise.position[i].z;
            m_[i] = precise.mass[i];
        }
        for (std::size_t k = 0; k < count_; ++k) {
            const Vec3d& v = precise.velocity[begin_ + k];
            vx_[k] = v.x, vy_[k] = v.y, vz_[k] = v.z;
        }
    }
}

template <class Real>
void DistributedDirectBackend<Real>::set_gravity(const GravityConfig& config) {
    if (config.gravity == Gravity::Tree)
        throw std::invalid_argument("the tree code does not run across MPI ranks on the host backends yet "
                                    "(docs/DISTRIBUTED.md): use --backend cuda (one rank per GPU), --gravity direct, "
                                    "or one process");
}

template <class Real>
std::optional<std::size_t> DistributedDirectBackend<Real>::first_non_finite() const {
    ValueIndex local{1.0, 0};  // value 0 marks a non-finite body; 1: none on this rank
    for (std::size_t k = 0; k < count_ && local.value != 0; ++k) {
        const std::size_t i = begin_ + k;
        const Real values[7] = {x_[i], y_[i], z_[i], m_[i], vx_[k], vy_[k], vz_[k]};
        for (Real v : values)
            if (!std::isfinite(v)) local = {0.0, std::int64_t(i)};
    }
    // The lowest index wins among the ranks that found one: the body one rank would report.
    const ValueIndex first = comm_.all_reduce_min_with_index(local);
    if (first.value != 0) return std::nullopt;
    return std::size_t(first.index);
}

template <class Real>
void DistributedDirectBackend<Real>::gather_positions() {
    for (std::vector<Real>* v : {&x_, &y_, &z_}) all_gather_v(comm_, v->data() + begin_, v->data(), partition_.counts);
}

template <class Real>
void DistributedDirectBackend<Real>::compute_accelerations(Real eps2) {
    direct_sum_accelerations(x_.data(), y_.data(), z_.data(), m_.data(), size(), begin_, begin_ + count_, eps2,
                             ax_.data(), ay_.data(), az_.data());
}

template <class Real>
void DistributedDirectBackend<Real>::step(const StepParams& params, int count) {
    if (!(params.dt > 0)) throw std::invalid_argument("time step dt must be > 0");
    if (!(params.softening >= 0)) throw std::invalid_argument("softening must be >= 0");
    const double step_values[2] = {params.dt, params.softening};
    require_same_on_every_rank(comm_, bytes_of(step_values), "the step parameters", describe_step, kSameInput);
    const Real eps2 = Real(params.softening) * Real(params.softening);
    if (acc_softening_ != params.softening) {
        compute_accelerations(eps2);
        acc_softening_ = params.softening;
    }
    const Real dt = Real(params.dt), half = Real(0.5) * Real(params.dt);
    Real* x = x_.data() + begin_;
    Real* y = y_.data() + begin_;
    Real* z = z_.data() + begin_;
    for (int s = 0; s < count; ++s) {
        leapfrog_kick(vx_.data(), vy_.data(), vz_.data(), ax_.data(), ay_.data(), az_.data(), count_, half);
        leapfrog_drift(x, y, z, vx_.data(), vy_.data(), vz_.data(), count_, dt);
        gather_positions();
        compute_accelerations(eps2);
        leapfrog_kick(vx_.data(), vy_.data(), vz_.data(), ax_.data(), ay_.data(), az_.data(), count_, half);
        time_ += params.dt;
    }
}

template <class Real>
std::vector<Vec3d> DistributedDirectBackend<Real>::accelerations(double softening) {
    if (acc_softening_ != softening) {
        compute_accelerations(Real(softening) * Real(softening));
        acc_softening_ = softening;
    }
    const std::vector<Real> ax = gather(ax_), ay = gather(ay_), az = gather(az_);
    std::vector<Vec3d> out(size());
    for (std::size_t i = 0; i < out.size(); ++i) out[i] = {double(ax[i]), double(ay[i]), double(az[i])};
    return out;
}

template class DistributedDirectBackend<double>;
template class DistributedDirectBackend<float>;

std::unique_ptr<Backend> make_distributed_backend(std::string_view backend_name, Communicator& comm) {
    if (backend_name == "cpu") return std::make_unique<DistributedDirectBackend<float>>(comm);
    if (backend_name == "reference") return std::make_unique<DistributedDirectBackend<double>>(comm);
    throw std::invalid_argument("backend " + std::string(backend_name) + " does not run across " +
                                std::to_string(comm.size()) +
                                " MPI ranks: use --backend cpu or reference (every pair on the host) or cuda (one rank "
                                "per GPU) under mpirun");
}

}  // namespace nbody::comm
