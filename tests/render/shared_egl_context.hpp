// One headless EGL context for the whole render test program (tests/render/*.cpp): contexts are
// cheap, but Mesa and NVIDIA both keep per-display state, and one context is what the viewer uses.
#pragma once

#include <string>

#include "nbody/render/egl_context.hpp"

namespace nbody::render {

// The context, made current; null (and *why_not says why) where none can be made.
EglContext* shared_context(std::string* why_not);

}  // namespace nbody::render

#define REQUIRE_EGL()                                                                                \
    do {                                                                                             \
        std::string why;                                                                             \
        if (!::nbody::render::shared_context(&why)) GTEST_SKIP() << "no headless EGL context: " << why; \
    } while (0)
