// Block steps of the 4th order on the GPU (device_blocks.hpp). Built with -fmad=false: every
// expression here rounds as the host's, so a block is the host integrator's to the bit.

#include <algorithm>

#include <cub/device/device_select.cuh>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>

#include "../cuda_check.hpp"
#include "device_blocks.hpp"
#include "nbody/sim/hermite/corrector4.hpp"
#include "nbody/sim/hermite/predictor.hpp"

namespace nbody::cuda::hermite {
namespace {

using nbody::Vec3d;

unsigned blocks_for(int n) { return unsigned((n + 255) / 256); }

__device__ Vec3d xyz_of(const Real4& r) { return {r.x, r.y, r.z}; }
__device__ int level_of(const Real4& jerk_level) { return int(jerk_level.w); }

struct SlotOfAddress {
    const int* slot_of;
    __host__ __device__ int operator()(int a) const { return slot_of[a]; }
};
struct OnActiveLevel {
    const Real4* jerk_level;
    unsigned long long mask;
    __host__ __device__ bool operator()(int slot) const {
        return (mask >> unsigned(int(jerk_level[slot].w))) & 1ull;
    }
};

template <class Slots>
cudaError_t select(void* scratch, std::size_t& bytes, Slots slots, int* out, int* count, int n, OnActiveLevel active,
                   cudaStream_t stream) {
    return cub::DeviceSelect::If(scratch, bytes, slots, out, count, n, active, stream);
}
auto by_address(const int* slot_of) {
    return thrust::make_transform_iterator(thrust::counting_iterator<int>(0), SlotOfAddress{slot_of});
}

__global__ void predict_batch_kernel(JMemory j, const int* slots, int ni, double t, Real4* x, Real4* v, int* first_bad,
                                     int* level_counts, int levels) {
    const int k = int(blockIdx.x * blockDim.x + threadIdx.x);
    if (k == 0) *first_bad = kNoBadBody;
    if (k < levels) level_counts[k] = 0;
    if (k >= ni) return;
    const int s = slots[k];
    const Real4 xm = j.xm[s], vt = j.vt[s], a2 = j.a2[s], j6 = j.j6[s];
    const double dt = t - vt.w;
    using nbody::hermite::predict_position;
    using nbody::hermite::predict_velocity;
    x[k] = {predict_position(xm.x, vt.x, a2.x, j6.x, 0.0, 0.0, dt), predict_position(xm.y, vt.y, a2.y, j6.y, 0.0, 0.0, dt),
            predict_position(xm.z, vt.z, a2.z, j6.z, 0.0, 0.0, dt), 0.0};
    v[k] = {predict_velocity(vt.x, a2.x, j6.x, 0.0, 0.0, dt), predict_velocity(vt.y, a2.y, j6.y, 0.0, 0.0, dt),
            predict_velocity(vt.z, a2.z, j6.z, 0.0, 0.0, dt), double(s)};
}

__device__ bool finite3(const Vec3d& a) { return isfinite(a.x) && isfinite(a.y) && isfinite(a.z); }

__global__ void correct_batch_kernel(JMemory j, BlockState state, const int* slots, int ni, const Real4* x,
                                     const Real4* v, const Real4* results, CorrectArgs args, Real4* staged,
                                     int* first_bad) {
    const int k = int(blockIdx.x * blockDim.x + threadIdx.x);
    if (k >= ni) return;
    const int s = slots[k];
    const Real4 acc_pot = results[k], jerk1 = results[std::size_t(ni) + std::size_t(k)];
    const Vec3d a1 = xyz_of(acc_pot), j1 = xyz_of(jerk1);
    // The host's order of checks: the forces first (its "check" phase), then the corrected state.
    bool bad = !finite3(a1) || !finite3(j1) || !isfinite(acc_pot.w);
    const Real4 jl = state.jerk_level[s];
    // a / 2 is exact: the integrator's a is twice the j-memory's a2.
    const Vec3d a0 = xyz_of(j.a2[s]) * 2.0, j0 = xyz_of(jl);
    const double dt = args.t - j.vt[s].w;
    const nbody::hermite::StepEnd4 e =
        nbody::hermite::hermite4_step_end(xyz_of(x[k]), xyz_of(v[k]), a0, j0, a1, j1, dt, args.eta);
    const int level = nbody::hermite::block_level_for(e.dt_crit, level_of(jl), args.t, args.level_dts, args.max_level);
    bad = bad || !finite3(e.x) || !finite3(e.v) || level > args.max_level;
    if (bad) atomicMin(first_bad, k);
    staged[k] = {e.x.x, e.x.y, e.x.z, double(level)};
    staged[std::size_t(ni) + std::size_t(k)] = {e.v.x, e.v.y, e.v.z, 0.0};
}

__global__ void commit_batch_kernel(JMemory j, BlockState state, const int* slots, int ni, const Real4* results,
                                    const Real4* staged, double t, const int* first_bad, int* level_counts) {
    if (*first_bad != kNoBadBody) return;
    const int k = int(blockIdx.x * blockDim.x + threadIdx.x);
    if (k >= ni) return;
    const int s = slots[k];
    const Real4 acc_pot = results[k], jerk1 = results[std::size_t(ni) + std::size_t(k)];
    const Real4 xl = staged[k], vn = staged[std::size_t(ni) + std::size_t(k)];
    // What the host's j_particle() and the engine's set_j write: a2 = a * 0.5, j6 = jerk / 6 (Vec3d's
    // division multiplies by the reciprocal).
    const Vec3d a2 = xyz_of(acc_pot) * 0.5, j6 = xyz_of(jerk1) / 6.0;
    j.xm[s] = {xl.x, xl.y, xl.z, j.xm[s].w};
    j.vt[s] = {vn.x, vn.y, vn.z, t};
    j.a2[s] = {a2.x, a2.y, a2.z, j.a2[s].w};
    j.j6[s] = {j6.x, j6.y, j6.z, 0.0};
    state.jerk_level[s] = {jerk1.x, jerk1.y, jerk1.z, xl.w};
    state.pot[s].x = acc_pot.w;
    atomicAdd(level_counts + int(xl.w), 1);
}

}  // namespace

std::size_t select_scratch_bytes(int n) {
    std::size_t a = 0, b = 0;
    OnActiveLevel none{nullptr, 0};
    CUDA_CHECK(select(nullptr, a, by_address(nullptr), nullptr, nullptr, n, none, nullptr));
    CUDA_CHECK(select(nullptr, b, thrust::counting_iterator<int>(0), nullptr, nullptr, n, none, nullptr));
    return std::max(a, b);
}

void select_active(const BlockState& state, const int* slot_of, int n, unsigned long long level_mask, bool by_slot,
                   int* out, int* count, void* scratch, std::size_t scratch_bytes, cudaStream_t stream) {
    const OnActiveLevel active{state.jerk_level, level_mask};
    if (by_slot)
        CUDA_CHECK(select(scratch, scratch_bytes, thrust::counting_iterator<int>(0), out, count, n, active, stream));
    else
        CUDA_CHECK(select(scratch, scratch_bytes, by_address(slot_of), out, count, n, active, stream));
}

void predict_batch(const JMemory& j, const int* slots, int ni, double t, Real4* x, Real4* v, int* first_bad,
                   int* level_counts, int levels, cudaStream_t stream) {
    if (ni <= 0 && levels <= 0) return;
    predict_batch_kernel<<<blocks_for(std::max(ni, levels)), 256, 0, stream>>>(j, slots, ni, t, x, v, first_bad,
                                                                              level_counts, levels);
    CUDA_CHECK_LAUNCH();
}

void correct_batch(const JMemory& j, const BlockState& state, const int* slots, int ni, const Real4* x, const Real4* v,
                   const Real4* results, const CorrectArgs& args, Real4* staged, int* first_bad, cudaStream_t stream) {
    if (ni <= 0) return;
    correct_batch_kernel<<<blocks_for(ni), 256, 0, stream>>>(j, state, slots, ni, x, v, results, args, staged, first_bad);
    CUDA_CHECK_LAUNCH();
}

void commit_batch(const JMemory& j, const BlockState& state, const int* slots, int ni, const Real4* results,
                  const Real4* staged, double t, const int* first_bad, int* level_counts, cudaStream_t stream) {
    if (ni <= 0) return;
    commit_batch_kernel<<<blocks_for(ni), 256, 0, stream>>>(j, state, slots, ni, results, staged, t, first_bad,
                                                            level_counts);
    CUDA_CHECK_LAUNCH();
}

}  // namespace nbody::cuda::hermite
