#pragma once
// Asynchronous readback of rendered frames through a pool of pixel buffer objects, handed to
// other threads without a copy.
//
// glReadPixels into client memory stalls the CPU until the GPU has finished the frame and copied
// it out. Into a pixel buffer object (GL_PIXEL_PACK_BUFFER) it only queues the copy; a fence
// placed after it says when the bytes are there. The frame loop goes on drawing while the copy
// runs, and maps the buffer only once its fence has signalled.
//
// The mapped memory itself is what take() hands out (a shared pointer): encoder threads read the
// pixels where the GPU put them, and when the last reference goes, the buffer returns to the pool
// (unmapped by the GL thread at its next call; GL calls never leave that thread). At 1080p this
// saves the GL thread a copy of 6-8 MB per frame. The pool is bounded: when every buffer is out
// with the encoders, submitting waits for one to come back, which is how a slow encoder slows
// the simulation instead of dropping frames.
//
// Rows come in GL's order, bottom row first, tightly packed (no row padding): PNG encoding takes
// them with a negative row stride and ffmpeg with its vflip filter, so nothing is spent flipping.

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <vector>

#include "nbody/render/gl_objects.hpp"

namespace nbody::render {

// GL_RGBA is what every driver reads from an RGBA8 target without repacking (the safe fast
// path); GL_RGB is a quarter fewer bytes to move, packed by the driver.
enum class PixelFormat { Rgb = 3, Rgba = 4 };
inline int channels(PixelFormat f) { return static_cast<int>(f); }

// One frame read back. `pixels` points into a mapped pixel buffer: width * height * channels
// bytes, bottom row first. Valid as long as any copy of it is held; dropping the last one gives
// the buffer back to its reader (from any thread).
struct ReadbackFrame {
    long long tag = 0;  // what the caller passed to submit() (a frame number)
    int width = 0, height = 0;
    PixelFormat format = PixelFormat::Rgba;
    std::shared_ptr<const std::uint8_t> pixels;
    std::size_t bytes() const {
        return std::size_t(width) * std::size_t(height) * std::size_t(channels(format));
    }
};

class AsyncFrameReader {
  public:
    // `buffers`: the pool size, that is how many frames may be in flight or with the encoders.
    explicit AsyncFrameReader(int buffers = 3, PixelFormat format = PixelFormat::Rgba);
    // Every frame handed out must have been released first (their pointers would dangle).
    ~AsyncFrameReader();
    AsyncFrameReader(const AsyncFrameReader&) = delete;
    AsyncFrameReader& operator=(const AsyncFrameReader&) = delete;

    // Whether submit() has a free buffer now (buffers given back are recycled first).
    bool can_submit();
    // Queues the read of colour attachment 0 of `framebuffer` (0: the window's back buffer),
    // width x height from the lower-left corner. Throws std::logic_error when !can_submit().
    void submit(GLuint framebuffer, int width, int height, long long tag);

    // The oldest submitted frame, once its fence has signalled (wait = false: only if it has
    // already; wait = true: waiting for it); nothing when no read is outstanding.
    std::optional<ReadbackFrame> take(bool wait);
    // Waits until a frame handed out is given back; returns at once when none is out.
    void wait_for_release();

    PixelFormat format() const { return format_; }
    int pending() const { return int(pending_.size()); }  // submitted, not yet taken
    int out() const;                                      // taken, not yet given back
    int size() const { return int(slots_.size()); }

  private:
    enum class State { Free, Pending, Out, Released };
    struct Slot {
        GlBuffer buffer;
        std::size_t capacity = 0;
        GlFence fence;
        long long tag = 0;
        int width = 0, height = 0;
        const std::uint8_t* mapped = nullptr;
        State state = State::Free;  // Out -> Released happens on other threads, under `mutex`
    };
    // Shared with the frames' deleters, which may run after a take() on any thread.
    struct Shared {
        std::mutex mutex;
        std::condition_variable released;
        std::vector<Slot> slots;
    };
    void recycle();  // unmaps buffers given back (GL thread)
    ReadbackFrame hand_out(int index);

    PixelFormat format_;
    std::shared_ptr<Shared> shared_;
    std::vector<Slot>& slots_;
    std::deque<int> pending_;  // slot indices in submission order
};

}  // namespace nbody::render
