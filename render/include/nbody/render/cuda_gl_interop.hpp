#pragma once
// CUDA-GL buffer interop: a GL buffer registered with CUDA can be mapped to a device pointer
// that kernels read and write, with no copy through the host. Only built with NBODY_HAVE_CUDA.
//
// Rules this file enforces, from the CUDA programming guide:
//  - A registration must be released before its GL buffer is deleted (owners below are
//    declared after the buffers they register, so they are destroyed first).
//  - GL must not touch a buffer while it is mapped: mappings are scoped to one step
//    (ScopedCudaMap) and never held across frames.
// No CUDA header is included here, so plain C++ and GL code can use these types.

#if NBODY_HAVE_CUDA

#include <cstddef>
#include <functional>
#include <initializer_list>
#include <mutex>
#include <optional>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

struct cudaGraphicsResource;  // CUDA's opaque handle (cudaGraphicsResource_t is a pointer to it)

namespace nbody::render {

// The driver refused to register a GL buffer (Optimus laptops, WSL2, remote desktops, or a GL
// context on another GPU than the CUDA device). The caller falls back to copying through the host.
class InteropRefused : public std::runtime_error {
  public:
    using std::runtime_error::runtime_error;
};

// How a mapped buffer will be used during one mapping; lets the driver skip synchronisation.
enum class MapHint { ReadWrite, ReadOnly, WriteDiscard };

class CudaGlRegistration {
  public:
    CudaGlRegistration() = default;
    // Registers GL buffer `buffer` (its GL context must be current). Throws InteropRefused with
    // the CUDA error when the driver will not.
    explicit CudaGlRegistration(unsigned int buffer);
    ~CudaGlRegistration();
    CudaGlRegistration(const CudaGlRegistration&) = delete;
    CudaGlRegistration& operator=(const CudaGlRegistration&) = delete;
    CudaGlRegistration(CudaGlRegistration&& other) noexcept
        : resource_(std::exchange(other.resource_, nullptr)), buffer_(other.buffer_), hint_(other.hint_) {}
    CudaGlRegistration& operator=(CudaGlRegistration&& other) noexcept;

    cudaGraphicsResource* resource() const { return resource_; }
    unsigned int buffer() const { return buffer_; }
    explicit operator bool() const { return resource_ != nullptr; }
    void reset() noexcept;

    // Sets the hint for the next mapping; a driver call only when it differs from the last one
    // (cudaGraphicsResourceSetMapFlags per map and buffer is measurable at hundreds of frames/s).
    void set_hint(MapHint hint) const;

  private:
    cudaGraphicsResource* resource_ = nullptr;
    unsigned int buffer_ = 0;
    mutable MapHint hint_ = MapHint::ReadWrite;  // what registration sets (cudaGraphicsRegisterFlagsNone)
};

// A CUDA event (timing off) that marks how far a stream's work had gone when it was recorded;
// another stream waits for that point with wait_in(). Created on the current device; waiting for
// one never recorded waits for nothing.
class CudaEvent {
  public:
    CudaEvent();
    ~CudaEvent();
    CudaEvent(const CudaEvent&) = delete;
    CudaEvent& operator=(const CudaEvent&) = delete;

    void record(void* stream);   // a cudaStream_t
    void wait_in(void* stream) const;
    void* handle() const { return event_; }  // the cudaEvent_t

  private:
    void* event_ = nullptr;  // a cudaEvent_t
};

// Maps registrations together (one cudaGraphicsMapResources call) for the lifetime of the
// object and unmaps them in the destructor. Mapping orders the GL work already issued on
// those buffers before later CUDA work in `stream` (a cudaStream_t; null: the legacy default
// stream); unmapping orders the work queued in `stream` before later GL commands.
class ScopedCudaMap {
  public:
    // `written`, when given, is recorded on `stream` as the buffers are unmapped: where the CUDA
    // work on them ended, for CUDA work on other streams to wait for.
    ScopedCudaMap(std::initializer_list<std::pair<const CudaGlRegistration*, MapHint>> buffers,
                  void* stream = nullptr, CudaEvent* written = nullptr);
    ~ScopedCudaMap();
    ScopedCudaMap(const ScopedCudaMap&) = delete;
    ScopedCudaMap& operator=(const ScopedCudaMap&) = delete;

    void* pointer(std::size_t i) const { return pointers_.at(i); }
    std::size_t bytes(std::size_t i) const { return bytes_.at(i); }

    // Unmaps now (the destructor then does nothing); throws on a CUDA error.
    void unmap();

  private:
    std::vector<cudaGraphicsResource*> resources_;
    void* stream_ = nullptr;
    CudaEvent* written_ = nullptr;
    std::vector<void*> pointers_;
    std::vector<std::size_t> bytes_;
};

// GPU time of the work queued on a CUDA stream between start() and stop(), per frame, read
// without blocking: a ring of event pairs, each collected once the GPU has passed its stop event
// (cudaEventQuery), a few frames later. Synchronising on the events instead would make every
// frame wait for the GPU, which is what this is meant to measure, not cause.
// Positions the simulation thread hands to the frame loop on the GPU (issue 33), with no host
// copy: the thread copies each step's positions into one of three device slots (never the one
// the frame loop is copying from, nor the newest), and the frame loop copies the newest slot into
// its vertex buffer on a stream of its own, so neither waits for the other's GPU work.
//
//   simulation thread: step -> publish(): slot <- positions (its stream), wait for that on the
//                      CPU (the thread stays one step ahead of its GPU work, not a queue ahead)
//   frame loop:        copy_newest(): vertex buffer <- newest slot (copy stream), after the
//                      event that says the slot is written; the slot is not rewritten before
//                      the copy has run (the simulation's stream waits for the copy's event)
class PublishedPositions {
  public:
    // On the CUDA device current on the calling thread.
    PublishedPositions();
    ~PublishedPositions();
    PublishedPositions(const PublishedPositions&) = delete;
    PublishedPositions& operator=(const PublishedPositions&) = delete;

    // Simulation thread: makes this object's device current on the calling thread.
    void make_current() const;
    // Simulation thread: `write(slot)` queues `bytes` of positions into `slot` on `stream` (a
    // cudaStream_t); returns once they are written, and they become the newest, at `time`.
    void publish(std::size_t bytes, void* stream, double time, const std::function<void(void* slot)>& write);
    // Frame loop: queues a copy of the newest slot not taken before into `destination` (at
    // least its bytes) on copy_stream(); returns its time, or nothing when none is newer.
    std::optional<double> copy_newest(void* destination, std::size_t destination_bytes);
    void* copy_stream() const { return copy_stream_; }
    bool has_newer() const;  // copy_newest() would copy
    // Publishes so far (tests).
    long long published() const;

  private:
    struct Slot;
    int free_slot() const;  // with mutex_ held

    int device_ = 0;
    void* copy_stream_ = nullptr;
    std::vector<std::unique_ptr<Slot>> slots_;
    mutable std::mutex mutex_;
    int newest_ = -1, copying_ = -1;
    long long serial_ = 0, taken_ = 0;
};

class CudaStreamTimer {
  public:
    explicit CudaStreamTimer(int ring = 6);
    ~CudaStreamTimer();
    CudaStreamTimer(const CudaStreamTimer&) = delete;
    CudaStreamTimer& operator=(const CudaStreamTimer&) = delete;

    // Brackets the work of frame `frame` queued on `stream` (a cudaStream_t).
    void start(void* stream, long long frame);
    void stop(void* stream);
    // Collects every completed interval; `wait`: also those still running (end of a run).
    void poll(bool wait = false);

    void set_count_from(long long frame) { count_from_ = frame; }
    double total_ms() const { return total_ms_; }  // frames >= count_from, collected so far
    long long frames_counted() const { return counted_; }
    double latest_ms() const { return latest_ms_; }  // the newest collected interval

  private:
    struct Pair;  // owns its two events; defined in the .cpp, keeping cudaEvent_t out of here
    std::vector<std::unique_ptr<Pair>> ring_;
    int next_ = 0;
    int open_ = -1;  // started, not stopped
    long long count_from_ = 0, counted_ = 0;
    double total_ms_ = 0, latest_ms_ = 0;
};

}  // namespace nbody::render

#endif  // NBODY_HAVE_CUDA
