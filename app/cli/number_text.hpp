#pragma once
// Numbers in option text ("--render-scale 0.5", "--camera orbit:0.25"): all of the text or nothing.

#include <cmath>
#include <exception>
#include <optional>
#include <string>

namespace nbody::app {

// `text` as a float when the whole of it is one finite number ("0.5", "-2e3"); none for "",
// "0.5x", "nan", "inf" or a number out of float's range.
inline std::optional<float> whole_float(const std::string& text) {
    std::size_t used = 0;
    float value = 0;
    try {
        value = std::stof(text, &used);
    } catch (const std::exception&) {
        return std::nullopt;
    }
    if (used != text.size() || !std::isfinite(value)) return std::nullopt;
    return value;
}

}  // namespace nbody::app
