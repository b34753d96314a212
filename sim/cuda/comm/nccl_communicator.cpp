// The NCCL communicator (nbody/sim/comm/nccl_communicator.hpp). Plain C++ on the CUDA runtime and
// NCCL: no kernels, so it builds with the host compiler.

#include "nbody/sim/comm/nccl_communicator.hpp"

#include <nccl.h>

#include <algorithm>
#include <cstdlib>
#include <cstdio>
#include <cstring>
#include <stdexcept>
#include <string>

#include "../cuda_raii.hpp"

namespace nbody::comm {
namespace {

void check_nccl(ncclResult_t result, const char* call, const char* file, int line) {
    if (result != ncclSuccess)
        throw std::runtime_error(std::string(file) + ":" + std::to_string(line) + ": " + call + " failed: " +
                                 ncclGetErrorString(result) + (result == ncclSystemError || result == ncclRemoteError
                                                                   ? std::string(" (") + ncclGetLastError(nullptr) + ")"
                                                                   : std::string()));
}
#define NBODY_NCCL_CHECK(call) check_nccl((call), #call, __FILE__, __LINE__)

ncclDataType_t nccl_type(DataType type) {
    switch (type) {
        case DataType::Byte: return ncclUint8;
        case DataType::Int32: return ncclInt32;
        case DataType::Int64: return ncclInt64;
        case DataType::Float32: return ncclFloat32;
        case DataType::Float64: return ncclFloat64;
    }
    throw std::invalid_argument("unknown communicator data type");
}

// The rank's device for the calls of one method (the ranks of one process share the thread's
// current device otherwise).
using DeviceScope = cuda::ScopedDevice;

class NcclCommunicator final : public DeviceCommunicator {
public:
    // Takes ownership of `comm`, made on `device`; the stream is created here.
    NcclCommunicator(ncclComm_t comm, int device) : comm_(comm), device_(device) {
        DeviceScope on(device_);
        stream_ = std::make_unique<cuda::Stream>(cudaStreamNonBlocking);
        NBODY_NCCL_CHECK(ncclCommUserRank(comm_, &rank_));
        NBODY_NCCL_CHECK(ncclCommCount(comm_, &size_));
    }
    // Before the CUDA context goes: the communicator owns device resources. Waits for queued work
    // so that no collective is cut off.
    ~NcclCommunicator() override {
        int previous = 0;
        CUDA_CHECK_LOG(cudaGetDevice(&previous));
        CUDA_CHECK_LOG(cudaSetDevice(device_));
        if (stream_) CUDA_CHECK_LOG(cudaStreamSynchronize(stream_->get()));
        scratch_.reset();
        stream_.reset();
        if (const ncclResult_t r = ncclCommDestroy(comm_); r != ncclSuccess)
            std::fprintf(stderr, "nbody: warning: ncclCommDestroy failed on GPU %d: %s\n", device_, ncclGetErrorString(r));
        CUDA_CHECK_LOG(cudaSetDevice(previous));
    }

    int rank() const override { return rank_; }
    int size() const override { return size_; }
    MemorySpace memory() const override { return MemorySpace::Device; }
    std::string_view name() const override { return "nccl"; }
    int device() const override { return device_; }
    void* stream() const override { return stream_->get(); }

    void all_gather_v(const void* send, void* recv, std::span<const std::size_t> counts, DataType type) override {
        if (counts.size() != std::size_t(size_))
            throw std::invalid_argument("all_gather_v: " + std::to_string(counts.size()) + " counts for " +
                                        std::to_string(size_) + " ranks");
        DeviceScope on(device_);
        const std::size_t width = size_of(type);
        auto* out = static_cast<std::byte*>(recv);
        const bool equal = std::all_of(counts.begin(), counts.end(), [&](std::size_t c) { return c == counts[0]; });
        if (equal) {  // NCCL's own all-gather; in place when send is this rank's block of recv
            NBODY_NCCL_CHECK(ncclAllGather(send, recv, counts[0], nccl_type(type), comm_, stream_->get()));
            return;
        }
        // NCCL has no all-gatherv: one broadcast per rank into its block, issued as one group.
        NBODY_NCCL_CHECK(ncclGroupStart());
        std::size_t offset = 0;
        for (int r = 0; r < size_; ++r) {
            const std::size_t count = counts[std::size_t(r)];
            std::byte* block = out + offset * width;
            const void* source = r == rank_ ? send : block;
            if (count > 0)
                NBODY_NCCL_CHECK(ncclBroadcast(source, block, count, nccl_type(type), r, comm_, stream_->get()));
            offset += count;
        }
        NBODY_NCCL_CHECK(ncclGroupEnd());
    }

    void all_reduce_sum(const void* send, void* recv, std::size_t count, DataType type) override {
        DeviceScope on(device_);
        NBODY_NCCL_CHECK(ncclAllReduce(send, recv, count, nccl_type(type), ncclSum, comm_, stream_->get()));
    }

    void reduce_scatter_sum(const void* send, void* recv, std::size_t recv_count, DataType type) override {
        DeviceScope on(device_);
        NBODY_NCCL_CHECK(ncclReduceScatter(send, recv, recv_count, nccl_type(type), ncclSum, comm_, stream_->get()));
    }

    void broadcast(void* buffer, std::size_t count, DataType type, int root) override {
        DeviceScope on(device_);
        NBODY_NCCL_CHECK(ncclBroadcast(buffer, buffer, count, nccl_type(type), root, comm_, stream_->get()));
    }

    ValueIndex all_reduce_min_with_index(const ValueIndex& local) override {
        // NCCL has no min-with-index reduction: the P pairs are gathered and folded in rank order
        // on the host, by the rule every implementation shares (min_with_index).
        const std::vector<std::byte> all =
            all_gather_host_bytes({reinterpret_cast<const std::byte*>(&local), sizeof local});
        ValueIndex best = local;
        for (std::size_t r = 0; r < std::size_t(size_); ++r) {
            ValueIndex v;
            std::memcpy(&v, all.data() + r * sizeof v, sizeof v);
            best = min_with_index(best, v);
        }
        return best;
    }

    std::vector<std::byte> all_gather_host_bytes(std::span<const std::byte> local) override {
        DeviceScope on(device_);
        const std::size_t total = local.size() * std::size_t(size_);
        if (scratch_.size() < total) scratch_ = cuda::DeviceBuffer<std::byte>(total);
        std::byte* own = scratch_.get() + local.size() * std::size_t(rank_);
        CUDA_CHECK(cudaMemcpyAsync(own, local.data(), local.size(), cudaMemcpyHostToDevice, stream_->get()));
        NBODY_NCCL_CHECK(ncclAllGather(own, scratch_.get(), local.size(), ncclUint8, comm_, stream_->get()));
        std::vector<std::byte> all(total);
        CUDA_CHECK(cudaMemcpyAsync(all.data(), scratch_.get(), total, cudaMemcpyDeviceToHost, stream_->get()));
        CUDA_CHECK(cudaStreamSynchronize(stream_->get()));
        return all;
    }

    void synchronize() override {
        DeviceScope on(device_);
        stream_->synchronize();
    }

private:
    ncclComm_t comm_ = nullptr;
    int device_ = 0;
    int rank_ = 0, size_ = 1;
    std::unique_ptr<cuda::Stream> stream_;
    cuda::DeviceBuffer<std::byte> scratch_;  // staging for the host-value collectives
};

}  // namespace

// Since NCCL 2.22 the connections between ranks are made at the first collective that needs them
// (NCCL_RUNTIME_CONNECT=1, the default): between two processes that took 0.05-0.57 s inside the
// first step of a 4M tree run under mpirun (device run 129: 86, 606, 551 and 35 ms against 34 ms with
// --gpus 2, every later step alike), which made the run's time unsteady. Made at the communicator's
// creation instead, with the start-up, unless the user chose otherwise. Set before the first NCCL
// call: NCCL reads its environment once.
static void connect_at_creation() { setenv("NCCL_RUNTIME_CONNECT", "0", /*overwrite=*/0); }

bool have_nccl() { return true; }

int visible_gpu_count() {
    int count = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess) {
        cudaGetLastError();  // a missing driver is an answer (0), not a sticky error for later calls
        return 0;
    }
    return count;
}

std::vector<std::unique_ptr<DeviceCommunicator>> make_nccl_communicators(std::span<const int> devices) {
    if (devices.empty()) throw std::invalid_argument("an NCCL communicator needs at least one GPU");
    connect_at_creation();
    std::vector<ncclComm_t> comms(devices.size(), nullptr);
    NBODY_NCCL_CHECK(ncclCommInitAll(comms.data(), int(devices.size()), devices.data()));
    std::vector<std::unique_ptr<DeviceCommunicator>> out;
    // Each raw handle is owned as soon as it is wrapped; those not wrapped yet when a wrapper throws
    // are destroyed here.
    try {
        for (std::size_t k = 0; k < devices.size(); ++k) {
            out.push_back(std::make_unique<NcclCommunicator>(comms[k], devices[k]));
            comms[k] = nullptr;
        }
    } catch (...) {
        for (ncclComm_t c : comms)
            if (c) ncclCommDestroy(c);
        throw;
    }
    return out;
}

std::unique_ptr<DeviceCommunicator> make_nccl_communicator(Communicator& host, int device) {
    if (host.memory() != MemorySpace::Host)
        throw std::invalid_argument("the NCCL id goes over a host communicator, not " + std::string(host.name()));
    connect_at_creation();
    ncclUniqueId id{};
    if (host.rank() == 0) NBODY_NCCL_CHECK(ncclGetUniqueId(&id));
    host.broadcast(&id, sizeof id, DataType::Byte, 0);
    // One rank per process: its GPU becomes the process's current device, where the caller's
    // buffers for this communicator must be allocated.
    CUDA_CHECK(cudaSetDevice(device));
    ncclComm_t comm = nullptr;
    NBODY_NCCL_CHECK(ncclCommInitRank(&comm, host.size(), id, host.rank()));
    try {
        return std::make_unique<NcclCommunicator>(comm, device);
    } catch (...) {
        ncclCommDestroy(comm);
        throw;
    }
}

}  // namespace nbody::comm
