#include "nbody/sim/memory_check.hpp"

#include <cstdio>
#include <fstream>
#include <limits>
#include <sstream>
#include <stdexcept>

#ifdef NBODY_HAVE_CUDA
#include "../cuda/cuda_probe.hpp"
#endif
#include "nbody/sim/io/body_check.hpp"

namespace nbody {
namespace {

std::string gib(double bytes) {
    char buf[32];
    if (bytes >= double(1ull << 30))
        std::snprintf(buf, sizeof buf, "%.1f GiB", bytes / double(1ull << 30));
    else
        std::snprintf(buf, sizeof buf, "%.1f MiB", bytes / double(1ull << 20));
    return buf;
}

std::optional<std::uint64_t> read_number(const char* path) {
    std::ifstream in(path);
    std::string text;
    if (!(in >> text) || text == "max") return std::nullopt;
    try {
        return std::stoull(text);
    } catch (const std::exception&) {
        return std::nullopt;
    }
}

}  // namespace

MemoryNeed memory_need(std::string_view backend, Precision precision, bool viewer) {
    MemoryNeed m;
    const bool cuda = backend == "cuda";
    const bool precise = backend == "reference" || (cuda && (precision == Precision::Ds || precision == Precision::Fp64));
    const std::uint64_t own = backend == "reference" ? 80 : backend == "cpu" ? 40 : 0;
    m.host_per_body = 3 * 35 + (precise ? 2 * 56 : 0) + own;
    m.host_detail = "3 x 35 state" + std::string(precise ? " + 2 x 56 double state" : "") +
                    (own ? " + " + std::to_string(own) + " " + std::string(backend) + " arrays" : std::string());
    if (cuda) {
        const std::uint64_t extra = precision == Precision::Ds ? 32 : precision == Precision::Fp64 ? 96 : 0;
        m.device_per_body = 64 + extra + (viewer ? 32 : 0);
        m.device_detail = "64 float4 buffers" + (extra ? " + " + std::to_string(extra) + " " + std::string(to_string(precision)) + " extras" : std::string()) +
                          (viewer ? " + 32 vertex buffers" : "");
    }
    return m;
}

std::optional<std::uint64_t> host_memory_available() {
    std::optional<std::uint64_t> avail;
    std::ifstream in("/proc/meminfo");
    for (std::string line; std::getline(in, line);) {
        if (line.rfind("MemAvailable:", 0) == 0) {
            std::istringstream fields(line.substr(13));
            std::uint64_t kib = 0;
            if (fields >> kib) avail = kib * 1024;
        }
    }
    // cgroup v2: the limit of this process's group (a container, a CI job).
    if (const auto limit = read_number("/sys/fs/cgroup/memory.max")) {
        const std::uint64_t used = read_number("/sys/fs/cgroup/memory.current").value_or(0);
        const std::uint64_t left = *limit > used ? *limit - used : 0;
        if (!avail || left < *avail) avail = left;
    }
    return avail;
}

std::optional<std::uint64_t> device_memory_available() {
#ifdef NBODY_HAVE_CUDA
    std::size_t free_bytes = 0;
    if (cuda_memory_info(&free_bytes, nullptr)) return free_bytes;
#endif
    return std::nullopt;
}

void check_memory_for(std::uint64_t bodies, std::string_view backend, Precision precision, bool viewer) {
    using io::kMaxBodies;
    if (bodies > kMaxBodies)
        throw std::runtime_error("N = " + std::to_string(bodies) + " bodies is more than nbody supports (at most " +
                                 std::to_string(kMaxBodies) + " = 2^30)");
    const MemoryNeed need = memory_need(backend, precision, viewer);
    const std::string n = "N = " + std::to_string(bodies);
    if (const auto host = host_memory_available()) {
        const double bytes = double(bodies) * double(need.host_per_body);
        if (bytes > double(*host))
            throw std::runtime_error(n + " needs about " + gib(bytes) + " of host memory (" +
                                     std::to_string(need.host_per_body) + " bytes per body: " + need.host_detail +
                                     "), but " + gib(double(*host)) + " are available; use fewer bodies");
    }
    if (need.device_per_body > 0) {
        if (const auto device = device_memory_available()) {
            const double bytes = double(bodies) * double(need.device_per_body);
            if (bytes > double(*device))
                throw std::runtime_error(n + " needs about " + gib(bytes) + " of GPU memory (" +
                                         std::to_string(need.device_per_body) + " bytes per body: " +
                                         need.device_detail + "), but " + gib(double(*device)) +
                                         " are free on the GPU; use fewer bodies");
        }
    }
}

}  // namespace nbody
