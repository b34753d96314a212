// The double-single (and its Sapporo eq. 3 A/B formulation) instances of the precision kernel (their list: precision_kernel_instances.hpp). The
// families are split over translation units because each takes minutes of cicc and ptxas: apart, a
// build compiles them on several cores at once.
#include "precision_kernel_body.cuh"

using namespace nbody::cuda::detail;  // the kind constants the list names
NBODY_PREC_VARIANTS_DS(NBODY_PREC_INSTANTIATE)
