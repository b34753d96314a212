#include "nbody/render/colormap.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace nbody::render {

namespace {

// Eleven sRGB samples at 0, 0.1, ..., 1 of each map (matplotlib's inferno, viridis and plasma;
// ice-fire is ours: cold blue through white to orange). Piecewise-linear between samples is
// indistinguishable from the full tables at the sizes particles are drawn.
using Samples = std::array<glm::vec3, 11>;

constexpr Samples kInferno{{{0.001f, 0.000f, 0.014f},
                            {0.087f, 0.045f, 0.225f},
                            {0.258f, 0.039f, 0.406f},
                            {0.416f, 0.090f, 0.433f},
                            {0.578f, 0.148f, 0.404f},
                            {0.736f, 0.216f, 0.330f},
                            {0.865f, 0.317f, 0.226f},
                            {0.955f, 0.469f, 0.100f},
                            {0.988f, 0.645f, 0.040f},
                            {0.964f, 0.844f, 0.273f},
                            {0.988f, 0.998f, 0.645f}}};
constexpr Samples kViridis{{{0.267f, 0.005f, 0.329f},
                            {0.283f, 0.141f, 0.458f},
                            {0.254f, 0.265f, 0.530f},
                            {0.207f, 0.372f, 0.553f},
                            {0.164f, 0.471f, 0.558f},
                            {0.128f, 0.567f, 0.551f},
                            {0.135f, 0.659f, 0.518f},
                            {0.267f, 0.749f, 0.441f},
                            {0.478f, 0.821f, 0.318f},
                            {0.741f, 0.873f, 0.150f},
                            {0.993f, 0.906f, 0.144f}}};
constexpr Samples kPlasma{{{0.050f, 0.030f, 0.528f},
                           {0.254f, 0.014f, 0.615f},
                           {0.417f, 0.001f, 0.658f},
                           {0.562f, 0.051f, 0.642f},
                           {0.692f, 0.165f, 0.565f},
                           {0.798f, 0.280f, 0.470f},
                           {0.881f, 0.393f, 0.383f},
                           {0.949f, 0.518f, 0.296f},
                           {0.988f, 0.652f, 0.211f},
                           {0.988f, 0.809f, 0.145f},
                           {0.940f, 0.975f, 0.131f}}};
constexpr Samples kIceFire{{{0.05f, 0.10f, 0.35f},
                            {0.10f, 0.25f, 0.65f},
                            {0.20f, 0.45f, 0.90f},
                            {0.45f, 0.68f, 1.00f},
                            {0.72f, 0.86f, 1.00f},
                            {0.95f, 0.95f, 0.95f},
                            {1.00f, 0.85f, 0.62f},
                            {1.00f, 0.68f, 0.35f},
                            {0.98f, 0.50f, 0.18f},
                            {0.90f, 0.30f, 0.08f},
                            {0.75f, 0.12f, 0.04f}}};

const Samples& samples(ColorMap map) {
    switch (map) {
        case ColorMap::Inferno:
            return kInferno;
        case ColorMap::Viridis:
            return kViridis;
        case ColorMap::IceFire:
            return kIceFire;
        case ColorMap::Plasma:
            return kPlasma;
    }
    throw std::invalid_argument("unknown colour map " + std::to_string(int(map)) +
                                "; supported: inferno, viridis, ice-fire, plasma");
}

}  // namespace

float srgb_to_linear(float c) { return c <= 0.04045f ? c / 12.92f : std::pow((c + 0.055f) / 1.055f, 2.4f); }

glm::vec3 srgb_to_linear(const glm::vec3& c) {
    return {srgb_to_linear(c.r), srgb_to_linear(c.g), srgb_to_linear(c.b)};
}

std::vector<glm::vec3> colormap_table(ColorMap map, int n) {
    const Samples& s = samples(map);
    n = std::max(n, 2);
    std::vector<glm::vec3> table(static_cast<std::size_t>(n));
    for (int i = 0; i < n; ++i) {
        const float t = float(i) / float(n - 1) * 10.0f;
        const int k = std::min(int(t), 9);
        const glm::vec3 srgb = s[k] + (s[k + 1] - s[k]) * (t - float(k));
        table[i] = srgb_to_linear(srgb);
    }
    return table;
}

}  // namespace nbody::render
