#include "cuda_probe.hpp"

#include <cuda_runtime_api.h>

#include <exception>
#include <string>

#include "force_kernel.hpp"

namespace nbody {
namespace {

int probed_gpu = 0;

std::string version_string(int v) { return std::to_string(v / 1000) + "." + std::to_string(v % 1000 / 10); }

std::string probe() {
    int driver = 0, runtime = 0;
    (void)cudaDriverGetVersion(&driver);  // 0 when no driver library is installed
    (void)cudaRuntimeGetVersion(&runtime);
    if (driver == 0) return "no CUDA driver (libcuda.so not found: no NVIDIA driver installed)";

    int count = 0;
    const cudaError_t err = cudaGetDeviceCount(&count);
    if (err != cudaSuccess) {
        (void)cudaGetLastError();  // cudaGetDeviceCount's errors are not sticky; clear the last error
        const std::string detail = std::string(" (") + cudaGetErrorName(err) + ": " + cudaGetErrorString(err) + ")";
        switch (err) {
            case cudaErrorNoDevice:
                return "no CUDA device" + detail;
            case cudaErrorInsufficientDriver:
                return "the CUDA driver (" + version_string(driver) + ") is older than this build's CUDA runtime (" +
                       version_string(runtime) + ")" + detail;
            default:
                return "the CUDA driver could not be initialised" + detail;
        }
    }
    if (count == 0) return "no CUDA device";
    if (cudaSetDevice(probed_gpu % count) != cudaSuccess) {
        (void)cudaGetLastError();
        return "CUDA device " + std::to_string(probed_gpu % count) + " cannot be used (busy, or in a prohibited compute mode)";
    }
    return cuda::kernel_image_problem();
}

}  // namespace

void set_probed_gpu(int local_rank) { probed_gpu = local_rank < 0 ? 0 : local_rank; }

bool cuda_probe(std::string* why_not) {
    std::string why;
    try {
        why = probe();
    } catch (const std::exception& e) {
        why = e.what();
    }
    if (why_not != nullptr) *why_not = why;
    return why.empty();
}

bool cuda_memory_info(std::size_t* free_bytes, std::size_t* total_bytes) {
    if (!cuda_probe(nullptr)) return false;
    std::size_t f = 0, t = 0;
    if (cudaMemGetInfo(&f, &t) != cudaSuccess) {
        (void)cudaGetLastError();
        return false;
    }
    if (free_bytes) *free_bytes = f;
    if (total_bytes) *total_bytes = t;
    return true;
}

}  // namespace nbody
