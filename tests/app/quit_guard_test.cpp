// Esc and closing the window ask before quitting when the simulation ran since the last save
// (issue 33, item 5); a second Esc quits; scripted runs never ask.

#include <gtest/gtest.h>

#include "quit_guard.hpp"

namespace nbody::app {
namespace {

TEST(QuitGuard, AsksWhenTheSimulationRanSinceTheLastSave) {
    EXPECT_EQ(decide_quit(true, false, true, true), QuitDecision::Ask);
}

TEST(QuitGuard, QuitsAtOnceWhenNothingWouldBeLost) {
    EXPECT_EQ(decide_quit(true, false, false, true), QuitDecision::Quit);
}

TEST(QuitGuard, AskingAgainQuits) {
    EXPECT_EQ(decide_quit(true, true, true, true), QuitDecision::Quit);
}

TEST(QuitGuard, ScriptedRunsNeverAsk) {
    EXPECT_EQ(decide_quit(true, false, true, false), QuitDecision::Quit);
}

TEST(QuitGuard, NoQuitAskedStays) {
    EXPECT_EQ(decide_quit(false, true, true, true), QuitDecision::Stay);
    EXPECT_EQ(decide_quit(false, false, true, true), QuitDecision::Stay);
}

}  // namespace
}  // namespace nbody::app
