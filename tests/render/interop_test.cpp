// CUDA-GL interop on a GPU: the kernel writes positions straight into the vertex buffers, and
// what GL holds there is exactly what the backend computes. Skips without a CUDA device, and
// when the EGL context is not on the CUDA device (Mesa's software device cannot be registered).

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "nbody/render/egl_context.hpp"
#include "nbody/render/gl_objects.hpp"
#include "nbody/render/particle_buffers.hpp"
#include "nbody/sim/backend.hpp"
#include "nbody/sim/scene.hpp"
#include "test_support.hpp"

#if NBODY_HAVE_CUDA
#include "nbody/render/cuda_gl_interop.hpp"
#include "nbody/sim/cuda_backend.hpp"
#endif

namespace nbody::render {
namespace {

#if NBODY_HAVE_CUDA

std::vector<Vec4f> read_buffer(GLuint buffer, std::size_t n) {
    std::vector<Vec4f> out(n);
    glGetNamedBufferSubData(buffer, 0, GLsizeiptr(n * sizeof(Vec4f)), out.data());
    return out;
}

TEST(CudaGlInterop, VertexBufferHoldsExactlyWhatTheBackendComputes) {
    std::string why;
    if (!cuda_available(&why)) GTEST_SKIP() << "no usable CUDA device: " << why;
    std::unique_ptr<EglContext> egl;
    try {
        egl = std::make_unique<EglContext>();
    } catch (const std::exception& e) {
        GTEST_SKIP() << "no headless EGL context: " << e.what();
    }
    std::printf("GL_RENDERER: %s (%s)\n", egl->gl_info().renderer.c_str(), egl->description().c_str());

    const Scene scene = default_scene(8192 + 77);  // not a multiple of any block size
    const StepParams params = scene.params;
    CudaBackend interop, reference;
    interop.load(scene.state);
    reference.load(scene.state);
    ParticleBuffers buffers;
    buffers.load(scene.state, params.dt);
    if (const std::string refused = buffers.enable_cuda_interop(); !refused.empty())
        GTEST_SKIP() << "CUDA-GL interop refused on this context (" << egl->gl_info().renderer
                     << "): " << refused;

    constexpr int kSteps = 12;
    for (int s = 0; s < kSteps; ++s) {
        ScopedCudaMap map = buffers.map_for_step(interop.stream());
        interop.step_device(map.pointer(0), map.pointer(1), params);
        map.unmap();
        buffers.swap(interop.time());
        reference.step(params, 1);
    }
    EXPECT_EQ(interop.bytes_copied_to_host(), 0u) << "the interop path copied to the host";

    // What GL holds in the vertex buffer (read back by GL, not by CUDA).
    const std::vector<Vec4f> drawn = buffers.read_current();
    // What the backend computed on its own buffers, exported device-to-device into a second,
    // registered GL buffer, and copied to the host.
    GlBuffer exported = create_buffer();
    glNamedBufferData(exported.id(), GLsizeiptr(drawn.size() * sizeof(Vec4f)), nullptr, GL_DYNAMIC_DRAW);
    {
        CudaGlRegistration registration(exported.id());
        ScopedCudaMap map({{&registration, MapHint::WriteDiscard}}, reference.stream());
        reference.export_device_positions(map.pointer(0));
        map.unmap();
    }
    const std::vector<Vec4f> computed = read_buffer(exported.id(), drawn.size());
    State host;
    reference.store(host);

    ASSERT_EQ(drawn.size(), scene.state.size());
    std::size_t identical = 0;
    double worst = 0;
    for (std::size_t i = 0; i < drawn.size(); ++i) {
        const Vec4f &a = drawn[i], &b = computed[i], &c = host.pos_mass[i];
        identical += a.x == b.x && a.y == b.y && a.z == b.z && a.w == b.w;
        worst = std::max(worst, norm(xyz(a) - xyz(b)) / std::max(1.0, norm(xyz(b))));
        ASSERT_TRUE(b.x == c.x && b.y == c.y && b.z == c.z) << "export and store disagree at " << i;
        ASSERT_EQ(a.w, scene.state.pos_mass[i].w) << "mass lost in the vertex buffer at " << i;
    }
    std::printf("%zu of %zu positions bitwise identical, worst relative difference %.3g\n", identical,
                drawn.size(), worst);
    // The same kernels on the same inputs: identical, barring a different reduction order.
    EXPECT_LE(worst, 1e-6);
    // And the buffer really moved: it is not still the initial state.
    EXPECT_NE(drawn[0].x, scene.state.pos_mass[0].x);
}

// The viewer maps both buffers once per frame and runs all of that frame's steps inside the one
// mapping, ping-ponging between the two pointers (ParticleBuffers::map_both). After frames of
// 1, 4 and 3 steps the current buffer holds what the backend computes on its own buffers.
TEST(CudaGlInterop, SeveralStepsPerMappingMatchTheBackend) {
    std::string why;
    if (!cuda_available(&why)) GTEST_SKIP() << "no usable CUDA device: " << why;
    std::unique_ptr<EglContext> egl;
    try {
        egl = std::make_unique<EglContext>();
    } catch (const std::exception& e) {
        GTEST_SKIP() << "no headless EGL context: " << e.what();
    }
    const Scene scene = default_scene(4096 + 5);
    const StepParams params = scene.params;
    CudaBackend interop, reference;
    interop.load(scene.state);
    reference.load(scene.state);
    ParticleBuffers buffers;
    buffers.load(scene.state, params.dt);
    if (const std::string refused = buffers.enable_cuda_interop(); !refused.empty())
        GTEST_SKIP() << "CUDA-GL interop refused on this context: " << refused;
    int total = 0;
    for (const int steps : {1, 4, 3}) {
        ScopedCudaMap map = buffers.map_both(interop.stream());
        for (int s = 0; s < steps; ++s) {
            const int in = buffers.current_index();
            interop.step_device(map.pointer(std::size_t(in)), map.pointer(std::size_t(1 - in)), params);
            buffers.swap(interop.time());
        }
        map.unmap();
        total += steps;
    }
    reference.step(params, total);
    EXPECT_DOUBLE_EQ(interop.time(), reference.time());
    EXPECT_DOUBLE_EQ(buffers.current_time(), reference.time());
    State host;
    reference.store(host);
    const std::vector<Vec4f> drawn = buffers.read_current();
    ASSERT_EQ(drawn.size(), host.size());
    double worst = 0;
    for (std::size_t i = 0; i < drawn.size(); ++i)
        worst = std::max(
            worst, norm(xyz(drawn[i]) - xyz(host.pos_mass[i])) / std::max(1.0, norm(xyz(host.pos_mass[i]))));
    EXPECT_LE(worst, 1e-6) << "after " << total << " steps";
    EXPECT_NE(drawn[0].x, scene.state.pos_mass[0].x) << "the buffer did not move";
    // And the previous buffer holds the step before: the speed colouring depends on it.
    EXPECT_DOUBLE_EQ(buffers.current_time() - buffers.previous_time(), params.dt);
}

TEST(CudaGlInterop, ViewerRunsHeadlessOnTheInteropPath) {
    std::string why;
    if (!cuda_available(&why)) GTEST_SKIP() << "no usable CUDA device: " << why;
    test::TempDir dir;
    const std::string png = dir.file("cuda.png");
    const auto r =
        test::run_nbody("view --headless --backend cuda --bodies 16384 --frames 30 --screenshot " + png);
    ASSERT_EQ(r.exit_code, 0) << r.output;
    if (r.output.find("path=interop") == std::string::npos)
        GTEST_SKIP() << "interop not available on this EGL device; the viewer fell back:\n" << r.output;
    EXPECT_NE(r.output.find("d2h_bytes=0 "), std::string::npos) << r.output;
    EXPECT_TRUE(std::filesystem::exists(png));
}

#else

TEST(CudaGlInterop, NotBuilt) { GTEST_SKIP() << "this build has no CUDA (NBODY_HAVE_CUDA is off)"; }

#endif

}  // namespace
}  // namespace nbody::render
