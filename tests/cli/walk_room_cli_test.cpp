// --walk-room (view): what the tree walk leaves of the GPU to the CUDA sprites drawn beside the
// steps (nbody/sim/tree/walk_room.hpp). Its forms parse and print back alike; anything else is
// refused with the forms it takes, before a window or a GPU is touched. No GPU needed.

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

#include "nbody/sim/tree/walk_room.hpp"
#include "test_support.hpp"

namespace nbody {
namespace {

TEST(WalkRoomOption, ItsFormsParseAndPrintBack) {
    EXPECT_EQ(parse_walk_room("none").kind, WalkRoom::Kind::None);
    EXPECT_EQ(parse_walk_room("block").kind, WalkRoom::Kind::Block);
    const WalkRoom sliced = parse_walk_room("slices:8");
    EXPECT_EQ(sliced.kind, WalkRoom::Kind::Slices);
    EXPECT_EQ(sliced.slices, 8);
    for (const char* text : {"none", "block", "slices:2", "slices:8", "slices:64"})
        EXPECT_EQ(walk_room_name(parse_walk_room(text)), text);
    EXPECT_EQ(check_walk_room(WalkRoom{}), "");
}

TEST(WalkRoomOption, BadValuesAreRefusedWithTheFormsItTakes) {
    for (const char* text : {"", "blocks", "slices", "slices:", "slices:1", "slices:65", "slices:0", "slices:-3",
                             "slices:4x", "slices: 4", "slices:1e3", "Slices:4", "none "}) {
        SCOPED_TRACE(std::string("'") + text + "'");
        try {
            (void)parse_walk_room(text);
            ADD_FAILURE() << "accepted";
        } catch (const std::invalid_argument& e) {
            EXPECT_NE(std::string(e.what()).find("supported: none, block, slices:N (N 2 to 64)"), std::string::npos)
                << e.what();
        }
    }
    EXPECT_NE(check_walk_room(WalkRoom{WalkRoom::Kind::Slices, 1}), "");
    EXPECT_NE(check_walk_room(WalkRoom{WalkRoom::Kind::Slices, 65}), "");
}

TEST(WalkRoomOption, TheViewerRefusesABadValueAndDescribesTheOption) {
    const test::CommandResult refused = test::run_nbody("view --headless --frames 1 --walk-room slices:1");
    EXPECT_NE(refused.exit_code, 0) << refused.output;
    EXPECT_NE(refused.output.find("--walk-room"), std::string::npos) << refused.output;
    EXPECT_NE(refused.output.find("slices:N (N 2 to 64)"), std::string::npos) << refused.output;
    EXPECT_EQ(refused.output.find("terminate called"), std::string::npos) << refused.output;
    const test::CommandResult help = test::run_nbody("view --help");
    EXPECT_EQ(help.exit_code, 0) << help.output;
    EXPECT_NE(help.output.find("--walk-room none|block|slices:N"), std::string::npos) << help.output;
}

}  // namespace
}  // namespace nbody
