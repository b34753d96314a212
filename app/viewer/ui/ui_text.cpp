// The panels' text that needs no ImGui (ui_text.hpp).
#include "ui_text.hpp"

#include <cmath>
#include <cstdio>

namespace nbody::app {

std::string si(double value) {
    static const char* prefixes[] = {"", " k", " M", " G", " T", " P", " E"};
    int k = 0;
    double v = std::abs(value);
    while (v >= 1000.0 && k < 6) {
        v /= 1000.0;
        ++k;
    }
    char buf[32];
    std::snprintf(buf, sizeof buf,
                  v >= 100  ? "%.0f%s"
                  : v >= 10 ? "%.1f%s"
                            : "%.2f%s",
                  value < 0 ? -v : v, prefixes[k]);
    return buf;
}

std::string fps_text(double fps) {
    char buf[32];
    std::snprintf(buf, sizeof buf, fps < 10 ? "%.1f fps" : "%.0f fps", fps);
    return buf;
}

std::string bytes_text(double bytes) {
    static const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    int k = 0;
    while (bytes >= 1024.0 && k < 4) {
        bytes /= 1024.0;
        ++k;
    }
    char buf[32];
    std::snprintf(buf, sizeof buf, k == 0 ? "%.0f %s" : "%.1f %s", bytes, units[k]);
    return buf;
}
std::vector<RateLine> rate_lines(double n_squared_per_second, double computed_per_second, int flops_per_interaction) {
    const auto rate = [](double v, const char* unit) { return v > 0 ? si(v) + unit : std::string("-"); };
    if (!(computed_per_second > 0))
        return {{"Interactions/s", rate(n_squared_per_second, " interactions/s"), ""},
                {"FLOP/s", rate(n_squared_per_second * flops_per_interaction, "FLOP/s"), ""}};
    return {{"Tree computed", rate(computed_per_second, " interactions/s"),
             "The bodies and cells on every body's interaction list, per second: what the tree code really evaluated."},
            {"Direct-sum equiv.", rate(n_squared_per_second, " interactions/s"),
             "N^2 over the step time: the rate an all-pairs kernel would need to take a step as fast. The tree "
             "computed far fewer interactions (the line above)."},
            {"Equiv. FLOP/s", rate(n_squared_per_second * flops_per_interaction, "FLOP/s"),
             "The direct-sum equivalent in FLOP/s at the FLOPs per interaction chosen below."}};
}

namespace {

bool ends_with_digit(const std::string& s) { return !s.empty() && s.back() >= '0' && s.back() <= '9'; }

// One paragraph's words, a word after one ending in a digit joined to it (a number and its unit).
std::vector<std::string> unbreakable_groups(const std::string& paragraph) {
    std::vector<std::string> groups;
    std::size_t at = 0;
    while (at <= paragraph.size()) {
        const std::size_t space = std::min(paragraph.find(' ', at), paragraph.size());
        const std::string word = paragraph.substr(at, space - at);
        at = space + 1;
        if (word.empty()) continue;
        if (!groups.empty() && ends_with_digit(groups.back()))
            groups.back() += " " + word;
        else
            groups.push_back(word);
    }
    return groups;
}

}  // namespace

std::vector<std::string> wrap_words(const std::string& text, float width, const std::function<float(const std::string&)>& measure) {
    std::vector<std::string> lines;
    std::size_t at = 0;
    while (at <= text.size()) {
        const std::size_t end = std::min(text.find('\n', at), text.size());
        std::string line;
        for (const std::string& group : unbreakable_groups(text.substr(at, end - at))) {
            const std::string longer = line.empty() ? group : line + " " + group;
            if (line.empty() || measure(longer) <= width) {
                line = longer;
            } else {
                lines.push_back(line);
                line = group;
            }
        }
        lines.push_back(line);
        at = end + 1;
    }
    return lines;
}

}  // namespace nbody::app
