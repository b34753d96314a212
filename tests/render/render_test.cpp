// Rendering tests: headless EGL contexts (Mesa's software device on CI, the GPU's on a GPU
// machine), shaders, screenshots, and the viewer executable in both modes.

#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>
#include <regex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "nbody/render/camera.hpp"
#include "nbody/render/egl_context.hpp"
#include "image_luminance.hpp"
#include "shared_egl_context.hpp"
#include "nbody/render/frame_capture.hpp"
#include "nbody/render/gl_check.hpp"
#include "nbody/render/particle_buffers.hpp"
#include "nbody/render/particle_renderer.hpp"
#include "nbody/render/shader.hpp"
#include "nbody/sim/scene.hpp"
#include "test_support.hpp"

namespace nbody::render {
namespace {

// Brightest pixel within `radius` of (x, y).
float brightest_near(const Image& image, glm::vec2 at, int radius) {
    float best = 0;
    for (int y = int(at.y) - radius; y <= int(at.y) + radius; ++y)
        for (int x = int(at.x) - radius; x <= int(at.x) + radius; ++x)
            if (x >= 0 && y >= 0 && x < image.width && y < image.height)
                best = std::max(best, luminance(image, x, y));
    return best;
}

TEST(EglContext, ProvidesOpenGL45Core) {
    REQUIRE_EGL();
    const GlInfo& info = shared_context(nullptr)->gl_info();
    EXPECT_TRUE(info.major > 4 || (info.major == 4 && info.minor >= 5)) << info.version;
    EXPECT_FALSE(info.renderer.empty());
    std::printf("GL_RENDERER: %s (%s)\n", info.renderer.c_str(),
                shared_context(nullptr)->description().c_str());
}

TEST(Shader, CompileErrorNamesTheFileAndLine) {
    REQUIRE_EGL();
    test::TempDir dir;
    // Line 4 uses an undeclared variable.
    test::write_text(
        dir.file("broken.frag"),
        "#version 450 core\nout vec4 colour;\nvoid main() {\n    colour = vec4(undeclared_thing);\n}\n");
    test::write_text(dir.file("fine.vert"), "#version 450 core\nvoid main() { gl_Position = vec4(0.0); }\n");
    try {
        ShaderProgram::load({"fine.vert", "broken.frag"}, {dir.path()});
        FAIL() << "a broken shader compiled";
    } catch (const ShaderError& e) {
        const std::string message = e.what();
        const std::string file = dir.file("broken.frag");
        EXPECT_NE(message.find(file + ":4:"), std::string::npos) << message;
        EXPECT_EQ(message.find("fine.vert"), std::string::npos) << "only the broken file is blamed:\n"
                                                                << message;
    }
}

TEST(Shader, MissingFileListsWhereItLooked) {
    test::TempDir dir;
    try {
        find_shader_file("nowhere.frag", {dir.path()});
        FAIL() << "found a file that does not exist";
    } catch (const ShaderError& e) {
        EXPECT_NE(std::string(e.what()).find((dir.path() / "nowhere.frag").string()), std::string::npos)
            << e.what();
    }
}

TEST(Shader, FormatsMesaAndNvidiaLogs) {
    EXPECT_EQ(format_shader_log("0:12(5): error: `x' undeclared", "a.frag"),
              "a.frag:12: error: `x' undeclared");
    EXPECT_EQ(format_shader_log("0(7) : error C1008: undefined variable \"x\"", "b.vert"),
              "b.vert:7: error C1008: undefined variable \"x\"");
    EXPECT_EQ(format_shader_log("something else", "c.frag"), "c.frag: something else");
}

TEST(Camera, ProjectsTheTargetToTheImageCentre) {
    OrbitCamera camera(
        CameraSpec{.distance = 10, .azimuth_deg = 20, .elevation_deg = 30, .target = {1, 2, 3}});
    const auto p = camera.project_to_image({1, 2, 3}, 640, 480);
    ASSERT_TRUE(p);
    EXPECT_NEAR(p->x, 320.0f, 1e-3f);
    EXPECT_NEAR(p->y, 240.0f, 1e-3f);
    // +z is up on screen for a camera above the plane.
    const auto up = camera.project_to_image({1, 2, 4}, 640, 480);
    ASSERT_TRUE(up);
    EXPECT_LT(up->y, 240.0f);
    // Zooming in moves an off-centre point away from the centre.
    const auto before = camera.project_to_image({2, 2, 3}, 640, 480);
    camera.zoom(3);
    const auto after = camera.project_to_image({2, 2, 3}, 640, 480);
    ASSERT_TRUE(before && after);
    EXPECT_GT(std::abs(after->x - 320.0f), std::abs(before->x - 320.0f));
}

TEST(Camera, PanKeepsThePointUnderTheCursor) {
    OrbitCamera camera(CameraSpec{.distance = 50, .azimuth_deg = 30, .elevation_deg = 25, .target = {}});
    const glm::vec3 point(0, 0, 0);
    const auto before = camera.project_to_image(point, 800, 600);
    camera.pan(40, -25, 600);  // drag right and up by (40, 25) pixels
    const auto after = camera.project_to_image(point, 800, 600);
    ASSERT_TRUE(before && after);
    EXPECT_NEAR(after->x - before->x, 40.0f, 0.5f);
    EXPECT_NEAR(after->y - before->y, -25.0f, 0.5f);
}

TEST(FrameCapture, PngRoundTripsAndIsWrittenAtomically) {
    test::TempDir dir;
    Image image;
    image.width = 5;
    image.height = 3;
    image.rgba.resize(5 * 3 * 4);
    for (std::size_t i = 0; i < image.rgba.size(); ++i) image.rgba[i] = std::uint8_t(i * 7 % 251);
    for (std::size_t i = 3; i < image.rgba.size(); i += 4) image.rgba[i] = 255;  // PNG is stored as RGB
    const std::string path = dir.file("frame.png");
    write_png(path, image);
    const Image back = read_png(path);
    ASSERT_EQ(back.width, 5);
    ASSERT_EQ(back.height, 3);
    EXPECT_EQ(back.rgba, image.rgba);
    // Only the final file remains: no temporary left behind.
    int files = 0;
    for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator(dir.path())) ++files;
    EXPECT_EQ(files, 1);
    // An unwritable destination fails with the path in the message and leaves nothing.
    try {
        write_png(dir.file("no/such/folder/frame.png"), image);
        FAIL() << "wrote into a missing folder";
    } catch (const std::exception& e) {
        EXPECT_NE(std::string(e.what()).find("no/such/folder"), std::string::npos) << e.what();
    }
}

// The default scene rendered headless: not blank, and bright where particles project.
TEST(ParticleRenderer, DefaultSceneLightsThePixelsWhereParticlesProject) {
    REQUIRE_EGL();
    const Scene scene = default_scene(4096);
    ParticleBuffers buffers;
    buffers.load(scene.state, scene.params.dt);
    ParticleRenderer renderer;
    const OrbitCamera camera(scene.camera);
    const int w = 640, h = 360;
    RenderTarget screen(w, h, GL_RGBA8);
    RenderSettings settings;
    renderer.draw(buffers, camera, settings, {screen.framebuffer(), w, h, 1.0f});
    const Image image = read_framebuffer(screen.framebuffer(), w, h);

    // Not blank: a real spread of brightness, and a good number of clearly lit pixels.
    float lo = 255, hi = 0;
    int lit = 0;
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
            const float l = luminance(image, x, y);
            lo = std::min(lo, l);
            hi = std::max(hi, l);
            lit += l > 60;
        }
    EXPECT_GT(hi - lo, 150.0f) << "the frame is nearly uniform";
    EXPECT_GT(lit, 500) << "too few lit pixels";

    // Particles in the dense middle of each galaxy project onto bright pixels. Positions are
    // those the vertex buffer holds, projected with the renderer's own camera matrices.
    const auto positions = buffers.read_current();
    ASSERT_EQ(positions.size(), scene.state.size());
    std::vector<Vec3d> centre(8);
    std::vector<double> mass(8, 0.0);
    for (std::size_t i = 0; i < positions.size(); ++i) {
        const int g = scene.state.galaxy[i] & 7;
        centre[g] += xyz(positions[i]) * positions[i].w;
        mass[g] += positions[i].w;
    }
    for (int g = 0; g < 8; ++g)
        if (mass[g] > 0) centre[g] = centre[g] / mass[g];
    int checked = 0, bright = 0;
    for (std::size_t i = 0; i < positions.size(); i += 7) {
        const Vec4f& p = positions[i];
        if (norm(xyz(p) - centre[scene.state.galaxy[i] & 7]) > 2.0) continue;
        const auto px = camera.project_to_image({p.x, p.y, p.z}, w, h);
        if (!px || px->x < 2 || px->y < 2 || px->x > w - 3 || px->y > h - 3) continue;
        ++checked;
        bright += brightest_near(image, *px, 1) > 100;
    }
    ASSERT_GT(checked, 10);
    EXPECT_GE(bright, checked * 9 / 10) << bright << " of " << checked << " projected particles are bright";

    // Most of the frame is dark sky.
    std::vector<float> all;
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) all.push_back(luminance(image, x, y));
    std::nth_element(all.begin(), all.begin() + all.size() / 2, all.end());
    EXPECT_LT(all[all.size() / 2], 30.0f) << "median brightness: the sky is not dark";
}

// Where the brightest and darkest pixels are, and how bright the sky is: when a brightness check
// fails on some driver, this says whether the sprite is missing, misplaced or the frame is wrong.
std::string describe_image(const Image& image) {
    float lo = 1e9f, hi = -1;
    int lo_x = 0, lo_y = 0, hi_x = 0, hi_y = 0;
    for (int y = 0; y < image.height; ++y)
        for (int x = 0; x < image.width; ++x) {
            const float l = luminance(image, x, y);
            if (l < lo) lo = l, lo_x = x, lo_y = y;
            if (l > hi) hi = l, hi_x = x, hi_y = y;
        }
    char buf[200];
    std::snprintf(buf, sizeof buf,
                  "%dx%d image: brightest %.1f at (%d, %d), darkest %.1f at (%d, %d), corner %.1f",
                  image.width, image.height, hi, hi_x, hi_y, lo, lo_x, lo_y, luminance(image, 0, 0));
    return buf;
}

// Keeps `image` for a look when a test fails on a machine one cannot sit at (the GPU runs):
// $NBODY_TEST_ARTIFACTS/<name>.png, when that variable names a folder.
void keep_for_inspection(const Image& image, const std::string& name) {
    const char* dir = std::getenv("NBODY_TEST_ARTIFACTS");
    if (!dir || !*dir) return;
    try {
        write_png((std::filesystem::path(dir) / (name + ".png")).string(), image);
    } catch (const std::exception& e) {
        std::printf("could not keep %s: %s\n", name.c_str(), e.what());
    }
}

// Two particles, a disk one on the left and a halo one on the right, drawn three times: halo
// shown (the renderer's very first draw, nothing warmed up), hidden, shown again (the setting is
// live both ways). Each time both places are checked, so a failure says which particle is wrong
// in which draw.
TEST(ParticleRenderer, HidingTheHaloRemovesItsLight) {
    REQUIRE_EGL();
    State s;
    s.resize(2);
    s.pos_mass[0] = {-2, 0, 0, 1};
    s.pos_mass[1] = {2, 0, 0, 1};
    s.component = {Component::Disk, Component::Halo};
    ParticleBuffers buffers;
    buffers.load(s, 0.01);
    ParticleRenderer renderer;
    const OrbitCamera camera(
        CameraSpec{.distance = 10, .azimuth_deg = -90, .elevation_deg = 0, .target = {}});
    const int w = 200, h = 100;
    RenderTarget screen(w, h, GL_RGBA8);
    RenderSettings settings;
    settings.point_size = 12;
    settings.halo_brightness = 1.0f;
    // Two particles carry the light meant for thousands (the renderer keeps total light
    // independent of N): turn it down, and turn off the glow that would spread it everywhere.
    settings.exposure = 1e-3f;
    settings.glow = 0.0f;
    const glm::vec2 disk_px = *camera.project_to_image({-2, 0, 0}, w, h);
    const glm::vec2 halo_px = *camera.project_to_image({2, 0, 0}, w, h);
    ASSERT_LT(disk_px.x + 20, halo_px.x) << "the two particles must be well apart on screen";
    struct Shot {
        float disk = 0, halo = 0, sky = 0;
        std::string what;
    };
    auto shot = [&](bool hide, const char* name) {
        settings.hide_halo = hide;
        renderer.draw(buffers, camera, settings, {screen.framebuffer(), w, h, 1.0f});
        const Image image = read_framebuffer(screen.framebuffer(), w, h);
        Shot r{brightest_near(image, disk_px, 2), brightest_near(image, halo_px, 2), luminance(image, 2, 2),
               std::string(name) + ": " + describe_image(image)};
        if (::testing::Test::HasFailure() || r.disk < 100 || (hide ? r.halo > 20 : r.halo < 100))
            keep_for_inspection(image, std::string("hiding-the-halo-") + name);
        return r;
    };
    const Shot shown = shot(false, "shown");
    const Shot hidden = shot(true, "hidden");
    const Shot again = shot(false, "shown-again");
    const std::string renderer_name = shared_context(nullptr)->gl_info().renderer;
    for (const Shot* s : {&shown, &hidden, &again}) {
        EXPECT_GT(s->disk, 100.0f) << "disk particle, " << s->what << " (" << renderer_name << ")";
        // Light only adds: nothing on screen may be darker than the empty sky.
        EXPECT_GE(std::min(s->disk, s->halo) + 1.5f, s->sky) << s->what;
    }
    EXPECT_GT(shown.halo, 100.0f) << "halo particle, " << shown.what << " (" << renderer_name << ")";
    EXPECT_LT(hidden.halo, 20.0f) << "halo particle, " << hidden.what;
    EXPECT_GT(again.halo, 100.0f) << "halo particle, " << again.what;
}

TEST(ParticleBuffers, UploadSwapsAndKeepsThePreviousPositions) {
    REQUIRE_EGL();
    State s;
    s.resize(3);
    for (int i = 0; i < 3; ++i) {
        s.pos_mass[i] = {float(i), 0, 0, 1};
        s.velocity[i] = {1, 0, 0, 0};
    }
    ParticleBuffers buffers;
    buffers.load(s, 0.5);
    EXPECT_DOUBLE_EQ(buffers.current_time() - buffers.previous_time(), 0.5);
    const GLuint first = buffers.current();
    std::vector<Vec4f> next = s.pos_mass;
    for (auto& p : next) p.y = 7;
    EXPECT_EQ(buffers.upload(next, 1.0), 3 * sizeof(Vec4f));
    EXPECT_NE(buffers.current(), first);
    EXPECT_EQ(buffers.previous(), first);
    const auto back = buffers.read_current();
    ASSERT_EQ(back.size(), 3u);
    EXPECT_EQ(back[2].x, 2.0f);
    EXPECT_EQ(back[2].y, 7.0f);
    EXPECT_THROW(buffers.upload(std::vector<Vec4f>(2), 2.0), std::invalid_argument);
}

// The viewer on the tree code (--gravity tree): a scripted run reports the tree's phases and the
// force error against the direct sum (the Kernel panel's figures), and theta moves the error.
TEST(ViewerExecutable, TreeGravityReportsItsCostAndForceError) {
    double median[2] = {0, 0};
    for (int k = 0; k < 2; ++k) {
        const auto r = test::run_nbody(std::string("view --headless --backend cpu --bodies 2048 --frames 2 --no-ui ") +
                                       "--size 160x100 --gravity tree --theta " + (k == 0 ? "0.3" : "0.9"));
        if (r.exit_code != 0 && r.output.find("cannot create a headless OpenGL") != std::string::npos)
            GTEST_SKIP() << "no headless EGL: " << r.output;
        ASSERT_EQ(r.exit_code, 0) << r.output;
        EXPECT_NE(r.output.find(k == 0 ? "gravity: tree theta=0.3" : "gravity: tree theta=0.9"), std::string::npos)
            << r.output;
        EXPECT_TRUE(std::regex_search(r.output, std::regex(R"(tree: build [0-9.]+ ms, moments [0-9.]+ ms, walk [0-9.]+ ms)")))
            << r.output;
        std::smatch m;
        ASSERT_TRUE(std::regex_search(r.output, m,
                                      std::regex(R"(force error against the direct sum, 256 bodies: median ([0-9.e+-]+), )")))
            << r.output;
        median[k] = std::stod(m[1].str());
    }
    EXPECT_GT(median[0], 0.0);
    EXPECT_LT(median[0], 1e-3) << "theta 0.3";
    EXPECT_GT(median[1], 2.0 * median[0]) << "a larger theta opens fewer cells: a larger error";
    // The direct solver reports no tree.
    const auto r = test::run_nbody("view --headless --backend cpu --bodies 512 --frames 2 --no-ui --size 160x100");
    if (r.exit_code == 0) EXPECT_EQ(r.output.find("gravity: tree"), std::string::npos) << r.output;
}

// Beside the frame loop the report's frame rate counts the frames, not the stop of the simulation
// thread at the end, which waits for the step in flight (device run 143: every frame 16.7 ms, and
// 57 frames/s reported over 600 frames at 16M). Steps of ~0.7 s here (32,768 bodies, every pair, two
// cores; N grows with the cores' square root to keep them that long): the mean frame of the report
// and the mean of the frames' own lengths agree.
TEST(ViewerExecutable, FrameRateBesideTheLoopCountsTheFramesNotTheLastStep) {
    const double cores = std::max(2u, std::thread::hardware_concurrency());
    const int bodies = int(32768 * std::ceil(std::sqrt(cores / 2)));
    const auto r = test::run_command("NBODY_SIM_THREAD=1 timeout 120 '" + test::nbody_executable() +
                                     "' view --headless --backend cpu --gravity direct --no-ui --size 96x54 --frames 60 "
                                     "--scene '" + test::source_dir() + "/scenes/plummer.toml' --bodies " +
                                     std::to_string(bodies));
    if (r.exit_code != 0 && r.output.find("cannot create a headless OpenGL") != std::string::npos)
        GTEST_SKIP() << "no headless EGL: " << r.output;
    ASSERT_EQ(r.exit_code, 0) << r.output;
    std::smatch report, times;
    ASSERT_TRUE(std::regex_search(r.output, report, std::regex(R"(frames 2\.\.60: [0-9.]+ fps, ([0-9.]+) ms/frame)")))
        << r.output;
    ASSERT_TRUE(std::regex_search(r.output, times, std::regex(R"(frame times: mean ([0-9.]+) ms, median)"))) << r.output;
    const double report_ms = std::stod(report[1].str()), frames_ms = std::stod(times[1].str());
    EXPECT_NEAR(report_ms, frames_ms, 0.05 * frames_ms + 0.5) << r.output;  // one frame more in the report
}

// Beside a simulation slower than the frames, most frames have no new step to show: they keep the
// particles' light (--particle-cache, the default) and say so; off, or with the camera turning
// (`view --camera orbit:DEG`), every frame draws them.
TEST(ViewerExecutable, FramesWithoutANewStepKeepTheParticlesUnlessTheCacheIsOffOrTheCameraMoves) {
    const double cores = std::max(2u, std::thread::hardware_concurrency());
    const int bodies = int(16384 * std::ceil(std::sqrt(cores / 2)));  // ~0.2 s a step on two cores
    struct Case {
        const char* options;
        bool all_drawn;
    };
    for (const Case c : {Case{"--particle-cache on", false}, Case{"--particle-cache off", true},
                         Case{"--camera orbit:0.5", true}}) {
        SCOPED_TRACE(c.options);
        const auto r = test::run_command(
            "NBODY_SIM_THREAD=1 timeout 120 '" + test::nbody_executable() +
            "' view --headless --backend cpu --gravity direct --no-ui --size 96x54 --frames 60 --scene '" +
            test::source_dir() + "/scenes/plummer.toml' --bodies " + std::to_string(bodies) + " " + c.options);
        if (r.exit_code != 0 && r.output.find("cannot create a headless OpenGL") != std::string::npos)
            GTEST_SKIP() << "no headless EGL: " << r.output;
        ASSERT_EQ(r.exit_code, 0) << r.output;
        std::smatch m;
        const bool reported =
            std::regex_search(r.output, m, std::regex(R"(particles: drawn in ([0-9]+) of ([0-9]+) frames, kept)"));
        if (std::string(c.options) == "--particle-cache off") {
            EXPECT_FALSE(reported) << r.output;
            continue;
        }
        ASSERT_TRUE(reported) << r.output;
        const int drawn = std::stoi(m[1].str()), frames = std::stoi(m[2].str());
        EXPECT_NEAR(frames, 60, 1) << r.output;
        if (c.all_drawn) {
            EXPECT_EQ(drawn, frames) << "the camera moved every frame" << r.output;
        } else {
            EXPECT_GE(drawn, 2) << "the first frame and at least one step's" << r.output;
            EXPECT_LT(drawn, frames / 2) << "steps of ~0.2 s beside 60 frames a second" << r.output;
        }
    }
}

// The viewer executable, headless: a PNG that is neither missing nor blank.
TEST(ViewerExecutable, HeadlessScreenshot) {
    test::TempDir dir;
    const std::string png = dir.file("shot.png");
    const auto r = test::run_nbody(
        "view --headless --backend cpu --bodies 2048 --frames 3 --size 320x200 --screenshot " + png);
    if (r.exit_code != 0 && r.output.find("cannot create a headless OpenGL") != std::string::npos)
        GTEST_SKIP() << "no headless EGL: " << r.output;
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_NE(r.output.find("fps_report"), std::string::npos) << r.output;
    // Writing the PNG is not a frame's work: it was counted in the frame times (at 1080p, 94
    // frames/s reported for a run drawing 120: device runs 106 and 108).
    EXPECT_NE(r.output.find("ms to read back and write, left out of the frame times"), std::string::npos) << r.output;
    const Image image = read_png(png);
    EXPECT_EQ(image.width, 320);
    EXPECT_EQ(image.height, 200);
    int lit = 0;
    for (int y = 0; y < image.height; ++y)
        for (int x = 0; x < image.width; ++x) lit += luminance(image, x, y) > 60;
    EXPECT_GT(lit, 100) << r.output;
}

TEST(ViewerExecutable, BadArgumentsAreClearErrors) {
    auto r = test::run_nbody("view --headless --size 12by7");
    EXPECT_NE(r.exit_code, 0);
    EXPECT_NE(r.output.find("--size"), std::string::npos) << r.output;
    r = test::run_nbody("view --headless --backend warp");
    EXPECT_NE(r.exit_code, 0);
    EXPECT_NE(r.output.find("warp"), std::string::npos) << r.output;
    r = test::run_nbody("view --headless --camera spin");
    EXPECT_NE(r.exit_code, 0);
    EXPECT_NE(r.output.find("orbit:DEG_PER_FRAME"), std::string::npos) << r.output;
    r = test::run_nbody("view --headless --camera path:/nonexistent/flyby.txt");
    EXPECT_NE(r.exit_code, 0);
    EXPECT_NE(r.output.find("flyby.txt"), std::string::npos) << r.output;
    r = test::run_nbody("view --headless --particle-cache sometimes");
    EXPECT_NE(r.exit_code, 0);
    EXPECT_NE(r.output.find("--particle-cache"), std::string::npos) << r.output;
}

// With neither a display nor headless mode the viewer says what to do instead.
TEST(ViewerExecutable, NoDisplayPointsToHeadless) {
    const auto r = test::run_command("env -u DISPLAY -u WAYLAND_DISPLAY '" + test::nbody_executable() +
                                     "' view --frames 1 --backend cpu --bodies 256");
    EXPECT_EQ(r.exit_code, 1) << r.output;
    EXPECT_NE(r.output.find("--headless"), std::string::npos) << r.output;
}

// How a window test reaches an X server: "" where DISPLAY is set, else xvfb-run; none (skip) when
// neither is there.
std::optional<std::string> x_server_prefix() {
    const char* display = std::getenv("DISPLAY");
    if (display && *display) return std::string();
    if (test::run_command("command -v xvfb-run >/dev/null 2>&1").exit_code != 0) return std::nullopt;
    return std::string("xvfb-run -a -s '-screen 0 1280x720x24' ");
}

// The window path under a virtual X server: 60 frames, exit 0.
TEST(ViewerExecutable, WindowRuns60FramesUnderXvfb) {
    const auto prefix = x_server_prefix();
    if (!prefix) GTEST_SKIP() << "no DISPLAY and no xvfb-run (Debian: apt-get install xvfb)";
    const auto r = test::run_command(*prefix + "'" + test::nbody_executable() +
                                     "' view --frames 60 --backend cpu --bodies 1024 --size 640x360");
    EXPECT_EQ(r.exit_code, 0) << r.output;
    EXPECT_NE(r.output.find("fps_report frames=59"), std::string::npos) << r.output;
}

// Issue 33 item 5 through a real window, keys sent by xdotool: once the simulation has moved, Esc
// asks instead of quitting (the viewer stays), and a second Esc quits with status 0. The star
// cluster's hermite4 steps on its own thread meanwhile (HermiteThread), which the quit ends too.
TEST(ViewerExecutable, EscAsksBeforeQuittingARunThatMovedAndASecondEscQuits) {
    const auto prefix = x_server_prefix();
    if (!prefix) GTEST_SKIP() << "no DISPLAY and no xvfb-run (Debian: apt-get install xvfb)";
    if (test::run_command("command -v xdotool >/dev/null 2>&1").exit_code != 0)
        GTEST_SKIP() << "no xdotool (Debian: apt-get install xdotool)";
    const test::TempDir dir;
    const std::string script = dir.file("quit.sh");
    {
        std::ofstream out(script);
        out << "cd '" << dir.path().string() << "'\n"
            << "'" << test::nbody_executable() << "' view --backend cpu --size 640x360 --bodies 1024 --scene '"
            << test::source_dir() << "/scenes/star-cluster-kroupa.toml' > viewer.log 2>&1 &\n"
            << "pid=$!\n"
            << "w=$(timeout 60 xdotool search --sync --name '^nbody' | head -1)\n"
            << "sleep 4\n"
            << "xdotool key --window \"$w\" Escape; sleep 2\n"
            << "kill -0 $pid 2>/dev/null && echo 'alive after the first Esc'\n"
            << "xdotool key --window \"$w\" Escape\n"
            << "for i in $(seq 100); do kill -0 $pid 2>/dev/null || break; sleep 0.1; done\n"
            << "kill -0 $pid 2>/dev/null && { echo 'still running 10 s after the second Esc'; kill $pid; }\n"
            << "wait $pid; echo \"viewer exit $?\"\n"
            << "cat viewer.log\n";
    }
    const auto r = test::run_command("timeout 120 " + *prefix + "sh '" + script + "'");
    ASSERT_NE(r.output.find("hermite4 block steps run on their own thread"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("alive after the first Esc"), std::string::npos) << r.output;
    EXPECT_EQ(r.output.find("still running"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("viewer exit 0"), std::string::npos) << r.output;
}

// The 32-bit pixels (the low 24 bits: the three channels) of the rectangle [x0, x1) x [y0, y1) of an
// X window dump (xwd: a 100-byte big-endian header, a colour map, then 32-bit pixels), clipped to the
// image; empty when the file is not one. x1 < 0: to the right edge.
std::vector<std::uint32_t> xwd_region(const std::string& xwd_path, int x0, int x1, int y0, int y1) {
    std::ifstream in(xwd_path, std::ios::binary);
    const std::string d((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (d.size() < 100) return {};
    const auto word = [&](std::size_t k) {
        const auto* p = reinterpret_cast<const unsigned char*>(d.data()) + 4 * k;
        return (std::uint32_t(p[0]) << 24) | (std::uint32_t(p[1]) << 16) | (std::uint32_t(p[2]) << 8) | p[3];
    };
    const std::size_t header = word(0), width = word(4), height = word(5), bits = word(11), line = word(12),
                      colours = word(19);
    const std::size_t first = header + 12 * colours;
    if (bits != 32 || d.size() < first + line * height) return {};
    const int right = x1 < 0 ? int(width) : std::min(x1, int(width)), bottom = std::min(y1, int(height));
    std::vector<std::uint32_t> pixels;
    for (int y = std::max(y0, 0); y < bottom; ++y)
        for (int x = std::max(x0, 0); x < right; ++x) {
            std::uint32_t px = 0;
            std::memcpy(&px, d.data() + first + std::size_t(y) * line + 4 * std::size_t(x), 4);
            pixels.push_back(px & 0x00ffffffu);
        }
    return pixels;
}

int lit(const std::vector<std::uint32_t>& pixels) {
    int count = 0;
    for (const std::uint32_t px : pixels)
        count += std::max({px & 0xffu, (px >> 8) & 0xffu, (px >> 16) & 0xffu}) > 150;
    return count;
}

// Issue 33 item 2 through a real window: while a step takes seconds, the window says so at its top
// (the busy indicator: a spinner and "simulating: a step of 65536 bodies (every pair) ... 4.8 s")
// and keeps drawing: two screen dumps half a second apart find the line lit in both and the
// spinner turned between them (it turns once a second, so a frozen window would show it still).
// The places were read off a screenshot of this layout (1280x720, 65,536 bodies on the cpu backend:
// the line centred at the top, y 38-66, the spinner at its left end, x 448-468).
TEST(ViewerExecutable, ALongStepShowsATurningSpinnerAndWhatIsRunning) {
    const auto prefix = x_server_prefix();
    if (!prefix) GTEST_SKIP() << "no DISPLAY and no xvfb-run (Debian: apt-get install xvfb)";
    if (test::run_command("command -v xdotool >/dev/null 2>&1 && command -v xwd >/dev/null 2>&1").exit_code != 0)
        GTEST_SKIP() << "no xdotool or xwd (Debian: apt-get install xdotool x11-apps)";
    const test::TempDir dir;
    const std::string script = dir.file("spin.sh");
    {
        std::ofstream out(script);
        out << "cd '" << dir.path().string() << "'\n"
            << "'" << test::nbody_executable()
            << "' view --backend cpu --gravity direct --bodies 65536 --size 1280x720 > viewer.log 2>&1 &\n"
            << "pid=$!\n"
            << "timeout 60 xdotool search --sync --name '^nbody' > /dev/null\n"
            << "sleep 5\n"  // the first step (seconds long) is in flight, the indicator up after 1 s of it
            << "xwd -root -silent > a.xwd; sleep 0.5; xwd -root -silent > b.xwd\n"
            << "kill $pid; wait $pid\n"
            << "cat viewer.log\n";
    }
    const auto r = test::run_command("timeout 120 " + *prefix + "sh '" + script + "'");
    const auto text_a = xwd_region(dir.file("a.xwd"), 480, 820, 40, 64), text_b = xwd_region(dir.file("b.xwd"), 480, 820, 40, 64);
    const auto spin_a = xwd_region(dir.file("a.xwd"), 446, 470, 40, 64), spin_b = xwd_region(dir.file("b.xwd"), 446, 470, 40, 64);
    ASSERT_FALSE(text_a.empty() || text_b.empty() || spin_a.empty() || spin_b.empty()) << "no screen dumps\n" << r.output;
    EXPECT_GT(lit(text_a), 200) << "no busy line at the top while the step ran\n" << r.output;
    EXPECT_GT(lit(text_b), 200) << r.output;
    int changed = 0;
    for (std::size_t k = 0; k < spin_a.size(); ++k) changed += spin_a[k] != spin_b[k];
    EXPECT_GT(changed, 20) << "the spinner did not turn in half a second: a frozen window?\n" << r.output;
}

// Issue 33 item 5 through a real window, clicks sent by xdotool: the Simulation panel's Save never
// writes over a file unasked. Save with nbody.nbsnap there asks ("exists", Replace / Keep it) and
// leaves the file; Keep it leaves it too; Save then Replace writes the snapshot. The buttons' places
// were read off a screenshot of this layout (1280x720, the default scene at 2,048 bodies on the cpu
// backend: the Simulation panel on the right); a change of the panels' layout moves them.
TEST(ViewerExecutable, SaveAsksBeforeReplacingAFileAndReplacesItOnlyWhenToldTo) {
    const auto prefix = x_server_prefix();
    if (!prefix) GTEST_SKIP() << "no DISPLAY and no xvfb-run (Debian: apt-get install xvfb)";
    if (test::run_command("command -v xdotool >/dev/null 2>&1").exit_code != 0)
        GTEST_SKIP() << "no xdotool (Debian: apt-get install xdotool)";
    const test::TempDir dir;
    {
        std::ofstream old(dir.file("nbody.nbsnap"), std::ios::binary);
        old << "OLD";
    }
    const std::string script = dir.file("save.sh");
    {
        std::ofstream out(script);
        out << "cd '" << dir.path().string() << "'\n"
            << "'" << test::nbody_executable() << "' view --backend cpu --size 1280x720 --bodies 2048 > viewer.log 2>&1 &\n"
            << "pid=$!\n"
            << "w=$(timeout 60 xdotool search --sync --name '^nbody' | head -1)\n"
            << "sleep 6\n"  // the first frames laid out, with another test's load beside (CI runs two at once)
            << "click() { xdotool mousemove --window \"$w\" $1 $2 click 1; sleep 2; }\n"
            << "click 1171 403; echo \"after Save: $(head -c 3 nbody.nbsnap)\"\n"
            << "click 1208 431; echo \"after Keep it: $(head -c 3 nbody.nbsnap)\"\n"
            << "click 1171 403; click 1139 431; echo \"after Replace: $(head -c 3 nbody.nbsnap | tail -c 2)\"\n"
            << "kill $pid; wait $pid\n"
            << "cat viewer.log\n";
    }
    const auto r = test::run_command("timeout 120 " + *prefix + "sh '" + script + "'");
    EXPECT_NE(r.output.find("after Save: OLD"), std::string::npos) << "Save wrote over the file unasked\n" << r.output;
    EXPECT_NE(r.output.find("after Keep it: OLD"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("after Replace: NB"), std::string::npos) << "Replace did not write the snapshot\n" << r.output;
    EXPECT_NE(r.output.find("snapshot saved to nbody.nbsnap"), std::string::npos) << r.output;
}

// Issue 33 item 2 through a real window: a SIGTERM is honoured at once, not after the step, while the
// simulation thread is in the middle of a step that takes seconds (65,536 bodies, every pair, on the
// cpu backend: ~4e9 pair terms a step on this 2-core machine). Measured by hand before this test:
// 0.15 s, exit 143.
TEST(ViewerExecutable, SigtermDuringALongStepEndsTheWindowWithoutWaitingForTheStep) {
    const auto prefix = x_server_prefix();
    if (!prefix) GTEST_SKIP() << "no DISPLAY and no xvfb-run (Debian: apt-get install xvfb)";
    if (test::run_command("command -v xdotool >/dev/null 2>&1").exit_code != 0)
        GTEST_SKIP() << "no xdotool (Debian: apt-get install xdotool)";
    const test::TempDir dir;
    const std::string script = dir.file("term.sh");
    {
        std::ofstream out(script);
        out << "cd '" << dir.path().string() << "'\n"
            << "'" << test::nbody_executable()
            << "' view --backend cpu --gravity direct --bodies 65536 --size 640x360 > viewer.log 2>&1 &\n"
            << "pid=$!\n"
            << "timeout 60 xdotool search --sync --name '^nbody' > /dev/null\n"
            << "sleep 6\n"  // the first step (seconds long) is in flight
            << "t0=$(date +%s%N); kill -TERM $pid; wait $pid; rc=$?; t1=$(date +%s%N)\n"
            << "echo \"viewer exit $rc after $(( (t1 - t0) / 1000000 )) ms\"\n"
            << "cat viewer.log\n";
    }
    const auto r = test::run_command("timeout 120 " + *prefix + "sh '" + script + "'");
    std::smatch m;
    ASSERT_TRUE(std::regex_search(r.output, m, std::regex(R"(viewer exit ([0-9]+) after ([0-9]+) ms)"))) << r.output;
    EXPECT_EQ(m[1].str(), "143") << r.output;
    // Unloaded, 0.15 s. In CI, with another test beside it on the two cores and the simulation
    // thread on both, the frame in progress, the stop's 0.55 s of patience for the step and the
    // window's teardown took 1.74 s once; a stop that waited for the step would take its 2-5 s and
    // says so in the log, which is checked directly below.
    EXPECT_LT(std::stoi(m[2].str()), 2500) << "the window took too long to honour SIGTERM\n" << r.output;
    EXPECT_NE(r.output.find("the simulation steps on its own thread"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("interrupted by SIGTERM"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("not waiting for a step of 65536 bodies"), std::string::npos) << r.output;
}

// One layout as the viewer logs it with NBODY_LOG_PANELS=1 (ui_layout.cpp): the area, then each
// panel's rectangle.
struct LoggedPanel {
    std::string name;
    double x = 0, y = 0, w = 0, h = 0;
    bool collapsed = false, pinned = false;
};
struct LoggedLayout {
    double width = 0, height = 0, top = 0, band = 0;
    std::vector<LoggedPanel> panels;
    const LoggedPanel* find(const std::string& name) const {
        for (const LoggedPanel& p : panels)
            if (p.name == name) return &p;
        return nullptr;
    }
};

// The last "panels:" line of a viewer log; nullopt when there is none.
std::optional<LoggedLayout> last_layout(const std::string& log_path) {
    std::ifstream in(log_path);
    std::string line, last;
    while (std::getline(in, line))
        if (line.rfind("panels: ", 0) == 0) last = line;
    if (last.empty()) return std::nullopt;
    LoggedLayout layout;
    std::stringstream fields(last.substr(8));
    std::string field;
    bool first = true;
    while (std::getline(fields, field, ';')) {
        std::istringstream words(field);
        if (first) {
            std::string a, t, b;
            words >> a >> layout.width >> layout.height >> t >> layout.top >> b >> layout.band;
            first = false;
            continue;
        }
        LoggedPanel p;
        // Names may hold a space ("Selected body"): the name is every word before the four numbers.
        std::vector<std::string> w;
        for (std::string word; words >> word;) w.push_back(word);
        std::size_t k = 0;
        while (k < w.size() && !(std::isdigit(static_cast<unsigned char>(w[k][0])) || w[k][0] == '-'))
            p.name += (p.name.empty() ? "" : " ") + w[k++];
        if (k + 4 > w.size()) continue;
        p.x = std::stod(w[k]), p.y = std::stod(w[k + 1]), p.w = std::stod(w[k + 2]), p.h = std::stod(w[k + 3]);
        for (k += 4; k < w.size(); ++k) p.collapsed |= w[k] == "collapsed", p.pinned |= w[k] == "pinned";
        layout.panels.push_back(p);
    }
    return layout;
}

bool overlap(const LoggedPanel& a, const LoggedPanel& b) {
    return a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h;
}

// Every panel the layout placed (not pinned) lies between the menu bar and the bottom band (scale
// bar, legend, status bar), and none of them covers another.
void expect_stacked_apart(const LoggedLayout& layout, const std::string& when) {
    SCOPED_TRACE(when);
    for (std::size_t i = 0; i < layout.panels.size(); ++i) {
        const LoggedPanel& a = layout.panels[i];
        if (a.pinned) continue;
        EXPECT_GE(a.y, layout.top - 1) << a.name << " under the menu bar";
        EXPECT_LE(a.y + a.h, layout.height - layout.band + 1) << a.name << " reaches into the legend's band";
        for (std::size_t j = i + 1; j < layout.panels.size(); ++j)
            if (!layout.panels[j].pinned) EXPECT_FALSE(overlap(a, layout.panels[j])) << a.name << " covers " << layout.panels[j].name;
    }
}

// Issue 33 items 4 and 8 through a real window, driven by xdotool: View > Debug opens the Debug
// panel in the stack, covering no other panel nor the legend; a panel dragged by its title bar
// stays where it was dropped and the others close up without covering each other. The clicks'
// places were read off screenshots of this layout (1280x720, the default scene at 2,048 bodies on the
// cpu backend: Kernel top left, View's Debug item at 75,191); a change of the menu or the panels
// moves them.
TEST(ViewerExecutable, ViewDebugAndADraggedPanelKeepThePanelsApart) {
    const auto prefix = x_server_prefix();
    if (!prefix) GTEST_SKIP() << "no DISPLAY and no xvfb-run (Debian: apt-get install xvfb)";
    if (test::run_command("command -v xdotool >/dev/null 2>&1").exit_code != 0)
        GTEST_SKIP() << "no xdotool (Debian: apt-get install xdotool)";
    const test::TempDir dir;
    const std::string script = dir.file("panels.sh");
    {
        std::ofstream out(script);
        out << "cd '" << dir.path().string() << "'\n"
            << "NBODY_LOG_PANELS=1 '" << test::nbody_executable()
            << "' view --backend cpu --size 1280x720 --bodies 2048 > viewer.log 2>&1 &\n"
            << "pid=$!\n"
            << "w=$(timeout 60 xdotool search --sync --name '^nbody' | head -1)\n"
            << "sleep 8\n"  // the first frames laid out, with another test's load beside (CI runs two at once)
            << "cp viewer.log start.log\n"
            << "xdotool mousemove --window \"$w\" 67 11 click 1; sleep 2\n"    // View
            << "xdotool mousemove --window \"$w\" 75 191 click 1; sleep 3\n"   // Debug
            << "cp viewer.log debug.log\n"
            << "xdotool mousemove --window \"$w\" 150 41 mousedown 1; sleep 0.7\n"  // Kernel's title bar
            << "xdotool mousemove --window \"$w\" 300 100; sleep 0.7\n"
            << "xdotool mousemove --window \"$w\" 500 150; sleep 0.7\n"
            << "xdotool mouseup 1; sleep 3\n"
            << "cp viewer.log dragged.log\n"
            << "kill $pid; wait $pid\n"
            << "cat viewer.log\n";
    }
    const auto r = test::run_command("timeout 120 " + *prefix + "sh '" + script + "'");
    const auto start = last_layout(dir.file("start.log")), debug = last_layout(dir.file("debug.log")),
               dragged = last_layout(dir.file("dragged.log"));
    ASSERT_TRUE(start && debug && dragged) << "no layout logged\n" << r.output;
    const LoggedPanel* kernel_before = start->find("Kernel");
    ASSERT_NE(kernel_before, nullptr) << r.output;
    EXPECT_EQ(start->find("Debug"), nullptr) << "Debug open before View > Debug\n" << r.output;
    expect_stacked_apart(*start, "at the start");

    const LoggedPanel* panel = debug->find("Debug");
    ASSERT_NE(panel, nullptr) << "View > Debug opened no Debug panel\n" << r.output;
    EXPECT_GT(panel->h, 60) << "the Debug panel is not open (collapsed or empty)\n" << r.output;
    expect_stacked_apart(*debug, "after View > Debug");

    const LoggedPanel* kernel = dragged->find("Kernel");
    ASSERT_NE(kernel, nullptr) << r.output;
    EXPECT_TRUE(kernel->pinned) << "the dragged panel was not kept where it was dropped\n" << r.output;
    EXPECT_NEAR(kernel->x, kernel_before->x + 350, 6) << r.output;
    EXPECT_NEAR(kernel->y, kernel_before->y + 109, 6) << r.output;
    EXPECT_NE(dragged->find("Debug"), nullptr) << r.output;
    expect_stacked_apart(*dragged, "after dragging Kernel");
    // The others closed up: the panel that went to the top left is not where it was.
    const LoggedPanel* top_left = nullptr;
    for (const LoggedPanel& p : dragged->panels)
        if (!p.pinned && p.x < 20 && p.y < kernel_before->y + 5) top_left = &p;
    EXPECT_NE(top_left, nullptr) << "no panel took the dragged one's place in the stack\n" << r.output;
}

// A window that measures the machine before its first frame (issue 33 items 2 and 3) says so in
// the window meanwhile, not a black window: a dump of the screen taken every few tens of ms finds
// the message's text in the middle of the window before the menu bar of the first frame is drawn.
TEST(ViewerExecutable, AWindowSaysWhatItMeasuresBeforeItsFirstFrame) {
    const auto prefix = x_server_prefix();
    if (!prefix) GTEST_SKIP() << "no DISPLAY and no xvfb-run (Debian: apt-get install xvfb)";
    if (test::run_command("command -v xwd >/dev/null 2>&1").exit_code != 0)
        GTEST_SKIP() << "no xwd (Debian: apt-get install x11-apps)";
    const test::TempDir dir;
    const std::string script = dir.file("start.sh");
    {
        std::ofstream out(script);
        out << "cd '" << dir.path().string() << "'\n"
            << "'" << test::nbody_executable() << "' view --backend cpu --size 1280x720 --frames 20 > viewer.log 2>&1 &\n"
            << "pid=$!\n"
            << "for i in $(seq 150); do xwd -root -silent > shot$i.xwd 2>/dev/null; "
            << "kill -0 $pid 2>/dev/null || break; sleep 0.02; done\n"
            << "wait $pid; echo \"viewer exit $?\"\n"
            << "cat viewer.log\n";
    }
    const auto r = test::run_command("timeout 120 " + *prefix + "sh '" + script + "'");
    ASSERT_NE(r.output.find("viewer exit 0"), std::string::npos) << r.output;
    ASSERT_NE(r.output.find("took"), std::string::npos) << "the start-up measured nothing: " << r.output;
    bool message_seen = false, first_frame_seen = false;
    for (int i = 1; i <= 150 && !first_frame_seen; ++i) {
        const std::string shot = dir.file("shot" + std::to_string(i) + ".xwd");
        if (!std::filesystem::exists(shot)) break;
        const int menu = lit(xwd_region(shot, 0, -1, 0, 24)), middle = lit(xwd_region(shot, 0, -1, 300, 345));
        first_frame_seen = menu > 50;  // the menu bar's words: the first frame is on screen
        message_seen = message_seen || (!first_frame_seen && middle > 200);
    }
    EXPECT_TRUE(message_seen) << "no frame with the start-up message before the first frame\n" << r.output;
}

}  // namespace
}  // namespace nbody::render
