// The force kernel's instances of unroll 32 (their list: force_kernel_instances.hpp). The
// instances are split over a few translation units because each takes minutes of cicc and ptxas:
// apart, a build compiles them on several cores at once.
#include "force_kernel_body.cuh"

NBODY_FORCE_VARIANTS_U32(NBODY_FORCE_INSTANTIATE)
