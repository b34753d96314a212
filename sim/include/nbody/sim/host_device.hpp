#pragma once
// NBODY_HD marks a function that the host and the GPU both run from one definition (the same
// expressions in the same order, so that a kernel compiled without FMA contraction rounds as the
// host does). Empty outside nvcc.
#ifdef __CUDACC__
#define NBODY_HD __host__ __device__
#else
#define NBODY_HD
#endif
