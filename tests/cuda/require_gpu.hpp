#pragma once
// Skips the current test, with the reason, where no CUDA device is usable (CI has none).

#include <gtest/gtest.h>

#include <string>

#include "nbody/sim/backend.hpp"

#define REQUIRE_GPU()                                                                                  \
    do {                                                                                               \
        std::string why_no_gpu;                                                                        \
        if (!::nbody::cuda_available(&why_no_gpu)) GTEST_SKIP() << "no usable CUDA device: " << why_no_gpu; \
    } while (0)
