#include "nbody/sim/kernel_config.hpp"

#include <string>

namespace nbody {

std::string KernelConfig::to_string() const {
    return "unroll " + std::to_string(unroll) + ", block " + std::to_string(block) + ", threads/body " +
           std::to_string(threads_per_body);
}

}  // namespace nbody
