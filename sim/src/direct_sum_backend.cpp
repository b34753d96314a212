#include "nbody/sim/direct_sum_backend.hpp"

#include <cmath>
#include <stdexcept>
#include <string>

#include "thread_pool.hpp"

namespace nbody {
namespace {

// Adds the pull of bodies [jb, je) on a body at (xi, yi, zi). Eight independent lanes of partial
// sums let the compiler vectorise without reassociating a single float sum (no -ffast-math).
template <class Real>
inline void accumulate(const Real* x, const Real* y, const Real* z, const Real* m, std::size_t jb,
                       std::size_t je, Real xi, Real yi, Real zi, Real eps2, Real& ax, Real& ay, Real& az) {
    constexpr int kLanes = 8;
    Real sx[kLanes] = {}, sy[kLanes] = {}, sz[kLanes] = {};
    std::size_t j = jb;
    for (; j + kLanes <= je; j += kLanes) {
        for (int k = 0; k < kLanes; ++k) {
            const Real dx = x[j + k] - xi, dy = y[j + k] - yi, dz = z[j + k] - zi;
            const Real r2 = dx * dx + dy * dy + dz * dz + eps2;
            const Real inv_r = Real(1) / std::sqrt(r2);
            const Real s = m[j + k] * inv_r * inv_r * inv_r;
            sx[k] += dx * s;
            sy[k] += dy * s;
            sz[k] += dz * s;
        }
    }
    for (; j < je; ++j) {
        const Real dx = x[j] - xi, dy = y[j] - yi, dz = z[j] - zi;
        const Real r2 = dx * dx + dy * dy + dz * dz + eps2;
        const Real inv_r = Real(1) / std::sqrt(r2);
        const Real s = m[j] * inv_r * inv_r * inv_r;
        sx[0] += dx * s;
        sy[0] += dy * s;
        sz[0] += dz * s;
    }
    for (int k = 0; k < kLanes; ++k) {
        ax += sx[k];
        ay += sy[k];
        az += sz[k];
    }
}

// What one force pass adds to the work counters: `bodies` evaluated, the tree's terms.
void count_pass(ForceWork& work, std::size_t bodies, const tree::TreeStats& stats) {
    work.evaluations += bodies;
    work.passes += 1;
    work.body_terms += stats.body_interactions;
    work.cell_terms += stats.cell_interactions;
}

// Block steps' force solver on the CPU tree: the active bodies' walk (tree_accelerations_active).
template <class Real>
class TreeActiveForces final : public ActiveForces<Real> {
public:
    TreeActiveForces(const TreeParams& params, tree::TreeStats& stats, ForceWork& work)
        : params_(params), stats_(stats), work_(work) {}
    void accelerations(const Real* x, const Real* y, const Real* z, const Real* m, std::size_t n,
                       const std::uint32_t* active, std::size_t n_active, Real eps2, Real* ax, Real* ay,
                       Real* az) override {
        // Every body's acceleration of its last pass is there (the step's first full pass), as the
        // relative criterion needs.
        tree::tree_accelerations_active(x, y, z, m, n, eps2, params_, active, n_active, ax, ay, az, &stats_, true);
        count_pass(work_, n_active, stats_);
    }

private:
    const TreeParams& params_;
    tree::TreeStats& stats_;
    ForceWork& work_;
};

}  // namespace

template <class Real>
std::string_view DirectSumBackend<Real>::name() const {
    return sizeof(Real) == sizeof(double) ? "reference" : "cpu";
}

template <class Real>
void DirectSumBackend<Real>::load(const State& state) {
    state.validate();
    const std::size_t n = state.size();
    for (auto* v : {&x_, &y_, &z_, &m_, &vx_, &vy_, &vz_, &ax_, &ay_, &az_}) v->assign(n, Real(0));
    for (std::size_t i = 0; i < n; ++i) {
        const Vec4f& p = state.pos_mass[i];
        const Vec4f& v = state.velocity[i];
        x_[i] = p.x, y_[i] = p.y, z_[i] = p.z, m_[i] = p.w;
        vx_[i] = v.x, vy_[i] = v.y, vz_[i] = v.z;
    }
    time_ = state.time;
    acc_softening_ = -1;
    work_ = ForceWork{};
}

template <class Real>
void DirectSumBackend<Real>::store(State& state) const {
    const std::size_t n = size();
    if (state.size() != n) state.resize(n);
    for (std::size_t i = 0; i < n; ++i) {
        state.pos_mass[i] = {float(x_[i]), float(y_[i]), float(z_[i]), float(m_[i])};
        state.velocity[i] = {float(vx_[i]), float(vy_[i]), float(vz_[i]), 0.0f};
    }
    state.time = time_;
}

template <class Real>
std::optional<PreciseState> DirectSumBackend<Real>::store_precise() const {
    if constexpr (sizeof(Real) < sizeof(double)) {
        return std::nullopt;
    } else {
        PreciseState p;
        p.position = positions();
        p.velocity = velocities();
        p.mass = m_;
        return p;
    }
}

template <class Real>
void DirectSumBackend<Real>::load_precise(const State& state, const PreciseState& precise) {
    precise.validate(state.size());
    load(state);
    if constexpr (sizeof(Real) == sizeof(double)) {
        for (std::size_t i = 0; i < size(); ++i) {
            x_[i] = precise.position[i].x, y_[i] = precise.position[i].y, z_[i] = precise.position[i].z;
            vx_[i] = precise.velocity[i].x, vy_[i] = precise.velocity[i].y, vz_[i] = precise.velocity[i].z;
            m_[i] = precise.mass[i];
        }
    }
}

template <class Real>
void DirectSumBackend<Real>::set_gravity(const GravityConfig& config) {
    if (config.gravity == Gravity::Tree)
        if (std::string reason = check_tree_params(config.tree); !reason.empty())
            throw std::invalid_argument("tree parameters refused: " + reason);
    if (config == gravity_) return;
    gravity_ = config;
    acc_softening_ = -1;  // the stored accelerations belong to the other solver
}

template <class Real>
void DirectSumBackend<Real>::set_time_steps(const TimeStepConfig& config) {
    if (std::string reason = check_time_step_config(config); !reason.empty())
        throw std::invalid_argument("time steps refused: " + reason);
    time_steps_ = config;
}

template <class Real>
std::optional<std::size_t> DirectSumBackend<Real>::first_non_finite() const {
    for (std::size_t i = 0; i < size(); ++i) {
        const Real values[7] = {x_[i], y_[i], z_[i], m_[i], vx_[i], vy_[i], vz_[i]};
        for (Real v : values)
            if (!std::isfinite(v)) return i;
    }
    return std::nullopt;
}

template <class Real>
void direct_sum_accelerations(const Real* x, const Real* y, const Real* z, const Real* m, std::size_t n,
                              std::size_t i_begin, std::size_t i_end, Real eps2, Real* ax, Real* ay, Real* az) {
    shared_thread_pool().parallel_for(i_end - i_begin, [&](std::size_t begin, std::size_t end) {
        for (std::size_t k = begin; k < end; ++k) {
            const std::size_t i = i_begin + k;
            Real sx = 0, sy = 0, sz = 0;
            // The range skips i itself: with zero softening the self term would be 0/0.
            accumulate(x, y, z, m, 0, i, x[i], y[i], z[i], eps2, sx, sy, sz);
            accumulate(x, y, z, m, i + 1, n, x[i], y[i], z[i], eps2, sx, sy, sz);
            ax[k] = sx, ay[k] = sy, az[k] = sz;
        }
    });
}

template <class Real>
void leapfrog_kick(Real* vx, Real* vy, Real* vz, const Real* ax, const Real* ay, const Real* az, std::size_t n,
                   Real half_dt) {
    for (std::size_t i = 0; i < n; ++i) vx[i] += ax[i] * half_dt, vy[i] += ay[i] * half_dt, vz[i] += az[i] * half_dt;
}

template <class Real>
void leapfrog_drift(Real* x, Real* y, Real* z, const Real* vx, const Real* vy, const Real* vz, std::size_t n, Real dt) {
    for (std::size_t i = 0; i < n; ++i) x[i] += vx[i] * dt, y[i] += vy[i] * dt, z[i] += vz[i] * dt;
}

template <class Real>
void DirectSumBackend<Real>::compute_accelerations(Real eps2) {
    const std::size_t n = size();
    if (gravity_.gravity == Gravity::Tree) {
        tree::tree_accelerations(x_.data(), y_.data(), z_.data(), m_.data(), n, eps2, gravity_.tree, ax_.data(),
                                 ay_.data(), az_.data(), &tree_stats_, have_accelerations());
        count_pass(work_, n, tree_stats_);
        return;
    }
    direct_sum_accelerations(x_.data(), y_.data(), z_.data(), m_.data(), n, 0, n, eps2, ax_.data(), ay_.data(),
                             az_.data());
    count_pass(work_, n, tree::TreeStats{});
}

template <class Real>
std::optional<double> DirectSumBackend<Real>::tree_potential_energy(double softening) {
    if (gravity_.gravity != Gravity::Tree) return std::nullopt;
    const Real eps2 = Real(softening) * Real(softening);
    if (acc_softening_ == softening)
        return tree::tree_potential_energy(x_.data(), y_.data(), z_.data(), m_.data(), size(), eps2, gravity_.tree,
                                           nullptr, {ax_.data(), ay_.data(), az_.data()});
    // The accelerations are due too (the start of a run): one walk gives both, the potential for a
    // multiply per term, and the first step does not walk again.
    std::vector<Real> phi(size());
    tree::tree_accelerations_and_potentials(x_.data(), y_.data(), z_.data(), m_.data(), size(), eps2, gravity_.tree,
                                            ax_.data(), ay_.data(), az_.data(), phi.data(), &tree_stats_,
                                            have_accelerations());
    count_pass(work_, size(), tree_stats_);
    acc_softening_ = softening;
    double sum = 0;
    for (std::size_t i = 0; i < size(); ++i) sum += double(m_[i]) * double(phi[i]);
    return 0.5 * sum;
}

template <class Real>
void DirectSumBackend<Real>::step(const StepParams& params, int count) {
    if (!(params.dt > 0)) throw std::invalid_argument("time step dt must be > 0");
    if (!(params.softening >= 0)) throw std::invalid_argument("softening must be >= 0");
    if (time_steps_.mode == TimeSteps::Block) check_block_steps(params.softening);
    const Real eps2 = Real(params.softening) * Real(params.softening);
    if (acc_softening_ != params.softening) {
        compute_accelerations(eps2);
        acc_softening_ = params.softening;
    }
    if (time_steps_.mode == TimeSteps::Block) {
        for (int s = 0; s < count; ++s) block_step(params);
        return;
    }
    const Real dt = Real(params.dt), half = Real(0.5) * Real(params.dt);
    const std::size_t n = size();
    for (int s = 0; s < count; ++s) {
        leapfrog_kick(vx_.data(), vy_.data(), vz_.data(), ax_.data(), ay_.data(), az_.data(), n, half);
        leapfrog_drift(x_.data(), y_.data(), z_.data(), vx_.data(), vy_.data(), vz_.data(), n, dt);
        compute_accelerations(eps2);
        leapfrog_kick(vx_.data(), vy_.data(), vz_.data(), ax_.data(), ay_.data(), az_.data(), n, half);
        time_ += params.dt;
    }
}

template <class Real>
void DirectSumBackend<Real>::check_block_steps(double softening) const {
    check_block_steps_can_run(gravity_.gravity, softening);
}

template <class Real>
void DirectSumBackend<Real>::block_step(const StepParams& params) {
    TreeActiveForces<Real> forces(gravity_.tree, tree_stats_, work_);
    const BodyArrays<Real> bodies{x_.data(),  y_.data(),  z_.data(),  m_.data(),  vx_.data(), vy_.data(),
                                  vz_.data(), ax_.data(), ay_.data(), az_.data(), size()};
    stepper_.step(bodies, params.dt, params.softening, time_steps_, forces, work_);
    time_ += params.dt;
}

template <class Real>
std::vector<Vec3d> DirectSumBackend<Real>::accelerations(double softening) {
    if (acc_softening_ != softening) {
        compute_accelerations(Real(softening) * Real(softening));
        acc_softening_ = softening;
    }
    std::vector<Vec3d> out(size());
    for (std::size_t i = 0; i < out.size(); ++i) out[i] = {double(ax_[i]), double(ay_[i]), double(az_[i])};
    return out;
}

template <class Real>
std::vector<Vec3d> DirectSumBackend<Real>::positions() const {
    std::vector<Vec3d> out(size());
    for (std::size_t i = 0; i < out.size(); ++i) out[i] = {double(x_[i]), double(y_[i]), double(z_[i])};
    return out;
}

template <class Real>
std::vector<Vec3d> DirectSumBackend<Real>::velocities() const {
    std::vector<Vec3d> out(size());
    for (std::size_t i = 0; i < out.size(); ++i) out[i] = {double(vx_[i]), double(vy_[i]), double(vz_[i])};
    return out;
}

template <class Real>
void DirectSumBackend<Real>::reverse_velocities() {
    for (std::size_t i = 0; i < size(); ++i) vx_[i] = -vx_[i], vy_[i] = -vy_[i], vz_[i] = -vz_[i];
}

template class DirectSumBackend<double>;
template class DirectSumBackend<float>;

#define NBODY_INSTANTIATE_HOST_STEP(Real)                                                                      \
    template void direct_sum_accelerations<Real>(const Real*, const Real*, const Real*, const Real*, std::size_t, \
                                                 std::size_t, std::size_t, Real, Real*, Real*, Real*);           \
    template void leapfrog_kick<Real>(Real*, Real*, Real*, const Real*, const Real*, const Real*, std::size_t, Real); \
    template void leapfrog_drift<Real>(Real*, Real*, Real*, const Real*, const Real*, const Real*, std::size_t, Real);
NBODY_INSTANTIATE_HOST_STEP(float)
NBODY_INSTANTIATE_HOST_STEP(double)
#undef NBODY_INSTANTIATE_HOST_STEP

}  // namespace nbody
