#pragma once
// The panels' text that needs no ImGui, so that tests can read it: numbers with their units and
// prefixes, the Kernel panel's rates, and line breaking that never splits a number.

#include <functional>
#include <string>
#include <vector>

namespace nbody::app {

// "1.41 T", "28.2 G": value with an SI prefix, three significant digits.
std::string si(double value);
// "4.2 fps", "61 fps".
std::string fps_text(double fps);
// "0 B", "12.0 MiB".
std::string bytes_text(double bytes);

struct RateLine {
    std::string name, value, help;  // help: a tooltip, or empty
};
// The Kernel panel's throughput: `n_squared_per_second` is N^2 over the step time; `computed_per_second`
// the interactions the tree really evaluated per second (0 under direct gravity). With the tree
// code N^2 is not what was computed: it is labelled as the direct-sum equivalent and the tree's
// own rate shown beside it (issue 33 item 9).
std::vector<RateLine> rate_lines(double n_squared_per_second, double computed_per_second, int flops_per_interaction);

// `text` broken into lines no wider than `width` (as `measure` gives widths), only at spaces,
// and never at a space after a digit: "walk 7.97 ms" may go to the next line whole or as
// "walk" / "7.97 ms", never "7." / "97 ms" or "7.97" / "ms". A word wider than `width` has a
// line of its own. Newlines in `text` are kept.
std::vector<std::string> wrap_words(const std::string& text, float width, const std::function<float(const std::string&)>& measure);

}  // namespace nbody::app
