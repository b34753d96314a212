#include "nbody/render/context.hpp"

#include <algorithm>
#include <cctype>

#include <cstdio>
#include <stdexcept>
#include <string>

#include "nbody/render/gl.hpp"
#include "nbody/render/gl_check.hpp"

namespace nbody::render {

namespace {
std::string gl_string(GLenum name) {
    const auto* s = reinterpret_cast<const char*>(glGetString(name));
    return s ? s : "";
}
}  // namespace

bool is_software_renderer(std::string_view renderer) {
    std::string r(renderer);
    std::transform(r.begin(), r.end(), r.begin(), [](unsigned char c) { return char(std::tolower(c)); });
    for (const char* name : {"llvmpipe", "softpipe", "software rasterizer", "swrast", "swiftshader"})
        if (r.find(name) != std::string::npos) return true;
    return false;
}

GlInfo query_gl_info() {
    GlInfo info;
    info.vendor = gl_string(GL_VENDOR);
    info.renderer = gl_string(GL_RENDERER);
    info.version = gl_string(GL_VERSION);
    info.glsl_version = gl_string(GL_SHADING_LANGUAGE_VERSION);
    glGetIntegerv(GL_MAJOR_VERSION, &info.major);
    glGetIntegerv(GL_MINOR_VERSION, &info.minor);
    return info;
}

GlInfo load_gl(bool egl) {
    glewExperimental = GL_TRUE;  // core profiles do not list extensions the old way GLEW expects
    const GLenum status = glewInit();
    constexpr GLenum kNoGlxDisplay = 4;  // GLEW_ERROR_NO_GLX_DISPLAY, named only in GLEW >= 2.2 headers
    if (status != GLEW_OK && !(egl && status == kNoGlxDisplay)) {
        throw std::runtime_error(std::string("cannot load OpenGL entry points: glewInit failed: ") +
                                 reinterpret_cast<const char*>(glewGetErrorString(status)));
    }
    // The entry points this program depends on, 4.5 direct state access included.
    if (!glCreateBuffers || !glNamedBufferStorage || !glCreateFramebuffers || !glCreateVertexArrays ||
        !glProgramUniform1f) {
        throw std::runtime_error("OpenGL 4.5 entry points are missing after glewInit (status " +
                                 std::to_string(status) + "); the driver does not provide OpenGL 4.5 core");
    }
    // glewInit probes with calls that are invalid in a core profile; clear what it left behind.
    while (glGetError() != GL_NO_ERROR) {
    }
    GlInfo info = query_gl_info();
    if (info.major < 4 || (info.major == 4 && info.minor < 5)) {
        throw std::runtime_error("OpenGL 4.5 is required, the context is " + info.version + " (" +
                                 info.renderer + ")");
    }
    install_gl_debug_output_if_requested();
    return info;
}

}  // namespace nbody::render
