// The viewer's Open and drop path without GL (issue 34): a file is refused before it is read when
// it is not a regular file (a FIFO would block the frame loop in open()), and a scene is checked
// completely (validate_scene) before it may replace the running simulation. The headless viewer
// test of the same path is tests/render/open_bad_files_test.cpp.

#include <gtest/gtest.h>

#include <chrono>
#include <fcntl.h>
#include <future>
#include <string>
#include <sys/stat.h>
#include <unistd.h>

#include "nbody/sim/hermite/integrator.hpp"
#include "nbody/sim/io/hermite_snapshot.hpp"
#include "nbody/sim/io/snapshot.hpp"
#include "nbody/sim/ic/plummer.hpp"
#include "test_support.hpp"
#include "open_dialog.hpp"
#include "viewer_scenes.hpp"

namespace nbody::app {
namespace {

// A hermite4 run of 32 bodies saved at its start, as `nbody run --integrator hermite4` saves one:
// the double state, the integrator's parameters and its block-step state.
io::Snapshot hermite_snapshot() {
    io::Snapshot snap;
    snap.state = ic::make_plummer({.bodies = 32, .seed = 3});
    std::vector<double> m;
    std::vector<Vec3d> x, v;
    for (std::size_t i = 0; i < snap.state.size(); ++i) {
        m.push_back(snap.state.pos_mass[i].w);
        x.push_back(xyz(snap.state.pos_mass[i]));
        v.push_back(xyz(snap.state.velocity[i]));
    }
    hermite::HermiteIntegrator h(hermite::make_force_engine(hermite::EngineKind::Cpu), {.softening = 0.01});
    h.start(m, x, v, 0);
    snap.precise = PreciseState{x, v, m};
    snap.params.softening = 0.01;
    io::put_hermite_params(h, snap);
    io::put_hermite_state(h, snap);
    return snap;
}

TEST(ViewerOpenChecks, NonRegularFilesAreNamedFromTheirStatusAlone) {
    test::TempDir dir;
    const std::string fifo = dir.file("stars.csv");
    ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
    EXPECT_NE(not_a_readable_file(fifo).find("is a FIFO (named pipe), not a file"), std::string::npos);
    EXPECT_EQ(not_a_readable_file(dir.path().string()), "is a folder, not a file");
    EXPECT_EQ(not_a_readable_file("/dev/null"), "is a device, not a file");
    EXPECT_EQ(not_a_readable_file(dir.file("missing.csv")), "does not exist");
    test::write_text(dir.file("ok.csv"), "x,y,z,vx,vy,vz,m\n0,0,0,0,0,0,1\n");
    EXPECT_EQ(not_a_readable_file(dir.file("ok.csv")), "");
}

// make_scene on a FIFO must come back at once with the reason. Run beside the test with a time
// limit: if it ever opened the FIFO, the test would end it by opening the other side and fail.
TEST(ViewerOpenChecks, AFifoIsRefusedWithoutBeingOpened) {
    test::TempDir dir;
    const std::string fifo = dir.file("stars.nbsnap");
    ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
    auto attempt = std::async(std::launch::async, [&]() -> std::string {
        try {
            make_scene(fifo, std::nullopt);
            return "read";
        } catch (const std::exception& e) {
            return e.what();
        }
    });
    if (attempt.wait_for(std::chrono::seconds(10)) != std::future_status::ready) {
        const int writer = ::open(fifo.c_str(), O_WRONLY | O_NONBLOCK);  // the reader gets end-of-file
        if (writer >= 0) ::close(writer);
        attempt.wait_for(std::chrono::seconds(10));
        FAIL() << "make_scene blocked on a FIFO";
    }
    const std::string what = attempt.get();
    EXPECT_NE(what.find(fifo + ": is a FIFO (named pipe), not a file"), std::string::npos) << what;
}

TEST(ViewerOpenChecks, TheOpenDialogDoesNotReturnATypedFifo) {
    test::TempDir dir;
    ASSERT_EQ(::mkfifo(dir.file("stars.csv").c_str(), 0600), 0);
    FileBrowser browser(dir.path());
    EXPECT_EQ(browser.visible().size(), 1u) << "only '..': a FIFO is not listed";
    browser.set_filter(dir.file("stars.csv"));
    EXPECT_FALSE(browser.activate().has_value());
    EXPECT_NE(browser.error().find("stars.csv: not a regular file"), std::string::npos) << browser.error();
}

TEST(ViewerOpenChecks, AGoodHermiteSnapshotPassesAndABadBlockLevelIsNamed) {
    test::TempDir dir;
    io::Snapshot snap = hermite_snapshot();
    io::write_snapshot(dir.file("good.nbsnap"), snap);
    const Scene good = make_scene(dir.file("good.nbsnap"), std::nullopt);
    ASSERT_TRUE(good.hermite_state.has_value());
    EXPECT_NO_THROW(validate_scene(good, dir.file("good.nbsnap")));

    // Refused, naming the file, the body and the level, by the reader (worktree readers checks
    // levels as it reads) or else by validate_scene: before install_system replaces anything.
    const int max_level = hermite::HermiteParams{}.max_level;
    for (const double level : {double(max_level + 1), -1.0, 1e6}) {
        snap.extra["hermite.level"][5] = level;
        const std::string bad = dir.file("bad.nbsnap");
        io::write_snapshot(bad, snap);
        try {
            validate_scene(make_scene(bad, std::nullopt), bad);
            ADD_FAILURE() << "level " << level << " passed";
        } catch (const std::exception& e) {
            const std::string what = e.what();
            EXPECT_EQ(what.rfind(bad + ": ", 0), 0u) << what;
            EXPECT_NE(what.find("body 5"), std::string::npos) << what;
            EXPECT_NE(what.find(" " + std::to_string(int(level))), std::string::npos) << what;
        }
    }
    // This worktree's own words, for a state the reader passed.
    Scene scene = good;
    scene.hermite_state->level[5] = max_level + 1;
    try {
        validate_scene(scene, "s.nbsnap");
        ADD_FAILURE() << "level " << max_level + 1 << " passed";
    } catch (const std::invalid_argument& e) {
        EXPECT_EQ(std::string(e.what()), "s.nbsnap: body 5 has Hermite block level " + std::to_string(max_level + 1) +
                                             ", outside the levels 0.." + std::to_string(max_level) +
                                             " a Hermite run uses");
    }
}

TEST(ViewerOpenChecks, ScenesWithBadBodiesOrStepsAreNamed) {
    Scene scene;
    scene.state = ic::make_plummer({.bodies = 8, .seed = 1});
    EXPECT_NO_THROW(validate_scene(scene, "p.csv"));
    Scene bad = scene;
    bad.state.pos_mass[2].w = -1;
    EXPECT_THROW(validate_scene(bad, "p.csv"), std::invalid_argument);
    bad = scene;
    bad.params.dt = 0;
    EXPECT_THROW(validate_scene(bad, "p.csv"), std::invalid_argument);
    bad = scene;
    bad.precise = PreciseState{};  // a double state of 0 bodies for 8
    try {
        validate_scene(bad, "p.nbsnap");
        ADD_FAILURE() << "a double state of another size passed";
    } catch (const std::invalid_argument& e) {
        EXPECT_EQ(std::string(e.what()).rfind("p.nbsnap: double-precision state: 0 positions", 0), 0u) << e.what();
    }
}

}  // namespace
}  // namespace nbody::app
