// The fp64 instances of the precision kernel (their list: precision_kernel_instances.hpp). The
// families are split over translation units because each takes minutes of cicc and ptxas: apart, a
// build compiles them on several cores at once.
#include "precision_kernel_body.cuh"

using namespace nbody::cuda::detail;  // the kind constants the list names
NBODY_PREC_VARIANTS_FP64(NBODY_PREC_INSTANTIATE)
