#pragma once
// The MPI communicator: host buffers, one rank per process. It works on a duplicate of
// MPI_COMM_WORLD with MPI_ERRORS_RETURN, so a failed call throws with file, line, call and MPI's
// message instead of MPI's default abort. Debian's OpenMPI is not CUDA-aware: never give it a
// device pointer.

#include <memory>

#include "nbody/sim/comm/communicator.hpp"

namespace nbody::comm {

// True when this build has the MPI communicator.
bool have_mpi();

// A communicator over MPI_COMM_WORLD (MPI must be initialised: MpiSession). Throws
// std::runtime_error in a build without MPI.
std::unique_ptr<Communicator> make_mpi_world_communicator();

}  // namespace nbody::comm
