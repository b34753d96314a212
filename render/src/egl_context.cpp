#include "nbody/render/egl_context.hpp"

#include <EGL/egl.h>
#include <EGL/eglext.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <sstream>
#include <stdexcept>
#include <vector>

#include "nbody/render/gl.hpp"

#ifndef EGL_CUDA_DEVICE_NV
#define EGL_CUDA_DEVICE_NV 0x323A
#endif

namespace nbody::render {

namespace {

std::string egl_error_name(EGLint e) {
    switch (e) {
        case EGL_SUCCESS:
            return "EGL_SUCCESS";
        case EGL_NOT_INITIALIZED:
            return "EGL_NOT_INITIALIZED";
        case EGL_BAD_ACCESS:
            return "EGL_BAD_ACCESS";
        case EGL_BAD_ALLOC:
            return "EGL_BAD_ALLOC";
        case EGL_BAD_ATTRIBUTE:
            return "EGL_BAD_ATTRIBUTE";
        case EGL_BAD_CONFIG:
            return "EGL_BAD_CONFIG";
        case EGL_BAD_CONTEXT:
            return "EGL_BAD_CONTEXT";
        case EGL_BAD_CURRENT_SURFACE:
            return "EGL_BAD_CURRENT_SURFACE";
        case EGL_BAD_DISPLAY:
            return "EGL_BAD_DISPLAY";
        case EGL_BAD_MATCH:
            return "EGL_BAD_MATCH";
        case EGL_BAD_NATIVE_PIXMAP:
            return "EGL_BAD_NATIVE_PIXMAP";
        case EGL_BAD_NATIVE_WINDOW:
            return "EGL_BAD_NATIVE_WINDOW";
        case EGL_BAD_PARAMETER:
            return "EGL_BAD_PARAMETER";
        case EGL_BAD_SURFACE:
            return "EGL_BAD_SURFACE";
        case EGL_CONTEXT_LOST:
            return "EGL_CONTEXT_LOST";
        default: {
            char buf[16];
            std::snprintf(buf, sizeof buf, "0x%04x", static_cast<unsigned>(e));
            return buf;
        }
    }
}

bool has_extension(const char* list, const char* name) {
    if (!list) return false;
    const std::size_t n = std::strlen(name);
    for (const char* p = list; (p = std::strstr(p, name)) != nullptr; p += n) {
        const bool starts = p == list || p[-1] == ' ';
        const bool ends = p[n] == '\0' || p[n] == ' ';
        if (starts && ends) return true;
    }
    return false;
}

template <class Fn>
Fn egl_proc(const char* name) {
    return reinterpret_cast<Fn>(eglGetProcAddress(name));
}

struct Candidate {
    EGLDeviceEXT device = nullptr;  // null: the default display
    int index = -1;
    int rank = 0;  // lower is tried first
    std::string label;
};

}  // namespace

struct EglContext::Impl {
    EGLDisplay display = EGL_NO_DISPLAY;
    EGLSurface surface = EGL_NO_SURFACE;
    EGLContext context = EGL_NO_CONTEXT;

    ~Impl() { release(); }

    void release() {
        if (display == EGL_NO_DISPLAY) return;
        eglMakeCurrent(display, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
        if (context != EGL_NO_CONTEXT) eglDestroyContext(display, context);
        if (surface != EGL_NO_SURFACE) eglDestroySurface(display, surface);
        // eglTerminate is deliberately not called: with the device platform the display is
        // shared process-wide, and terminating it would break a second context (tests make
        // several). The driver releases it at exit.
        display = EGL_NO_DISPLAY;
        context = EGL_NO_CONTEXT;
        surface = EGL_NO_SURFACE;
    }

    // Tries to bring up a 4.5 core context on `dpy`; on failure leaves nothing behind and
    // returns the reason.
    std::string try_display(EGLDisplay dpy, std::string& mode) {
        EGLint major = 0, minor = 0;
        if (!eglInitialize(dpy, &major, &minor)) return "eglInitialize: " + egl_error_name(eglGetError());
        const char* apis = eglQueryString(dpy, EGL_CLIENT_APIS);
        if (!apis || !std::strstr(apis, "OpenGL"))
            return std::string("no desktop OpenGL (client APIs: ") + (apis ? apis : "none") + ")";
        if (!eglBindAPI(EGL_OPENGL_API))
            return "eglBindAPI(EGL_OPENGL_API): " + egl_error_name(eglGetError());

        const char* exts = eglQueryString(dpy, EGL_EXTENSIONS);
        const EGLint config_attribs[] = {EGL_SURFACE_TYPE,
                                         EGL_PBUFFER_BIT,
                                         EGL_RED_SIZE,
                                         8,
                                         EGL_GREEN_SIZE,
                                         8,
                                         EGL_BLUE_SIZE,
                                         8,
                                         EGL_ALPHA_SIZE,
                                         8,
                                         EGL_RENDERABLE_TYPE,
                                         EGL_OPENGL_BIT,
                                         EGL_NONE};
        EGLConfig config = nullptr;
        EGLint count = 0;
        const bool have_config = eglChooseConfig(dpy, config_attribs, &config, 1, &count) && count > 0;
        const bool surfaceless = has_extension(exts, "EGL_KHR_surfaceless_context");
        if (!have_config && !(surfaceless && has_extension(exts, "EGL_KHR_no_config_context")))
            return "no pbuffer-capable OpenGL config and no surfaceless support";

        const EGLint context_attribs[] = {EGL_CONTEXT_MAJOR_VERSION,
                                          4,
                                          EGL_CONTEXT_MINOR_VERSION,
                                          5,
                                          EGL_CONTEXT_OPENGL_PROFILE_MASK,
                                          EGL_CONTEXT_OPENGL_CORE_PROFILE_BIT,
                                          EGL_NONE};
        EGLContext ctx =
            eglCreateContext(dpy, have_config ? config : EGL_NO_CONFIG_KHR, EGL_NO_CONTEXT, context_attribs);
        if (ctx == EGL_NO_CONTEXT) return "eglCreateContext(4.5 core): " + egl_error_name(eglGetError());

        // A tiny pbuffer when there is a config for one: the path proven on both NVIDIA's and
        // Mesa's device platforms (rendering goes to framebuffer objects anyway). Surfaceless
        // only where no pbuffer config exists.
        EGLSurface surf = EGL_NO_SURFACE;
        const bool use_pbuffer = have_config;
        if (use_pbuffer) {
            const EGLint pbuffer_attribs[] = {EGL_WIDTH, 16, EGL_HEIGHT, 16, EGL_NONE};
            surf = eglCreatePbufferSurface(dpy, config, pbuffer_attribs);
            if (surf == EGL_NO_SURFACE) {
                const EGLint e = eglGetError();
                eglDestroyContext(dpy, ctx);
                return "eglCreatePbufferSurface: " + egl_error_name(e);
            }
        }
        if (!eglMakeCurrent(dpy, surf, surf, ctx)) {
            const EGLint e = eglGetError();
            if (surf != EGL_NO_SURFACE) eglDestroySurface(dpy, surf);
            eglDestroyContext(dpy, ctx);
            return "eglMakeCurrent: " + egl_error_name(e);
        }
        display = dpy;
        context = ctx;
        surface = surf;
        std::ostringstream m;
        const char* vendor = eglQueryString(dpy, EGL_VENDOR);
        m << "EGL " << major << "." << minor << " (" << (vendor ? vendor : "?") << "), "
          << (use_pbuffer ? "pbuffer" : "surfaceless");
        mode = m.str();
        return {};
    }
};

EglContext::EglContext(const EglOptions& options) : impl_(std::make_unique<Impl>()) {
    const char* client_exts = eglQueryString(EGL_NO_DISPLAY, EGL_EXTENSIONS);
    auto query_devices = egl_proc<PFNEGLQUERYDEVICESEXTPROC>("eglQueryDevicesEXT");
    auto query_device_string = egl_proc<PFNEGLQUERYDEVICESTRINGEXTPROC>("eglQueryDeviceStringEXT");
    auto query_device_attrib = egl_proc<PFNEGLQUERYDEVICEATTRIBEXTPROC>("eglQueryDeviceAttribEXT");
    auto get_platform_display = egl_proc<PFNEGLGETPLATFORMDISPLAYEXTPROC>("eglGetPlatformDisplayEXT");

    int forced = options.device;
    if (const char* env = std::getenv("NBODY_EGL_DEVICE"); env && *env) forced = std::atoi(env);

    std::vector<Candidate> candidates;
    const bool device_platform =
        query_devices && get_platform_display && has_extension(client_exts, "EGL_EXT_platform_device");
    if (device_platform) {
        EGLDeviceEXT devices[16];
        EGLint count = 0;
        if (query_devices(16, devices, &count)) {
            for (EGLint i = 0; i < count; ++i) {
                Candidate c{devices[i], i, 2, "device " + std::to_string(i)};
                const char* dev_exts =
                    query_device_string ? query_device_string(devices[i], EGL_EXTENSIONS) : nullptr;
                if (has_extension(dev_exts, "EGL_MESA_device_software")) {
                    c.rank = 3;
                    c.label += " (software)";
                }
                EGLAttrib cuda = -1;
                if (query_device_attrib && has_extension(dev_exts, "EGL_NV_device_cuda") &&
                    query_device_attrib(devices[i], EGL_CUDA_DEVICE_NV, &cuda)) {
                    c.label += " (CUDA device " + std::to_string(cuda) + ")";
                    if (cuda == options.cuda_device) c.rank = 1;
                }
                if (forced >= 0) c.rank = (i == forced) ? 0 : 9;
                candidates.push_back(c);
            }
        }
        std::stable_sort(candidates.begin(), candidates.end(),
                         [](const Candidate& a, const Candidate& b) { return a.rank < b.rank; });
        if (forced >= 0 && (candidates.empty() || candidates.front().rank != 0))
            throw std::runtime_error("NBODY_EGL_DEVICE / device " + std::to_string(forced) +
                                     " does not exist (EGL reports " + std::to_string(candidates.size()) +
                                     " devices)");
        if (forced >= 0) candidates.resize(1);
    }
    if (forced < 0) candidates.push_back({nullptr, -1, 10, "default display"});

    std::string failures;
    for (const auto& c : candidates) {
        EGLDisplay dpy = c.device ? get_platform_display(EGL_PLATFORM_DEVICE_EXT, c.device, nullptr)
                                  : eglGetDisplay(EGL_DEFAULT_DISPLAY);
        std::string mode, why;
        if (dpy == EGL_NO_DISPLAY)
            why = "no EGL display: " + egl_error_name(eglGetError());
        else
            why = impl_->try_display(dpy, mode);
        if (why.empty()) {
            description_ = mode + ", " + c.label;
            if (device_platform) description_ += " of " + std::to_string(candidates.size() - (forced < 0));
            break;
        }
        failures += "\n  " + c.label + ": " + why;
    }
    if (impl_->context == EGL_NO_CONTEXT) {
        throw std::runtime_error(
            std::string("cannot create a headless OpenGL 4.5 context through EGL") +
            (device_platform ? "" : " (EGL_EXT_platform_device is not available)") + ":" + failures +
            "\n  Install an EGL driver (Debian: libegl1 libegl-mesa0 libgl1-mesa-dri; NVIDIA: set "
            "__EGL_VENDOR_LIBRARY_FILENAMES to the driver's 10_nvidia.json).");
    }
    info_ = load_gl(/*egl=*/true);
}

EglContext::~EglContext() = default;

void EglContext::make_current() {
    if (!eglMakeCurrent(impl_->display, impl_->surface, impl_->surface, impl_->context))
        throw std::runtime_error("eglMakeCurrent: " + egl_error_name(eglGetError()));
}

}  // namespace nbody::render
