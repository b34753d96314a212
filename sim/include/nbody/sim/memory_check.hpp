#pragma once
// Memory for N bodies, estimated before anything is allocated for them, so that `--bodies
// 1000000000` is refused at once with the numbers instead of eating all memory until the kernel
// kills the process (or ending in a bare std::bad_alloc). What is available is the smallest of
// MemAvailable, the cgroup's limit and the process's own limits (ulimit -v / -d), so a run under
// `ulimit -v` is refused as a run on a small machine is.

#include <cstdint>
#include <exception>
#include <optional>
#include <string>
#include <string_view>

#include "nbody/sim/gravity.hpp"
#include "nbody/sim/kernel_config.hpp"

namespace nbody {

struct MemoryNeed {
    std::uint64_t host_per_body = 0, device_per_body = 0;  // bytes
    std::string host_detail, device_detail;                 // what the bytes per body are
};

// What a command holds per body while it works.
struct Workload {
    std::string backend = "cpu";  // "reference", "cpu", "cuda" (owned: callers pass temporaries)
    Precision precision = Precision::Fp32;
    bool viewer = false;               // the two vertex buffers on the GPU
    Gravity gravity = Gravity::Direct;  // tree: the octree's arrays beside the backend's
    int hermite_order = 0;             // 4 or 6: the Hermite integrator's double arrays instead of a backend
    bool force_pass = false;           // one pass whose accelerations come back in double (forces, accuracy)
};

// What one body costs. Leapfrog on `backend`: on the host the State (35 bytes) three times (the
// system, its initial copy for diagnostics and the checkpoint of the NaN guard), a double state
// (56) twice where the backend has one, and the backend's own arrays (reference 80, cpu 40); on
// the device the cuda backend's float4 buffers (64), the ds (32) or fp64 (96) extras, and with
// `viewer` the two vertex buffers (32). The tree adds its sorted copy, keys and cells. Hermite:
// the input in double, the integrator's per-body arrays and work lists, the engine's j-particles
// and the output's copies (sizes taken from the structs themselves).
MemoryNeed memory_need(const Workload& work);
// The leapfrog estimate above (kept for the callers that name a backend only).
MemoryNeed memory_need(std::string_view backend, Precision precision, bool viewer = false);

// Memory a new allocation can have, and what sets that figure.
struct HostMemory {
    std::uint64_t bytes = 0;
    std::string limit;  // "MemAvailable", "the cgroup limit", "ulimit -v (RLIMIT_AS)", "ulimit -d (RLIMIT_DATA)"
};
// The smallest of MemAvailable (/proc/meminfo), the cgroup v2 limit less its usage, and the
// headroom under RLIMIT_AS and RLIMIT_DATA (the limit less this process's VmSize / VmData).
// nullopt when none can be read.
std::optional<HostMemory> host_memory();
std::optional<std::uint64_t> host_memory_available();  // host_memory()'s bytes
// Free memory of CUDA device 0; nullopt without a usable device.
std::optional<std::uint64_t> device_memory_available();

// Throws std::runtime_error with the numbers when N bodies do not fit ("N = 1000000000 needs
// about 145 GiB of host memory (145 bytes per body: ...), but 30.2 GiB are available"), or when
// N exceeds what the backend can index. Returns the host bytes estimated (for MemoryActivity).
std::uint64_t check_memory_for(std::uint64_t bodies, const Workload& work);
inline std::uint64_t check_memory_for(std::uint64_t bodies, std::string_view backend, Precision precision,
                                      bool viewer = false) {
    return check_memory_for(bodies, Workload{std::string(backend), precision, viewer});
}

// The last line of defence when an estimate was short: a std::bad_alloc that leaves the scope of
// one of these is reported by main as "out of memory while <what> (N = <bodies>, about <X> GiB)"
// (out_of_memory_message): the innermost scope the exception unwinds through remembers itself.
// Main thread only.
class MemoryActivity {
public:
    MemoryActivity(std::string what, std::uint64_t bodies, std::uint64_t estimated_bytes);
    ~MemoryActivity();
    MemoryActivity(const MemoryActivity&) = delete;
    MemoryActivity& operator=(const MemoryActivity&) = delete;

private:
    std::string what_;
    std::uint64_t bodies_, bytes_;
    int uncaught_at_start_;
};

// "out of memory while building the scene (N = 2000000000, about 270.0 GiB); use fewer bodies",
// from the innermost MemoryActivity alive, or a message without them when there is none.
std::string out_of_memory_message();

// What a caught exception says to a user: its text, or for a std::bad_alloc (whose what() is the
// class name) "out of memory while <doing>; use fewer bodies or free memory". For the viewer's
// worker threads and panels, where no MemoryActivity of the main thread applies.
std::string error_text(const std::exception& e, std::string_view doing);

// "1.5 GiB", "300.0 MiB": the sizes in the messages above.
std::string format_gib(double bytes);

}  // namespace nbody
