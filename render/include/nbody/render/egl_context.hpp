#pragma once
// A headless OpenGL 4.5 core context through EGL's device platform: no X server, no window.
// On a GPU server this is the NVIDIA driver's EGL (GL_RENDERER names the GPU); on a machine
// without a GPU, Mesa enumerates a software device and the context runs on llvmpipe. The same
// code serves both, so CI exercises the path GPU servers take.
//
// The context has no usable default framebuffer (its pbuffer, when one is needed at all, is
// 16x16); render into a RenderTarget.

#include <memory>
#include <string>

#include "nbody/render/context.hpp"

namespace nbody::render {

struct EglOptions {
    // EGL device index to use; -1 picks: first the device EGL reports as CUDA device
    // `cuda_device` (EGL_NV_device_cuda), then hardware devices, then software ones.
    // NBODY_EGL_DEVICE overrides it.
    int device = -1;
    int cuda_device = 0;
};

class EglContext {
  public:
    // Throws std::runtime_error describing every device tried and why it failed.
    explicit EglContext(const EglOptions& options = {});
    ~EglContext();
    EglContext(const EglContext&) = delete;
    EglContext& operator=(const EglContext&) = delete;

    void make_current();
    const GlInfo& gl_info() const { return info_; }
    // "EGL 1.5 (NVIDIA), device 0 of 1, pbuffer" and the like, for logs.
    const std::string& description() const { return description_; }

  private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
    GlInfo info_;
    std::string description_;
};

}  // namespace nbody::render
