#pragma once
// Holds a GPU's collective back until every GPU of the process has reached it.
//
// Why: an NCCL kernel busy-waits on its SMs for the other GPUs. The GPU whose share of a pass ends
// first (the one that draws, given a small share) ran that waiting kernel for most of every step,
// and the window's GL work on that GPU time-sliced with it. A stream held by a wait on a memory word
// (the driver's stream memory operations, polled by the GPU's front end, not its SMs) launches the
// collective only once every GPU's share is done, so the GPU is free for GL meanwhile. At 16M
// bodies on two H100s, the deposit in GL (--sprites compute) on a GPU that only draws took 10.8 ms
// a frame without the gate and 6.7 ms with it (device run 142; 3.6 ms with nothing beside it). The
// CUDA deposit (--sprites cuda) shares the CUDA context with the collective and gains nothing.
//
// One gate is shared by the GPUs of one process (`--gpus N`); ranks of separate processes have none.

#include <cuda_runtime_api.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "cuda_raii.hpp"

namespace nbody::cuda {

class PeerGate {
public:
    // Empty when the driver lacks stream memory operations on any of `devices` (the collectives
    // then start as before, busy-waiting), with the reason in *why.
    static std::unique_ptr<PeerGate> create(const std::vector<int>& devices, std::string* why);

    // On `stream`, after this rank's share of pass `pass`: says that `rank` has reached it.
    void arrive(cudaStream_t stream, int rank, std::uint32_t pass) const;
    // On `stream`: holds the work queued after it until every other rank has arrived at `pass`.
    void wait_for_others(cudaStream_t stream, int rank, std::uint32_t pass) const;

    int ranks() const { return int(arrived_.size()); }

    struct DriverCalls;  // the driver's two entry points (peer_gate.cpp)

private:
    PeerGate(int ranks, const DriverCalls& calls);

    // One word per rank, the last pass it reached; page-locked so that every GPU's front end can
    // poll it (with unified addressing the host pointer is the device pointer).
    PinnedBuffer<std::uint32_t> arrived_;
    void* write_value_ = nullptr;  // the driver's cuStreamWriteValue32
    void* wait_value_ = nullptr;   // the driver's cuStreamWaitValue32
};

}  // namespace nbody::cuda
