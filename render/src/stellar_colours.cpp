#include "nbody/render/stellar_colours.hpp"

#include <algorithm>
#include <cmath>

#include "nbody/sim/ic/stellar.hpp"

namespace nbody::render {
namespace {

// One lobe of the CIE 1931 fit: a Gaussian with different widths either side of its peak.
double lobe(double nm, double peak, double below, double above) {
    const double t = (nm - peak) * (nm < peak ? below : above);
    return std::exp(-0.5 * t * t);
}

glm::dvec3 cie_xyz(double nm) {
    return {1.056 * lobe(nm, 599.8, 0.0264, 0.0323) + 0.362 * lobe(nm, 442.0, 0.0624, 0.0374) -
                0.065 * lobe(nm, 501.1, 0.0490, 0.0382),
            0.821 * lobe(nm, 568.8, 0.0213, 0.0247) + 0.286 * lobe(nm, 530.9, 0.0613, 0.0322),
            1.217 * lobe(nm, 437.0, 0.0845, 0.0278) + 0.681 * lobe(nm, 459.0, 0.0385, 0.0725)};
}

// Planck's spectral radiance, up to a constant (only the colour is wanted).
double planck(double nm, double kelvin) {
    const double m = nm * 1e-9;
    return 1.0 / (std::pow(m, 5) * (std::exp(1.4387769e-2 / (m * kelvin)) - 1.0));
}

}  // namespace

glm::vec3 blackbody_colour(double kelvin) {
    glm::dvec3 xyz(0.0);
    for (double nm = 380; nm <= 780; nm += 5) xyz += cie_xyz(nm) * planck(nm, kelvin);
    const glm::dvec3 rgb{3.2406 * xyz.x - 1.5372 * xyz.y - 0.4986 * xyz.z,
                         -0.9689 * xyz.x + 1.8758 * xyz.y + 0.0415 * xyz.z,
                         0.0557 * xyz.x - 0.2040 * xyz.y + 1.0570 * xyz.z};
    const glm::dvec3 clipped = glm::max(rgb, glm::dvec3(0.0));  // outside the sRGB gamut: its nearest edge
    const double top = std::max({clipped.r, clipped.g, clipped.b});
    return top > 0 ? glm::vec3(clipped / top) : glm::vec3(1.0f);
}

float stellar_table_position(double m) {
    const double lo = std::log(ic::kStellarMassMin), hi = std::log(ic::kStellarMassMax);
    return float(std::clamp((std::log(std::max(m, 1e-30)) - lo) / (hi - lo), 0.0, 1.0));
}

std::vector<glm::vec3> stellar_colour_table(int n) {
    std::vector<glm::vec3> table(std::size_t(std::max(n, 2)));
    const double lo = std::log(ic::kStellarMassMin), hi = std::log(ic::kStellarMassMax);
    for (std::size_t i = 0; i < table.size(); ++i) {
        const double m = std::exp(lo + (hi - lo) * double(i) / double(table.size() - 1));
        table[i] = blackbody_colour(ic::main_sequence_temperature(m));
    }
    return table;
}

float stellar_size_factor(double m) { return float(std::clamp(std::cbrt(std::max(m, 0.0)), 0.6, 3.0)); }

}  // namespace nbody::render
