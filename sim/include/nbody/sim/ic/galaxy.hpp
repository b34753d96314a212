#pragma once
// Disk galaxies in equilibrium: an exponential disk with a sech^2 vertical profile, a Hernquist
// bulge and a Hernquist dark halo, each sampled with its own particle count (Hernquist 1993,
// ApJS 86, 389; Springel, Di Matteo & Hernquist 2005). Units: G = 1 (see docs/SCENES.md).
//
// Spheres (bulge, halo). Radii come from the inverted cumulative mass of a Hernquist profile
// truncated at max_radius. Velocities are isotropic, drawn from each sphere's own distribution
// function f(E) in the potential of ALL components, obtained by Eddington's inversion. For that
// potential (and the spheres' Jeans dispersions, kept for diagnostics,
//     sigma_r^2(r) = 1/rho(r) * Int_r^rmax rho(r') M_tot(r') / r'^2 dr')
// the disk is replaced by a sphere holding the same mass within r (Springel, Di Matteo &
// Hernquist 2005); by Gauss's theorem that gives the exact force averaged over each sphere.

// Disk. Surface density Sigma(R) = M / (2 pi Rd^2) exp(-R / Rd) (renormalised for the cut at
// max_radius), rho(R, z) = Sigma(R) / (2 z0) sech^2(z / z0). In the midplane
//     vc^2(R) = M_sph(R) / R + vc_disk^2(R),
// the disk's own term being the razor-thin exponential disk's exact
//     4 pi Sigma0 Rd y^2 [I0(y) K0(y) - I1(y) K1(y)],   y = R / (2 Rd)   (Freeman 1970)
// less the effect of its sech^2 thickness, integrated from the Hankel form of its potential
// (the thickness lowers vc_disk^2 by 8% at 1.5 Rd and 20% at 0.3 Rd when z0 = 0.12 Rd).
// kappa^2 = R dOmega^2/dR + 4 Omega^2 is taken from vc^2 numerically. Then
//     sigma_R   = Q * 3.36 Sigma / kappa                    (Toomre Q, constant with radius)
//     sigma_phi = sigma_R * kappa / (2 Omega)               (epicyclic ratio)
//     sigma_z^2 = pi Sigma z0 + Int_0^inf sech^2(z/z0) F_z,sph(R, z) dz
//                                                          (vertical Jeans equation of an
//                                                           isothermal layer: its own pull plus
//                                                           the bulge's and halo's)
//     vphi^2    = vc^2(R, z) + sigma_R^2 [1 - kappa^2/(4 Omega^2) + dln(Sigma sigma_R^2)/dln R]
// the last being the asymmetric-drift correction from the radial Jeans equation (set to zero
// where it would go negative, in the hot centre of a bulgeless disk), with vc^2(R, z) the
// spheres' pull at the particle's height plus the disk's midplane term.
//
// Softening. Given the run's Plummer softening, every force above is the softened one: the
// spheres' pull by summing the exact softened potentials of thin shells, the disk's in its Hankel
// integral by treating each layer at height z as one at sqrt(z^2 + eps^2), which is exact for
// Plummer softening. Only the disk's vertical self-gravity (pi Sigma z0) stays unsoftened.

#include <cstddef>
#include <cstdint>
#include <vector>

#include "nbody/sim/state.hpp"

namespace nbody::ic {

namespace detail {
class Rng;
}

struct DiskParams {
    double mass = 0.0;           // 0 with bodies 0: no disk
    std::size_t bodies = 0;
    double scale_length = 1.0;   // Rd
    double scale_height = 0.1;   // z0 of the sech^2(z / z0) profile
    double max_radius = 0.0;     // cut; 0 means 8 Rd (0.3% of an untruncated disk's mass lies beyond)
    double toomre_q = 1.5;
};

struct SphereParams {            // a Hernquist bulge or halo
    double mass = 0.0;           // the mass inside max_radius, which all particles together carry
    std::size_t bodies = 0;
    double scale_radius = 1.0;   // Hernquist a; the half-mass radius of the untruncated profile is 2.414 a
    double max_radius = 0.0;     // cut; 0 means 10 a
};

struct GalaxyParams {
    DiskParams disk;
    SphereParams bulge;
    SphereParams halo;
    // Plummer softening of the run the galaxy is made for: forces, hence circular speeds and
    // dispersions, are those of the softened potential. 0: Newtonian.
    double softening = 0.0;
    std::uint64_t seed = 1;
};

// Throws std::invalid_argument naming the first bad field (negative mass, zero scale, mass
// without bodies or bodies without mass, an empty galaxy).
void validate(const GalaxyParams& params);

// The smooth model behind the sampler: the functions the particles are drawn from, kept for
// diagnostics (rotation curves, Q profiles) and tests. Tables are built once, on a log grid.
class GalaxyModel {
public:
    explicit GalaxyModel(const GalaxyParams& params);

    const GalaxyParams& params() const { return params_; }
    double total_mass() const;

    // Mass within radius r, the disk counted as the sphere of the same enclosed mass.
    double enclosed_mass(double r) const;
    double disk_surface_density(double R) const;

    // Midplane circular speed, angular and epicyclic frequencies.
    double circular_velocity(double R) const;
    double omega(double R) const;
    double kappa(double R) const;

    // Disk kinematics the sampler uses.
    double sigma_R(double R) const;
    double sigma_phi(double R) const;
    double sigma_z(double R) const;
    double mean_vphi(double R) const;            // in the midplane
    double mean_vphi(double R, double z) const;  // at height z
    double toomre_q(double R) const { return sigma_R(R) * kappa(R) / (3.36 * disk_surface_density(R)); }

    // Isotropic one-dimensional dispersion of the bulge or the halo at radius r.
    double bulge_dispersion(double r) const;
    double halo_dispersion(double r) const;
    double escape_speed(double r) const;  // sqrt(2 |Phi(r)|), spherical approximation
    // r^2 |dPhi/dr| of all components in the spherical approximation, softened: the mass that
    // would pull as hard from the centre (the enclosed mass when softening is 0).
    double effective_enclosed_mass(double r) const;

    // 2 pi R / vc(R): the time a circular orbit at R takes.
    double rotation_period(double R) const;

    // Draws the particles. Disk first, then bulge, then halo; labels Disk, Bulge, Halo; galaxy 0.
    // The galaxy's centre of mass is at rest at the origin and the disk spins about +z.
    State sample() const;

private:
    double interpolate(const std::vector<double>& table, double r) const;
    double disk_vc2(double R) const;
    double sphere_enclosed(const SphereParams& s, double r) const;
    double sphere_density(const SphereParams& s, double r) const;
    void build_pull_tables();
    struct SphereDf {
        std::vector<double> f;   // Eddington f(E) at E = -Phi of each grid radius
        double psi_cut = 0.0;    // -Phi at the sphere's cut: the lowest energy drawn
    };
    void build_distribution_function(const SphereParams& s, SphereDf& df);
    double distribution_at(const SphereDf& df, double E) const;
    Vec3d sample_sphere_velocity(const SphereDf& df, double r, detail::Rng& rng) const;
    double pull_spheres(double r) const;

    GalaxyParams params_;
    double disk_rmax_ = 0, disk_norm_ = 1;  // disk_norm_: 1 / (mass fraction inside the cut)
    // Log-spaced radius grid and the tables on it.
    double log_rmin_ = 0, log_step_ = 1;
    std::vector<double> radius_, vc2_, vc2_disk_, kappa2_, sigma_r_disk_, sigma_z_disk_, drift_;
    std::vector<double> bulge_sigma_, halo_sigma_, potential_, pull_spheres_, pull_total_;
    SphereDf bulge_df_, halo_df_;
};

// GalaxyModel(params).sample().
State make_galaxy(const GalaxyParams& params);

// Half-mass radius (spherical, about `centre`) of the particles with component `which`; of all
// particles when `which` is Unspecified. For tests and the model report.
double half_mass_radius(const State& state, Component which, const Vec3d& centre = {});

}  // namespace nbody::ic
