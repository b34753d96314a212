#pragma once
// Tunables of the tiled all-pairs force kernel (GPU Gems 3 ch. 31). Plain data: the GUI edits a
// copy, the CUDA backend validates it against the device before it replaces the running one.

#include <string>

namespace nbody {

struct KernelConfig {
    int unroll = 4;            // j-loop unroll factor U (compile-time instances: 1, 2, 4, 8, 16, 32)
    int block = 256;           // tile size p = threads per block, a multiple of 32
    int threads_per_body = 1;  // q threads share one body's j-range (1, 2, 4, 8, 16, 32)
    int bodies_per_thread = 1; // B i-bodies per thread held in registers (1, 2, 4): each j read
                               // from shared memory serves B interactions (RV770 i-unrolling)

    friend bool operator==(const KernelConfig&, const KernelConfig&) = default;
    std::string to_string() const;
};

}  // namespace nbody
