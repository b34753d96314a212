#include "nbody/render/gl_objects.hpp"

#include <algorithm>
#include <cstring>
#include <sstream>
#include <vector>

#include "nbody/render/gl_check.hpp"

namespace nbody::render {

namespace detail {
// Deleting while no context is current (a failed start-up) is a no-op in GLEW's null pointers;
// guard so that such a path cannot crash.
void BufferDeleter::operator()(GLuint id) const noexcept {
    if (glDeleteBuffers) glDeleteBuffers(1, &id);
}
void VertexArrayDeleter::operator()(GLuint id) const noexcept {
    if (glDeleteVertexArrays) glDeleteVertexArrays(1, &id);
}
void TextureDeleter::operator()(GLuint id) const noexcept {
    glDeleteTextures(1, &id);
}  // GL 1.1: always linked
void FramebufferDeleter::operator()(GLuint id) const noexcept {
    if (glDeleteFramebuffers) glDeleteFramebuffers(1, &id);
}
void ShaderDeleter::operator()(GLuint id) const noexcept {
    if (glDeleteShader) glDeleteShader(id);
}
void ProgramDeleter::operator()(GLuint id) const noexcept {
    if (glDeleteProgram) glDeleteProgram(id);
}
void QueryDeleter::operator()(GLuint id) const noexcept {
    if (glDeleteQueries) glDeleteQueries(1, &id);
}
}  // namespace detail

namespace {
GLuint require(GLuint id, const char* what) {
    NBODY_GL_CHECK_STATE(what);
    if (id == 0) throw GlError(std::string(what) + " returned no object name");
    return id;
}
}  // namespace

GlBuffer create_buffer() {
    GLuint id = 0;
    glCreateBuffers(1, &id);
    return GlBuffer(require(id, "glCreateBuffers"));
}

GlVertexArray create_vertex_array() {
    GLuint id = 0;
    glCreateVertexArrays(1, &id);
    return GlVertexArray(require(id, "glCreateVertexArrays"));
}

GlTexture create_texture(GLenum target) {
    GLuint id = 0;
    glCreateTextures(target, 1, &id);
    return GlTexture(require(id, "glCreateTextures"));
}

GlFramebuffer create_framebuffer() {
    GLuint id = 0;
    glCreateFramebuffers(1, &id);
    return GlFramebuffer(require(id, "glCreateFramebuffers"));
}

GlShader create_shader(GLenum type) { return GlShader(require(glCreateShader(type), "glCreateShader")); }

GlProgram create_program() { return GlProgram(require(glCreateProgram(), "glCreateProgram")); }

GlQuery create_query(GLenum target) {
    GLuint id = 0;
    glCreateQueries(target, 1, &id);
    return GlQuery(require(id, "glCreateQueries"));
}

void GlFence::insert() {
    reset();
    sync_ = glFenceSync(GL_SYNC_GPU_COMMANDS_COMPLETE, 0);
    if (!sync_) throw GlError("glFenceSync returned no fence (" + gl_error_name(glGetError()) + ")");
}

bool GlFence::ready() const {
    if (!sync_) return true;
    GLint status = GL_UNSIGNALED;
    glGetSynciv(sync_, GL_SYNC_STATUS, 1, nullptr, &status);
    return status == GL_SIGNALED;
}

void GlFence::wait(double timeout_s) const {
    if (!sync_) return;
    // The flush bit makes sure the fence is submitted: without it a wait on a fence still in the
    // driver's command buffer would never return.
    GLbitfield flags = GL_SYNC_FLUSH_COMMANDS_BIT;
    for (double waited = 0; waited < timeout_s; waited += 1.0) {
        const GLenum r = glClientWaitSync(sync_, flags, 1'000'000'000);  // 1 s slices
        if (r == GL_ALREADY_SIGNALED || r == GL_CONDITION_SATISFIED) return;
        if (r == GL_WAIT_FAILED)
            throw GlError("glClientWaitSync failed (" + gl_error_name(glGetError()) + ")");
        flags = 0;  // GL_TIMEOUT_EXPIRED: the GPU is busy; keep waiting
    }
    throw GlError("glClientWaitSync: the GPU has not completed the commands before a fence in " +
                  std::to_string(int(timeout_s)) + " s (a hung or lost GPU?)");
}

void GlFence::reset() noexcept {
    if (sync_ && glDeleteSync) glDeleteSync(sync_);
    sync_ = nullptr;
}

GlBuffer create_mutable_buffer(std::size_t bytes, const void* data, GLenum usage) {
    GlBuffer buffer = create_buffer();
    // At least 16 bytes (GL refuses empty storage); one float4 already is, so data is never
    // over-read.
    NBODY_GL_CHECK(glNamedBufferData(buffer.id(), static_cast<GLsizeiptr>(std::max<std::size_t>(bytes, 16)),
                                     bytes ? data : nullptr, usage));
    return buffer;
}

GlBuffer create_buffer_storage(std::size_t bytes, const void* data, GLbitfield flags) {
    GlBuffer buffer = create_buffer();
    // Zero-sized storage is an error in GL; an empty system still gets a valid (tiny) buffer.
    // GL reads `size` bytes from `data`, so a shorter source is padded rather than over-read.
    const std::size_t size = std::max<std::size_t>(bytes, 16);
    std::vector<unsigned char> padded;
    if (data && bytes < size) {
        padded.assign(size, 0);
        std::memcpy(padded.data(), data, bytes);
        data = padded.data();
    }
    NBODY_GL_CHECK(glNamedBufferStorage(buffer.id(), GLsizeiptr(size), bytes ? data : nullptr, flags));
    return buffer;
}

RenderTarget::RenderTarget(int width, int height, GLenum format, int mip_levels) {
    ensure(width, height, format, mip_levels);
}

bool RenderTarget::ensure(int width, int height, GLenum format, int mip_levels) {
    width = std::max(width, 1);
    height = std::max(height, 1);
    // A chain cannot go below 1x1: GL rejects more levels than floor(log2(max side)) + 1.
    int max_levels = 1;
    while ((std::max(width, height) >> max_levels) > 0) ++max_levels;
    mip_levels = std::clamp(mip_levels, 1, max_levels);
    if (fbo_ && width == width_ && height == height_ && format == format_ && mip_levels == mip_levels_)
        return false;

    GlTexture texture = create_texture(GL_TEXTURE_2D);
    NBODY_GL_CHECK(glTextureStorage2D(texture.id(), mip_levels, format, width, height));
    glTextureParameteri(texture.id(), GL_TEXTURE_MIN_FILTER,
                        mip_levels > 1 ? GL_LINEAR_MIPMAP_LINEAR : GL_LINEAR);
    glTextureParameteri(texture.id(), GL_TEXTURE_MAG_FILTER, GL_LINEAR);
    glTextureParameteri(texture.id(), GL_TEXTURE_WRAP_S, GL_CLAMP_TO_EDGE);
    glTextureParameteri(texture.id(), GL_TEXTURE_WRAP_T, GL_CLAMP_TO_EDGE);

    GlFramebuffer fbo = create_framebuffer();
    glNamedFramebufferTexture(fbo.id(), GL_COLOR_ATTACHMENT0, texture.id(), 0);
    // The defaults, stated: draw buffer 0 (what glClearNamedFramebuffer*(..., 0, ...) clears)
    // and the read buffer are this attachment.
    glNamedFramebufferDrawBuffer(fbo.id(), GL_COLOR_ATTACHMENT0);
    glNamedFramebufferReadBuffer(fbo.id(), GL_COLOR_ATTACHMENT0);
    const GLenum status = glCheckNamedFramebufferStatus(fbo.id(), GL_FRAMEBUFFER);
    NBODY_GL_CHECK_STATE("creating a render target");
    if (status != GL_FRAMEBUFFER_COMPLETE) {
        std::ostringstream msg;
        msg << "render target " << width << "x" << height << " (format 0x" << std::hex << format
            << ") is incomplete: status 0x" << status;
        throw GlError(msg.str());
    }
    // Only now replace the old target, so a failure leaves the previous one usable.
    texture_ = std::move(texture);
    fbo_ = std::move(fbo);
    width_ = width;
    height_ = height;
    format_ = format;
    mip_levels_ = mip_levels;
    return true;
}

}  // namespace nbody::render
