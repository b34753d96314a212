#include "nbody/render/cuda_gl_interop.hpp"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <sstream>

// clang-format off
#include "nbody/render/gl.hpp"  // cuda_gl_interop.h includes GL/gl.h; GLEW must come first
#include <cuda_gl_interop.h>
#include <cuda_runtime.h>
// clang-format on

namespace nbody::render {

namespace {

const char* base_name(const char* file) {
    const char* slash = std::strrchr(file, '/');
    return slash ? slash + 1 : file;
}

std::string describe(cudaError_t e, const char* call, const char* file, int line) {
    std::ostringstream msg;
    msg << "CUDA error " << cudaGetErrorName(e) << " (" << cudaGetErrorString(e) << ") in " << call << " ("
        << base_name(file) << ":" << line << ")";
    return msg.str();
}

#define NBODY_INTEROP_CHECK(call)                                                                           \
    do {                                                                                                    \
        const cudaError_t nbody_e = (call);                                                                 \
        if (nbody_e != cudaSuccess) throw std::runtime_error(describe(nbody_e, #call, __FILE__, __LINE__)); \
    } while (0)

// For destructors: report, never throw.
#define NBODY_INTEROP_LOG(call)                                                                        \
    do {                                                                                               \
        const cudaError_t nbody_e = (call);                                                            \
        if (nbody_e != cudaSuccess)                                                                    \
            std::fprintf(stderr, "nbody: %s\n", describe(nbody_e, #call, __FILE__, __LINE__).c_str()); \
    } while (0)

unsigned int map_flags(MapHint hint) {
    switch (hint) {
        case MapHint::ReadWrite:
            return cudaGraphicsMapFlagsNone;
        case MapHint::ReadOnly:
            return cudaGraphicsMapFlagsReadOnly;
        case MapHint::WriteDiscard:
            return cudaGraphicsMapFlagsWriteDiscard;
    }
    throw std::invalid_argument("unknown MapHint; supported: ReadWrite, ReadOnly, WriteDiscard");
}

}  // namespace

CudaGlRegistration::CudaGlRegistration(unsigned int buffer) : buffer_(buffer) {
    // Flags None at registration: the per-mapping hint is set before each map instead, since
    // the same buffer is read in one step and overwritten in the next.
    const cudaError_t e = cudaGraphicsGLRegisterBuffer(&resource_, buffer, cudaGraphicsRegisterFlagsNone);
    if (e != cudaSuccess) {
        resource_ = nullptr;
        cudaGetLastError();  // registration failures are not sticky; clear the error state
        throw InteropRefused(describe(e, "cudaGraphicsGLRegisterBuffer", __FILE__, __LINE__));
    }
}

CudaGlRegistration::~CudaGlRegistration() { reset(); }

CudaGlRegistration& CudaGlRegistration::operator=(CudaGlRegistration&& other) noexcept {
    if (this != &other) {
        reset();
        resource_ = std::exchange(other.resource_, nullptr);
        buffer_ = other.buffer_;
        hint_ = other.hint_;
    }
    return *this;
}

void CudaGlRegistration::set_hint(MapHint hint) const {
    if (!resource_)
        throw std::logic_error("CudaGlRegistration::set_hint: buffer is not registered with CUDA");
    if (hint == hint_) return;
    NBODY_INTEROP_CHECK(cudaGraphicsResourceSetMapFlags(resource_, map_flags(hint)));
    hint_ = hint;
}

void CudaGlRegistration::reset() noexcept {
    if (resource_) NBODY_INTEROP_LOG(cudaGraphicsUnregisterResource(resource_));
    resource_ = nullptr;
}

CudaEvent::CudaEvent() {
    cudaEvent_t e = nullptr;
    NBODY_INTEROP_CHECK(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
    event_ = e;
}

CudaEvent::~CudaEvent() {
    if (event_) NBODY_INTEROP_LOG(cudaEventDestroy(static_cast<cudaEvent_t>(event_)));
}

void CudaEvent::record(void* stream) {
    NBODY_INTEROP_CHECK(cudaEventRecord(static_cast<cudaEvent_t>(event_), static_cast<cudaStream_t>(stream)));
}

void CudaEvent::wait_in(void* stream) const {
    NBODY_INTEROP_CHECK(
        cudaStreamWaitEvent(static_cast<cudaStream_t>(stream), static_cast<cudaEvent_t>(event_), 0));
}

ScopedCudaMap::ScopedCudaMap(std::initializer_list<std::pair<const CudaGlRegistration*, MapHint>> buffers,
                             void* stream, CudaEvent* written)
    : stream_(stream), written_(written) {
    for (const auto& [registration, hint] : buffers) {
        if (!registration || !*registration)
            throw std::logic_error("ScopedCudaMap: buffer is not registered with CUDA");
        registration->set_hint(hint);
        resources_.push_back(registration->resource());
    }
    NBODY_INTEROP_CHECK(cudaGraphicsMapResources(static_cast<int>(resources_.size()), resources_.data(),
                                                 static_cast<cudaStream_t>(stream_)));
    try {
        for (auto* res : resources_) {
            void* ptr = nullptr;
            std::size_t size = 0;
            NBODY_INTEROP_CHECK(cudaGraphicsResourceGetMappedPointer(&ptr, &size, res));
            pointers_.push_back(ptr);
            bytes_.push_back(size);
        }
    } catch (...) {
        NBODY_INTEROP_LOG(cudaGraphicsUnmapResources(static_cast<int>(resources_.size()), resources_.data(),
                                                     static_cast<cudaStream_t>(stream_)));
        throw;
    }
}

void ScopedCudaMap::unmap() {
    if (resources_.empty()) return;
    auto resources = std::move(resources_);
    resources_.clear();
    pointers_.clear();
    bytes_.clear();
    if (written_) written_->record(stream_);
    NBODY_INTEROP_CHECK(cudaGraphicsUnmapResources(static_cast<int>(resources.size()), resources.data(),
                                                   static_cast<cudaStream_t>(stream_)));
}

ScopedCudaMap::~ScopedCudaMap() {
    if (resources_.empty()) return;
    if (written_) NBODY_INTEROP_LOG(cudaEventRecord(static_cast<cudaEvent_t>(written_->handle()),
                                                    static_cast<cudaStream_t>(stream_)));
    NBODY_INTEROP_LOG(cudaGraphicsUnmapResources(static_cast<int>(resources_.size()), resources_.data(),
                                                 static_cast<cudaStream_t>(stream_)));
}

struct CudaStreamTimer::Pair {
    cudaEvent_t start = nullptr, stop = nullptr;
    long long frame = 0;
    bool pending = false;

    Pair() {
        NBODY_INTEROP_CHECK(cudaEventCreate(&start));
        const cudaError_t e = cudaEventCreate(&stop);
        if (e != cudaSuccess) {
            NBODY_INTEROP_LOG(cudaEventDestroy(start));
            throw std::runtime_error(describe(e, "cudaEventCreate", __FILE__, __LINE__));
        }
    }
    ~Pair() {
        NBODY_INTEROP_LOG(cudaEventDestroy(start));
        NBODY_INTEROP_LOG(cudaEventDestroy(stop));
    }
    Pair(const Pair&) = delete;
    Pair& operator=(const Pair&) = delete;
};

struct PublishedPositions::Slot {
    void* data = nullptr;
    std::size_t bytes = 0, capacity = 0;
    cudaEvent_t written = nullptr;  // blocking sync: the simulation thread sleeps, not spins
    cudaEvent_t copied = nullptr;   // the frame loop's last copy out of this slot
    double time = 0;
    long long serial = 0;
};

PublishedPositions::PublishedPositions() {
    NBODY_INTEROP_CHECK(cudaGetDevice(&device_));
    cudaStream_t stream = nullptr;
    NBODY_INTEROP_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    copy_stream_ = stream;
    for (int k = 0; k < 3; ++k) {
        auto slot = std::make_unique<Slot>();
        NBODY_INTEROP_CHECK(cudaEventCreateWithFlags(&slot->written, cudaEventDisableTiming | cudaEventBlockingSync));
        NBODY_INTEROP_CHECK(cudaEventCreateWithFlags(&slot->copied, cudaEventDisableTiming));
        slots_.push_back(std::move(slot));
    }
}

PublishedPositions::~PublishedPositions() {
    int current = 0;
    NBODY_INTEROP_LOG(cudaGetDevice(&current));
    NBODY_INTEROP_LOG(cudaSetDevice(device_));
    if (copy_stream_) NBODY_INTEROP_LOG(cudaStreamSynchronize(static_cast<cudaStream_t>(copy_stream_)));
    for (auto& slot : slots_) {
        if (slot->written) NBODY_INTEROP_LOG(cudaEventDestroy(slot->written));
        if (slot->copied) NBODY_INTEROP_LOG(cudaEventDestroy(slot->copied));
        if (slot->data) NBODY_INTEROP_LOG(cudaFree(slot->data));
    }
    if (copy_stream_) NBODY_INTEROP_LOG(cudaStreamDestroy(static_cast<cudaStream_t>(copy_stream_)));
    NBODY_INTEROP_LOG(cudaSetDevice(current));
}

void PublishedPositions::make_current() const { NBODY_INTEROP_CHECK(cudaSetDevice(device_)); }

int PublishedPositions::free_slot() const {
    for (int k = 0; k < int(slots_.size()); ++k)
        if (k != newest_ && k != copying_) return k;
    throw std::logic_error("PublishedPositions: no free slot");  // three slots, at most two in use
}

void PublishedPositions::publish(std::size_t bytes, void* stream, double time,
                                 const std::function<void(void* slot)>& write) {
    int k = 0;
    {
        const std::lock_guard lock(mutex_);
        k = free_slot();
    }
    Slot& slot = *slots_[std::size_t(k)];
    const auto s = static_cast<cudaStream_t>(stream);
    NBODY_INTEROP_CHECK(cudaStreamWaitEvent(s, slot.copied, 0));  // the last copy out of it has run
    if (slot.capacity < bytes) {
        NBODY_INTEROP_CHECK(cudaStreamSynchronize(s));
        if (slot.data) NBODY_INTEROP_CHECK(cudaFree(slot.data));
        slot.data = nullptr;
        slot.capacity = 0;
        NBODY_INTEROP_CHECK(cudaMalloc(&slot.data, bytes));
        slot.capacity = bytes;
    }
    write(slot.data);
    NBODY_INTEROP_CHECK(cudaEventRecord(slot.written, s));
    NBODY_INTEROP_CHECK(cudaEventSynchronize(slot.written));
    const std::lock_guard lock(mutex_);
    slot.bytes = bytes;
    slot.time = time;
    slot.serial = ++serial_;
    newest_ = k;
}

std::optional<double> PublishedPositions::copy_newest(void* destination, std::size_t destination_bytes) {
    int k = -1;
    {
        const std::lock_guard lock(mutex_);
        if (newest_ < 0 || slots_[std::size_t(newest_)]->serial <= taken_) return std::nullopt;
        k = newest_;
        copying_ = k;
    }
    Slot& slot = *slots_[std::size_t(k)];
    if (slot.bytes > destination_bytes) {
        const std::lock_guard lock(mutex_);
        copying_ = -1;
        throw std::runtime_error("published positions (" + std::to_string(slot.bytes) +
                                 " bytes) do not fit the vertex buffer (" + std::to_string(destination_bytes) + ")");
    }
    const auto s = static_cast<cudaStream_t>(copy_stream_);
    NBODY_INTEROP_CHECK(cudaMemcpyAsync(destination, slot.data, slot.bytes, cudaMemcpyDeviceToDevice, s));
    NBODY_INTEROP_CHECK(cudaEventRecord(slot.copied, s));
    const std::lock_guard lock(mutex_);
    copying_ = -1;
    taken_ = slot.serial;
    return slot.time;
}

bool PublishedPositions::has_newer() const {
    const std::lock_guard lock(mutex_);
    return newest_ >= 0 && slots_[std::size_t(newest_)]->serial > taken_;
}

long long PublishedPositions::published() const {
    const std::lock_guard lock(mutex_);
    return serial_;
}

CudaStreamTimer::CudaStreamTimer(int ring) {
    for (int i = 0; i < std::max(ring, 2); ++i) ring_.push_back(std::make_unique<Pair>());
}

CudaStreamTimer::~CudaStreamTimer() = default;

void CudaStreamTimer::start(void* stream, long long frame) {
    Pair* p = ring_[std::size_t(next_)].get();
    // Still running a ring of frames later: drop that figure rather than wait for it.
    if (p->pending) {
        poll(false);
        p->pending = false;
    }
    NBODY_INTEROP_CHECK(cudaEventRecord(p->start, static_cast<cudaStream_t>(stream)));
    p->frame = frame;
    open_ = next_;
    next_ = (next_ + 1) % int(ring_.size());
}

void CudaStreamTimer::stop(void* stream) {
    if (open_ < 0) return;
    Pair* p = ring_[std::size_t(open_)].get();
    NBODY_INTEROP_CHECK(cudaEventRecord(p->stop, static_cast<cudaStream_t>(stream)));
    p->pending = true;
    open_ = -1;
}

void CudaStreamTimer::poll(bool wait) {
    // Oldest first (the slot after the newest), so latest_ms() ends on the newest.
    for (std::size_t k = 0; k < ring_.size(); ++k) {
        Pair* p = ring_[(std::size_t(next_) + k) % ring_.size()].get();
        if (!p->pending) continue;
        if (wait) {
            NBODY_INTEROP_CHECK(cudaEventSynchronize(p->stop));
        } else {
            const cudaError_t q = cudaEventQuery(p->stop);
            if (q == cudaErrorNotReady) continue;
            NBODY_INTEROP_CHECK(q);
        }
        float ms = 0;
        NBODY_INTEROP_CHECK(cudaEventElapsedTime(&ms, p->start, p->stop));
        p->pending = false;
        latest_ms_ = ms;
        if (p->frame >= count_from_) {
            total_ms_ += ms;
            ++counted_;
        }
    }
}

}  // namespace nbody::render
