#include "nbody/sim/ic/galaxy.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <stdexcept>
#include <string>
#include <utility>

#include "random.hpp"

namespace nbody::ic {
namespace {

constexpr double kPi = std::numbers::pi;
// 2048 log-spaced radii over ~6 decades: a step of 0.7% in radius, far finer than the particle
// noise of any sampled galaxy, and the tables cost under a millisecond to build.
constexpr int kGridPoints = 2048;

double disk_cut(const DiskParams& d) { return d.max_radius > 0 ? d.max_radius : 8.0 * d.scale_length; }
double sphere_cut(const SphereParams& s) { return s.max_radius > 0 ? s.max_radius : 10.0 * s.scale_radius; }

// Unit-mass Hernquist density, and the mass inside r of the profile lowered by its value at the cut.
double hernquist_unit_density(double r, double a) { return a / (2.0 * kPi * r * std::pow(r + a, 3)); }
double lowered_unit_mass(double r, double a, double cut) {
    const double x = r / (r + a);
    return x * x - 4.0 / 3.0 * kPi * hernquist_unit_density(cut, a) * r * r * r;
}

// Mass fraction of an untruncated exponential disk inside radius R.
double disk_fraction(double R, double Rd) {
    const double x = R / Rd;
    return 1.0 - (1.0 + x) * std::exp(-x);
}

// J1 by the rational approximations of Abramowitz & Stegun 9.4.4 and 9.4.6 (absolute error
// below 4e-8): 20 ns a call against 5 us for libstdc++'s std::cyl_bessel_j, and the thick-disk
// integral below needs a few million of them.
double bessel_j1(double x) {
    const double ax = std::abs(x);
    if (ax <= 3.0) {
        const double y = (x / 3.0) * (x / 3.0);
        return x * (0.5 + y * (-0.56249985 + y * (0.21093573 + y * (-0.03954289 + y * (0.00443319 + y * (-0.00031761 + y * 0.00001109))))));
    }
    const double t = 3.0 / ax;
    const double f = 0.79788456 + t * (0.00000156 + t * (0.01659667 + t * (0.00017105 + t * (-0.00249511 + t * (0.00113653 - t * 0.00020033)))));
    const double th = ax - 2.35619449 + t * (0.12499612 + t * (0.00005650 + t * (-0.00637879 + t * (0.00074348 + t * (0.00079824 - t * 0.00029166)))));
    const double r = f * std::cos(th) / std::sqrt(ax);
    return x < 0 ? -r : r;
}

// Digamma for x > 0: recurrence up to x >= 6, then the asymptotic series (error < 1e-12).
double digamma(double x) {
    double r = 0.0;
    while (x < 6.0) {
        r -= 1.0 / x;
        x += 1.0;
    }
    const double f = 1.0 / (x * x);
    return r + std::log(x) - 0.5 / x - f * (1.0 / 12 - f * (1.0 / 120 - f * (1.0 / 252 - f * (1.0 / 240 - f / 132))));
}

// Int sech^2(z/z0)/(2 z0) exp(-k|z|) dz with a = k z0: the factor by which a sech^2 layer's
// midplane potential at wavenumber k falls short of a razor-thin sheet's.
// Sum form 4 sum (-1)^(n+1) n / (2n + a), summed in closed form with digamma.
double sech2_layer_factor(double a) {
    if (a < 1e-8) return 1.0;
    return 1.0 - 0.5 * a * (digamma(1.0 + 0.25 * a) - digamma(0.5 + 0.25 * a));
}

void check_sphere(const SphereParams& s, const char* name) {
    const std::string n(name);
    if (!(s.mass >= 0) || !std::isfinite(s.mass)) throw std::invalid_argument(n + ": mass must be >= 0 and finite");
    if (s.mass > 0 && s.bodies == 0) throw std::invalid_argument(n + ": has mass but no bodies");
    if (s.bodies > 0 && s.mass == 0) throw std::invalid_argument(n + ": has bodies but no mass");
    if (s.bodies == 0) return;
    if (!(s.scale_radius > 0) || !std::isfinite(s.scale_radius)) throw std::invalid_argument(n + ": scale_radius must be > 0");
    if (s.max_radius < 0 || !std::isfinite(s.max_radius)) throw std::invalid_argument(n + ": max_radius must be >= 0");
}

}  // namespace

void validate(const GalaxyParams& p) {
    const DiskParams& d = p.disk;
    if (!(d.mass >= 0) || !std::isfinite(d.mass)) throw std::invalid_argument("disk: mass must be >= 0 and finite");
    if (d.mass > 0 && d.bodies == 0) throw std::invalid_argument("disk: has mass but no bodies");
    if (d.bodies > 0 && d.mass == 0) throw std::invalid_argument("disk: has bodies but no mass");
    if (d.bodies > 0) {
        if (!(d.scale_length > 0) || !std::isfinite(d.scale_length)) throw std::invalid_argument("disk: scale_length must be > 0");
        if (!(d.scale_height > 0) || !std::isfinite(d.scale_height)) throw std::invalid_argument("disk: scale_height must be > 0");
        if (!(d.toomre_q > 0) || !std::isfinite(d.toomre_q)) throw std::invalid_argument("disk: toomre_q must be > 0");
        if (d.max_radius < 0 || !std::isfinite(d.max_radius)) throw std::invalid_argument("disk: max_radius must be >= 0");
    }
    check_sphere(p.bulge, "bulge");
    check_sphere(p.halo, "halo");
    if (d.bodies + p.bulge.bodies + p.halo.bodies == 0) throw std::invalid_argument("galaxy has no bodies");
    if (!(p.softening >= 0) || !std::isfinite(p.softening)) throw std::invalid_argument("softening must be >= 0");
}

GalaxyModel::GalaxyModel(const GalaxyParams& params) : params_(params) {
    validate(params_);
    const DiskParams& d = params_.disk;
    const bool has_disk = d.bodies > 0;
    double smallest = 1e300, largest = 0;
    if (has_disk) {
        disk_rmax_ = disk_cut(d);
        disk_norm_ = 1.0 / disk_fraction(disk_rmax_, d.scale_length);
        smallest = std::min({smallest, d.scale_length, d.scale_height});
        largest = std::max(largest, disk_rmax_);
    }
    for (const SphereParams* s : {&params_.bulge, &params_.halo}) {
        if (s->bodies == 0) continue;
        smallest = std::min(smallest, s->scale_radius);
        largest = std::max(largest, sphere_cut(*s));
    }
    const double rmin = 1e-4 * smallest, rmax = 1.01 * largest;
    log_rmin_ = std::log(rmin);
    log_step_ = (std::log(rmax) - log_rmin_) / (kGridPoints - 1);
    radius_.resize(kGridPoints);
    for (int i = 0; i < kGridPoints; ++i) radius_[i] = std::exp(log_rmin_ + i * log_step_);

    const int n = kGridPoints;
    build_pull_tables();
    // Potential of the spherical approximation, integrated inward from the grid's edge, beyond
    // which all mass is enclosed: Phi(r) = -M/rmax - Int_r^rmax M(r')/r'^2 dr'.
    potential_.assign(n, 0.0);
    potential_[n - 1] = -total_mass() / radius_[n - 1];
    for (int i = n - 2; i >= 0; --i) {
        const double f0 = pull_total_[i] / radius_[i], f1 = pull_total_[i + 1] / radius_[i + 1];
        potential_[i] = potential_[i + 1] - 0.5 * (f0 + f1) * log_step_;  // dr = r dln r
    }

    // Jeans integrals for the spheres, in the total mass of every component.
    auto jeans = [&](const SphereParams& s, std::vector<double>& sigma) {
        sigma.assign(n, 0.0);
        if (s.bodies == 0) return;
        const double cut = sphere_cut(s);
        auto integrand = [&](int i) {
            const double r = radius_[i];
            return r > cut ? 0.0 : sphere_density(s, r) * pull_total_[i] / r;
        };
        double integral = 0.0;
        for (int i = n - 2; i >= 0; --i) {
            integral += 0.5 * (integrand(i) + integrand(i + 1)) * log_step_;
            const double rho = sphere_density(s, radius_[i]);
            sigma[i] = rho > 0 ? std::sqrt(integral / rho) : 0.0;
        }
    };
    jeans(params_.bulge, bulge_sigma_);
    jeans(params_.halo, halo_sigma_);
    build_distribution_function(params_.bulge, bulge_df_);
    build_distribution_function(params_.halo, halo_df_);

    // Midplane circular speed. The disk's term is the razor-thin disk's exact one plus the
    // correction for its sech^2 thickness, from the Hankel-transform form of its potential:
    //   vc_disk^2(R) = R Int_0^inf k J1(kR) S(k) I(k z0) dk,   S(k) = M (1 + k^2 Rd^2)^(-3/2),
    // I the layer factor above (I = 1 for the thin disk). At z0 = 0.12 Rd the thickness lowers
    // vc_disk^2 by 8% at 1.5 Rd and 20% at 0.3 Rd; ignoring it leaves the inner disk spinning
    // too fast, and it expands by ~10% in its first epicycle.
    vc2_disk_.assign(n, 0.0);
    if (has_disk) {
        const double Rd = d.scale_length, z0 = d.scale_height, mass = d.mass * disk_norm_;
        const double r_hi = std::min(1.5 * disk_rmax_, radius_.back());
        constexpr int kCoarse = 96;
        // k beyond max(40/Rd, 25/z0) adds below 1e-4 of vc^2; the step resolves J1's
        // oscillation at the largest radius (period 2 pi / R in k).
        const double kmax = std::max(40.0 / Rd, 25.0 / z0);
        const int nk = 2 * std::clamp(int(kmax * r_hi / 0.5 / 2), 200, 20000);  // even, for Simpson
        const double dk = kmax / nk;
        // Softened, a particle at height z pulls on the midplane exactly as an unsoftened one at
        // height sqrt(z^2 + eps^2) would, so the layer factor becomes
        //     I(k) = Int sech^2(z/z0) / (2 z0) exp(-k sqrt(z^2 + eps^2)) dz,
        // in closed form (digamma) without softening, by quadrature over z with it.
        const double eps = params_.softening;
        constexpr int kLayerSteps = 96;  // Simpson over z in [0, 12 z0]
        std::vector<double> layer_w(kLayerSteps + 1), layer_h(kLayerSteps + 1);
        for (int q = 0; q <= kLayerSteps; ++q) {
            const double z = 12.0 * z0 * q / kLayerSteps, sech = 1.0 / std::cosh(z / z0);
            const double w = (q == 0 || q == kLayerSteps) ? 1.0 : (q % 2 ? 4.0 : 2.0);
            layer_w[q] = w * (12.0 * z0 / kLayerSteps) / 3.0 * sech * sech / z0;  // both sides of the plane
            layer_h[q] = std::sqrt(z * z + eps * eps);
        }
        std::vector<double> weight(nk + 1);  // k S(k) (I - 1) with the Simpson weight folded in
        for (int j = 0; j <= nk; ++j) {
            const double k = j * dk;
            const double w = (j == 0 || j == nk) ? 1.0 : (j % 2 ? 4.0 : 2.0);
            double layer;
            if (eps > 0) {
                layer = 0.0;
                for (int q = 0; q <= kLayerSteps; ++q) layer += layer_w[q] * std::exp(-k * layer_h[q]);
            } else {
                layer = sech2_layer_factor(k * z0);
            }
            weight[j] = w * dk / 3.0 * k * mass * std::pow(1.0 + k * k * Rd * Rd, -1.5) * (layer - 1.0);
        }
        std::vector<double> coarse_r(kCoarse), coarse_c(kCoarse);
        const double l0 = std::log(radius_.front()), l1 = std::log(r_hi);
        for (int c = 0; c < kCoarse; ++c) {
            const double R = std::exp(l0 + (l1 - l0) * c / (kCoarse - 1));
            double sum = 0.0;
            for (int j = 1; j <= nk; ++j) sum += weight[j] * bessel_j1(j * dk * R);
            coarse_r[c] = R;
            coarse_c[c] = R * sum;  // negative: the thick disk pulls less
        }
        for (int i = 0; i < n; ++i) {
            const double R = radius_[i];
            double corr = 0.0;
            if (R <= r_hi) {
                const double x = (std::log(R) - l0) / (l1 - l0) * (kCoarse - 1);
                const int c = std::clamp(int(x), 0, kCoarse - 2);
                const double t = std::clamp(x - c, 0.0, 1.0);
                corr = coarse_c[c] * (1 - t) + coarse_c[c + 1] * t;
            }
            vc2_disk_[i] = std::max(disk_vc2(R) + corr, 0.0);
        }
    }

    vc2_.assign(n, 0.0);
    kappa2_.assign(n, 0.0);
    sigma_r_disk_.assign(n, 0.0);
    drift_.assign(n, 0.0);
    sigma_z_disk_.assign(n, 0.0);
    for (int i = 0; i < n; ++i) {
        const double R = radius_[i];
        vc2_[i] = pull_spheres_[i] / R + vc2_disk_[i];
    }
    // kappa^2 = (dvc^2/dlnR + 2 vc^2) / R^2, central differences on the log grid.
    for (int i = 0; i < n; ++i) {
        const int lo = std::max(i - 1, 0), hi = std::min(i + 1, n - 1);
        const double dvc2 = (vc2_[hi] - vc2_[lo]) / ((hi - lo) * log_step_);
        kappa2_[i] = std::max((dvc2 + 2.0 * vc2_[i]) / (radius_[i] * radius_[i]), 0.0);
    }
    if (has_disk) {
        const double z0 = d.scale_height;
        // sigma_R from Q, continued past the cut (so the pressure gradient is defined there).
        std::vector<double> sigma_r(n, 0.0);
        for (int i = 0; i < n; ++i) {
            const double kap = std::sqrt(kappa2_[i]);
            const double s_unc = d.mass * disk_norm_ / (2 * kPi * d.scale_length * d.scale_length) * std::exp(-radius_[i] / d.scale_length);
            sigma_r[i] = kap > 0 ? d.toomre_q * 3.36 * s_unc / kap : 0.0;
        }
        // Inside its peak, Q 3.36 Sigma / kappa falls toward the centre (kappa climbs faster than
        // Sigma), and the Jeans equation then asks the inner disk to spin faster than circular to
        // balance a pressure that pushes inward. Gaussian velocities do not hold that: the inner
        // disk expands and the bulge follows (+15% in half-mass radius within a dynamical time).
        // So sigma_R is held at its peak inside the peak: Q rises above the target there
        // (only more stable), and the pressure falls outward everywhere.
        const int peak = int(std::max_element(sigma_r.begin(), sigma_r.end()) - sigma_r.begin());
        for (int i = 0; i < peak; ++i) sigma_r[i] = sigma_r[peak];
        std::vector<double> log_pressure(n, 0.0);  // ln(Sigma sigma_R^2), for the asymmetric drift
        for (int i = 0; i < n; ++i) {
            const double R = radius_[i], sigma = disk_surface_density(R);
            sigma_r_disk_[i] = sigma > 0 ? sigma_r[i] : 0.0;
            const double s_unc = d.mass * disk_norm_ / (2 * kPi * d.scale_length * d.scale_length) * std::exp(-R / d.scale_length);
            log_pressure[i] = std::log(std::max(s_unc * sigma_r[i] * sigma_r[i], 1e-300));
            // Vertical Jeans equation for an isothermal layer: the sheet's own pull gives
            // pi Sigma z0; the bulge and halo add Int_0^inf sech^2(z/z0) F_z(R, z) dz.
            if (sigma > 0) {
                constexpr int kSteps = 160;  // Simpson over z in [0, 16 z0]; sech^2(16) ~ 5e-14
                const double h = 16.0 * z0 / kSteps;
                double extra = 0.0;
                for (int j = 1; j <= kSteps; ++j) {
                    const double z = j * h, r = std::hypot(R, z);
                    const double fz = pull_spheres(r) * z / (r * r * r);
                    const double sech = 1.0 / std::cosh(z / z0);
                    extra += (j == kSteps ? 1.0 : (j % 2 ? 4.0 : 2.0)) * sech * sech * fz;
                }
                sigma_z_disk_[i] = std::sqrt(kPi * sigma * z0 + extra * h / 3.0);
            }
        }
        for (int i = 0; i < n; ++i) {
            const int lo = std::max(i - 1, 0), hi = std::min(i + 1, n - 1);
            const double dlnp = (log_pressure[hi] - log_pressure[lo]) / ((hi - lo) * log_step_);
            const double omega2 = vc2_[i] / (radius_[i] * radius_[i]);
            const double ratio = omega2 > 0 ? kappa2_[i] / (4.0 * omega2) : 1.0;
            drift_[i] = sigma_r_disk_[i] * sigma_r_disk_[i] * (1.0 - ratio + dlnp);
        }
    }
}

// Mass that, placed at the centre, would pull as hard as the (softened) spherical components do
// at radius r: M_eff(r) = r^2 |dPhi/dr|. Without softening it is the enclosed mass. With Plummer
// softening eps each thin shell (radius s, mass m) has the exact potential
//     Phi(r) = -m / (2 r s) [sqrt((r + s)^2 + eps^2) - sqrt((r - s)^2 + eps^2)],
// and the shells are summed over the grid: O(grid^2) = 4e6 terms, ~20 ms. Softening matters:
// eps = 0.1 weakens a Hernquist bulge with a = 0.6 by 27% at r = 0.2; its centre, given the
// unsoftened dispersions, expands by 15% within a dynamical time.
void GalaxyModel::build_pull_tables() {
    const int n = int(radius_.size());
    auto spheres = [&](double r) { return sphere_enclosed(params_.bulge, r) + sphere_enclosed(params_.halo, r); };
    pull_spheres_.resize(n);
    pull_total_.resize(n);
    const double eps = params_.softening;
    if (!(eps > 0)) {
        for (int i = 0; i < n; ++i) {
            pull_spheres_[i] = spheres(radius_[i]);
            pull_total_[i] = enclosed_mass(radius_[i]);
        }
        return;
    }
    const double e2 = eps * eps;
    std::vector<double> dm_s(n, 0.0), dm_t(n, 0.0), shell(n, 0.0);
    dm_s[0] = spheres(radius_[0]);
    dm_t[0] = enclosed_mass(radius_[0]);
    for (int j = 1; j < n; ++j) {
        dm_s[j] = spheres(radius_[j]) - spheres(radius_[j - 1]);
        dm_t[j] = enclosed_mass(radius_[j]) - enclosed_mass(radius_[j - 1]);
        shell[j] = std::sqrt(radius_[j] * radius_[j - 1]);
    }
    for (int i = 0; i < n; ++i) {
        const double r = radius_[i];
        const double point = r * r * r / std::pow(r * r + e2, 1.5);  // the mass inside the grid's first radius
        double ms = dm_s[0] * point, mt = dm_t[0] * point;
        for (int j = 1; j < n; ++j) {
            const double sj = shell[j];
            const double A = std::sqrt((r + sj) * (r + sj) + e2), B = std::sqrt((r - sj) * (r - sj) + e2);
            const double f = (A - B) / (2.0 * sj) - r / (2.0 * sj) * ((r + sj) / A - (r - sj) / B);
            ms += dm_s[j] * f;
            mt += dm_t[j] * f;
        }
        pull_spheres_[i] = ms;
        pull_total_[i] = mt;
    }
}

// Eddington's inversion for an isotropic sphere in the total potential (spherical approximation,
// softened), Psi = -Phi:
//     f(E) = 1 / (sqrt(8) pi^2) d/dE Int_{Psi_min}^{E} (drho/dPsi) dPsi / sqrt(E - Psi).
// The inner integral is taken with Psi = E - u^2, which removes the square-root singularity.
// Gaussian velocities with the Jeans dispersion get the second moment right but not the shape:
// in a Hernquist cusp embedded in a disk and a halo they make the bulge's half-mass radius swing
// out by ~15% in its first dynamical time; velocities drawn from f do not.
// The cut at max_radius is handled as in King's lowered models: f is that of rho(Psi) - rho(Psi_cut),
// i.e. of the profile less its density at the cut, and only energies bound within the cut occur
// (E > Psi_cut). The sphere then stays inside its cut (in the static potential), and the missing
// rho(Psi_cut) is below 0.1% of the density anywhere inside half the cut.
void GalaxyModel::build_distribution_function(const SphereParams& s, SphereDf& out) {
    const int n = int(radius_.size());
    std::vector<double>& df = out.f;
    df.assign(n, 0.0);
    if (s.bodies == 0) return;
    const double a = s.scale_radius, cut = sphere_cut(s);
    const double scale = s.mass / lowered_unit_mass(cut, a, cut);
    // drho/dPsi at the grid radii, from the analytic drho/dr and dPsi/dr = -M_eff / r^2 (the
    // lowering constant drops out of the derivative).
    std::vector<double> drho(n), psi(n);
    for (int i = 0; i < n; ++i) {
        const double r = radius_[i];
        const double rho = scale * hernquist_unit_density(r, a);
        const double drho_dr = -rho * (1.0 / r + 3.0 / (r + a));
        drho[i] = drho_dr / (-pull_total_[i] / (r * r));  // positive
        psi[i] = -potential_[i];                         // decreasing with i
    }
    // drho/dPsi at arbitrary Psi: binary search on the decreasing psi table.
    auto drho_at = [&](double p) {
        if (p >= psi[0]) return drho[0];
        if (p <= psi[n - 1]) return drho[n - 1];
        int lo = 0, hi = n - 1;
        while (hi - lo > 1) {
            const int mid = (lo + hi) / 2;
            (psi[mid] > p ? lo : hi) = mid;
        }
        const double t = (psi[lo] - p) / (psi[lo] - psi[hi]);
        return drho[lo] * (1 - t) + drho[hi] * t;
    };
    const double psi_min = -interpolate(potential_, cut);
    out.psi_cut = psi_min;
    std::vector<double> g(n, 0.0);
    constexpr int kSteps = 256;  // Simpson in u; the integrand is smooth after the substitution
    for (int i = 0; i < n; ++i) {
        const double umax = std::sqrt(std::max(psi[i] - psi_min, 0.0));
        if (umax <= 0) continue;
        const double h = umax / kSteps;
        double sum = 0.0;
        for (int j = 0; j <= kSteps; ++j) {
            const double u = j * h;
            const double w = (j == 0 || j == kSteps) ? 1.0 : (j % 2 ? 4.0 : 2.0);
            sum += w * 2.0 * drho_at(psi[i] - u * u);
        }
        g[i] = sum * h / 3.0;
    }
    const double norm_df = 1.0 / (std::sqrt(8.0) * kPi * kPi);
    for (int i = 0; i < n; ++i) {
        const int lo = std::max(i - 1, 0), hi = std::min(i + 1, n - 1);
        const double dg = (g[lo] - g[hi]) / (psi[lo] - psi[hi]);
        df[i] = std::max(dg * norm_df, 0.0);  // rounding can dip it below 0 where it is tiny
    }
}

// f at energy E (Psi grid = -potential_, decreasing with the index).
double GalaxyModel::distribution_at(const SphereDf& d, double E) const {
    const std::vector<double>& df = d.f;
    const int n = int(potential_.size());
    const double psi0 = -potential_[0];
    if (E >= psi0) return df[0];
    if (E <= d.psi_cut) return 0.0;
    int lo = 0, hi = n - 1;
    while (hi - lo > 1) {
        const int mid = (lo + hi) / 2;
        (-potential_[mid] > E ? lo : hi) = mid;
    }
    const double t = (-potential_[lo] - E) / (potential_[hi] - potential_[lo]);
    return df[lo] * (1 - t) + df[hi] * t;
}

// Speed from v^2 f(Psi(r) - v^2 / 2) by rejection under 1.3 times its maximum, which is found by a
// scan of 24 speeds (the density in v is smooth and single-peaked), direction isotropic.
Vec3d GalaxyModel::sample_sphere_velocity(const SphereDf& df, double r, detail::Rng& rng) const {
    const double psi = r > radius_.back() ? total_mass() / r : -interpolate(potential_, r);
    const double vmax = std::sqrt(std::max(2.0 * (psi - df.psi_cut), 0.0));
    if (vmax <= 0) return {};
    auto density = [&](double v) { return v * v * distribution_at(df, psi - 0.5 * v * v); };
    double peak = 0.0;
    for (int j = 1; j < 24; ++j) peak = std::max(peak, density(vmax * j / 24.0));
    if (!(peak > 0)) return {};
    for (int tries = 0; tries < 10000; ++tries) {
        const double v = vmax * rng.uniform();
        if (rng.uniform() * 1.3 * peak <= density(v)) return v * rng.unit_vector();
    }
    return 0.5 * vmax * rng.unit_vector();  // unreachable in practice: the acceptance rate is > 20%
}

double GalaxyModel::effective_enclosed_mass(double r) const {
    return r > radius_.back() ? total_mass() : interpolate(pull_total_, r);
}

double GalaxyModel::pull_spheres(double r) const {
    if (r > radius_.back()) return params_.bulge.mass * (params_.bulge.bodies > 0) + params_.halo.mass * (params_.halo.bodies > 0);
    return interpolate(pull_spheres_, r);
}

double GalaxyModel::total_mass() const { return params_.disk.mass + params_.bulge.mass + params_.halo.mass; }

// The spheres are "lowered" Hernquist profiles: rho(r) = A [rho_H(r) - rho_H(r_cut)] inside the
// cut, zero outside, with A making the mass `mass`. The density falls smoothly to zero at the
// cut, and the lowered profile is exactly what an isotropic f(E) confined to E > Psi(r_cut) can
// hold (see build_distribution_function), so positions, potential and velocities agree.
// (rho_H(r_cut) is 1/44 of the density at r = a for a cut at 4 a, 1/600 for a cut at 10 a.)
double GalaxyModel::sphere_enclosed(const SphereParams& s, double r) const {
    if (s.bodies == 0 || r <= 0) return 0.0;
    const double a = s.scale_radius, cut = sphere_cut(s);
    if (r >= cut) return s.mass;
    return s.mass * lowered_unit_mass(r, a, cut) / lowered_unit_mass(cut, a, cut);
}

double GalaxyModel::sphere_density(const SphereParams& s, double r) const {
    if (s.bodies == 0 || r <= 0) return 0.0;
    const double a = s.scale_radius, cut = sphere_cut(s);
    if (r >= cut) return 0.0;
    return s.mass / lowered_unit_mass(cut, a, cut) * (hernquist_unit_density(r, a) - hernquist_unit_density(cut, a));
}

double GalaxyModel::enclosed_mass(double r) const {
    double m = sphere_enclosed(params_.bulge, r) + sphere_enclosed(params_.halo, r);
    const DiskParams& d = params_.disk;
    if (d.bodies > 0 && r > 0) m += r >= disk_rmax_ ? d.mass : d.mass * disk_norm_ * disk_fraction(r, d.scale_length);
    return m;
}

double GalaxyModel::disk_surface_density(double R) const {
    const DiskParams& d = params_.disk;
    if (d.bodies == 0 || R > disk_rmax_) return 0.0;
    return d.mass * disk_norm_ / (2 * kPi * d.scale_length * d.scale_length) * std::exp(-R / d.scale_length);
}

double GalaxyModel::disk_vc2(double R) const {
    const DiskParams& d = params_.disk;
    const double mass = d.mass * disk_norm_;  // the untruncated disk the truncated one is cut from
    const double y = R / (2.0 * d.scale_length);
    if (y < 1e-8) return 0.0;
    // Past y ~ 50 the Bessel products lose all digits (I grows as e^y, K falls as e^-y) and
    // the disk is a point mass to better than 1e-6 anyway.
    if (y > 50.0) return mass / R;
    const double bracket = std::cyl_bessel_i(0.0, y) * std::cyl_bessel_k(0.0, y) -
                           std::cyl_bessel_i(1.0, y) * std::cyl_bessel_k(1.0, y);
    return 2.0 * mass / d.scale_length * y * y * bracket;  // 4 pi Sigma0 Rd y^2 [..], Sigma0 = M / (2 pi Rd^2)
}

double GalaxyModel::interpolate(const std::vector<double>& table, double r) const {
    if (!(r > 0)) return table.front();
    const double x = (std::log(r) - log_rmin_) / log_step_;
    if (x <= 0) return table.front();
    const int n = int(table.size());
    if (x >= n - 1) return table.back();
    const int i = int(x);
    const double t = x - i;
    return table[i] * (1.0 - t) + table[i + 1] * t;
}

double GalaxyModel::circular_velocity(double R) const {
    // Beyond the grid everything is enclosed; the disk's non-spherical term is below 1e-3 there.
    if (R > radius_.back()) return std::sqrt(total_mass() / R);
    return std::sqrt(std::max(interpolate(vc2_, R), 0.0));
}
double GalaxyModel::omega(double R) const { return circular_velocity(R) / R; }
double GalaxyModel::kappa(double R) const { return std::sqrt(interpolate(kappa2_, R)); }

double GalaxyModel::sigma_R(double R) const {
    if (params_.disk.bodies == 0 || R > disk_rmax_) return 0.0;
    return interpolate(sigma_r_disk_, R);
}
double GalaxyModel::sigma_phi(double R) const {
    const double om = omega(R);
    return om > 0 ? sigma_R(R) * kappa(R) / (2.0 * om) : sigma_R(R);
}
double GalaxyModel::sigma_z(double R) const {
    if (params_.disk.bodies == 0 || R > disk_rmax_) return 0.0;
    return interpolate(sigma_z_disk_, R);
}
double GalaxyModel::mean_vphi(double R) const { return mean_vphi(R, 0.0); }
double GalaxyModel::mean_vphi(double R, double z) const {
    // Above the plane the spheres pull less inward (the R component of M(r)/r^2 at r > R); the
    // disk's own pull is taken at the midplane, a good approximation within a few z0.
    const double r = std::hypot(R, z);
    const double spheres = pull_spheres(r) * R * R / (r * r * r);
    const double vc2 = spheres + (R > radius_.back() ? params_.disk.mass / R : interpolate(vc2_disk_, R));
    return std::sqrt(std::max(vc2 + interpolate(drift_, R), 0.0));
}

double GalaxyModel::bulge_dispersion(double r) const { return interpolate(bulge_sigma_, r); }
double GalaxyModel::halo_dispersion(double r) const { return interpolate(halo_sigma_, r); }

double GalaxyModel::escape_speed(double r) const {
    const double phi = r > radius_.back() ? -total_mass() / r : interpolate(potential_, r);
    return std::sqrt(-2.0 * phi);
}

double GalaxyModel::rotation_period(double R) const { return 2.0 * kPi * R / circular_velocity(R); }

State GalaxyModel::sample() const {
    const DiskParams& d = params_.disk;
    const std::size_t n = d.bodies + params_.bulge.bodies + params_.halo.bodies;
    State state;
    state.resize(n);
    std::size_t k = 0;

    if (d.bodies > 0) {
        detail::Rng rng(detail::mix_seed(params_.seed, 0));
        const float m = float(d.mass / double(d.bodies));
        for (std::size_t i = 0; i < d.bodies; ++i, ++k) {
            // Sigma(R) R dR is a Gamma(2) density: the sum of two exponential deviates.
            double R;
            do {
                R = -d.scale_length * std::log(rng.uniform() * rng.uniform());
            } while (R > disk_rmax_);
            const double phi = 2.0 * kPi * rng.uniform();
            const double z = d.scale_height * std::atanh(2.0 * rng.uniform() - 1.0);  // inverse sech^2 CDF
            const double vR = sigma_R(R) * rng.normal();
            const double vphi = mean_vphi(R, z) + sigma_phi(R) * rng.normal();
            const double vz = sigma_z(R) * rng.normal();
            const double c = std::cos(phi), s = std::sin(phi);
            state.pos_mass[k] = {float(R * c), float(R * s), float(z), m};
            state.velocity[k] = {float(vR * c - vphi * s), float(vR * s + vphi * c), float(vz), 0.0f};
            state.component[k] = Component::Disk;
        }
    }

    auto sample_sphere = [&](const SphereParams& sp, Component label, std::uint64_t stream, bool is_bulge) {
        if (sp.bodies == 0) return;
        detail::Rng rng(detail::mix_seed(params_.seed, stream));
        const double a = sp.scale_radius, cut = sphere_cut(sp);
        const double fc = (cut / (cut + a)) * (cut / (cut + a));
        const float m = float(sp.mass / double(sp.bodies));
        const double rho_cut = hernquist_unit_density(cut, a);
        for (std::size_t i = 0; i < sp.bodies; ++i, ++k) {
            // From the truncated Hernquist profile (its M(<r) = (r / (r + a))^2 inverted, scaled to
            // stay inside the cut), thinned to the lowered one: keep r with probability
            // 1 - rho_H(cut) / rho_H(r). Over 90% are kept for any cut past 4 a.
            double r;
            do {
                const double q = std::sqrt(rng.uniform() * fc);
                r = std::min(a * q / (1.0 - q), cut);
            } while (rng.uniform() * hernquist_unit_density(r, a) < rho_cut);
            const Vec3d x = r * rng.unit_vector();
            const Vec3d v = sample_sphere_velocity(is_bulge ? bulge_df_ : halo_df_, r, rng);
            state.pos_mass[k] = {float(x.x), float(x.y), float(x.z), m};
            state.velocity[k] = {float(v.x), float(v.y), float(v.z), 0.0f};
            state.component[k] = label;
        }
    };
    sample_sphere(params_.bulge, Component::Bulge, 1, true);
    sample_sphere(params_.halo, Component::Halo, 2, false);

    // Each component to its own centre-of-mass frame: sampling noise would otherwise leave a
    // halo of 10^4 heavy particles off-centre from its disk by ~1% of its radius, and the disk
    // would start bobbing through it. The galaxy as a whole then rests at the origin too.
    std::size_t begin = 0;
    for (std::size_t count : {d.bodies, params_.bulge.bodies, params_.halo.bodies}) {
        const std::size_t end = begin + count;
        Vec3d com, com_v;
        for (std::size_t i = begin; i < end; ++i) {
            com += xyz(state.pos_mass[i]);  // equal masses within a component
            com_v += xyz(state.velocity[i]);
        }
        if (count > 0) {
            com = com / double(count);
            com_v = com_v / double(count);
        }
        for (std::size_t i = begin; i < end; ++i) {
            Vec4f& p = state.pos_mass[i];
            Vec4f& v = state.velocity[i];
            p = {float(p.x - com.x), float(p.y - com.y), float(p.z - com.z), p.w};
            v = {float(v.x - com_v.x), float(v.y - com_v.y), float(v.z - com_v.z), 0.0f};
        }
        begin = end;
    }
    return state;
}

State make_galaxy(const GalaxyParams& params) { return GalaxyModel(params).sample(); }

double half_mass_radius(const State& state, Component which, const Vec3d& centre) {
    std::vector<std::pair<double, double>> rm;  // (radius, mass)
    double total = 0;
    for (std::size_t i = 0; i < state.size(); ++i) {
        if (which != Component::Unspecified && state.component[i] != which) continue;
        const double m = state.pos_mass[i].w;
        rm.emplace_back(norm(xyz(state.pos_mass[i]) - centre), m);
        total += m;
    }
    if (rm.empty()) return 0.0;
    std::sort(rm.begin(), rm.end());
    double acc = 0;
    for (const auto& [r, m] : rm) {
        acc += m;
        if (acc >= 0.5 * total) return r;
    }
    return rm.back().first;
}

}  // namespace nbody::ic
