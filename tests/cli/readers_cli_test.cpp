// Issue 34, the reading side, through the commands: FIFOs and devices never block a command, the
// leapfrog and Hermite paths read CSV through one reader (same acceptances, same messages), and
// scenes and snapshots with hostile values end with a message naming the file and the key.

#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <string>

#include <sys/stat.h>
#include <unistd.h>

#include "test_support.hpp"

namespace nbody {
namespace {

bool has(const test::CommandResult& r, const std::string& part) { return r.output.find(part) != std::string::npos; }

// Every command here must end by itself well within 30 s: a hang is killed and reads as exit 137.
test::CommandResult nbody_within_30s(const std::string& arguments) {
    return test::run_command("timeout -s KILL 30 '" + test::nbody_executable() + "' " + arguments);
}

void expect_no_exception_class(const test::CommandResult& r) {
    for (const char* word : {"bad_alloc", "stod", "basic_string", "_M_", "what()", "terminate"})
        EXPECT_FALSE(has(r, word)) << r.output;
}

TEST(ReadersCli, FifosAndDevicesAreRefusedAtOnce) {
    test::TempDir dir;
    for (const char* name : {"fifo.csv", "fifo.toml", "fifo.path"}) ASSERT_EQ(0, ::mkfifo(dir.file(name).c_str(), 0600));
    ASSERT_EQ(0, ::symlink("/dev/zero", dir.file("zero.csv").c_str()));
    const std::string out = " --out " + dir.file("o.csv");
    struct Case {
        std::string arguments, message;
        int exit_code;
    };
    const Case cases[] = {
        {"run --backend cpu --steps 1 --input " + dir.file("fifo.csv") + out, dir.file("fifo.csv") + ": is a FIFO (named pipe), not a CSV file", 1},
        {"run --integrator hermite4 --backend cpu --t-end 0.01 --input " + dir.file("fifo.csv") + out, "is a FIFO (named pipe), not a CSV file", 1},
        {"run --backend cpu --steps 1 --scene " + dir.file("fifo.toml") + out, dir.file("fifo.toml") + ": is a FIFO (named pipe), not a scene file", 1},
        {"run --backend cpu --steps 1 --input " + dir.file("zero.csv") + out, dir.file("zero.csv") + ": is a character device, not a CSV file", 1},
        {"record --backend cpu --bodies 64 --frames 1 --camera path:" + dir.file("fifo.path") + " --out " + dir.file("frames"),
         "is a FIFO (named pipe), not a camera path file", 105},
    };
    for (const Case& c : cases) {
        const auto start = std::chrono::steady_clock::now();
        const auto r = nbody_within_30s(c.arguments);
        EXPECT_EQ(c.exit_code, r.exit_code) << c.arguments << "\n" << r.output;
        EXPECT_TRUE(has(r, c.message)) << c.arguments << "\n" << r.output;
        EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(10)) << c.arguments;
    }
}

// What an interrupted leapfrog run writes, saved again by a spreadsheet: BOM, comment, quotes, '+'.
constexpr const char* kInterruptedCsv =
    "\xEF\xBB\xBF# interrupted by SIGTERM at step 651 of 10000000, t = 0.651\n"
    "\"x\",\"y\",\"z\",\"vx\",\"vy\",\"vz\",\"m\"\n"
    "+0.5,0,0,0,+0.5,0,0.5\n"
    "-0.5,0,0,0,-0.5,1e-400,0.5\n";

TEST(ReadersCli, LeapfrogAndHermiteAcceptTheSameCsv) {
    test::TempDir dir;
    test::write_text(dir.file("in.csv"), kInterruptedCsv);
    const auto leapfrog = nbody_within_30s("run --backend cpu --steps 2 --dt 0.001 --input " + dir.file("in.csv") +
                                           " --out " + dir.file("a.csv"));
    EXPECT_EQ(0, leapfrog.exit_code) << leapfrog.output;
    const auto hermite = nbody_within_30s("run --integrator hermite4 --backend cpu --t-end 0.01 --input " +
                                          dir.file("in.csv") + " --out " + dir.file("b.csv"));
    EXPECT_EQ(0, hermite.exit_code) << hermite.output;
}

TEST(ReadersCli, LeapfrogAndHermiteRefuseTheSameCsvInTheSameWords) {
    test::TempDir dir;
    const std::string h = "x,y,z,vx,vy,vz,m";
    struct Bad {
        const char* name;
        std::string text, message;
    };
    const Bad bad[] = {
        {"repeated", "x,x,y,z,vx,vy,vz,m\n0,0,0,0,0,0,0,1\n", ":1: the header names column 'x' twice (columns 1 and 2)"},
        {"galaxy", h + ",galaxy\n0,0,0,0,0,0,1,-1\n", ":2: column 'galaxy': '-1' is not a whole number from 0 to 65535"},
        {"float", h + "\n1e39,0,0,0,0,0,1\n", ":2: column 'x': '1e39' is beyond the range of float"},
        {"word", h + "\n0,0,0,0,0,0,abc\n", ":2: column 'm': 'abc' is not a number"},
    };
    for (const Bad& b : bad) {
        const std::string in = dir.file(std::string(b.name) + ".csv");
        test::write_text(in, b.text);
        for (const std::string& command : {"run --backend cpu --steps 1 --input " + in,
                                           "run --integrator hermite4 --backend cpu --t-end 0.01 --input " + in}) {
            const auto r = nbody_within_30s(command + " --out " + dir.file("o.csv"));
            EXPECT_EQ(1, r.exit_code) << command << "\n" << r.output;
            EXPECT_TRUE(has(r, in + b.message)) << command << "\n" << r.output;
        }
    }
}

TEST(ReadersCli, AWrappingSceneIsRefusedWithItsKey) {
    test::TempDir dir;
    test::write_text(dir.file("s.toml"),
                     "[scene]\nname = \"wrap\"\nbodies = 70\nunits = \"nbody\"\ndt = 0.01\nsoftening = 0.05\n"
                     "steps_per_frame = 1\n[camera]\ndistance = 10\n"
                     "[[galaxy]]\n[galaxy.plummer]\nmass = 1\nbodies = 9223372036854775807\nscale_radius = 1\n"
                     "[[galaxy]]\nposition = [5, 0, 0]\n[galaxy.plummer]\nmass = 1\nbodies = 9223372036854775807\n"
                     "scale_radius = 1\n");
    for (const char* command : {"run --backend cpu --steps 1 --scene ", "forces --backend cpu --scene "}) {
        const auto r = nbody_within_30s(std::string(command) + dir.file("s.toml") + " --out " + dir.file("o.csv"));
        EXPECT_EQ(1, r.exit_code) << command << r.output;
        EXPECT_TRUE(has(r, dir.file("s.toml") + ":13: galaxy[0].plummer.bodies: 9223372036854775807 is outside 0 to 1073741824"))
            << r.output;
        expect_no_exception_class(r);
    }
}

TEST(ReadersCli, ASnapshotsBadEtaIsBlamedOnTheFile) {
    test::TempDir dir;
    // A Hermite snapshot, then its eta changed in place (same length: "0.01" -> "abcd").
    const std::string snap = dir.file("h.nbsnap");
    auto r = nbody_within_30s("run --integrator hermite4 --backend cpu --scene " + test::source_dir() +
                              "/scenes/plummer.toml --bodies 16 --t-end 0.01 --eta 0.01 --out " + snap);
    ASSERT_EQ(0, r.exit_code) << r.output;
    std::string bytes = test::read_text(snap);
    const std::size_t at = bytes.find("hermite.eta");
    ASSERT_NE(std::string::npos, at);
    const std::size_t value = bytes.find("0.01", at);
    ASSERT_NE(std::string::npos, value);
    bytes.replace(value, 4, "abcd");
    // The checksum is over the bytes: a changed value reads as damage unless it is recomputed.
    std::uint64_t h = 0xcbf29ce484222325ull;
    for (std::size_t i = 0; i < bytes.size() - 8; ++i)
        h = (h ^ static_cast<unsigned char>(bytes[i])) * 0x100000001b3ull;
    for (int b = 0; b < 8; ++b) bytes[bytes.size() - 8 + std::size_t(b)] = char((h >> (8 * b)) & 0xff);
    test::write_text(snap, bytes);
    for (const char* command : {"run --backend cpu --steps 1 --input ", "run --integrator hermite4 --backend cpu --t-end 0.02 --input "}) {
        r = nbody_within_30s(std::string(command) + snap + " --out " + dir.file("o.csv"));
        EXPECT_EQ(1, r.exit_code) << command << r.output;
        EXPECT_TRUE(has(r, snap + ": invalid snapshot: metadata hermite.eta = 'abcd")) << command << r.output;
        EXPECT_FALSE(has(r, "--eta")) << r.output;
        expect_no_exception_class(r);
    }
}

}  // namespace
}  // namespace nbody
