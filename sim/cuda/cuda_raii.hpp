#pragma once
// Move-only owners of CUDA runtime objects: device memory, page-locked host memory, events and streams. Copying is
// deleted so that a buffer is never freed twice and never duplicated by accident (a copy of a
// device array would be a silent allocation plus a full-device copy).

#include <cuda_runtime_api.h>

#include <cstddef>
#include <utility>

#include "cuda_check.hpp"

namespace nbody::cuda {

namespace detail {
// Where a CudaBuffer's memory lives: how it is taken and given back, and whether the host may
// index it.
struct DeviceMemory {
    static constexpr bool kHostVisible = false;
    static void* allocate(std::size_t bytes) {
        void* p = nullptr;
        CUDA_CHECK(cudaMalloc(&p, bytes));
        return p;
    }
    static void release(void* p) noexcept { CUDA_CHECK_LOG(cudaFree(p)); }
};
// Page-locked host memory: what cudaMemcpyAsync needs to copy without the driver's own staging
// copy and to return before the copy is done. Portable: page-locked for every GPU's context, not only
// the current one's, so that one buffer can feed copies to several GPUs (the Hermite engine stages a
// block once for all of its GPUs).
struct PinnedMemory {
    static constexpr bool kHostVisible = true;
    static void* allocate(std::size_t bytes) {
        void* p = nullptr;
        CUDA_CHECK(cudaHostAlloc(&p, bytes, cudaHostAllocPortable));
        return p;
    }
    static void release(void* p) noexcept { CUDA_CHECK_LOG(cudaFreeHost(p)); }
};
}  // namespace detail

// `count` elements of T in `Memory`, uninitialised.
template <class T, class Memory>
class CudaBuffer {
public:
    CudaBuffer() = default;
    explicit CudaBuffer(std::size_t count) : count_(count) {
        if (count_ > 0) ptr_ = static_cast<T*>(Memory::allocate(count_ * sizeof(T)));
    }
    ~CudaBuffer() { reset(); }

    CudaBuffer(const CudaBuffer&) = delete;
    CudaBuffer& operator=(const CudaBuffer&) = delete;
    CudaBuffer(CudaBuffer&& other) noexcept
        : ptr_(std::exchange(other.ptr_, nullptr)), count_(std::exchange(other.count_, 0)) {}
    CudaBuffer& operator=(CudaBuffer&& other) noexcept {
        if (this != &other) {
            reset();
            ptr_ = std::exchange(other.ptr_, nullptr);
            count_ = std::exchange(other.count_, 0);
        }
        return *this;
    }

    void reset() noexcept {
        if (ptr_ != nullptr) Memory::release(ptr_);
        ptr_ = nullptr;
        count_ = 0;
    }

    T* get() const { return ptr_; }
    T& operator[](std::size_t i) const {
        static_assert(Memory::kHostVisible, "device memory cannot be indexed on the host");
        return ptr_[i];
    }
    std::size_t size() const { return count_; }
    std::size_t bytes() const { return count_ * sizeof(T); }
    bool empty() const { return count_ == 0; }

private:
    T* ptr_ = nullptr;
    std::size_t count_ = 0;
};

template <class T>
using DeviceBuffer = CudaBuffer<T, detail::DeviceMemory>;
template <class T>
using PinnedBuffer = CudaBuffer<T, detail::PinnedMemory>;

class Event {
public:
    // Timing events by default; cudaEventDisableTiming makes a cheaper sync-only event.
    explicit Event(unsigned flags = cudaEventDefault) { CUDA_CHECK(cudaEventCreateWithFlags(&event_, flags)); }
    ~Event() {
        if (event_ != nullptr) CUDA_CHECK_LOG(cudaEventDestroy(event_));
    }
    Event(const Event&) = delete;
    Event& operator=(const Event&) = delete;
    Event(Event&& other) noexcept : event_(std::exchange(other.event_, nullptr)) {}
    Event& operator=(Event&& other) noexcept {
        if (this != &other) {
            if (event_ != nullptr) CUDA_CHECK_LOG(cudaEventDestroy(event_));
            event_ = std::exchange(other.event_, nullptr);
        }
        return *this;
    }

    cudaEvent_t get() const { return event_; }
    void record(cudaStream_t stream) { CUDA_CHECK(cudaEventRecord(event_, stream)); }

private:
    cudaEvent_t event_ = nullptr;
};

// Milliseconds between two recorded, completed events.
inline float elapsed_ms(const Event& start, const Event& stop) {
    float ms = 0.0f;
    CUDA_CHECK(cudaEventElapsedTime(&ms, start.get(), stop.get()));
    return ms;
}

class Stream {
public:
    // A *blocking* stream by default: it is ordered with the legacy default stream, which is where
    // cudaGraphicsMapResources/UnmapResources run when the interop code passes no stream. A
    // non-blocking stream would let a force pass overlap a map or unmap of the vertex buffers.
    explicit Stream(unsigned flags = cudaStreamDefault) { CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, flags)); }
    ~Stream() {
        if (stream_ != nullptr) CUDA_CHECK_LOG(cudaStreamDestroy(stream_));
    }
    Stream(const Stream&) = delete;
    Stream& operator=(const Stream&) = delete;
    Stream(Stream&& other) noexcept : stream_(std::exchange(other.stream_, nullptr)) {}
    Stream& operator=(Stream&& other) noexcept {
        if (this != &other) {
            if (stream_ != nullptr) CUDA_CHECK_LOG(cudaStreamDestroy(stream_));
            stream_ = std::exchange(other.stream_, nullptr);
        }
        return *this;
    }

    cudaStream_t get() const { return stream_; }
    void synchronize() const { CUDA_CHECK(cudaStreamSynchronize(stream_)); }

private:
    cudaStream_t stream_ = nullptr;
};

// Makes `device` current for a scope and puts the caller's device back: an object bound to one GPU
// (a communicator's rank, a Hermite engine) works whichever device its caller's thread has current.
class ScopedDevice {
public:
    explicit ScopedDevice(int device) {
        CUDA_CHECK(cudaGetDevice(&previous_));
        if (previous_ != device) CUDA_CHECK(cudaSetDevice(device));
    }
    ~ScopedDevice() { CUDA_CHECK_LOG(cudaSetDevice(previous_)); }
    ScopedDevice(const ScopedDevice&) = delete;
    ScopedDevice& operator=(const ScopedDevice&) = delete;

private:
    int previous_ = 0;
};

}  // namespace nbody::cuda
