#include <ostream>
#include <stdexcept>
#include <string>

#include "nbody/sim/backend.hpp"
#include "nbody/sim/direct_sum_backend.hpp"

#ifdef NBODY_HAVE_CUDA
#include "nbody/sim/cuda_backend.hpp"
#include "../cuda/cuda_probe.hpp"
#endif

namespace nbody {

BackendKind parse_backend_kind(std::string_view text) {
    if (text == "reference") return BackendKind::Reference;
    if (text == "cpu") return BackendKind::Cpu;
    if (text == "cuda") return BackendKind::Cuda;
    if (text == "auto") return BackendKind::Auto;
    throw std::invalid_argument("unknown backend '" + std::string(text) +
                                "'; supported: reference, cpu, cuda, auto");
}

std::string_view to_string(BackendKind kind) {
    switch (kind) {
        case BackendKind::Reference: return "reference";
        case BackendKind::Cpu: return "cpu";
        case BackendKind::Cuda: return "cuda";
        case BackendKind::Auto: return "auto";
    }
    return "unknown";
}

void Backend::set_gravity(const GravityConfig& config) {
    if (config.gravity != Gravity::Direct)
        throw std::invalid_argument("the " + std::string(name()) + " backend has no tree code (--gravity tree runs on "
                                    "the cpu, reference and cuda backends)");
}

void set_process_gpu(int local_rank) {
#ifdef NBODY_HAVE_CUDA
    set_probed_gpu(local_rank);
#else
    (void)local_rank;
#endif
}

bool cuda_available(std::string* why_not) {
#ifdef NBODY_HAVE_CUDA
    return cuda_probe(why_not);
#else
    if (why_not) *why_not = "this build of nbody has no CUDA backend (configured without a CUDA compiler)";
    return false;
#endif
}

std::unique_ptr<Backend> make_backend(BackendKind kind, std::ostream& notice) {
    switch (kind) {
        case BackendKind::Reference: return std::make_unique<ReferenceBackend>();
        case BackendKind::Cpu: return std::make_unique<CpuBackend>();
        case BackendKind::Cuda: {
            std::string why;
            if (!cuda_available(&why)) throw std::runtime_error("the cuda backend is not usable: " + why);
#ifdef NBODY_HAVE_CUDA
            return std::make_unique<CudaBackend>();
#else
            break;
#endif
        }
        case BackendKind::Auto: {
            std::string why;
            if (cuda_available(&why)) {
#ifdef NBODY_HAVE_CUDA
                try {
                    auto backend = std::make_unique<CudaBackend>();
                    notice << "nbody: backend auto -> cuda (" << backend->device_info().name << ")\n";
                    return backend;
                } catch (const std::exception& e) {
                    why = e.what();
                }
#endif
            }
            notice << "nbody: backend auto -> cpu (" << why << ")\n";
            return std::make_unique<CpuBackend>();
        }
    }
    throw std::invalid_argument("unknown backend kind");
}

}  // namespace nbody
