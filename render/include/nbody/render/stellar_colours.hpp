#pragma once
// Colours of stars by mass (issue 33): a main-sequence star's effective temperature
// (sim's ic/stellar.hpp) seen as a blackbody, for ColourMode::Mass and its legend.

#include <glm/glm.hpp>
#include <vector>

namespace nbody::render {

// The colour of a blackbody at `kelvin` in linear sRGB, brightest channel 1: Planck's law
// integrated against the CIE 1931 observer (Wyman, Sloan & Shirley 2013's fit) every 5 nm over
// 380-780 nm, then XYZ to sRGB. A 2,700 K dwarf is orange, the Sun nearly white, 30,000 K blue-white.
glm::vec3 blackbody_colour(double kelvin);

// `n` colours for masses spaced evenly in log from ic::kStellarMassMin to kStellarMassMax: the
// texture ColourMode::Mass samples at stellar_table_position(mass).
std::vector<glm::vec3> stellar_colour_table(int n);
float stellar_table_position(double solar_masses);  // 0 at the lightest, 1 at the heaviest, clamped

// A star's sprite width and light relative to a solar-mass star's: width grows as M^(1/3) (0.6 to
// 3), light with the sprite's area, so the rare heavy stars stand out as they do in a cluster.
float stellar_size_factor(double solar_masses);

}  // namespace nbody::render
