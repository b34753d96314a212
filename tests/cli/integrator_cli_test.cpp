// --integrator for view and record (and a scene's [scene] integrator for all three commands):
// the choices and the mistakes are settled before any window or EGL context opens, so these run
// anywhere.

#include <gtest/gtest.h>

#include <string>

#include "nbody/sim/scene.hpp"
#include "test_support.hpp"

namespace nbody {
namespace {

using test::run_nbody;

std::string scene(const std::string& name) { return test::source_dir() + "/scenes/" + name; }

bool has(const test::CommandResult& r, const std::string& text) { return r.output.find(text) != std::string::npos; }

TEST(IntegratorCli, ViewAndRecordRefuseWhatBelongsToTheOtherIntegrator) {
    test::TempDir dir;
    const std::string out = " --out " + dir.file("frames");
    // Unknown integrator: the supported ones listed.
    auto r = run_nbody("view --headless --integrator rk4");
    EXPECT_EQ(r.exit_code, 1) << r.output;
    EXPECT_TRUE(has(r, "unknown --integrator 'rk4' (supported: leapfrog, hermite4, hermite6)")) << r.output;
    r = run_nbody("record --frames 2 --integrator rk4" + out);
    EXPECT_EQ(r.exit_code, 1) << r.output;
    EXPECT_TRUE(has(r, "supported: leapfrog, hermite4, hermite6")) << r.output;

    // Hermite's options given to leapfrog (the default scene is a galaxy collision).
    r = run_nbody("view --headless --eta 0.01");
    EXPECT_EQ(r.exit_code, 1) << r.output;
    EXPECT_TRUE(has(r, "--eta and --dt-max belong to --integrator hermite4")) << r.output;
    r = run_nbody("record --frames 2 --dt-max 0.5" + out);
    EXPECT_TRUE(has(r, "--eta and --dt-max belong to --integrator hermite4")) << r.output;
    r = run_nbody("view --headless --t-end 2");
    EXPECT_EQ(r.exit_code, 1) << r.output;
    EXPECT_TRUE(has(r, "--t-end in view belongs to --integrator hermite4")) << r.output;
    r = run_nbody("record --frames 2 --t-end 2 --scene " + scene("plummer.toml") + out);
    EXPECT_TRUE(has(r, "--t-end in record belongs to --integrator hermite4")) << r.output;

    // Leapfrog's steps given to hermite4, asked for on the command line or by the scene.
    r = run_nbody("view --headless --integrator hermite4 --steps-per-frame 4 --scene " + scene("plummer.toml"));
    EXPECT_EQ(r.exit_code, 1) << r.output;
    EXPECT_TRUE(has(r, "--steps-per-frame is leapfrog's; hermite4 chooses its own block steps")) << r.output;
    r = run_nbody("record --frames 2 --steps-per-frame 4 --scene " + scene("few-body/figure-eight.toml") + out);
    EXPECT_EQ(r.exit_code, 1) << r.output;
    EXPECT_TRUE(has(r, "(the scene's integrator; --integrator leapfrog overrides it)")) << r.output;

    // Values out of range.
    r = run_nbody("view --headless --integrator hermite4 --eta -1");
    EXPECT_TRUE(has(r, "--eta must be > 0 (got -1)")) << r.output;
    r = run_nbody("record --frames 2 --integrator hermite4 --dt-max 0" + out);
    EXPECT_TRUE(has(r, "--dt-max must be > 0 (got 0)")) << r.output;
    // Nothing was created by any of them.
    EXPECT_FALSE(std::filesystem::exists(dir.file("frames")));
}

TEST(IntegratorCli, ViewHelpListsTheIntegratorOptions) {
    for (const char* command : {"view", "record"}) {
        const auto r = run_nbody(std::string(command) + " --help");
        EXPECT_EQ(r.exit_code, 0) << r.output;
        for (const char* option : {"--integrator", "--t-end", "--eta", "--dt-max"})
            EXPECT_TRUE(has(r, option)) << command << " --help lacks " << option << ":\n" << r.output;
    }
}

// `run` follows the scene's integrator too: the figure-eight scene runs hermite6 without being told,
// and --integrator leapfrog overrides it.
TEST(IntegratorCli, RunFollowsTheScenesIntegrator) {
    auto r = run_nbody("run --backend cpu --scene " + scene("few-body/figure-eight.toml") + " --t-end 0.5");
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_TRUE(has(r, "hermite6 (cpu engine)")) << r.output;
    r = run_nbody("run --backend cpu --scene " + scene("few-body/figure-eight.toml") + " --steps 10");
    EXPECT_EQ(r.exit_code, 1) << r.output;
    EXPECT_TRUE(has(r, "figure-eight.toml asks for integrator hermite6, which runs to a model time: give --t-end T")) << r.output;
    r = run_nbody("run --backend cpu --scene " + scene("few-body/figure-eight.toml") + " --dt 0.01 --t-end 0.5");
    EXPECT_EQ(r.exit_code, 1) << r.output;
    EXPECT_TRUE(has(r, "--dt is leapfrog's")) << r.output;
    r = run_nbody("run --backend cpu --integrator leapfrog --scene " + scene("few-body/figure-eight.toml") +
                  " --dt 0.01 --t-end 0.5");
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_TRUE(has(r, "50 steps")) << r.output;
}

// The scene keys: integrator, eta, dt_max, time_per_frame; hermite's keys refused for leapfrog.
TEST(IntegratorCli, SceneIntegratorKeys) {
    const Scene pythagoras = load_scene(scene("few-body/pythagorean-three-body.toml"));
    EXPECT_EQ(pythagoras.integrator.name, "hermite6");
    EXPECT_FALSE(pythagoras.integrator.eta.has_value());  // hermite6's default, 0.1
    EXPECT_FALSE(pythagoras.integrator.dt_max.has_value());
    ASSERT_TRUE(pythagoras.integrator.time_per_frame.has_value());
    EXPECT_EQ(read_scene_integrator(scene("star-cluster-kroupa.toml")).name, "hermite4");
    EXPECT_EQ(read_scene_integrator(scene("star-cluster-binaries.toml")).name, "hermite4");
    EXPECT_EQ(load_scene(scene("plummer.toml"), 64).integrator.name, "leapfrog");

    const std::string head =
        "[scene]\nname = \"x\"\nbodies = 1\nunits = \"nbody\"\ndt = 0.01\nsoftening = 0\nsteps_per_frame = 1\n";
    const std::string tail = "[camera]\ndistance = 3\n[[galaxy]]\n[galaxy.point]\nmass = 1\n";
    const auto error_of = [&](const std::string& keys) {
        try {
            load_scene_from_string(head + keys + tail, "t.toml");
        } catch (const std::runtime_error& e) {
            return std::string(e.what());
        }
        return std::string("(no error)");
    };
    EXPECT_NE(error_of("integrator = \"rk4\"\n").find("unknown integrator \"rk4\" (have \"leapfrog\", \"hermite4\", \"hermite6\")"),
              std::string::npos);
    EXPECT_NE(error_of("eta = 0.01\n").find("scene.eta: belongs to integrator = \"hermite4\""), std::string::npos)
        << error_of("eta = 0.01\n");
    EXPECT_NE(error_of("integrator = \"hermite4\"\ndt_max = -1\n").find("must be > 0"), std::string::npos);
    EXPECT_EQ(error_of("integrator = \"hermite4\"\neta = 0.005\ndt_max = 0.25\ntime_per_frame = 0.1\n"), "(no error)");
    EXPECT_EQ(error_of("integrator = \"hermite6\"\neta = 0.2\n"), "(no error)");
}

}  // namespace
}  // namespace nbody
