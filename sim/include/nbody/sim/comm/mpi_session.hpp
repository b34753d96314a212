#pragma once
// MPI for the whole process: initialised once in main when the process was started by an MPI
// launcher (mpirun/mpiexec set OMPI_COMM_WORLD_SIZE or PMI_SIZE), finalised when main returns. A
// process started without a launcher never touches MPI, so a plain `nbody run` needs no MPI
// daemon; its launch communicator is the serial one.

#include <memory>
#include <string>

#include "nbody/sim/comm/communicator.hpp"

namespace nbody::comm {

// Whether an MPI launcher started this process (environment only: works without MPI built in).
bool launched_by_mpi();

class MpiSession {
public:
    // Initialises MPI when launched_by_mpi(); throws std::runtime_error when it was but this build
    // has no MPI, or MPI_Init fails.
    MpiSession(int* argc, char*** argv);
    // Destroys the communicators made from MPI, then finalises.
    ~MpiSession();
    MpiSession(const MpiSession&) = delete;
    MpiSession& operator=(const MpiSession&) = delete;

    bool active() const { return active_; }
    int rank() const { return world_->rank(); }
    int size() const { return world_->size(); }
    // The world of this launch: MPI_COMM_WORLD's ranks when active, else one serial rank.
    Communicator& world() { return *world_; }

    // Ends every rank of the launch with `code` (MPI_Abort), after the caller printed why; exits
    // the process alone when MPI is not active.
    [[noreturn]] void abort_all(int code);

private:
    bool active_ = false;
    std::unique_ptr<Communicator> world_;
};

// The world communicator of the process's MpiSession, or a serial one when there is none (tests
// and tools that do not start a session). Commands reach the launch's ranks through this.
Communicator& launch_communicator();

}  // namespace nbody::comm
