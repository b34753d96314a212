// Issue 34, the reading side: hostile inputs to every reader (CSV, TIPSY, snapshot, scene) end in a
// message naming the file, the line or key and the value, never in a hang, a crash, an allocation
// the file cannot back, or an exception's class name.

#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <limits>
#include <optional>
#include <cstdint>
#include <cstring>
#include <functional>
#include <map>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include <csignal>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "nbody/sim/csv.hpp"
#include "nbody/sim/io/body_check.hpp"
#include "nbody/sim/io/input_file.hpp"
#include "nbody/sim/io/particle_files.hpp"
#include "nbody/sim/io/snapshot.hpp"
#include "nbody/sim/io/tipsy.hpp"
#include "nbody/sim/memory_check.hpp"
#include "nbody/sim/scene.hpp"
#include "test_support.hpp"

namespace nbody {
namespace {

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

std::string error_of(const std::function<void()>& read) {
    try {
        read();
    } catch (const std::runtime_error& e) {
        return e.what();
    }
    return "(no error)";
}

// The words of a C++ exception that must never reach a user.
void expect_no_exception_class(const std::string& message) {
    for (const char* word : {"bad_alloc", "stod", "basic_string", "_M_", "length_error", "out_of_range"})
        EXPECT_FALSE(has(message, word)) << message;
}

// Runs `read` in a child process so that a reader that blocks cannot hang the test: the child
// gets 10 s, then SIGKILL. Returns the child's message, or why there was none.
std::string error_within_seconds(const std::function<void()>& read) {
    int fds[2];
    if (::pipe(fds) != 0) return "(pipe failed)";
    const pid_t pid = ::fork();
    if (pid == 0) {
        ::close(fds[0]);
        const std::string message = error_of(read);
        [[maybe_unused]] const auto written = ::write(fds[1], message.data(), message.size());
        ::_exit(0);
    }
    ::close(fds[1]);
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    int status = 0;
    while (::waitpid(pid, &status, WNOHANG) == 0) {
        if (std::chrono::steady_clock::now() > deadline) {
            ::kill(pid, SIGKILL);
            ::waitpid(pid, &status, 0);
            ::close(fds[0]);
            return "(the reader blocked for 10 s)";
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    std::string message;
    char buf[4096];
    for (ssize_t got; (got = ::read(fds[0], buf, sizeof buf)) > 0;) message.append(buf, std::size_t(got));
    ::close(fds[0]);
    return message;
}

// ------------------------------------------------------------------------------------------------
// Case 3: only regular files are read; nothing blocks.

TEST(InputFile, AFifoIsRefusedAtOnceByEveryReader) {
    test::TempDir dir;
    for (const char* name : {"fifo.csv", "fifo.std", "fifo.nbsnap", "fifo.toml"}) {
        const std::string path = dir.file(name);
        ASSERT_EQ(0, ::mkfifo(path.c_str(), 0600));
        const bool scene = std::string(name).ends_with(".toml");
        const std::string message =
            error_within_seconds([&] { scene ? (void)load_scene(path) : (void)io::read_particles(path); });
        EXPECT_TRUE(has(message, path + ": is a FIFO (named pipe), not a")) << name << ": " << message;
    }
    const std::string fifo = dir.file("meta.nbsnap");
    ASSERT_EQ(0, ::mkfifo(fifo.c_str(), 0600));
    EXPECT_TRUE(has(error_within_seconds([&] { io::read_snapshot_metadata(fifo); }), "is a FIFO"));
}

TEST(InputFile, DevicesFoldersAndSocketsAreNamedForWhatTheyAre) {
    test::TempDir dir;
    const std::string zero = dir.file("zero.csv");
    ASSERT_EQ(0, ::symlink("/dev/zero", zero.c_str()));
    const std::string message = error_within_seconds([&] { io::read_particles(zero); });
    EXPECT_TRUE(has(message, zero + ": is a character device, not a CSV file")) << message;

    const std::string folder = dir.file("folder.csv");
    std::filesystem::create_directory(folder);
    EXPECT_TRUE(has(error_of([&] { io::read_particles(folder); }), "folder.csv: is a folder, not a CSV file"));

    const std::string socket_path = dir.file("s.toml");
    const int fd = ::socket(AF_UNIX, SOCK_STREAM, 0);
    sockaddr_un address{};
    address.sun_family = AF_UNIX;
    std::strncpy(address.sun_path, socket_path.c_str(), sizeof address.sun_path - 1);
    if (socket_path.size() < sizeof address.sun_path &&
        ::bind(fd, reinterpret_cast<const sockaddr*>(&address), sizeof address) == 0)
        EXPECT_TRUE(has(error_of([&] { load_scene(socket_path); }), "is a socket, not a scene file"));
    ::close(fd);

    EXPECT_TRUE(has(error_of([&] { io::InputFile(dir.file("none.csv"), "CSV"); }),
                    "cannot open '" + dir.file("none.csv") + "' for reading (CSV file): No such file"));
}

TEST(InputFile, ReadAtRefusesRangesBeyondTheFile) {
    test::TempDir dir;
    test::write_text(dir.file("f.bin"), "0123456789");
    io::InputFile f(dir.file("f.bin"), "test");
    EXPECT_EQ(10u, f.size());
    EXPECT_EQ("2345", f.read_at(2, 4, "a field"));
    const std::string message = error_of([&] { f.read_at(8, UINT64_MAX, "a section"); });
    EXPECT_TRUE(has(message, "a section at byte offset 8 needs 18446744073709551615 bytes, but the file ends at byte 10"))
        << message;
}

// ------------------------------------------------------------------------------------------------
// Case 6: one CSV reader, the same for leapfrog (floats) and Hermite (doubles).

TEST(CsvReader, AcceptsWhatSpreadsheetsAndInterruptedRunsWrite) {
    const std::string text =
        "\xEF\xBB\xBF# interrupted by SIGINT (Ctrl-C) at step 3 of 10\n"
        "\"x\",\"y\",\"z\",\"vx\",\"vy\",\"vz\",\"m\"\n"
        "+0.5,\"1.25\",1e-400,-0.5,0,0,1\n"
        "# a comment between rows\n"
        "\n"
        "1,2,3,4,5,6,\"+2\"\n";
    const CsvContents csv = read_csv_text(text, "in.csv");
    ASSERT_EQ(2u, csv.state.size());
    EXPECT_EQ(0.5, csv.values.position[0].x);
    EXPECT_EQ(1.25, csv.values.position[0].y);
    EXPECT_EQ(0.0, csv.values.position[0].z);  // underflow reads as the nearest double
    EXPECT_EQ(2.0, csv.values.mass[1]);
    EXPECT_EQ(0.5f, csv.state.pos_mass[0].x);
    EXPECT_EQ(-0.5f, csv.state.velocity[0].x);
}

TEST(CsvReader, RefusesWithFileLineColumnAndValue) {
    const auto error = [](const std::string& text) { return error_of([&] { read_csv_text(text, "in.csv"); }); };
    const std::string h = "x,y,z,vx,vy,vz,m";
    EXPECT_TRUE(has(error("x,y,x,z,vx,vy,vz,m\n1,2,3,4,5,6,7,8\n"), "in.csv:1: the header names column 'x' twice (columns 1 and 3)"));
    EXPECT_TRUE(has(error(h + ",galaxy\n0,0,0,0,0,0,1,-1\n"), "in.csv:2: column 'galaxy': '-1' is not a whole number from 0 to 65535"));
    EXPECT_TRUE(has(error(h + ",galaxy\n0,0,0,0,0,0,1,1.5\n"), "in.csv:2: column 'galaxy': '1.5' is not a whole number"));
    EXPECT_TRUE(has(error(h + ",component\n0,0,0,0,0,0,1,5\n"), "in.csv:2: column 'component': '5' is not a whole number from 0 to 4"));
    EXPECT_TRUE(has(error(h + "\n1e39,0,0,0,0,0,1\n"), "in.csv:2: column 'x': '1e39' is beyond the range of float"));
    EXPECT_TRUE(has(error(h + "\n1e999,0,0,0,0,0,1\n"), "in.csv:2: column 'x': '1e999' is beyond the range of a double"));
    EXPECT_TRUE(has(error(h + "\n0,0,0,0,0,0,-1\n"), "in.csv:2: negative mass m = -1"));
    EXPECT_TRUE(has(error(h + "\n0,0,0,0,inf,0,1\n"), "in.csv:2: a non-finite velocity (vy = inf)"));
    EXPECT_TRUE(has(error(h + "\n0,0,0,0,0,0,++1\n"), "in.csv:2: column 'm': '++1' is not a number"));
    EXPECT_TRUE(has(error(h + "\n0,0,\"0,0,0,0,1\n"), "in.csv:2: field 3 opens a quote (\") that does not close"));
    EXPECT_TRUE(has(error(h + "\n0,0,\"0\"x,0,0,0,1\n"), "in.csv:2: field 3: text after its closing quote"));
    const std::string huge(100000, 'a');
    const std::string message = error(h + "\n0," + huge + ",0,0,0,0,1\n");
    EXPECT_TRUE(has(message, "column 'y': 'aaaa")) << message.substr(0, 200);
    EXPECT_TRUE(has(message, "...' (100000 characters) is not a number"));
    EXPECT_LT(message.size(), 200u);
}

TEST(CsvReader, FileAndStreamReadersAgreeAndKeepTheDoublesTheTextHolds) {
    test::TempDir dir;
    const std::string text = "x,y,z,vx,vy,vz,m,galaxy,component\n0.1,0.2,0.3,1e-400,0.5,0.6,0.7,3,2\n";
    test::write_text(dir.file("in.csv"), text);
    const CsvContents file = read_csv_file(dir.file("in.csv"));
    std::optional<PreciseState> precise;
    const State floats = read_csv(dir.file("in.csv"), &precise);
    EXPECT_EQ(0.1, file.values.position[0].x);  // the text's double, not the float widened
    EXPECT_TRUE(file.beyond_float);
    ASSERT_TRUE(precise.has_value());
    EXPECT_EQ(file.values.position[0].x, precise->position[0].x);
    EXPECT_EQ(floats.pos_mass[0].x, file.state.pos_mass[0].x);
    EXPECT_EQ(3, file.state.galaxy[0]);
    EXPECT_EQ(Component::Bulge, file.state.component[0]);
}

// ------------------------------------------------------------------------------------------------
// Case 7: the shared validator.

TEST(BodyCheck, NamesTheBodyTheFieldAndTheValue) {
    State s;
    s.resize(3);
    s.pos_mass[2].w = 1;
    EXPECT_NO_THROW(io::check_bodies(s, "src"));
    s.velocity[1].y = std::numeric_limits<float>::infinity();
    EXPECT_EQ("src: body 1 has a non-finite velocity (vy = inf)", error_of([&] { io::check_bodies(s, "src"); }));
    PreciseState p{{{0, 0, 0}}, {{0, 0, 0}}, {-2.0}};
    EXPECT_EQ("src: body 0 has negative mass m = -2 (masses must be >= 0)", error_of([&] { io::check_bodies(p, "src"); }));
    EXPECT_TRUE(has(error_of([] { io::check_body_count(0, "f", "nbodies"); }), "f: nbodies = 0 is outside 1 to 1073741824"));
    EXPECT_TRUE(has(error_of([] { io::check_body_count(io::kMaxBodies + 1, "f", "n"); }), "n = 1073741825 is outside"));
    EXPECT_NO_THROW(io::check_body_count(io::kMaxBodies, "f", "n"));
}

// ------------------------------------------------------------------------------------------------
// Case 4: TIPSY with a header in one byte order and records in the other.

State tipsy_sample() {
    State s;
    s.resize(50);
    for (std::size_t i = 0; i < s.size(); ++i) {
        const float f = 0.37f * float(i) + 0.123f;
        s.pos_mass[i] = {f, -1.7f * f, 0.3f - f, 0.01f};
        s.velocity[i] = {0.2f * f, -0.11f, 0.05f * f, 0.0f};
        s.component[i] = Component::Star;
    }
    return s;
}

TEST(TipsyByteOrder, RecordsInTheOtherOrderThanTheHeaderAreRefused) {
    for (const io::Endian endian : {io::Endian::Little, io::Endian::Big}) {
        std::string bytes = io::encode_tipsy(tipsy_sample(), {.endian = endian});
        EXPECT_NO_THROW(io::decode_tipsy(bytes, "ok.std"));
        for (std::size_t at = 32; at + 4 <= bytes.size(); at += 4) std::swap(bytes[at], bytes[at + 3]), std::swap(bytes[at + 1], bytes[at + 2]);
        const std::string message = error_of([&] { io::decode_tipsy(bytes, "mixed.std"); });
        const bool little = endian == io::Endian::Little;
        EXPECT_TRUE(has(message, std::string("mixed.std: the TIPSY header is ") + (little ? "little" : "big") +
                                     "-endian but the particle records are " + (little ? "big" : "little") + "-endian"))
            << message;
    }
}

TEST(TipsyByteOrder, LargeButConsistentValuesAreRead) {
    State s = tipsy_sample();
    for (auto& p : s.pos_mass) p.x *= 1e15f;  // large units, one byte order: still read
    EXPECT_NO_THROW(io::decode_tipsy(io::encode_tipsy(s, {.endian = io::Endian::Big}), "big.std"));
}

// ------------------------------------------------------------------------------------------------
// Case 5: snapshots validated completely by the reader.

std::uint64_t fnv1a64(std::string_view data) {
    std::uint64_t h = 0xcbf29ce484222325ull;
    for (unsigned char c : data) h = (h ^ c) * 0x100000001b3ull;
    return h;
}

void reseal(std::string& bytes) {
    const std::uint64_t h = fnv1a64(std::string_view(bytes).substr(0, bytes.size() - 8));
    for (int b = 0; b < 8; ++b) bytes[bytes.size() - 8 + std::size_t(b)] = char((h >> (8 * b)) & 0xff);
}

io::Snapshot small_snapshot() {
    io::Snapshot snap;
    snap.state.resize(2);
    snap.state.pos_mass[0] = {1, 0, 0, 1};
    snap.state.pos_mass[1] = {-1, 0, 0, 1};
    snap.metadata["units"] = "nbody";
    return snap;
}

// `bytes` with the length of its first section tagged `tag` set to `length` (little-endian), resealed.
std::string with_section_length(std::string bytes, std::string_view tag, std::uint64_t length) {
    const std::size_t at = bytes.rfind(tag);
    for (int b = 0; b < 8; ++b) bytes[at + 4 + std::size_t(b)] = char((length >> (8 * b)) & 0xff);
    reseal(bytes);
    return bytes;
}

TEST(SnapshotReader, SectionLengthsBeyondTheFileAreRefusedBeforeAllocating) {
    test::TempDir dir;
    const std::string good = io::encode_snapshot(small_snapshot());
    for (const std::uint64_t length : {UINT64_MAX, std::uint64_t(1500000000)}) {
        const std::string bytes = with_section_length(good, "META", length);
        const std::string decoded = error_of([&] { io::decode_snapshot(bytes, "s.nbsnap"); });
        EXPECT_TRUE(has(decoded, "s.nbsnap: corrupt snapshot: section 'META' at byte offset")) << decoded;
        EXPECT_TRUE(has(decoded, "claims " + std::to_string(length) + " bytes, but only")) << decoded;
        test::write_text(dir.file("s.nbsnap"), bytes);
        const std::string metadata = error_of([&] { io::read_snapshot_metadata(dir.file("s.nbsnap")); });
        EXPECT_TRUE(has(metadata, "claims " + std::to_string(length) + " bytes, but only")) << metadata;
        expect_no_exception_class(decoded);
        expect_no_exception_class(metadata);
    }
}

TEST(SnapshotReader, HermiteParametersAreCheckedAndBlamedOnTheFile) {
    test::TempDir dir;
    for (const auto& [key, value] : std::map<std::string, std::string>{
             {"hermite.eta", "abc"}, {"hermite.eta", "-0.01"}, {"hermite.dt_max", "nan"}, {"hermite.eta", "0.01x"}}) {
        io::Snapshot snap = small_snapshot();
        snap.metadata[key] = value;
        test::write_text(dir.file("h.nbsnap"), io::encode_snapshot(snap));
        for (const std::string& message : {error_of([&] { io::read_snapshot(dir.file("h.nbsnap")); }),
                                           error_of([&] { io::read_snapshot_metadata(dir.file("h.nbsnap")); })}) {
            EXPECT_TRUE(has(message, dir.file("h.nbsnap") + ": invalid snapshot: metadata " + key + " = '" + value +
                                         "' must be a number > 0"))
                << message;
            EXPECT_FALSE(has(message, "--eta")) << message;
            expect_no_exception_class(message);
        }
    }
}

TEST(SnapshotReader, HermiteLevelsMustBeWholeNumbersInRange) {
    for (const double level : {2.5, -1.0, 1e9}) {
        io::Snapshot snap = small_snapshot();
        snap.precise = PreciseState{{{1, 0, 0}, {-1, 0, 0}}, {{0, 0, 0}, {0, 0, 0}}, {1, 1}};
        snap.metadata["nbody.integrator"] = "hermite4";
        for (const char* name : {"hermite.ax", "hermite.ay", "hermite.az", "hermite.jx", "hermite.jy", "hermite.jz",
                                 "hermite.pot", "hermite.level"})
            snap.extra[name] = {0.0, 0.0};
        EXPECT_NO_THROW(io::decode_snapshot(io::encode_snapshot(snap), "ok.nbsnap"));
        snap.extra["hermite.level"] = {0.0, level};
        const std::string message = error_of([&] { io::decode_snapshot(io::encode_snapshot(snap), "l.nbsnap"); });
        EXPECT_TRUE(has(message, "l.nbsnap: invalid snapshot: hermite.level of body 1 is")) << message;
        EXPECT_TRUE(has(message, "a block level is a whole number from 0 to 40")) << message;
        snap.extra["hermite.level"] = {0.0, 0.0};
        snap.extra.erase("hermite.jz");
        EXPECT_TRUE(has(error_of([&] { io::decode_snapshot(io::encode_snapshot(snap), "m.nbsnap"); }),
                        "without its array 'hermite.jz'"));
    }
}

TEST(SnapshotReader, NonFiniteBodiesAreNamedWithTheirField) {
    io::Snapshot snap = small_snapshot();
    snap.precise = PreciseState{{{1, 0, 0}, {-1, 0, 0}}, {{0, 0, 0}, {0, 0, 0}}, {1, 1}};
    // The writer refuses a non-finite state, so the bytes are changed after it: body 1's vz, the
    // last velocity of the F64S payload (positions 2 x 24 bytes, then velocities).
    std::string bytes = io::encode_snapshot(snap);
    const std::size_t payload = bytes.find("F64S") + 12;
    const double inf = std::numeric_limits<double>::infinity();
    std::memcpy(bytes.data() + payload + 48 + 24 + 16, &inf, sizeof inf);  // the file is little-endian, as this host
    reseal(bytes);
    const std::string message = error_of([&] { io::decode_snapshot(bytes, "p.nbsnap"); });
    EXPECT_TRUE(has(message, "p.nbsnap: invalid snapshot (double-precision state): body 1 has a non-finite velocity (vz = inf)"))
        << message;
}

// ------------------------------------------------------------------------------------------------
// Cases 1 and 2: scenes.

std::string scene_text(const std::string& scene_bodies, const std::string& galaxies) {
    return "[scene]\nname = \"t\"\nbodies = " + scene_bodies +
           "\nunits = \"nbody\"\ndt = 0.01\nsoftening = 0.05\nsteps_per_frame = 1\n[camera]\ndistance = 10\n" + galaxies;
}

std::string scene_error(const std::string& text) {
    const std::string message = error_of([&] { load_scene_from_string(text, "s.toml"); });
    expect_no_exception_class(message);
    return message;
}

TEST(SceneReader, CountsThatWouldWrapAreRefusedWithTheirKey) {
    const std::string two =
        "[[galaxy]]\n[galaxy.plummer]\nmass = 1\nbodies = 9223372036854775807\nscale_radius = 1\n"
        "[[galaxy]]\nposition = [5, 0, 0]\n[galaxy.plummer]\nmass = 1\nbodies = 9223372036854775807\nscale_radius = 1\n";
    const std::string message = scene_error(scene_text("70", two));
    EXPECT_TRUE(has(message, "s.toml:13: galaxy[0].plummer.bodies: 9223372036854775807 is outside 0 to 1073741824")) << message;
    const std::string big = scene_error(scene_text("2000000000", "[[galaxy]]\n[galaxy.plummer]\nmass = 1\nbodies = 2000000000\nscale_radius = 1\n"));
    EXPECT_TRUE(has(big, "s.toml:3: scene.bodies: N = 2000000000 is outside 1 to 1073741824")) << big;
}

TEST(SceneReader, TooManyBodiesForTheHostAreRefusedBeforeGenerating) {
    const auto available = host_memory_available();
    if (!available || *available > (std::uint64_t(100) << 30)) GTEST_SKIP() << "this host could hold 2^30 bodies";
    const std::string n = std::to_string(io::kMaxBodies);
    const auto start = std::chrono::steady_clock::now();
    const std::string message =
        scene_error(scene_text(n, "[[galaxy]]\n[galaxy.plummer]\nmass = 1\nbodies = " + n + "\nscale_radius = 1\n"));
    EXPECT_TRUE(has(message, "s.toml: scene.bodies: N = 1073741824 needs about")) << message;
    EXPECT_TRUE(has(message, "of host memory")) << message;
    EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
}

TEST(SceneReader, ValuesThatOverflowTheStateAreNamedByTheirKey) {
    const auto plummer = [](const std::string& mass, const std::string& radius) {
        return "[[galaxy]]\n[galaxy.plummer]\nmass = " + mass + "\nbodies = 10\nscale_radius = " + radius + "\n";
    };
    std::string message = scene_error(scene_text("10", plummer("1e308", "1")));
    EXPECT_TRUE(has(message, "s.toml:12: galaxy[0].plummer.mass: 1e+308 is beyond the range of float")) << message;
    message = scene_error(scene_text("10", plummer("1e38", "1e-38")));
    EXPECT_TRUE(has(message, "galaxy[0].plummer.mass: mass = 1e+38 over scale_radius = 1e-38 gives speeds of about")) << message;
    // Two galaxies far apart (the assembly centres the system, so one alone would be moved back).
    const auto cube_at = [](const std::string& x) {
        return "[[galaxy]]\nposition = [" + x + ", 0, 0]\n[galaxy.cube]\nmass = 1\nbodies = 10\nside = 1e38\n";
    };
    message = scene_error(scene_text("20", cube_at("-3.3e38") + cube_at("3.3e38")));
    EXPECT_TRUE(has(message, "s.toml: galaxy[")) << message;
    EXPECT_TRUE(has(message, "]: placing it by its position = [")) << message;
    EXPECT_TRUE(has(message, "e+38, 0, 0], velocity = [0, 0, 0] gave body")) << message;
    EXPECT_TRUE(has(message, "a non-finite position")) << message;
}

}  // namespace
}  // namespace nbody
