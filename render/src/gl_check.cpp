#include "nbody/render/gl_check.hpp"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sstream>

namespace nbody::render {

std::string gl_error_name(GLenum error) {
    switch (error) {
        case GL_NO_ERROR:
            return "GL_NO_ERROR";
        case GL_INVALID_ENUM:
            return "GL_INVALID_ENUM";
        case GL_INVALID_VALUE:
            return "GL_INVALID_VALUE";
        case GL_INVALID_OPERATION:
            return "GL_INVALID_OPERATION";
        case GL_INVALID_FRAMEBUFFER_OPERATION:
            return "GL_INVALID_FRAMEBUFFER_OPERATION";
        case GL_OUT_OF_MEMORY:
            return "GL_OUT_OF_MEMORY";
        case GL_STACK_UNDERFLOW:
            return "GL_STACK_UNDERFLOW";
        case GL_STACK_OVERFLOW:
            return "GL_STACK_OVERFLOW";
        default: {
            char buf[16];
            std::snprintf(buf, sizeof buf, "0x%04x", static_cast<unsigned>(error));
            return buf;
        }
    }
}

namespace {

// glGetError keeps one flag per error kind; read until clear so later checks start clean. The
// bound stops a context without a current GL (glGetError then returns garbage forever).
std::string drain_errors() {
    std::string names;
    for (int i = 0; i < 16; ++i) {
        const GLenum e = glGetError();
        if (e == GL_NO_ERROR) break;
        if (!names.empty()) names += ", ";
        names += gl_error_name(e);
    }
    return names;
}

const char* base_name(const char* file) {
    const char* slash = std::strrchr(file, '/');
    return slash ? slash + 1 : file;
}

}  // namespace

void check_gl_errors(const char* what, const char* file, int line) {
    const std::string names = drain_errors();
    if (names.empty()) return;
    std::ostringstream msg;
    msg << "OpenGL error " << names << " in " << what << " (" << base_name(file) << ":" << line << ")";
    throw GlError(msg.str());
}

void log_gl_errors(const char* what, const char* file, int line) noexcept {
    try {
        const std::string names = drain_errors();
        if (!names.empty())
            std::fprintf(stderr, "nbody: OpenGL error %s in %s (%s:%d)\n", names.c_str(), what,
                         base_name(file), line);
    } catch (...) {
    }
}

namespace {

void GLAPIENTRY debug_callback(GLenum /*source*/, GLenum type, GLuint id, GLenum severity, GLsizei /*length*/,
                               const GLchar* message, const void* /*user*/) {
    if (severity == GL_DEBUG_SEVERITY_NOTIFICATION) return;
    const char* kind = type == GL_DEBUG_TYPE_ERROR         ? "error"
                       : type == GL_DEBUG_TYPE_PERFORMANCE ? "performance"
                                                           : "message";
    std::fprintf(stderr, "nbody: GL %s %u: %s\n", kind, id, message);
}

}  // namespace

void install_gl_debug_output_if_requested() {
    const char* env = std::getenv("NBODY_GL_DEBUG");
    if (!env || std::strcmp(env, "0") == 0) return;
    if (!glDebugMessageCallback) {
        std::fprintf(stderr, "nbody: NBODY_GL_DEBUG set but this context has no KHR_debug\n");
        return;
    }
    glEnable(GL_DEBUG_OUTPUT);
    glEnable(GL_DEBUG_OUTPUT_SYNCHRONOUS);
    glDebugMessageCallback(debug_callback, nullptr);
}

}  // namespace nbody::render
