#pragma once
// Main-sequence stars, for showing a star cluster by stellar mass (issue 33): a body's mass in
// solar masses gives its effective temperature, which the renderer turns into a blackbody colour.

namespace nbody {
struct State;
struct UnitSystem;
}

namespace nbody::ic {

// The lightest and heaviest masses the relation covers, solar masses (hydrogen burning limit to
// the top of a Kroupa spectrum); outside it the ends hold.
inline constexpr double kStellarMassMin = 0.08, kStellarMassMax = 100.0;

// Effective temperature in kelvin of a zero-age main-sequence star of `solar_masses`:
// interpolated in log-log through tabulated values (an M8 dwarf 2,700 K, the Sun 5,800 K, a B0
// star 30,000 K, an early O star 45,000 K), clamped to the table's ends.
double main_sequence_temperature(double solar_masses);

// Expected mass of one star of the Kroupa (2001) spectrum between `lo` and `hi`, solar masses.
double kroupa_mean_mass(double lo, double hi);

// Solar masses per mass unit of a system in `units`: the units' when known (galactic; an N-body cluster with a
// Kroupa spectrum, whose drawn stars were rescaled to its mass), else such that the mean body is
// one solar mass (an equal-mass cluster shows sun-like stars).
double solar_masses_per_unit(const UnitSystem& units, const State& state);

}  // namespace nbody::ic
