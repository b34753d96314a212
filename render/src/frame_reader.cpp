#include "nbody/render/frame_reader.hpp"

#include <algorithm>
#include <cstdio>
#include <stdexcept>
#include <string>

#include "nbody/render/gl_check.hpp"

namespace nbody::render {

AsyncFrameReader::AsyncFrameReader(int buffers, PixelFormat format)
    : format_(format), shared_(std::make_shared<Shared>()), slots_(shared_->slots) {
    slots_.resize(std::size_t(std::max(buffers, 1)));  // never resized again: references stay valid
}

AsyncFrameReader::~AsyncFrameReader() {
    // GL objects die here, on the GL thread: the slots themselves may outlive this reader inside
    // `shared_` (held by a frame not yet released), and must then own nothing GL.
    std::lock_guard lock(shared_->mutex);
    for (Slot& s : slots_) {
        if (s.state == State::Out)
            std::fprintf(stderr, "nbody: internal error: a read-back frame outlives its reader\n");
        if (s.mapped && s.buffer) glUnmapNamedBuffer(s.buffer.id());
        s.mapped = nullptr;
        s.fence.reset();
        s.buffer.reset();
    }
}

int AsyncFrameReader::out() const {
    std::lock_guard lock(shared_->mutex);
    return int(
        std::count_if(slots_.begin(), slots_.end(), [](const Slot& s) { return s.state == State::Out; }));
}

void AsyncFrameReader::recycle() {
    std::lock_guard lock(shared_->mutex);
    for (Slot& s : slots_) {
        if (s.state != State::Released) continue;
        // GL_FALSE would mean the contents were lost while mapped (a display mode change): the
        // frame has been consumed already, so there is nobody left to tell.
        glUnmapNamedBuffer(s.buffer.id());
        s.mapped = nullptr;
        s.state = State::Free;
    }
}

bool AsyncFrameReader::can_submit() {
    recycle();
    std::lock_guard lock(shared_->mutex);
    return std::any_of(slots_.begin(), slots_.end(), [](const Slot& s) { return s.state == State::Free; });
}

void AsyncFrameReader::submit(GLuint framebuffer, int width, int height, long long tag) {
    if (width <= 0 || height <= 0)
        throw std::invalid_argument("AsyncFrameReader::submit: empty size " + std::to_string(width) + "x" +
                                    std::to_string(height));
    recycle();
    int index = -1;
    {
        std::lock_guard lock(shared_->mutex);
        for (std::size_t i = 0; i < slots_.size() && index < 0; ++i)
            if (slots_[i].state == State::Free) index = int(i);
        if (index < 0) throw std::logic_error("AsyncFrameReader::submit: every buffer is in use");
        slots_[std::size_t(index)].state = State::Pending;
    }
    Slot& slot = slots_[std::size_t(index)];
    const std::size_t bytes = std::size_t(width) * std::size_t(height) * std::size_t(channels(format_));
    try {
        if (!slot.buffer || slot.capacity < bytes) {
            GlBuffer buffer = create_buffer();
            // STREAM_READ: written by GL once, read by the application once.
            NBODY_GL_CHECK(glNamedBufferData(buffer.id(), GLsizeiptr(bytes), nullptr, GL_STREAM_READ));
            slot.buffer = std::move(buffer);
            slot.capacity = bytes;
        }
        glBindFramebuffer(GL_READ_FRAMEBUFFER, framebuffer);
        glReadBuffer(framebuffer == 0 ? GL_BACK : GL_COLOR_ATTACHMENT0);
        glPixelStorei(GL_PACK_ALIGNMENT, 1);  // rows of width * channels bytes, no padding
        glBindBuffer(GL_PIXEL_PACK_BUFFER, slot.buffer.id());
        glReadPixels(0, 0, width, height, format_ == PixelFormat::Rgb ? GL_RGB : GL_RGBA, GL_UNSIGNED_BYTE,
                     nullptr);  // offset 0 in the buffer
        // Never leave a pack buffer bound: a later glReadPixels into client memory would take its
        // pointer for an offset into this buffer.
        glBindBuffer(GL_PIXEL_PACK_BUFFER, 0);
        glBindFramebuffer(GL_READ_FRAMEBUFFER, 0);
        NBODY_GL_CHECK_STATE("queueing a frame readback (glReadPixels into a pixel buffer object)");
        slot.fence.insert();
        // Make sure the copy and its fence reach the GPU now, not at the next implicit flush.
        glFlush();
    } catch (...) {
        std::lock_guard lock(shared_->mutex);
        slot.state = State::Free;
        throw;
    }
    slot.tag = tag;
    slot.width = width;
    slot.height = height;
    pending_.push_back(index);
}

std::optional<ReadbackFrame> AsyncFrameReader::take(bool wait) {
    if (pending_.empty()) return std::nullopt;
    const int index = pending_.front();
    Slot& slot = slots_[std::size_t(index)];
    if (!slot.fence.ready()) {
        if (!wait) return std::nullopt;
        slot.fence.wait();
    }
    pending_.pop_front();
    slot.fence.reset();
    const std::size_t bytes =
        std::size_t(slot.width) * std::size_t(slot.height) * std::size_t(channels(format_));
    const void* mapped = glMapNamedBufferRange(slot.buffer.id(), 0, GLsizeiptr(bytes), GL_MAP_READ_BIT);
    if (!mapped) {
        const GLenum e = glGetError();
        std::lock_guard lock(shared_->mutex);
        slot.state = State::Free;
        throw GlError("glMapNamedBufferRange on a readback buffer failed (" + gl_error_name(e) + ")");
    }
    slot.mapped = static_cast<const std::uint8_t*>(mapped);
    return hand_out(index);
}

ReadbackFrame AsyncFrameReader::hand_out(int index) {
    Slot& slot = slots_[std::size_t(index)];
    {
        std::lock_guard lock(shared_->mutex);
        slot.state = State::Out;
    }
    ReadbackFrame frame;
    frame.tag = slot.tag;
    frame.width = slot.width;
    frame.height = slot.height;
    frame.format = format_;
    // The deleter only marks the buffer given back (it may run on any thread; GL calls may not).
    std::shared_ptr<Shared> shared = shared_;
    frame.pixels = std::shared_ptr<const std::uint8_t>(slot.mapped, [shared, index](const std::uint8_t*) {
        {
            std::lock_guard lock(shared->mutex);
            shared->slots[std::size_t(index)].state = State::Released;
        }
        shared->released.notify_all();
    });
    return frame;
}

void AsyncFrameReader::wait_for_release() {
    recycle();
    {
        std::unique_lock lock(shared_->mutex);
        auto any = [&](State st) {
            return std::any_of(slots_.begin(), slots_.end(), [st](const Slot& s) { return s.state == st; });
        };
        if (!any(State::Out) || any(State::Free)) return;
        shared_->released.wait(lock, [&] { return any(State::Released); });
    }
    recycle();
}

}  // namespace nbody::render
