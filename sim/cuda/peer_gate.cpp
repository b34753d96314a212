#include "peer_gate.hpp"

#include <cuda.h>
#include <cudaTypedefs.h>

#include <stdexcept>

#include "cuda_check.hpp"

namespace nbody::cuda {

struct PeerGate::DriverCalls {
    PFN_cuStreamWriteValue32_v11070 write = nullptr;
    PFN_cuStreamWaitValue32_v11070 wait = nullptr;
};

namespace {

// The driver's own entry points, taken through the runtime: linking libcuda would make the program
// fail to start on machines without the driver (CI's), which must run the CPU backends.
template <class Fn>
Fn driver_call(const char* name, std::string* why) {
    void* fn = nullptr;
    cudaDriverEntryPointQueryResult found{};
    const cudaError_t err = cudaGetDriverEntryPointByVersion(name, &fn, 11070, cudaEnableDefault, &found);
    if (err != cudaSuccess || found != cudaDriverEntryPointSuccess || fn == nullptr) {
        if (why) *why = std::string("the CUDA driver has no ") + name;
        return nullptr;
    }
    return reinterpret_cast<Fn>(fn);
}

void check_driver(CUresult result, const char* call, const char* file, int line) {
    if (result != CUDA_SUCCESS)
        throw std::runtime_error(std::string(file) + ":" + std::to_string(line) + ": " + call +
                                 " failed: CUresult " + std::to_string(int(result)));
}

CUdeviceptr device_address(const std::uint32_t* word) {
    void* device = nullptr;
    CUDA_CHECK(cudaHostGetDevicePointer(&device, const_cast<std::uint32_t*>(word), 0));
    return reinterpret_cast<CUdeviceptr>(device);
}

// A write and a wait that it satisfies, on each device: a driver or device without stream memory
// operations answers CUDA_ERROR_NOT_SUPPORTED here rather than in the middle of a run.
bool try_on(int device, const PeerGate::DriverCalls& calls, std::uint32_t* word, std::string* why) {
    CUDA_CHECK(cudaSetDevice(device));
    Stream probe{cudaStreamNonBlocking};
    const auto stream = reinterpret_cast<CUstream>(probe.get());
    CUresult r = calls.write(stream, device_address(word), 1, 0);
    if (r == CUDA_SUCCESS) r = calls.wait(stream, device_address(word), 1, CU_STREAM_WAIT_VALUE_GEQ);
    if (r == CUDA_SUCCESS) probe.synchronize();
    if (r != CUDA_SUCCESS && why) *why = "GPU " + std::to_string(device) + " refused stream memory operations (CUresult " +
                                        std::to_string(int(r)) + ")";
    return r == CUDA_SUCCESS;
}

}  // namespace

std::unique_ptr<PeerGate> PeerGate::create(const std::vector<int>& devices, std::string* why) {
    DriverCalls calls;
    calls.write = driver_call<PFN_cuStreamWriteValue32_v11070>("cuStreamWriteValue32", why);
    calls.wait = driver_call<PFN_cuStreamWaitValue32_v11070>("cuStreamWaitValue32", why);
    if (calls.write == nullptr || calls.wait == nullptr) return nullptr;
    int current = 0;
    CUDA_CHECK(cudaGetDevice(&current));
    std::unique_ptr<PeerGate> gate(new PeerGate(int(devices.size()), calls));
    bool usable = true;
    for (int device : devices) usable = usable && try_on(device, calls, &gate->arrived_[0], why);
    CUDA_CHECK(cudaSetDevice(current));
    if (!usable) return nullptr;
    gate->arrived_[0] = 0;
    return gate;
}

PeerGate::PeerGate(int ranks, const DriverCalls& calls)
    : arrived_(std::size_t(ranks)), write_value_(reinterpret_cast<void*>(calls.write)),
      wait_value_(reinterpret_cast<void*>(calls.wait)) {
    for (int r = 0; r < ranks; ++r) arrived_[std::size_t(r)] = 0;
}

void PeerGate::arrive(cudaStream_t stream, int rank, std::uint32_t pass) const {
    const auto write = reinterpret_cast<PFN_cuStreamWriteValue32_v11070>(write_value_);
    // The default write is fenced after the stream's earlier work, as a __threadfence_system().
    check_driver(write(reinterpret_cast<CUstream>(stream), device_address(&arrived_[std::size_t(rank)]), pass, 0),
                 "cuStreamWriteValue32", __FILE__, __LINE__);
}

void PeerGate::wait_for_others(cudaStream_t stream, int rank, std::uint32_t pass) const {
    const auto wait = reinterpret_cast<PFN_cuStreamWaitValue32_v11070>(wait_value_);
    // GEQ is cyclic in the driver ((int32)(word - pass) >= 0), so the pass count may wrap.
    for (int r = 0; r < ranks(); ++r)
        if (r != rank)
            check_driver(wait(reinterpret_cast<CUstream>(stream), device_address(&arrived_[std::size_t(r)]), pass,
                              CU_STREAM_WAIT_VALUE_GEQ),
                         "cuStreamWaitValue32", __FILE__, __LINE__);
}

}  // namespace nbody::cuda
