#include "precision_state.hpp"

#include <stdexcept>
#include <string>
#include <utility>

#include "cuda_check.hpp"

namespace nbody::cuda {
namespace {

bool has_extras(Precision p) { return p == Precision::Ds || p == Precision::Fp64; }

template <class T>
std::vector<T> download_buffer(const T* device, std::size_t n, cudaStream_t stream) {
    std::vector<T> host(n);
    if (n > 0)
        CUDA_CHECK(cudaMemcpyAsync(host.data(), device, n * sizeof(T), cudaMemcpyDeviceToHost, stream));
    CUDA_CHECK(cudaStreamSynchronize(stream));
    return host;
}

// `values` as Double4 (w = 0) in a new device buffer; the copy is queued on `stream` from a host
// vector that must outlive it: the caller synchronises before `host` goes.
DeviceBuffer<Double4> upload_doubles(const std::vector<Vec3d>& values, std::vector<Double4>& host, cudaStream_t stream) {
    const std::size_t n = values.size();
    host.resize(n);
    for (std::size_t i = 0; i < n; ++i) host[i] = {values[i].x, values[i].y, values[i].z, 0.0};
    DeviceBuffer<Double4> src(n);
    if (n > 0)
        CUDA_CHECK(cudaMemcpyAsync(src.get(), host.data(), n * sizeof(Double4), cudaMemcpyHostToDevice, stream));
    return src;
}

}  // namespace

PrecisionVariant precision_variant_of(Precision p, int unroll, int threads_per_body, int bodies_per_thread) {
    PrecisionVariant v;
    v.unroll = unroll;
    v.threads_per_body = threads_per_body;
    v.bodies_per_thread = bodies_per_thread;
    switch (p) {
        case Precision::Fp32Jbag:
            v.mode = PrecisionMode::Fp32Jbag;
            return v;
        case Precision::Ds:
            v.mode = PrecisionMode::Ds;
            return v;
        case Precision::Fp64:
            v.mode = PrecisionMode::Fp64;
            return v;
        case Precision::Fp32:
            break;
    }
    throw std::logic_error("fp32 has no precision-kernel variant (it is force_kernel.cu's kernel)");
}

void PrecisionState::reset() { *this = PrecisionState{}; }

bool PrecisionState::sync(Precision mode, const float4* pos, const float4* vel, std::size_t n,
                          cudaStream_t stream) {
    if (!has_extras(mode)) {
        if (!active()) return false;
        reset();  // the float4 buffers are already current: nothing to convert
        return true;
    }
    const int ni = static_cast<int>(n);
    if (pos != nullptr && pos == alias_) owner_ = alias_;  // the exported copy became current
    alias_ = nullptr;
    if (mode == mode_ && n == n_) {
        bool changed = false;
        if (owner_ != pos) {  // positions that arrived as floats: their extra digits are 0
            if (mode == Precision::Ds) {
                CUDA_CHECK(cudaMemsetAsync(pos_lo_.get(), 0, pos_lo_.bytes(), stream));
            } else {
                launch_widen(pos, nullptr, pos64_.get(), ni, stream);
            }
            owner_ = pos;
            changed = true;
        }
        if (!velocities_valid_) {
            if (mode == Precision::Ds) {
                CUDA_CHECK(cudaMemsetAsync(vel_lo_.get(), 0, vel_lo_.bytes(), stream));
            } else {
                launch_widen(vel, nullptr, vel64_.get(), ni, stream);
            }
            velocities_valid_ = true;
        }
        return changed;
    }

    // A new mode: allocate its extras before anything is dropped, then convert into them.
    PrecisionState next;
    next.mode_ = mode;
    next.n_ = n;
    if (mode == Precision::Ds) {
        next.pos_lo_ = DeviceBuffer<float4>(n);
        next.vel_lo_ = DeviceBuffer<float4>(n);
    } else {
        next.pos64_ = DeviceBuffer<Double4>(n);
        next.vel64_ = DeviceBuffer<Double4>(n);
        next.acc64_ = DeviceBuffer<Double4>(n);
    }
    const bool same_n = n == n_;
    const bool positions_known = same_n && owner_ == pos && active();
    const bool velocities_known = same_n && velocities_valid_ && active();
    if (mode == Precision::Ds) {
        // From fp64: hi is already float(x) in the float4 buffers, so lo = x - hi is exact.
        if (positions_known)
            launch_lo_of_double(pos64_.get(), pos, next.pos_lo_.get(), ni, stream);
        else
            CUDA_CHECK(cudaMemsetAsync(next.pos_lo_.get(), 0, next.pos_lo_.bytes(), stream));
        if (velocities_known)
            launch_lo_of_double(vel64_.get(), vel, next.vel_lo_.get(), ni, stream);
        else
            CUDA_CHECK(cudaMemsetAsync(next.vel_lo_.get(), 0, next.vel_lo_.bytes(), stream));
    } else {
        // From ds: hi + lo is exact in double (48 significant bits).
        launch_widen(pos, positions_known ? pos_lo_.get() : nullptr, next.pos64_.get(), ni, stream);
        launch_widen(vel, velocities_known ? vel_lo_.get() : nullptr, next.vel64_.get(), ni, stream);
    }
    next.owner_ = pos;
    next.velocities_valid_ = true;
    // The old buffers are freed here; cudaFree waits for the conversion kernels that read them.
    *this = std::move(next);
    return true;
}

void PrecisionState::moved(const void* from, const void* to) {
    if (from != nullptr && (owner_ == from || alias_ == from))
        owner_ = to;
    else if (owner_ == to)
        owner_ = nullptr;  // overwritten with positions the extras do not describe
    alias_ = nullptr;
}

void PrecisionState::copied(const void* from, const void* to) {
    if (from != nullptr && owner_ == from) alias_ = to;
}

void PrecisionState::force(const PrecisionVariant& v, int block, const float4* pos, float4* acc,
                           float4* kick_vel, std::size_t n, double eps2, double half_dt,
                           cudaStream_t stream) {
    PrecisionForceArgs a;
    a.n = static_cast<int>(n);
    a.eps2 = eps2;
    a.half_dt = half_dt;
    a.pos = pos;
    a.acc = acc;
    a.vel = kick_vel;
    a.workspace = &workspace_;
    if (v.mode == PrecisionMode::Ds || v.mode == PrecisionMode::Fp64) {
        const Precision want = v.mode == PrecisionMode::Ds ? Precision::Ds : Precision::Fp64;
        if (mode_ != want || owner_ != pos || n != n_)
            throw std::logic_error(std::string("PrecisionState::force(): the ") +
                                   precision_mode_name(v.mode) +
                                   " extras do not belong to these positions (sync() was not called)");
    }
    if (v.mode == PrecisionMode::Ds) {
        a.pos_lo = pos_lo_.get();
        a.vel_lo = kick_vel != nullptr ? vel_lo_.get() : nullptr;
    } else if (v.mode == PrecisionMode::Fp64) {
        a.pos64 = pos64_.get();
        a.acc64 = acc64_.get();
        a.vel64 = kick_vel != nullptr ? vel64_.get() : nullptr;
    }
    launch_precision_force(v, block, a, stream);
}

void PrecisionState::kick_drift(const float4* in, float4* out, float4* vel, const float4* acc, std::size_t n,
                                double half_dt, double dt, cudaStream_t stream) {
    if (!active() || owner_ != in || n != n_)
        throw std::logic_error(
            "PrecisionState::kick_drift(): no extras for these positions (sync() was not called)");
    const int ni = static_cast<int>(n);
    if (mode_ == Precision::Ds)
        launch_kick_drift_ds(in, out, pos_lo_.get(), vel, vel_lo_.get(), acc, ni, static_cast<float>(half_dt),
                             static_cast<float>(dt), stream);
    else
        launch_kick_drift_fp64(pos64_.get(), out, vel64_.get(), vel, acc64_.get(), ni, half_dt, dt, stream);
    owner_ = out;
    alias_ = nullptr;
}

bool PrecisionState::download_accelerations(std::vector<Vec3d>& out, std::size_t n,
                                            cudaStream_t stream) const {
    if (mode_ != Precision::Fp64 || n != n_) return false;
    const std::vector<Double4> a = download_buffer(acc64_.get(), n, stream);
    out.resize(n);
    for (std::size_t i = 0; i < n; ++i) out[i] = {a[i].x, a[i].y, a[i].z};
    return true;
}

void PrecisionState::download(std::vector<Vec3d>* positions, std::vector<Vec3d>* velocities,
                              const float4* pos, const float4* vel, std::size_t n,
                              cudaStream_t stream) const {
    auto fetch = [&](std::vector<Vec3d>& out, const float4* hi, const float4* lo, const Double4* d) {
        out.resize(n);
        if (d != nullptr) {
            const std::vector<Double4> v = download_buffer(d, n, stream);
            for (std::size_t i = 0; i < n; ++i) out[i] = {v[i].x, v[i].y, v[i].z};
            return;
        }
        const std::vector<float4> h = download_buffer(hi, n, stream);
        std::vector<float4> l;
        if (lo != nullptr) l = download_buffer(lo, n, stream);
        for (std::size_t i = 0; i < n; ++i) {
            out[i] = {double(h[i].x), double(h[i].y), double(h[i].z)};
            if (lo != nullptr) out[i] += Vec3d{double(l[i].x), double(l[i].y), double(l[i].z)};
        }
    };
    const bool same_n = n == n_;
    const bool pos_extras = same_n && active() && owner_ == pos;
    const bool vel_extras = same_n && active() && velocities_valid_;
    if (positions != nullptr)
        fetch(*positions, pos, pos_extras && mode_ == Precision::Ds ? pos_lo_.get() : nullptr,
              pos_extras && mode_ == Precision::Fp64 ? pos64_.get() : nullptr);
    if (velocities != nullptr)
        fetch(*velocities, vel, vel_extras && mode_ == Precision::Ds ? vel_lo_.get() : nullptr,
              vel_extras && mode_ == Precision::Fp64 ? vel64_.get() : nullptr);
}

void PrecisionState::upload_positions(Precision mode, const std::vector<Vec3d>& positions, float4* pos,
                                      const float4* vel, cudaStream_t stream) {
    const std::size_t n = positions.size();
    std::vector<Double4> host;
    const DeviceBuffer<Double4> src = upload_doubles(positions, host, stream);
    // Extras of `mode` for the current buffer first (allocation, velocities), then the positions.
    sync(mode, pos, vel, n, stream);
    const int ni = static_cast<int>(n);
    if (mode == Precision::Ds)
        launch_set_positions(src.get(), pos, pos_lo_.get(), nullptr, ni, stream);
    else if (mode == Precision::Fp64)
        launch_set_positions(src.get(), pos, nullptr, pos64_.get(), ni, stream);
    else
        launch_set_positions(src.get(), pos, nullptr, nullptr, ni, stream);
    // `host` and `src` die here: wait for the copy and the kernel that read them.
    CUDA_CHECK(cudaStreamSynchronize(stream));
}

void PrecisionState::upload_velocities(const std::vector<Vec3d>& velocities, float4* vel, cudaStream_t stream) {
    const std::size_t n = velocities.size();
    std::vector<Double4> host;
    const DeviceBuffer<Double4> src = upload_doubles(velocities, host, stream);
    const bool extras = active() && n == n_;
    // The same rounding and split as positions (w, unused in velocities, is kept).
    launch_set_positions(src.get(), vel, extras && mode_ == Precision::Ds ? vel_lo_.get() : nullptr,
                         extras && mode_ == Precision::Fp64 ? vel64_.get() : nullptr, static_cast<int>(n), stream);
    if (extras) velocities_valid_ = true;
    CUDA_CHECK(cudaStreamSynchronize(stream));
}

std::size_t PrecisionState::bytes() const {
    return pos_lo_.bytes() + vel_lo_.bytes() + pos64_.bytes() + vel64_.bytes() + acc64_.bytes() + workspace_.bytes();
}

}  // namespace nbody::cuda
