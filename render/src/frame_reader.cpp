#include "nbody/render/frame_reader.hpp"

#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <string>

#include "nbody/render/gl_check.hpp"

namespace nbody::render {

AsyncFrameReader::AsyncFrameReader(int ring) : slots_(std::size_t(std::max(ring, 1))) {}

void AsyncFrameReader::submit(GLuint framebuffer, int width, int height, long long tag) {
    if (width <= 0 || height <= 0)
        throw std::invalid_argument("AsyncFrameReader::submit: empty size " + std::to_string(width) + "x" +
                                    std::to_string(height));
    // Ring full: the oldest read must make room. Its fence was placed a ring of frames ago, so
    // this rarely waits; when it does, the GPU is that far behind and waiting is right.
    if (int(pending_.size()) == ring_size()) {
        const int oldest = pending_.front();
        pending_.pop_front();
        slots_[std::size_t(oldest)].fence.wait();
        ready_.push_back(copy_out(slots_[std::size_t(oldest)]));
    }
    int index = 0;
    while (std::find(pending_.begin(), pending_.end(), index) != pending_.end()) ++index;
    Slot& slot = slots_[std::size_t(index)];

    const std::size_t bytes = std::size_t(width) * std::size_t(height) * 3;
    if (!slot.buffer || slot.capacity < bytes) {
        GlBuffer buffer = create_buffer();
        // STREAM_READ: written by GL once, read by the application once.
        NBODY_GL_CHECK(glNamedBufferData(buffer.id(), GLsizeiptr(bytes), nullptr, GL_STREAM_READ));
        slot.buffer = std::move(buffer);
        slot.capacity = bytes;
    }
    glBindFramebuffer(GL_READ_FRAMEBUFFER, framebuffer);
    glReadBuffer(framebuffer == 0 ? GL_BACK : GL_COLOR_ATTACHMENT0);
    glPixelStorei(GL_PACK_ALIGNMENT, 1);  // rows of width * 3 bytes, no padding
    glBindBuffer(GL_PIXEL_PACK_BUFFER, slot.buffer.id());
    glReadPixels(0, 0, width, height, GL_RGB, GL_UNSIGNED_BYTE, nullptr);  // offset 0 in the buffer
    // Never leave a pack buffer bound: a later glReadPixels into client memory would take its
    // pointer for an offset into this buffer.
    glBindBuffer(GL_PIXEL_PACK_BUFFER, 0);
    glBindFramebuffer(GL_READ_FRAMEBUFFER, 0);
    NBODY_GL_CHECK_STATE("queueing a frame readback (glReadPixels into a pixel buffer object)");
    slot.fence.insert();
    // Make sure the copy and the fence reach the GPU now, not at the next implicit flush.
    glFlush();
    slot.tag = tag;
    slot.width = width;
    slot.height = height;
    pending_.push_back(index);
}

std::optional<ReadbackFrame> AsyncFrameReader::take(bool wait) {
    if (!ready_.empty()) {
        ReadbackFrame frame = std::move(ready_.front());
        ready_.pop_front();
        return frame;
    }
    if (pending_.empty()) return std::nullopt;
    Slot& slot = slots_[std::size_t(pending_.front())];
    if (!slot.fence.ready()) {
        if (!wait) return std::nullopt;
        slot.fence.wait();
    }
    pending_.pop_front();
    return copy_out(slot);
}

ReadbackFrame AsyncFrameReader::copy_out(Slot& slot) {
    ReadbackFrame frame;
    frame.tag = slot.tag;
    frame.width = slot.width;
    frame.height = slot.height;
    const std::size_t bytes = std::size_t(slot.width) * std::size_t(slot.height) * 3;
    frame.rgb = std::make_shared<std::vector<std::uint8_t>>(bytes);
    const void* mapped = glMapNamedBufferRange(slot.buffer.id(), 0, GLsizeiptr(bytes), GL_MAP_READ_BIT);
    if (!mapped) {
        const GLenum e = glGetError();
        slot.fence.reset();
        throw GlError("glMapNamedBufferRange on a readback buffer failed (" + gl_error_name(e) + ")");
    }
    std::memcpy(frame.rgb->data(), mapped, bytes);
    // GL_FALSE here means the buffer's contents were lost while mapped (a display mode change):
    // the frame is garbage, and saying so beats writing it.
    const GLboolean intact = glUnmapNamedBuffer(slot.buffer.id());
    slot.fence.reset();
    if (!intact) throw GlError("a readback buffer's contents were lost while mapped (glUnmapNamedBuffer)");
    return frame;
}

}  // namespace nbody::render
