#pragma once
// Move-only owners of OpenGL object names. Each deletes its object when destroyed, so a GL
// object lives exactly as long as its C++ owner; copies are not allowed because two owners of one
// name would delete it twice. Objects are created with the 4.5 direct-state-access calls, which
// need no binding to create or edit them.
//
// Owners must be destroyed while their context is current (the frame loop guarantees it by
// declaring the context before everything that draws).

#include <cstddef>
#include <utility>

#include "nbody/render/gl.hpp"

namespace nbody::render {

template <class Deleter>
class GlHandle {
  public:
    GlHandle() = default;
    explicit GlHandle(GLuint id) : id_(id) {}
    ~GlHandle() { reset(); }

    GlHandle(const GlHandle&) = delete;
    GlHandle& operator=(const GlHandle&) = delete;
    GlHandle(GlHandle&& other) noexcept : id_(std::exchange(other.id_, 0)) {}
    GlHandle& operator=(GlHandle&& other) noexcept {
        if (this != &other) {
            reset();
            id_ = std::exchange(other.id_, 0);
        }
        return *this;
    }

    GLuint id() const { return id_; }
    explicit operator bool() const { return id_ != 0; }

    void reset() noexcept {
        if (id_ != 0) Deleter{}(id_);
        id_ = 0;
    }

  private:
    GLuint id_ = 0;
};

namespace detail {
struct BufferDeleter {
    void operator()(GLuint id) const noexcept;
};
struct VertexArrayDeleter {
    void operator()(GLuint id) const noexcept;
};
struct TextureDeleter {
    void operator()(GLuint id) const noexcept;
};
struct FramebufferDeleter {
    void operator()(GLuint id) const noexcept;
};
struct ShaderDeleter {
    void operator()(GLuint id) const noexcept;
};
struct ProgramDeleter {
    void operator()(GLuint id) const noexcept;
};
struct QueryDeleter {
    void operator()(GLuint id) const noexcept;
};
}  // namespace detail

using GlBuffer = GlHandle<detail::BufferDeleter>;
using GlVertexArray = GlHandle<detail::VertexArrayDeleter>;
using GlTexture = GlHandle<detail::TextureDeleter>;
using GlFramebuffer = GlHandle<detail::FramebufferDeleter>;
using GlShader = GlHandle<detail::ShaderDeleter>;
using GlProgram = GlHandle<detail::ProgramDeleter>;
using GlQuery = GlHandle<detail::QueryDeleter>;

// A fence (glFenceSync): signalled when the GL commands issued before it have completed. GLsync
// is a pointer, not a name, hence its own owner.
class GlFence {
  public:
    GlFence() = default;
    ~GlFence() { reset(); }
    GlFence(const GlFence&) = delete;
    GlFence& operator=(const GlFence&) = delete;
    GlFence(GlFence&& other) noexcept : sync_(std::exchange(other.sync_, nullptr)) {}
    GlFence& operator=(GlFence&& other) noexcept {
        if (this != &other) {
            reset();
            sync_ = std::exchange(other.sync_, nullptr);
        }
        return *this;
    }

    // Inserts a new fence after the commands issued so far (replacing any previous one).
    void insert();
    explicit operator bool() const { return sync_ != nullptr; }
    // True when signalled (or when there is no fence); never waits.
    bool ready() const;
    // Waits until signalled; flushes first so that the fence is sure to be reached. Throws
    // GlError if the wait fails, or once `timeout_s` has passed: a GPU that never reaches the
    // fence (a hung driver, a lost device) ends the program with a message, not a silent hang.
    // One frame's commands take milliseconds; 60 s is far beyond any real frame.
    void wait(double timeout_s = 60.0) const;
    void reset() noexcept;

  private:
    GLsync sync_ = nullptr;
};

// Each throws GlError when the driver returns no name.
GlBuffer create_buffer();
GlVertexArray create_vertex_array();
GlTexture create_texture(GLenum target);
GlFramebuffer create_framebuffer();
GlShader create_shader(GLenum type);
GlProgram create_program();
GlQuery create_query(GLenum target);

// A buffer of `bytes` immutable-size storage (glNamedBufferStorage), optionally filled. The
// dynamic-storage flag allows glNamedBufferSubData updates (the CPU path's per-frame upload).
GlBuffer create_buffer_storage(std::size_t bytes, const void* data, GLbitfield flags);
// A buffer of mutable storage (glNamedBufferData, at least 16 bytes), optionally filled: the kind
// CUDA registration is proven on (the vertex buffers, the splat sums the CUDA deposit writes).
GlBuffer create_mutable_buffer(std::size_t bytes, const void* data, GLenum usage);

// A framebuffer with one 2D colour texture, reallocated when its size or format changes.
// The texture can be sampled (the tone-mapping pass reads the float accumulation target).
class RenderTarget {
  public:
    RenderTarget() = default;
    // `format`: a sized internal format such as GL_RGBA16F, GL_RGBA32F or GL_RGBA8.
    // `mip_levels` > 1 allocates a mipmap chain (used for the glow).
    RenderTarget(int width, int height, GLenum format, int mip_levels = 1);

    // Reallocates when anything differs; returns true when it did.
    bool ensure(int width, int height, GLenum format, int mip_levels = 1);

    GLuint framebuffer() const { return fbo_.id(); }
    GLuint texture() const { return texture_.id(); }
    int width() const { return width_; }
    int height() const { return height_; }
    GLenum format() const { return format_; }
    int mip_levels() const { return mip_levels_; }

  private:
    GlFramebuffer fbo_;
    GlTexture texture_;
    int width_ = 0, height_ = 0, mip_levels_ = 1;
    GLenum format_ = 0;
};

}  // namespace nbody::render
