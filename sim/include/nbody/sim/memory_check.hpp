#pragma once
// Memory for N bodies, estimated before anything is allocated for them, so that `--bodies
// 1000000000` is refused at once with the numbers instead of eating all memory until the kernel
// kills the process (or ending in a bare std::bad_alloc).

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "nbody/sim/kernel_config.hpp"

namespace nbody {

struct MemoryNeed {
    std::uint64_t host_per_body = 0, device_per_body = 0;  // bytes
    std::string host_detail, device_detail;                 // what the bytes per body are
};

// What one body costs on the backend named `backend` ("reference", "cpu", "cuda") in `precision`:
// on the host the State (35 bytes) three times (the system, its initial copy for diagnostics and
// the checkpoint of the NaN guard), a double state (56) twice where the backend has one, and the
// backend's own arrays (reference 80, cpu 40); on the device the cuda backend's float4 buffers
// (64), the ds (32) or fp64 (96) extras, and with `viewer` the two vertex buffers (32).
MemoryNeed memory_need(std::string_view backend, Precision precision, bool viewer = false);

// Host memory a new allocation can have: MemAvailable of /proc/meminfo, lowered to the cgroup
// limit (memory.max less memory.current) when there is one. nullopt when neither can be read.
std::optional<std::uint64_t> host_memory_available();
// Free memory of CUDA device 0; nullopt without a usable device.
std::optional<std::uint64_t> device_memory_available();

// Throws std::runtime_error with the numbers when N bodies do not fit ("N = 1000000000 needs
// about 145 GiB of host memory (145 bytes per body: ...), but 30.2 GiB are available"), or when
// N exceeds what the backend can index.
void check_memory_for(std::uint64_t bodies, std::string_view backend, Precision precision, bool viewer = false);

}  // namespace nbody
