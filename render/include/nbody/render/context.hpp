#pragma once
// What every OpenGL context of this program shares, whichever way it was created (a GLFW window
// or headless EGL): loading the entry points and describing the driver.

#include <string>
#include <string_view>

namespace nbody::render {

struct GlInfo {
    std::string vendor;
    std::string renderer;  // "llvmpipe (LLVM 15.0.6, 256 bits)", "NVIDIA H200/PCIe/SSE2", ...
    std::string version;
    std::string glsl_version;
    int major = 0, minor = 0;
};

// Loads the GL entry points for the current context through GLEW and checks for 4.5.
// `egl`: the context came from EGL. Debian's GLEW is built for GLX, and glewInit() then returns
// GLEW_ERROR_NO_GLX_DISPLAY (4) after it has loaded every core entry point, because it also
// tries to query GLX extensions on a display that does not exist. That code is accepted when the
// core entry points this program calls are present. Throws std::runtime_error otherwise.
GlInfo load_gl(bool egl);

// The strings of the current context.
GlInfo query_gl_info();

// A renderer string of a rasteriser that runs on the CPU, case-insensitive: Mesa's
// "llvmpipe (LLVM 15.0.6, 256 bits)", "softpipe", the classic swrast's "Software Rasterizer",
// SwiftShader. There compute passes and full-screen work cost what the CPU can give them.
bool is_software_renderer(std::string_view renderer);

}  // namespace nbody::render
