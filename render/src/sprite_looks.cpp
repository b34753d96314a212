#include "nbody/render/sprite_looks.hpp"

#include <algorithm>
#include <cmath>

#include "nbody/render/particle_renderer.hpp"

namespace nbody::render {

namespace {

// SpriteLooks' defaults: the looks of 8K-64K bodies, tuned by eye on the scenes (docs/VIEWER.md,
// docs/SCENES.md), kept as they were up to kLooksFromBodies.
constexpr SpriteLooks kSmallLooks{};
constexpr float kLooksFromBodies = 65536.0f;
constexpr float kThinnestPointSize = 1.5f;  // half the small scenes' width
constexpr float kFaintestGlow = 0.3f;

}  // namespace

// Each particle's light is already 1/N of the system's (ParticleRenderer::sprite_intensity), so
// the total light of a galaxy does not depend on N; what does is how it is spread. Past 64K bodies:
// - The sprite is the kernel of a density estimate of the surface brightness, and the width that
//   minimises a kernel estimate's mean integrated squared error in two dimensions goes as
//   N^(-1/(2+4)) (Silverman 1986): thinner sprites resolve the arms and tails that a million bodies
//   sample, where 3 px sprites blur them into one smooth glow. Never below kThinnestPointSize (and
//   the renderer draws nothing narrower than 3 physical pixels: at 720 lines the width changes
//   nothing, at 1080p 4.5 px go to 3, at 4K 9 to 6).
// - A sprite's light is its centre value times its area: the exposure grows as 1 / width^2 so
//   that each particle keeps its light and the galaxy its total.
// - The glow (the light of a region spread over rings up to a tenth of the frame) fills the dark
//   between sparse sprites, so that 16K stars read as a disk; a million sprites fill it themselves,
//   and the glow only smears a bright bulge over the disk round it (the "smooth blob" of 1M bodies).
//   It falls as the mean distance between neighbouring sprites on the screen, N^(-1/2), to
//   kFaintestGlow, which keeps some bloom round the bulges.
SpriteLooks looks_for_bodies(std::size_t bodies) {
    const float more = std::max(float(bodies) / kLooksFromBodies, 1.0f);
    SpriteLooks looks;
    looks.point_size = std::max(kSmallLooks.point_size * std::pow(more, -1.0f / 6.0f), kThinnestPointSize);
    const float thinner = kSmallLooks.point_size / looks.point_size;
    looks.exposure = kSmallLooks.exposure * thinner * thinner;
    looks.glow = std::max(kSmallLooks.glow / std::sqrt(more), kFaintestGlow);
    return looks;
}

void apply_looks_for_bodies(RenderSettings& settings, std::size_t bodies) {
    const SpriteLooks looks = looks_for_bodies(bodies);
    if (!settings.looks_chosen.point_size) settings.point_size = looks.point_size;
    if (!settings.looks_chosen.exposure) settings.exposure = looks.exposure;
    if (!settings.looks_chosen.glow) settings.glow = looks.glow;
}

}  // namespace nbody::render
