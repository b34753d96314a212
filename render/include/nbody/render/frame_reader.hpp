#pragma once
// Asynchronous readback of rendered frames through a ring of pixel buffer objects.
//
// glReadPixels into client memory stalls the CPU until the GPU has finished the frame and copied
// it out. Into a pixel buffer object (GL_PIXEL_PACK_BUFFER) it only queues the copy; a fence
// placed after it says when the bytes are there. With a few buffers in a ring the frame loop goes
// on drawing frame k+1, k+2 while frame k is copied, and maps frame k's buffer only when its fence
// has signalled: the readback costs the GPU a copy and the CPU one memcpy, never a wait (unless
// the ring is full, which means the GPU is more than a ring behind).
//
// Pixels come back as tightly packed RGB (3 bytes per pixel, no row padding) in GL's row order,
// bottom row first: PNG encoding takes them with a negative row stride and ffmpeg with its vflip
// filter, so no pass over the pixels is spent flipping them here.

#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <vector>

#include "nbody/render/gl_objects.hpp"

namespace nbody::render {

// One frame read back: `rgb` holds width * height * 3 bytes, bottom row first.
struct ReadbackFrame {
    long long tag = 0;  // what the caller passed to submit() (a frame number)
    int width = 0, height = 0;
    std::shared_ptr<std::vector<std::uint8_t>> rgb;
};

class AsyncFrameReader {
  public:
    // `ring`: buffers in flight (2 hide one frame of latency; 3 leave slack for a slow frame).
    explicit AsyncFrameReader(int ring = 3);

    // Queues the read of colour attachment 0 of `framebuffer` (0: the window's back buffer),
    // width x height from the lower-left corner. When the ring is full, the oldest read is
    // completed first (waiting for it if need be) and kept for take().
    void submit(GLuint framebuffer, int width, int height, long long tag);

    // The oldest finished frame, if its fence has signalled (wait = false) or once it has
    // (wait = true); nothing when no read is outstanding.
    std::optional<ReadbackFrame> take(bool wait);

    // Reads outstanding (submitted and not yet taken).
    int pending() const { return int(pending_.size()) + int(ready_.size()); }
    int ring_size() const { return int(slots_.size()); }

  private:
    struct Slot {
        GlBuffer buffer;
        std::size_t capacity = 0;
        GlFence fence;
        long long tag = 0;
        int width = 0, height = 0;
    };
    ReadbackFrame copy_out(Slot& slot);

    std::vector<Slot> slots_;
    std::deque<int> pending_;          // slot indices in submission order
    std::deque<ReadbackFrame> ready_;  // taken from a full ring by submit(), not yet handed out
};

}  // namespace nbody::render
