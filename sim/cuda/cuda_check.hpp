#pragma once
// Error handling for CUDA runtime calls. A failing call becomes a std::runtime_error that names
// the source place, the expression and the runtime's own description, so the message that reaches
// the user says what failed and where; nothing here calls exit() or aborts.
//
//   CUDA_CHECK(cudaMalloc(&p, bytes));        // throws on failure
//   CUDA_CHECK_LOG(cudaFree(p));              // destructors: logs to stderr, never throws
//   CUDA_CHECK_LAUNCH();                      // after a <<<>>> launch: configuration errors

#include <cuda_runtime_api.h>

#include <cstdio>
#include <stdexcept>
#include <string>

namespace nbody::cuda {

inline std::string describe_cuda_error(cudaError_t err, const char* expr, const char* file, int line) {
    std::string msg = std::string(file) + ":" + std::to_string(line) + ": " + expr + " failed: " +
                      cudaGetErrorName(err) + " (" + cudaGetErrorString(err) + ")";
    return msg;
}

[[noreturn]] inline void throw_cuda_error(cudaError_t err, const char* expr, const char* file, int line) {
    throw std::runtime_error(describe_cuda_error(err, expr, file, line));
}

inline void check_cuda(cudaError_t err, const char* expr, const char* file, int line) {
    if (err != cudaSuccess) throw_cuda_error(err, expr, file, line);
}

// For destructors and other places that must not throw: the failure is reported and dropped.
inline void log_cuda(cudaError_t err, const char* expr, const char* file, int line) noexcept {
    if (err != cudaSuccess) {
        std::fprintf(stderr, "nbody: warning: %s\n", describe_cuda_error(err, expr, file, line).c_str());
    }
}

}  // namespace nbody::cuda

#define CUDA_CHECK(expr) ::nbody::cuda::check_cuda((expr), #expr, __FILE__, __LINE__)
#define CUDA_CHECK_LOG(expr) ::nbody::cuda::log_cuda((expr), #expr, __FILE__, __LINE__)
// A <<<>>> launch returns nothing; a bad configuration shows up in cudaGetLastError(). Errors
// raised while the kernel runs surface at the next synchronising call, which is checked too.
#define CUDA_CHECK_LAUNCH() ::nbody::cuda::check_cuda(cudaGetLastError(), "kernel launch", __FILE__, __LINE__)
