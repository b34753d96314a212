#pragma once
// The NCCL communicator: device buffers, one rank per GPU, each rank with a CUDA stream of its own
// on which its collectives are queued (kernels that use a collective's buffers go on the same
// stream, so no extra synchronisation is needed between them). Made either
//   - in one process over some of its GPUs (ncclCommInitAll): one communicator per GPU; the ranks
//     then run as one thread each (run_on_each_rank), the same SPMD code as MPI ranks run; or
//   - from a host communicator (MPI), one rank per process: rank 0's ncclUniqueId is broadcast
//     over it, and each process names its GPU.
// This header has no CUDA or NCCL types, so code built without them can name the factories; in
// such a build they throw with the reason.

#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "nbody/sim/comm/communicator.hpp"

namespace nbody::comm {

class DeviceCommunicator : public Communicator {
public:
    virtual int device() const = 0;
    // The rank's stream, a cudaStream_t.
    virtual void* stream() const = 0;
};

// True when this build has the NCCL communicator.
bool have_nccl();

// The GPUs this process sees (cudaGetDeviceCount; 0 when none is usable or the build has no NCCL).
int visible_gpu_count();

// One communicator per device in `devices` (rank k on devices[k]), each with its own stream.
// Throws std::runtime_error with NCCL's or CUDA's message (file, line, call).
std::vector<std::unique_ptr<DeviceCommunicator>> make_nccl_communicators(std::span<const int> devices);

// This process's rank of a communicator spanning the ranks of `host` (MPI), on GPU `device`.
// Every rank of `host` calls it (a collective). Makes `device` the calling thread's current
// device: the buffers given to this communicator must be allocated there.
std::unique_ptr<DeviceCommunicator> make_nccl_communicator(Communicator& host, int device);

// Runs body(rank's communicator) on one thread per communicator and waits for all. The first
// exception thrown by any rank is rethrown here once all threads ended; a rank that throws must
// not leave the others waiting in a collective, so bodies should check their inputs before their
// first collective.
void run_on_each_rank(std::span<const std::unique_ptr<DeviceCommunicator>> ranks,
                      const std::function<void(DeviceCommunicator&)>& body);

// The GPUs `--gpus SPEC` asks for out of `available`: "all", or a whole number 1..available (the
// first N devices). Throws std::invalid_argument naming the value and what is possible.
std::vector<int> select_gpus(const std::string& spec, int available);

}  // namespace nbody::comm
