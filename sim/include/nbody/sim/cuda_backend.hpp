#pragma once
// The CUDA backend: the tiled all-pairs kernel (GPU Gems 3 ch. 31) and leapfrog on the device.
// This header includes no CUDA headers, so app/ and render/ can use it from plain C++.
//
// Positions normally live in the backend's own ping-pong device buffers. For CUDA-GL interop the
// caller passes raw device pointers instead (mapped vertex buffers): step_device() reads the
// current positions from one and writes the new ones into the other, with velocities and
// accelerations staying in the backend's device memory. No host copy happens on either path.

#include <cstddef>
#include <memory>
#include <string>

#include "nbody/sim/backend.hpp"

namespace nbody {

struct CudaDeviceInfo {
    std::string name;
    int sm_count = 0;
    int compute_major = 0, compute_minor = 0;
    int max_threads_per_block = 0;
    std::size_t shared_memory_per_block_optin = 0;
    std::size_t total_memory = 0;
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

    // Throws std::invalid_argument with the reason when the device cannot run `config`; the
    // running configuration and the state are left untouched then.
    void set_kernel_config(const KernelConfig& config) override;
    KernelConfig kernel_config() const override;

    // Empty when `config` can run on this device, else the reason it cannot.
    std::string check_kernel_config(const KernelConfig& config) const;

    // One leapfrog step from device positions `pos_in` to `pos_out` (each size() float4s, distinct
    // buffers, e.g. mapped OpenGL vertex buffers). Afterwards the current positions are those in
    // `pos_out`; call adopt_device_positions() before store()/step() if the caller's buffers
    // are to become the backend's own again.
    void step_device(const void* pos_in, void* pos_out, const StepParams& params);
    // Copies size() float4 positions from a device buffer into the backend's own (device to
    // device), e.g. when leaving interop mode.
    void adopt_device_positions(const void* pos);
    // Copies the backend's current positions into a device buffer (device to device).
    void export_device_positions(void* pos) const;

    // Milliseconds the last force pass took, measured with CUDA events (0 before the first).
    double last_force_ms() const;
    // Bytes copied device-to-host since load(): stays 0 on the interop path.
    std::size_t bytes_copied_to_host() const;

    const CudaDeviceInfo& device_info() const;

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

}  // namespace nbody
