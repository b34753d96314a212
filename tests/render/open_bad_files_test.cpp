// Issue 34: files dropped onto the viewer (here `--drop`, which takes the drop callback's path)
// that used to end or freeze it: a snapshot whose Hermite block level the viewer's Hermite run
// cannot use (it replaced the running simulation, then the viewer exited 1), a FIFO (open()
// blocked the frame loop for a writer), a scene whose component counts wrap when summed. Each is
// refused with a message while the running simulation goes on, to the pixel.

#include <gtest/gtest.h>

#include <initializer_list>
#include <string>
#include <sys/stat.h>

#include "nbody/render/frame_capture.hpp"
#include "nbody/sim/io/snapshot.hpp"
#include "test_support.hpp"

namespace nbody {
namespace {

const std::string kView = "view --headless --backend cpu --no-ui --size 96x54 ";
// Each viewer run here takes seconds; one that waits on a FIFO would wait for ever.
constexpr double kViewerSeconds = 60;

bool no_egl(const test::CommandResult& r) {
    return r.output.find("cannot create a headless OpenGL") != std::string::npos;
}

// A hermite4 run's snapshot (from `nbody run`) with body 0's block level set to `level`.
std::string snapshot_with_level(const test::TempDir& dir, double level) {
    const std::string path = dir.file("hermite.nbsnap");
    const auto r = test::run_nbody("run --integrator hermite4 --scene " + test::source_dir() +
                                       "/scenes/plummer.toml --bodies 64 --t-end 0.125 --backend cpu --out " + path,
                                   kViewerSeconds);
    EXPECT_EQ(r.exit_code, 0) << r.output;
    io::Snapshot snap = io::read_snapshot(path);
    EXPECT_EQ(snap.extra.count("hermite.level"), 1u) << "the run saved no block-step state";
    snap.extra["hermite.level"][0] = level;
    const std::string bad = dir.file("bad-level.nbsnap");
    io::write_snapshot(bad, snap);
    return bad;
}

// The running scene: a Plummer sphere of 200 bodies, three frames; the file arrives after the first.
std::string running() { return kView + "--frames 3 --bodies 200 --scene " + test::source_dir() + "/scenes/plummer.toml "; }

// The running Plummer sphere's last frame when nothing is dropped; false without EGL.
bool undisturbed_frame(const test::TempDir& dir) {
    const auto r = test::run_nbody(running() + "--screenshot " + dir.file("undisturbed.png"), kViewerSeconds);
    if (no_egl(r)) return false;
    EXPECT_EQ(r.exit_code, 0) << r.output;
    return true;
}

// Drops `file` on the running viewer: refused with a message holding each of `says`, the viewer
// exits 0 and its last frame is the undisturbed one, to the pixel.
void expect_refused_and_undisturbed(const test::TempDir& dir, const std::string& file,
                                    std::initializer_list<std::string> says) {
    const auto r = test::run_nbody(running() + "--drop " + file + " --screenshot " + dir.file("after.png") + " --overwrite",
                                   kViewerSeconds);
    ASSERT_FALSE(r.timed_out) << file << ": the viewer froze\n" << r.output;
    ASSERT_EQ(r.exit_code, 0) << file << "\n" << r.output;  // reported, not fatal
    EXPECT_NE(r.output.find("nbody: " + file), std::string::npos) << r.output;
    for (const std::string& words : says) EXPECT_NE(r.output.find(words), std::string::npos) << words << "\n" << r.output;
    EXPECT_EQ(r.output.find("opened "), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("N = 200"), std::string::npos) << r.output;
    const render::Image a = render::read_png(dir.file("undisturbed.png"));
    const render::Image b = render::read_png(dir.file("after.png"));
    EXPECT_EQ(a.rgba, b.rgba) << file << ": the simulation on screen changed";
}

TEST(ViewerOpenBadFiles, ASnapshotWithABadHermiteLevelIsRefusedAndTheSimulationGoesOn) {
    test::TempDir dir;
    if (!undisturbed_frame(dir)) GTEST_SKIP() << "no headless EGL";
    // Either this worktree's check or the reader's (worktree readers) names the level.
    expect_refused_and_undisturbed(dir, snapshot_with_level(dir, 99), {"level", "body 0", " 99"});
}

TEST(ViewerOpenBadFiles, AFifoIsRefusedAtOnceAndTheSimulationGoesOn) {
    test::TempDir dir;
    if (!undisturbed_frame(dir)) GTEST_SKIP() << "no headless EGL";
    const std::string fifo = dir.file("stars.csv");
    ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
    expect_refused_and_undisturbed(dir, fifo, {"FIFO"});
}

// The counts wrap in the scene reader (sim/src/ic/scene_file.cpp: 2 x (2^63 - 1) + 16384 = 16382
// mod 2^64, equal to scene.bodies), which then generated 2^63 bodies and crashed (SIGSEGV). The
// reader's limit of 2^30 bodies a component (worktree readers) refuses it; this checks the viewer
// end to end.
TEST(ViewerOpenBadFiles, ASceneWhoseCountsWrapIsRefusedAndTheSimulationGoesOn) {
    test::TempDir dir;
    if (!undisturbed_frame(dir)) GTEST_SKIP() << "no headless EGL";
    test::write_text(dir.file("wrap.toml"), R"([scene]
name = "wraps"
bodies = 16382
units = "galactic"
dt = 0.01
softening = 0.1
steps_per_frame = 1
seed = 1
[camera]
distance = 70.0
azimuth_deg = 30.0
elevation_deg = 35.0
target = [0.0, 0.0, 0.0]
[[galaxy]]
name = "A"
[galaxy.disk]
mass = 1.0
bodies = 9223372036854775807
scale_length = 2.6
scale_height = 0.3
toomre_q = 1.5
[galaxy.bulge]
mass = 1.0
bodies = 9223372036854775807
scale_radius = 0.6
[galaxy.halo]
mass = 10.0
bodies = 16384
scale_radius = 20.0
max_radius = 80.0
)");
    expect_refused_and_undisturbed(dir, dir.file("wrap.toml"), {"9223372036854775807"});
}

// The same snapshot with a level the run can use opens and continues (the check refuses only what
// the Hermite run cannot take).
TEST(ViewerOpenBadFiles, AHermiteSnapshotWithUsableLevelsOpens) {
    test::TempDir dir;
    const std::string good = snapshot_with_level(dir, 3);
    const auto r = test::run_nbody(running() + "--drop " + good, kViewerSeconds);
    if (no_egl(r)) GTEST_SKIP() << "no headless EGL";
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_NE(r.output.find("opened " + good), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("continuing its saved block steps exactly"), std::string::npos) << r.output;
}

}  // namespace
}  // namespace nbody
