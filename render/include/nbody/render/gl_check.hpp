#pragma once
// OpenGL error reporting with place and cause. GL records errors silently; these helpers turn
// them into std::runtime_error carrying the failing call, the file and the line, so that they
// reach the user as a message rather than as a black window.

#include <stdexcept>
#include <string>

#include "nbody/render/gl.hpp"

namespace nbody::render {

class GlError : public std::runtime_error {
  public:
    using std::runtime_error::runtime_error;
};

// "GL_INVALID_OPERATION" and friends; "0x...." for codes it does not know.
std::string gl_error_name(GLenum error);

// Drains glGetError(); throws GlError naming `what`, `file` and `line` when any error was set.
void check_gl_errors(const char* what, const char* file, int line);

// Same, but only logs to stderr: for destructors and other places that must not throw.
void log_gl_errors(const char* what, const char* file, int line) noexcept;

// Installs a KHR_debug message callback that prints driver messages (errors and performance
// warnings) to stderr. Only when the context supports it; costs driver time, so off by default
// and enabled by NBODY_GL_DEBUG=1.
void install_gl_debug_output_if_requested();

}  // namespace nbody::render

// Runs a GL call and throws GlError with the call text, file and line if it set an error.
#define NBODY_GL_CHECK(call)                                         \
    do {                                                             \
        call;                                                        \
        ::nbody::render::check_gl_errors(#call, __FILE__, __LINE__); \
    } while (0)

// Checks for errors left by the preceding block of GL calls, described by `what`.
#define NBODY_GL_CHECK_STATE(what) ::nbody::render::check_gl_errors(what, __FILE__, __LINE__)
