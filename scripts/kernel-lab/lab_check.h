#pragma once
// CUDA runtime calls of the lab's harnesses: a failure prints file, line, call and the error, and
// ends the process (exit 2), so that run-on-device.sh's log says which variant could not run.
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>

#define CK(call)                                                                                  \
    do {                                                                                          \
        cudaError_t e_ = (call);                                                                  \
        if (e_ != cudaSuccess) {                                                                  \
            std::fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(e_)); \
            std::exit(2);                                                                         \
        }                                                                                         \
    } while (0)
