// The panels' text (issue 33 items 8 and 9): rates labelled for what they are, and lines that
// never split a number or part it from its unit.

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "ui_text.hpp"

namespace nbody::app {
namespace {

std::string joined(const std::vector<RateLine>& lines) {
    std::string all;
    for (const RateLine& l : lines) all += l.name + ": " + l.value + "\n";
    return all;
}

TEST(RateLines, DirectGravityShowsNSquaredAsTheInteractionRate) {
    const std::string all = joined(rate_lines(7.36e9, 0, 20));
    EXPECT_NE(all.find("Interactions/s: 7.36 G interactions/s"), std::string::npos) << all;
    EXPECT_NE(all.find("147 GFLOP/s"), std::string::npos) << all;
    EXPECT_EQ(all.find("equiv"), std::string::npos) << all;
}

// Issue 33's example: 149 T interactions/s (N^2 over the tree's step time) is not what the tree
// computed: it is labelled as the direct-sum equivalent, the tree's own rate beside it.
TEST(RateLines, TheTreeCodesNSquaredRateIsTheDirectSumEquivalentBesideWhatItComputed) {
    const std::vector<RateLine> lines = rate_lines(149e12, 2.1e11, 20);
    const std::string all = joined(lines);
    EXPECT_NE(all.find("Direct-sum equiv.: 149 T interactions/s"), std::string::npos) << all;
    EXPECT_NE(all.find("Tree computed: 210 G interactions/s"), std::string::npos) << all;
    EXPECT_NE(all.find("2.98 PFLOP/s"), std::string::npos) << all;
    EXPECT_EQ(all.find("Interactions/s:"), std::string::npos) << "an unlabelled N^2 rate is left: " << all;
    for (const RateLine& l : lines) EXPECT_FALSE(l.help.empty()) << l.name;
}

TEST(RateLines, NoRateYetIsADash) { EXPECT_EQ(rate_lines(0, 0, 20).front().value, "-"); }

// Every character 1 unit wide.
float chars(const std::string& s) { return float(s.size()); }

TEST(WrapWords, NeverSplitsANumberNorPartsItFromItsUnit) {
    const std::string text = "Tree: build 0.55 ms, moments 0.12 ms, walk 7.97 ms; 2.02k nodes; list per body 815 bodies + 375 cells";
    for (float width = 8; width <= 60; ++width) {
        for (const std::string& line : wrap_words(text, width, chars)) {
            SCOPED_TRACE("width " + std::to_string(width) + ": '" + line + "'");
            EXPECT_NE(line.back(), '.') << "a line ends inside a number";
            EXPECT_FALSE(line.size() > 0 && std::isdigit(static_cast<unsigned char>(line.back())) && line != text)
                << "a number ends a line without its unit";
            EXPECT_NE(line.substr(0, 2), "ms") << "a unit starts a line without its number";
        }
    }
}

TEST(WrapWords, LinesFitTheWidthAndKeepEveryWord) {
    const std::string text = "The Milky Way and M31: a prograde first passage at 15 kpc throws out tidal tails, then merger";
    const std::vector<std::string> lines = wrap_words(text, 30, chars);
    std::string back;
    for (const std::string& l : lines) {
        EXPECT_LE(l.size(), 30u) << l;
        back += (back.empty() ? "" : " ") + l;
    }
    EXPECT_EQ(back, text);
}

TEST(WrapWords, KeepsNewlinesAndGivesALongWordItsOwnLine) {
    EXPECT_EQ(wrap_words("a\nb", 100, chars), (std::vector<std::string>{"a", "b"}));
    EXPECT_EQ(wrap_words("x averyveryverylongword y", 6, chars), (std::vector<std::string>{"x", "averyveryverylongword", "y"}));
}

}  // namespace
}  // namespace nbody::app
