// CUDA-GL interop on a GPU: the kernel writes positions straight into the vertex buffers, and
// what GL holds there is exactly what the backend computes. Skips without a CUDA device, and
// when the EGL context is not on the CUDA device (Mesa's software device cannot be registered).

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <thread>
#include <filesystem>
#include <memory>
#include <regex>
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

// Empty when there is a CUDA device and a headless EGL context (made into `egl`), else why not.
std::string cuda_and_egl(std::unique_ptr<EglContext>& egl) {
    std::string why;
    if (!cuda_available(&why)) return "no usable CUDA device: " + why;
    try {
        egl = std::make_unique<EglContext>();
    } catch (const std::exception& e) {
        return std::string("no headless EGL context: ") + e.what();
    }
    return {};
}

TEST(CudaGlInterop, VertexBufferHoldsExactlyWhatTheBackendComputes) {
    std::unique_ptr<EglContext> egl;
    if (const std::string why = cuda_and_egl(egl); !why.empty()) GTEST_SKIP() << why;
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
    std::unique_ptr<EglContext> egl;
    if (const std::string why = cuda_and_egl(egl); !why.empty()) GTEST_SKIP() << why;
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

// The simulation beside the frame loop on the GPU (issue 33): a thread publishes states whose
// every coordinate is its number k (through the backend's own buffers, as the viewer does), as
// fast as it can, while this thread keeps copying the newest into the vertex buffer not drawn.
// Every state drawn must be one whole published state (no mix of two: a buffer never drawn while
// written), in order, and the last one must arrive.
TEST(PublishedPositions, TheDrawnBufferAlwaysHoldsOneWholePublishedState) {
    std::unique_ptr<EglContext> egl;
    if (const std::string why = cuda_and_egl(egl); !why.empty()) GTEST_SKIP() << why;
    constexpr std::size_t kBodies = 1u << 18;  // 4 MB a state: copies long enough to overlap
    constexpr int kStates = 40;
    State zero;
    zero.resize(kBodies);
    for (Vec4f& p : zero.pos_mass) p.w = 1.0f;
    ParticleBuffers buffers;
    buffers.load(zero, 0.01);
    if (const std::string refused = buffers.enable_cuda_interop(); !refused.empty())
        GTEST_SKIP() << "CUDA-GL interop refused on this context: " << refused;
    CudaBackend backend;
    backend.load(zero);
    PublishedPositions published;
    std::atomic<bool> finished{false};
    std::string producer_error;
    std::thread producer([&] {
        try {
            published.make_current();
            State s = zero;
            for (int k = 1; k <= kStates; ++k) {
                for (Vec4f& p : s.pos_mass) p = {float(k), float(k), float(k), 1.0f};
                backend.load(s);
                published.publish(kBodies * sizeof(Vec4f), backend.stream(), double(k),
                                  [&](void* slot) { backend.export_device_positions(slot); });
            }
        } catch (const std::exception& e) {
            producer_error = e.what();
        }
        finished = true;
    });
    int shown = 0;
    float last = 0;
    bool whole = true;
    while (!finished || published.has_newer()) {
        if (!buffers.show_published(published)) continue;
        const std::vector<Vec4f> drawn = buffers.read_current();  // by GL, after the copy (the unmap orders it)
        const float k = drawn[0].x;
        for (const Vec4f& p : drawn) whole = whole && p.x == k && p.z == k;
        EXPECT_TRUE(whole) << "state " << k << " drawn mixed with another";
        EXPECT_GE(k, last) << "an older state after a newer one";
        EXPECT_EQ(buffers.current_time(), double(k));
        last = k;
        ++shown;
        if (!whole) break;
    }
    producer.join();
    ASSERT_TRUE(producer_error.empty()) << producer_error;
    EXPECT_GT(shown, 1);
    EXPECT_EQ(last, float(kStates)) << "the last state published was never shown";
    std::printf("%d of %d published states shown\n", shown, kStates);
}

// The same on the viewer: 262,144 bodies, every pair, four steps a frame (about 30 ms a step on
// an H100) stepped beside the frame loop: frames come faster than their steps, through interop
// (no host copy), and the steps go on.
TEST(CudaGlInterop, FramesKeepComingWhileSlowStepsRunBeside) {
    std::string why;
    if (!cuda_available(&why)) GTEST_SKIP() << "no usable CUDA device: " << why;
    const auto r = test::run_command("NBODY_SIM_THREAD=1 timeout 120 '" + test::nbody_executable() +
                                     "' view --headless --backend cuda --no-ui --size 640x360 --gravity direct "
                                     "--steps-per-frame 4 --frames 120 --bodies 262144 --scene '" +
                                     test::source_dir() + "/scenes/plummer.toml'");
    ASSERT_EQ(r.exit_code, 0) << r.output;
    if (r.output.find("path=interop") == std::string::npos)
        GTEST_SKIP() << "interop not available on this EGL device; the viewer fell back:\n" << r.output;
    EXPECT_NE(r.output.find("the simulation steps on its own thread"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("d2h_bytes=0 "), std::string::npos) << r.output;
    const std::size_t steps_at = r.output.find(" steps\n");
    ASSERT_NE(steps_at, std::string::npos) << r.output;
    const double steps = std::stod(r.output.substr(r.output.rfind(", ", steps_at) + 2));
    EXPECT_GT(steps, 0) << r.output;
    EXPECT_LT(steps, 4 * 119) << "every frame waited for its four steps\n" << r.output;
}

// A cuda Hermite run of 131,072 stars in the window (beside the frame loop) starts within its first
// seconds: its first energy takes the potential from the GPU in fp64 as `run`'s does (on the host it
// was 8.6e9 pair terms: the 300 frames of device run 140 ended before the start did), and then steps.
TEST(CudaGlInterop, LargeHermiteRunStartsBesideTheWindowWithItsEnergyFromTheGpu) {
    std::string why;
    if (!cuda_available(&why)) GTEST_SKIP() << "no usable CUDA device: " << why;
    const auto r = test::run_command("NBODY_SIM_THREAD=1 timeout 120 '" + test::nbody_executable() +
                                     "' view --headless --backend cuda --no-ui --size 640x360 --frames 300 "
                                     "--bodies 131072 --scene '" + test::source_dir() +
                                     "/scenes/star-cluster-kroupa.toml'");
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_EQ(r.output.find("not waiting for a Hermite run starting"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("hermite4: Hermite force engine: cuda"), std::string::npos) << r.output;
    std::smatch m;
    ASSERT_TRUE(std::regex_search(r.output, m, std::regex("hermite_report t=\\S+ blocks=([0-9]+)"))) << r.output;
    EXPECT_GT(std::stoi(m[1].str()), 0) << r.output;
}

// A cuda tree run above the host sum's limit (65,536 bodies) takes its energy line from the GPU
// tree's potential, summed between two steps (issue 33): a value, in the frame loop and beside it.
TEST(CudaGlInterop, TreeRunsEnergyComesFromTheGpuTreeAboveTheHostLimit) {
    std::string why;
    if (!cuda_available(&why)) GTEST_SKIP() << "no usable CUDA device: " << why;
    for (const char* beside : {"", "NBODY_SIM_THREAD=1 "}) {
        const auto r = test::run_command(std::string(beside) + "timeout 120 '" + test::nbody_executable() +
                                         "' view --headless --backend cuda --size 640x360 --gravity tree "
                                         "--frames 120 --bodies 131072 --scene '" +
                                         test::source_dir() + "/scenes/milky-way-andromeda.toml'");
        ASSERT_EQ(r.exit_code, 0) << r.output;
        const std::size_t line = r.output.find("energy line: ");
        ASSERT_NE(line, std::string::npos) << r.output;
        const std::string text = r.output.substr(line, r.output.find('\n', line) - line);
        EXPECT_EQ(text.find("not computed yet"), std::string::npos) << beside << text;
        EXPECT_NE(text.find("(tree)"), std::string::npos) << beside << text;
    }
}

// A cuda every-pair run above the host sum's limit (65,536 bodies) sums its energy on the GPU in
// double, automatically, its period stretched to 20 times a sum's length where that is longer than 3 s.
TEST(CudaGlInterop, DirectRunsEnergyIsSummedOnTheGpuAboveTheHostLimit) {
    std::string why;
    if (!cuda_available(&why)) GTEST_SKIP() << "no usable CUDA device: " << why;
    const auto r = test::run_command("NBODY_SIM_THREAD=1 timeout 120 '" + test::nbody_executable() +
                                     "' view --headless --backend cuda --size 640x360 --gravity direct "
                                     "--frames 180 --bodies 131072 --scene '" +
                                     test::source_dir() + "/scenes/plummer.toml'");
    ASSERT_EQ(r.exit_code, 0) << r.output;
    const std::size_t line = r.output.find("energy line: ");
    ASSERT_NE(line, std::string::npos) << r.output;
    const std::string text = r.output.substr(line, r.output.find('\n', line) - line);
    EXPECT_EQ(text.find("not computed yet"), std::string::npos) << text;
    EXPECT_EQ(text.find("(tree)"), std::string::npos) << text;
}

// The Kernel panel's Auto-tune (`--autotune`: the same request on the first frame) runs between two
// steps on the simulation thread: the window draws its first frame at once and goes on drawing
// while some 60 configurations are timed (in the frame loop the first frame waited for all of
// them: at 65,536 bodies they took 1 s on an H100 and the first frame beside them 0.05 s, device
// run 133; 131,072 bodies take about four times as long), and the tuned configuration is applied
// and said.
TEST(CudaGlInterop, AutotuneRunsBesideTheWindow) {
    std::string why;
    if (!cuda_available(&why)) GTEST_SKIP() << "no usable CUDA device: " << why;
    const test::TempDir dir;
    const auto r = test::run_command("NBODY_SIM_THREAD=1 NBODY_AUTOTUNE_CACHE='" + dir.file("cache.json") +
                                     "' timeout 180 '" + test::nbody_executable() +
                                     "' view --headless --backend cuda --no-ui --size 96x54 --gravity direct "
                                     "--autotune --frames 900 --bodies 131072 --scene '" +
                                     test::source_dir() + "/scenes/plummer.toml'");
    ASSERT_EQ(r.exit_code, 0) << r.output;
    if (r.output.find("path=interop") == std::string::npos)
        GTEST_SKIP() << "interop not available on this EGL device; the viewer fell back:\n" << r.output;
    EXPECT_NE(r.output.find("auto-tuned in "), std::string::npos) << r.output;
    const std::size_t at = r.output.find("first frame drawn ");
    ASSERT_NE(at, std::string::npos) << r.output;
    EXPECT_LT(std::stod(r.output.substr(at + 18)), 1.0) << "the first frame waited for the auto-tune\n" << r.output;
    EXPECT_TRUE(std::filesystem::exists(dir.file("cache.json"))) << r.output;
}

#else

TEST(CudaGlInterop, NotBuilt) { GTEST_SKIP() << "this build has no CUDA (NBODY_HAVE_CUDA is off)"; }

#endif

}  // namespace
}  // namespace nbody::render
