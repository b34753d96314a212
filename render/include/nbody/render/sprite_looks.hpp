#pragma once
// How wide and how bright a system's sprites are drawn, and how strong its glow, chosen from its
// number of bodies (issue 33 item 3): the one place that rule lives.

#include <cstddef>

namespace nbody::render {

struct RenderSettings;

// RenderSettings' point size (logical pixels at 720 lines), exposure and glow. The defaults are
// the looks of up to 64K bodies.
struct SpriteLooks {
    float point_size = 3.0f;
    float exposure = 1.0f;
    float glow = 1.5f;
};

// The looks a system of `bodies` bodies is drawn with unless the user chose otherwise.
SpriteLooks looks_for_bodies(std::size_t bodies);

// Which of the three the user set (command-line options, the Rendering panel): the rule leaves
// those alone.
struct LooksChosen {
    bool point_size = false;
    bool exposure = false;
    bool glow = false;
};

// Sets the looks `settings.looks_chosen` does not name to looks_for_bodies(bodies).
void apply_looks_for_bodies(RenderSettings& settings, std::size_t bodies);

}  // namespace nbody::render
