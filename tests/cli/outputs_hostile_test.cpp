// Issue 34, outputs and options: every output is checked before any work (an empty path, a FIFO,
// a device, a socket, an extension that contradicts the content), garbage in --t-end / --steps /
// kernel options / NBODY_SHADER_DIR is named, and memory is estimated for every N before anything
// is allocated (also under `ulimit -v`). Each case runs the nbody executable under `timeout`, so
// that a regression that hangs (a FIFO opened to be read) fails instead of waiting for ever.

#include <gtest/gtest.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "test_support.hpp"

namespace nbody {
namespace {

namespace fs = std::filesystem;
using test::TempDir;
using test::write_text;

std::string scene(const std::string& name) { return test::source_dir() + "/scenes/" + name; }
std::string q(const std::string& path) { return "'" + path + "'"; }
bool has(const test::CommandResult& r, const std::string& text) { return r.output.find(text) != std::string::npos; }

// `nbody args` with `prefix` (environment, ulimit) before it, killed after `seconds`: exit 124
// then, which no case below expects.
test::CommandResult nbody_within(const std::string& args, int seconds = 60, const std::string& prefix = "") {
    return test::run_command(prefix + "timeout -k 5 " + std::to_string(seconds) + " " + q(test::nbody_executable()) +
                             " " + args);
}

const std::string kLongRun = " --scene " + scene("plummer.toml") + " --bodies 2048 --steps 100000000 --backend cpu ";

std::vector<std::string> names_in(const fs::path& folder) {
    std::vector<std::string> names;
    for (const auto& e : fs::directory_iterator(folder)) names.push_back(e.path().filename().string());
    return names;
}

TEST(OutputsHostile, AnEmptyPathIsRefusedForEveryWritingOption) {
    TempDir dir;
    const std::vector<std::pair<std::string, std::string>> cases = {
        {"run" + kLongRun + "--out ''", "--out"},
        {"forces --scene " + scene("plummer.toml") + " --bodies 64 --backend cpu --out ''", "--out"},
        {"view --headless --backend cpu --bodies 64 --size 64x64 --screenshot ''", "--screenshot"},
        {"view --headless --backend cpu --bodies 64 --size 64x64 --save-snapshot ''", "--save-snapshot"},
        {"record --backend cpu --bodies 64 --size 64x64 --frames 1 --out ''", "--out"},
        {"record --backend cpu --bodies 64 --size 64x64 --frames 1 --out " + q(dir.file("f")) + " --mp4 ''", "--mp4"},
        {"bench --backend cpu --bodies 1K --json ''", "--json"},
        {"accuracy --gravity tree --bodies 1K --json ''", "--json"},
    };
    for (const auto& [args, option] : cases) {
        const auto r = nbody_within(args);
        EXPECT_NE(r.exit_code, 0) << args << "\n" << r.output;
        EXPECT_NE(r.exit_code, 124) << args << "\n" << r.output;
        EXPECT_TRUE(has(r, option)) << args << "\n" << r.output;
        EXPECT_TRUE(has(r, "an empty path names no file")) << args << "\n" << r.output;
    }
    EXPECT_TRUE(fs::is_empty(dir.path()));
}

// A FIFO blocks whoever opens it to read; a device or a socket is no place for a result. All are
// refused at once, before the run, whatever --overwrite says, and left as they were.
TEST(OutputsHostile, AFifoADeviceOrASocketIsRefusedBeforeAnyWork) {
    TempDir dir;
    ASSERT_EQ(::mkfifo(dir.file("fifo.csv").c_str(), 0600), 0) << std::strerror(errno);
    fs::create_symlink("/dev/null", dir.file("null.csv"));  // a character device under a result's name
    const int sock = ::socket(AF_UNIX, SOCK_STREAM, 0);
    sockaddr_un address{};
    address.sun_family = AF_UNIX;
    const std::string socket_path = dir.file("sock.csv");
    ASSERT_LT(socket_path.size(), sizeof address.sun_path);
    std::strcpy(address.sun_path, socket_path.c_str());
    ASSERT_EQ(::bind(sock, reinterpret_cast<sockaddr*>(&address), sizeof address), 0) << std::strerror(errno);

    for (const auto& [name, type] : std::vector<std::pair<std::string, std::string>>{
             {"fifo.csv", "a FIFO (named pipe)"}, {"null.csv", "a character device"}, {"sock.csv", "a socket"}}) {
        for (const std::string overwrite : {"", " --overwrite"}) {
            const auto t0 = std::chrono::steady_clock::now();
            const auto r = nbody_within("run" + kLongRun + "--out " + q(dir.file(name)) + overwrite, 30);
            const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
            EXPECT_EQ(r.exit_code, 1) << name << overwrite << "\n" << r.output;
            EXPECT_TRUE(has(r, "--out '" + dir.file(name) + "' exists and is " + type + ", not a regular file"))
                << r.output;
            EXPECT_LT(seconds, 20.0) << "refused only after work: " << r.output;
        }
    }
    // The Hermite integrator and the other commands follow the same rule.
    const auto h = nbody_within("run --integrator hermite4 --scene " + scene("plummer.toml") +
                                " --bodies 64 --t-end 1e6 --backend cpu --out " + q(dir.file("fifo.csv")), 30);
    EXPECT_EQ(h.exit_code, 1) << h.output;
    EXPECT_TRUE(has(h, "is a FIFO (named pipe)")) << h.output;
    const auto f = nbody_within("forces --scene " + scene("plummer.toml") + " --bodies 64 --backend cpu --out " +
                                q(dir.file("null.csv")), 30);
    EXPECT_EQ(f.exit_code, 1) << f.output;
    EXPECT_TRUE(has(f, "is a character device")) << f.output;
    EXPECT_TRUE(fs::is_fifo(dir.file("fifo.csv")));
    EXPECT_TRUE(fs::is_symlink(dir.file("null.csv")));
    EXPECT_TRUE(fs::is_character_file("/dev/null"));
    ::close(sock);
}

// The content follows the name: an extension the option cannot write is refused, listing those it
// can, and nothing is created.
TEST(OutputsHostile, AnExtensionTheOptionCannotWriteIsRefusedListingThoseItCan) {
    TempDir dir;
    const std::string small = " --backend cpu --bodies 64 --size 64x64 ";
    struct Case {
        std::string args, option, path, accepted;
    };
    const std::vector<Case> cases = {
        {"forces --scene " + scene("plummer.toml") + " --bodies 64 --backend cpu --out ", "--out", "a.nbsnap", ".csv (CSV)"},
        {"forces --scene " + scene("plummer.toml") + " --bodies 64 --backend cpu --out ", "--out", "a.tipsy", ".csv (CSV)"},
        {"view --headless" + small + "--screenshot ", "--screenshot", "s.jpg", ".png (PNG image)"},
        {"view --headless" + small + "--save-snapshot ", "--save-snapshot", "s.csv", ".nbsnap (nbody snapshot)"},
        {"record --frames 1" + small + "--out " + q(dir.file("frames")) + " --mp4 ", "--mp4", "m.mkv", ".mp4 (MP4 video)"},
        {"bench --backend cpu --bodies 1K --json ", "--json", "b.txt", ".json (JSON)"},
        {"accuracy --gravity tree --bodies 1K --json ", "--json", "a.csv", ".json (JSON)"},
        {"run" + kLongRun + "--out ", "--out", "o.xyz", ".csv (CSV), .tipsy/.std/.bin (TIPSY), .nbsnap (nbody snapshot)"},
        {"run" + kLongRun + "--out ", "--out", "noextension", ".csv (CSV)"},
    };
    for (const Case& c : cases) {
        const std::string path = dir.file("sub/" + c.path);  // a folder that must not be created
        const auto r = nbody_within(c.args + q(path), 30);
        EXPECT_EQ(r.exit_code, 1) << c.args << c.path << "\n" << r.output;
        EXPECT_TRUE(has(r, c.option + " '" + path + "'")) << r.output;
        EXPECT_TRUE(has(r, c.accepted)) << r.output;
    }
    EXPECT_TRUE(fs::is_empty(dir.path())) << "something was created: " << names_in(dir.path()).front();
}

TEST(OutputsHostile, AccuracyChecksItsJsonBeforeMeasuring) {
    TempDir dir;
    const auto t0 = std::chrono::steady_clock::now();
    const auto r = nbody_within("accuracy --gravity tree --backend cpu --bodies 64K --json " + q(dir.path().string()), 30);
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    EXPECT_EQ(r.exit_code, 1) << r.output;
    EXPECT_TRUE(has(r, "--json '" + dir.path().string() + "' is a folder")) << r.output;
    EXPECT_FALSE(has(r, "reference:")) << "measured first: " << r.output;
    EXPECT_LT(seconds, 10.0);
}

// A Hermite run and the viewer's --save-snapshot know their N before the run: a disk too small
// for the result refuses them up front, as leapfrog's --out always did.
TEST(OutputsHostile, AFullDiskRefusesHermiteAndSaveSnapshotUpFront) {
    TempDir dir;
    const fs::path full = dir.path() / "full";
    fs::create_directory(full);
    if (::mount("tmpfs", full.c_str(), "tmpfs", 0, "size=64k") != 0)
        GTEST_SKIP() << "cannot mount a tmpfs here (" << std::strerror(errno) << ")";
    const std::vector<std::pair<std::string, std::string>> cases = {
        {"run --integrator hermite4 --scene " + scene("plummer.toml") + " --bodies 4096 --t-end 1e6 --backend cpu --out ",
         "o.csv"},
        {"view --headless --backend cpu --scene " + scene("plummer.toml") + " --bodies 4096 --size 64x64 --save-snapshot ",
         "s.nbsnap"},
        {"record --backend cpu --scene " + scene("plummer.toml") + " --bodies 4096 --size 64x64 --frames 1 --out " +
             q(dir.file("frames")) + " --save-snapshot ",
         "r.nbsnap"},
    };
    for (const auto& [args, name] : cases) {
        const auto r = nbody_within(args + q((full / name).string()), 30);
        EXPECT_EQ(r.exit_code, 1) << args << "\n" << r.output;
        EXPECT_TRUE(has(r, "'" + (full / name).string() + "' needs about")) << r.output;
        EXPECT_TRUE(has(r, "free")) << r.output;
    }
    EXPECT_TRUE(fs::is_empty(full));
    ::umount(full.c_str());
}

// `run` of a small Plummer sphere with `options` and an --out: refused at once with `message`, and
// nothing written (the initial state used to be written as the "result").
void expect_run_refused(const std::string& options, const std::string& message) {
    TempDir dir;
    const auto r = nbody_within("run --scene " + scene("plummer.toml") + " --bodies 64 --backend cpu " + options +
                                    " --out " + q(dir.file("o.csv")),
                                30);
    EXPECT_EQ(r.exit_code, 1) << options << "\n" << r.output;
    EXPECT_TRUE(has(r, message)) << options << "\n" << r.output;
    EXPECT_FALSE(has(r, "-9223372036854775808")) << r.output;
    EXPECT_FALSE(fs::exists(dir.file("o.csv"))) << "written after all: " << options;
}

TEST(OptionGarbage, AStepCountBeyondItsTypeIsRefusedNamingBothValues) {
    expect_run_refused("--dt 0.001 --t-end 1e300",
                       "--t-end 1e+300 with --dt 0.001 is 1e+303 steps from t = 0, beyond the supported 9223372036854775807");
    // Hermite: block steps of dt_max that a double's time cannot count any more.
    expect_run_refused("--integrator hermite4 --t-end 1e300", "--t-end 1e+300 is 8e+300 block steps of dt_max 0.125");
}

TEST(OptionGarbage, ANonFiniteTEndIsRefusedByEveryIntegrator) {
    for (const std::string integrator : {"hermite4", "hermite6", "leapfrog"})
        for (const std::string value : {"inf", "nan", "-inf"})
            expect_run_refused("--integrator " + integrator + " --t-end " + value,
                               "--t-end must be a finite model time (got " + value + ")");
    const auto v = nbody_within("view --headless --backend cpu --integrator hermite4 --scene " + scene("plummer.toml") +
                                    " --bodies 64 --size 64x64 --t-end inf",
                                30);
    EXPECT_EQ(v.exit_code, 1) << v.output;
    EXPECT_TRUE(has(v, "--t-end must be a finite model time")) << v.output;
}

TEST(OptionGarbage, StepsAndTEndTogetherAreRefused) {
    expect_run_refused("--steps 10 --t-end 0.02",
                       "--steps 10 and --t-end 0.02 both say where the run ends; give one of them");
}

TEST(OptionGarbage, KernelOptionsTheCpuBackendDoesNotUseAreNamed) {
    TempDir dir;
    const auto r = nbody_within("run --scene " + scene("plummer.toml") +
                                " --bodies 64 --backend cpu --steps 1 --unroll 4 --block 128 --out " + q(dir.file("o.csv")));
    EXPECT_EQ(r.exit_code, 0) << r.output;
    EXPECT_TRUE(has(r, "the cpu backend has no kernel config: --unroll, --block tune the cuda kernel and are not used"))
        << r.output;
    const auto quiet = nbody_within("run --scene " + scene("plummer.toml") + " --bodies 64 --backend cpu --steps 1");
    EXPECT_EQ(quiet.exit_code, 0) << quiet.output;
    EXPECT_FALSE(has(quiet, "no kernel config")) << quiet.output;
}

// A refused value is quoted back with its option, never as an exception's class name.
TEST(OptionGarbage, ARefusedValueIsQuotedWithItsOption) {
    TempDir dir;
    const std::vector<std::pair<std::string, std::string>> cases = {
        {"bench --backend cpu --bodies 1K --repeats 0", "--repeats must be >= 1 (got 0)"},
        {"bench --backend cpu --bodies 1K --dt -1", "--dt must be > 0 (got -1)"},
        {"accuracy --gravity tree --bodies 1K --sample 0", "--sample must be >= 1 (got 0)"},
        {"forces --scene " + scene("plummer.toml") + " --bodies 64 --softening -2 --out " + q(dir.file("f.csv")),
         "--softening must be >= 0 (got -2)"},
        {"record --backend cpu --bodies 64 --size 64x64 --frames 1 --out " + q(dir.file("r")) + " --fps 5000",
         "--fps: must be between 1 and 1000 (got 5000)"},
        {"bench --backend cpu --bodies 99999999999999999999K", "--bodies: '99999999999999999999K' is beyond the supported range"},
    };
    for (const auto& [args, message] : cases) {
        const auto r = nbody_within(args, 30);
        EXPECT_NE(r.exit_code, 0) << args << "\n" << r.output;
        EXPECT_TRUE(has(r, message)) << args << "\n" << r.output;
        EXPECT_FALSE(has(r, "std::")) << args << "\n" << r.output;
    }
    EXPECT_TRUE(fs::is_empty(dir.path()));
}

// view, run and record take the counts bench and accuracy take ("64K", "1M"; the README's lines),
// and refuse the rest with the same reason.
TEST(OptionGarbage, BodyCountsTakeTheSameSuffixesInEveryCommand) {
    TempDir dir;
    const auto ok = nbody_within("run --backend cpu --scene " + scene("plummer.toml") + " --bodies 1K --steps 1 --out " +
                                     q(dir.file("k.csv")),
                                 60);
    ASSERT_EQ(ok.exit_code, 0) << ok.output;
    std::ifstream csv(dir.file("k.csv"));
    std::size_t rows = 0;
    for (std::string line; std::getline(csv, line);) rows += !line.empty() && line[0] != '#' && line[0] != 'x';
    EXPECT_EQ(rows, 1024u);
    const std::vector<std::pair<std::string, std::string>> refused = {
        {"run --backend cpu --scene " + scene("plummer.toml") + " --bodies 1.5K --steps 1", "--bodies: '1.5K' is not a positive count"},
        {"view --headless --backend cpu --bodies 12x --frames 1", "--bodies: '12x' is not a positive count"},
        {"record --backend cpu --bodies 0 --frames 1 --out " + q(dir.file("r")), "--bodies: '0' is not a positive count"},
        {"view --headless --backend cpu --bodies 2048M --frames 1", "--bodies: '2048M' is beyond the supported range"},
        {"forces --scene " + scene("plummer.toml") + " --bodies 1e3 --out " + q(dir.file("f.csv")),
         "--bodies: '1e3' is not a positive count"},
    };
    for (const auto& [args, message] : refused) {
        const auto r = nbody_within(args, 30);
        EXPECT_NE(r.exit_code, 0) << args << "\n" << r.output;
        EXPECT_TRUE(has(r, message)) << args << "\n" << r.output;
    }
    EXPECT_FALSE(fs::exists(dir.file("r")));
    EXPECT_FALSE(fs::exists(dir.file("f.csv")));
}

TEST(OptionGarbage, AShaderFolderThatDoesNotExistIsNamed) {
    TempDir dir;
    // The warning comes before the viewer starts, so it shows whether or not EGL works here.
    const auto r = nbody_within("view --headless --backend cpu --bodies 64 --size 64x64 --frames 1", 60,
                                "NBODY_SHADER_DIR=" + q(dir.file("no-such-folder")) + " ");
    EXPECT_TRUE(has(r, "warning: NBODY_SHADER_DIR '" + dir.file("no-such-folder") + "' does not exist")) << r.output;
    EXPECT_NE(r.exit_code, 124) << r.output;
}

// Memory for every N before anything is allocated: the commands that had no estimate.
TEST(MemoryHostile, EveryCommandEstimatesBeforeAllocating) {
    TempDir dir;
    std::string big_scene = test::read_text(scene("plummer.toml"));
    for (std::size_t at; (at = big_scene.find("bodies = 16384")) != std::string::npos;)
        big_scene.replace(at, 14, "bodies = 1000000000");
    write_text(dir.file("big.toml"), big_scene);
    const std::vector<std::string> cases = {
        "bench --backend cpu --bodies 1024M",
        "accuracy --gravity tree --backend cpu --bodies 1024M",
        "run --integrator hermite4 --scene " + scene("plummer.toml") + " --bodies 1000000000 --t-end 1 --backend cpu",
        "run --scene " + q(dir.file("big.toml")) + " --steps 1 --backend cpu",
        "run --integrator hermite4 --scene " + q(dir.file("big.toml")) + " --t-end 1 --backend cpu",
        "forces --scene " + q(dir.file("big.toml")) + " --backend cpu --out " + q(dir.file("f.csv")),
        "view --headless --backend cpu --scene " + q(dir.file("big.toml")) + " --size 64x64",
    };
    for (const std::string& args : cases) {
        const auto t0 = std::chrono::steady_clock::now();
        const auto r = nbody_within(args, 30);
        const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        EXPECT_EQ(r.exit_code, 1) << args << "\n" << r.output;
        EXPECT_TRUE(has(r, "needs about")) << args << "\n" << r.output;
        EXPECT_TRUE(has(r, "of host memory (")) << args << "\n" << r.output;
        EXPECT_FALSE(has(r, "bad_alloc")) << args << "\n" << r.output;
        EXPECT_LT(seconds, 10.0) << args << ": allocated first?";
    }
    EXPECT_FALSE(fs::exists(dir.file("f.csv")));
}

// ulimit -v is part of "available": a run that fits the machine but not the limit is refused with
// the numbers, naming the limit, instead of failing in an allocation.
TEST(MemoryHostile, TheAddressSpaceLimitCountsAsAvailableMemory) {
    const auto r = nbody_within("run --scene " + scene("plummer.toml") + " --bodies 8000000 --steps 1 --backend cpu", 30,
                                "ulimit -v 400000; ");
    EXPECT_EQ(r.exit_code, 1) << r.output;
    EXPECT_TRUE(has(r, "N = 8000000 needs about")) << r.output;
    EXPECT_TRUE(has(r, "are available; use fewer bodies (the limit that binds: ulimit -v (RLIMIT_AS))")) << r.output;
    EXPECT_FALSE(has(r, "bad_alloc")) << r.output;
    const auto b = nbody_within("bench --backend cpu --bodies 4M", 30, "ulimit -v 400000; ");
    EXPECT_EQ(b.exit_code, 1) << b.output;
    EXPECT_TRUE(has(b, "N = 4194304 needs about")) << b.output;
    EXPECT_TRUE(has(b, "ulimit -v")) << b.output;
}

// Under ulimit -v 400000 Mesa's llvmpipe crashed inside the driver (SIGSEGV, no message) while
// compiling the shaders: the viewer now checks the address space it leaves first.
TEST(MemoryHostile, TheViewerUnderATightAddressSpaceLimitSaysSoInsteadOfCrashing) {
    const auto r = nbody_within("view --headless --backend cpu --bodies 4096 --size 640x480", 60, "ulimit -v 400000; ");
    EXPECT_EQ(r.exit_code, 1) << r.output;
    EXPECT_TRUE(has(r, "N = 4096 in the viewer needs about")) << r.output;
    EXPECT_TRUE(has(r, "ulimit -v leaves")) << r.output;
}

}  // namespace
}  // namespace nbody
