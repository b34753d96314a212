#pragma once
// The device state that the ds and fp64 precision modes keep beside the CUDA backend's float4
// buffers, and the launches that read it. Host code (compiled as C++, not by nvcc).
//
// Design (docs/PRECISION.md): the backend's float4 buffers (positions x, y, z, m; velocities;
// accelerations) stay what every consumer reads: the renderer draws them, store() copies them,
// the fp32 kernels integrate them. In every mode they hold the current values rounded to float
// (x_hi for ds). The extra digits live here:
//   ds    pos_lo, vel_lo: the lo floats of positions and velocities (float4, w unused)
//   fp64  pos64 (x, y, z, m), vel64, acc64: authoritative doubles; the fp64 kernels write the
//         float4 copies as they go
// The extras belong to one float4 position buffer: the one the backend last wrote or loaded
// (or exported a copy of). When the backend is handed another buffer as "the current positions"
// (step_device() with a foreign input, adopt_device_positions() of a buffer it did not write),
// the extras are restarted
// from that buffer's floats: the digits beyond float are then 0, which is the best that can be
// known about positions that arrived as floats. Pointers are only compared, never kept for use.
//
// Mode changes (set_kernel_config) are applied lazily by sync() at the next force pass, when the
// backend knows which buffer holds the current positions: fp32 -> ds/fp64 start from the floats;
// ds <-> fp64 convert exactly (hi + lo in double; lo = x - hi); ds/fp64 -> fp32 drop the extras
// (the floats are already current).

#include <cuda_runtime_api.h>

#include <cstddef>
#include <vector>

#include "cuda_raii.hpp"
#include "nbody/sim/kernel_config.hpp"
#include "nbody/sim/types.hpp"
#include "precision_kernels.hpp"

namespace nbody::cuda {

// The kernel variant of a precision other than fp32; throws std::logic_error for fp32, which is
// force_kernel.cu's kernel.
PrecisionVariant precision_variant_of(Precision p, int unroll, int threads_per_body, int bodies_per_thread);

class PrecisionState {
  public:
    // Forgets every extra digit (after load(): the new system arrived as floats). Frees memory.
    void reset();

    // Makes the extras represent `mode` for n bodies whose current float positions are in `pos`
    // and velocities in `vel`, converting or restarting them as described above. Returns true
    // when anything the force depends on changed (the caller recomputes accelerations then).
    // Allocates before it frees: on failure (out of memory) the previous state is untouched.
    bool sync(Precision mode, const float4* pos, const float4* vel, std::size_t n, cudaStream_t stream);

    // `from` was copied into `to` (adopt): the extras follow if they belonged to `from`, and are
    // dropped if they belonged to `to`, whose positions were just replaced.
    void moved(const void* from, const void* to);
    // `from` was copied into `to` and both stay valid (export): `to` may become the current
    // buffer (the viewer's first step_device() after an export) without losing the digits.
    void copied(const void* from, const void* to);

    // True in ds and fp64 (extras present): use kick_drift() instead of the fp32 kick-drift.
    bool active() const { return mode_ == Precision::Ds || mode_ == Precision::Fp64; }
    Precision mode() const { return mode_; }

    // The force pass of a non-fp32 precision `v` (sync() must have run for `pos` in ds/fp64).
    // `kick_vel` non-null: also the closing kick with dt/2 = half_dt (the float4 velocity buffer).
    void force(const PrecisionVariant& v, int block, const float4* pos, float4* acc, float4* kick_vel,
               std::size_t n, double eps2, double half_dt, cudaStream_t stream);

    // Opening kick and drift from `in` to `out` in ds/fp64; the extras then belong to `out`.
    void kick_drift(const float4* in, float4* out, float4* vel, const float4* acc, std::size_t n,
                    double half_dt, double dt, cudaStream_t stream);

    // Accelerations in double: fp64's own (true), else false and `out` untouched.
    bool download_accelerations(std::vector<Vec3d>& out, std::size_t n, cudaStream_t stream) const;

    // Positions and velocities with every digit the mode keeps (ds: hi + lo in double; fp64 the
    // doubles; otherwise the floats). `pos`/`vel` are the current float4 buffers.
    void download(std::vector<Vec3d>* positions, std::vector<Vec3d>* velocities, const float4* pos,
                  const float4* vel, std::size_t n, cudaStream_t stream) const;

    // Replaces the positions by `positions` (double): pos gets them rounded to float (masses in w
    // kept), the extras of `mode` get the rest. Velocity extras are kept if valid, else started
    // from `vel`.
    void upload_positions(Precision mode, const std::vector<Vec3d>& positions, float4* pos, const float4* vel,
                          cudaStream_t stream);

    // Replaces the velocities by `velocities` (double) after upload_positions() made the extras of
    // the mode: vel gets them rounded to float, the extras the rest. No-op in fp32 modes beyond that.
    void upload_velocities(const std::vector<Vec3d>& velocities, float4* vel, cudaStream_t stream);

    std::size_t bytes() const;

  private:
    Precision mode_ = Precision::Fp32;  // what the extras represent (Fp32: none)
    const void* owner_ = nullptr;       // the float4 position buffer the position extras belong to
    const void* alias_ = nullptr;       // an exported copy of it, until the next drift
    bool velocities_valid_ = false;     // vel extras match the backend's velocities
    std::size_t n_ = 0;

    DeviceBuffer<float4> pos_lo_, vel_lo_;         // ds
    DeviceBuffer<Double4> pos64_, vel64_, acc64_;  // fp64
    ForceWorkspace workspace_;                     // the balanced split's scratch (every mode)
};

}  // namespace nbody::cuda
