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

// Mass fraction of an untruncated exponential disk inside radius R.
double disk_fraction(double R, double Rd) {
    const double x = R / Rd;
    return 1.0 - (1.0 + x) * std::exp(-x);
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
}

GalaxyModel::GalaxyModel(const GalaxyParams& params) : params_(params) {
    validate(params_);
    const DiskParams& d = params_.disk;
    const bool has_disk = d.bodies > 0, has_bulge = params_.bulge.bodies > 0, has_halo = params_.halo.bodies > 0;
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
    // Potential of the spherical approximation, integrated inward from the grid's edge, beyond
    // which all mass is enclosed: Phi(r) = -M/rmax - Int_r^rmax M(r')/r'^2 dr'.
    potential_.assign(n, 0.0);
    potential_[n - 1] = -total_mass() / radius_[n - 1];
    for (int i = n - 2; i >= 0; --i) {
        const double f0 = enclosed_mass(radius_[i]) / radius_[i], f1 = enclosed_mass(radius_[i + 1]) / radius_[i + 1];
        potential_[i] = potential_[i + 1] - 0.5 * (f0 + f1) * log_step_;  // dr = r dln r
    }

    // Jeans integrals for the spheres, in the total mass of every component.
    auto jeans = [&](const SphereParams& s, std::vector<double>& sigma) {
        sigma.assign(n, 0.0);
        if (s.bodies == 0) return;
        const double cut = sphere_cut(s);
        auto integrand = [&](double r) { return r > cut ? 0.0 : sphere_density(s, r) * enclosed_mass(r) / r; };
        double integral = 0.0;
        for (int i = n - 2; i >= 0; --i) {
            integral += 0.5 * (integrand(radius_[i]) + integrand(radius_[i + 1])) * log_step_;
            const double rho = sphere_density(s, radius_[i]);
            sigma[i] = rho > 0 ? std::sqrt(integral / rho) : 0.0;
        }
    };
    jeans(params_.bulge, bulge_sigma_);
    jeans(params_.halo, halo_sigma_);

    vc2_.assign(n, 0.0);
    kappa2_.assign(n, 0.0);
    sigma_r_disk_.assign(n, 0.0);
    vphi_.assign(n, 0.0);
    for (int i = 0; i < n; ++i) {
        const double R = radius_[i];
        const double spheres = sphere_enclosed(params_.bulge, R) + sphere_enclosed(params_.halo, R);
        vc2_[i] = spheres / R + (has_disk ? disk_vc2(R) : 0.0);
    }
    // kappa^2 = (dvc^2/dlnR + 2 vc^2) / R^2, central differences on the log grid.
    for (int i = 0; i < n; ++i) {
        const int lo = std::max(i - 1, 0), hi = std::min(i + 1, n - 1);
        const double dvc2 = (vc2_[hi] - vc2_[lo]) / ((hi - lo) * log_step_);
        kappa2_[i] = std::max((dvc2 + 2.0 * vc2_[i]) / (radius_[i] * radius_[i]), 0.0);
    }
    if (has_disk) {
        std::vector<double> log_pressure(n, 0.0);  // ln(Sigma sigma_R^2), for the asymmetric drift
        for (int i = 0; i < n; ++i) {
            const double R = radius_[i], kap = std::sqrt(kappa2_[i]), sigma = disk_surface_density(R);
            sigma_r_disk_[i] = (kap > 0 && sigma > 0) ? d.toomre_q * 3.36 * sigma / kap : 0.0;
            // Sigma is zero past the cut; continue the profile there so the derivative is defined.
            const double s_unc = d.mass * disk_norm_ / (2 * kPi * d.scale_length * d.scale_length) * std::exp(-R / d.scale_length);
            const double sr = kap > 0 ? d.toomre_q * 3.36 * s_unc / kap : 0.0;
            log_pressure[i] = std::log(std::max(s_unc * sr * sr, 1e-300));
        }
        for (int i = 0; i < n; ++i) {
            const int lo = std::max(i - 1, 0), hi = std::min(i + 1, n - 1);
            const double dlnp = (log_pressure[hi] - log_pressure[lo]) / ((hi - lo) * log_step_);
            const double omega2 = vc2_[i] / (radius_[i] * radius_[i]);
            const double ratio = omega2 > 0 ? kappa2_[i] / (4.0 * omega2) : 1.0;
            const double s2 = sigma_r_disk_[i] * sigma_r_disk_[i];
            vphi_[i] = std::sqrt(std::max(vc2_[i] + s2 * (1.0 - ratio + dlnp), 0.0));
        }
    }
}

double GalaxyModel::total_mass() const { return params_.disk.mass + params_.bulge.mass + params_.halo.mass; }

double GalaxyModel::sphere_enclosed(const SphereParams& s, double r) const {
    if (s.bodies == 0 || r <= 0) return 0.0;
    const double a = s.scale_radius, cut = sphere_cut(s);
    if (r >= cut) return s.mass;
    const double f = (r / (r + a)) * (r / (r + a)), fc = (cut / (cut + a)) * (cut / (cut + a));
    return s.mass * f / fc;
}

double GalaxyModel::sphere_density(const SphereParams& s, double r) const {
    if (s.bodies == 0 || r <= 0) return 0.0;
    const double a = s.scale_radius, cut = sphere_cut(s);
    if (r > cut) return 0.0;
    const double fc = (cut / (cut + a)) * (cut / (cut + a));
    return s.mass / fc * a / (2.0 * kPi * r * std::pow(r + a, 3));
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
    return std::sqrt(kPi * disk_surface_density(R) * params_.disk.scale_height);
}
double GalaxyModel::mean_vphi(double R) const { return interpolate(vphi_, R); }

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
            const double vphi = mean_vphi(R) + sigma_phi(R) * rng.normal();
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
        for (std::size_t i = 0; i < sp.bodies; ++i, ++k) {
            // M(<r)/M = (r / (r + a))^2 inverted, scaled so the draw never passes the cut.
            const double q = std::sqrt(rng.uniform() * fc);
            const double r = std::min(a * q / (1.0 - q), cut);
            const Vec3d x = r * rng.unit_vector();
            const double sigma = is_bulge ? bulge_dispersion(r) : halo_dispersion(r);
            const double vmax = 0.95 * escape_speed(r);
            Vec3d v;
            // Gaussian tails past the escape speed would unbind the particle; redraw them. The
            // loop is bounded because sigma^2 < v_esc^2 / 3 for any bound isotropic system.
            for (int tries = 0;; ++tries) {
                v = {sigma * rng.normal(), sigma * rng.normal(), sigma * rng.normal()};
                if (norm(v) <= vmax) break;
                if (tries == 100) {
                    v = v * (vmax / norm(v));
                    break;
                }
            }
            state.pos_mass[k] = {float(x.x), float(x.y), float(x.z), m};
            state.velocity[k] = {float(v.x), float(v.y), float(v.z), 0.0f};
            state.component[k] = label;
        }
    };
    sample_sphere(params_.bulge, Component::Bulge, 1, true);
    sample_sphere(params_.halo, Component::Halo, 2, false);

    // Centre-of-mass frame: sampling noise gives each galaxy a small net drift otherwise.
    Vec3d com, com_v;
    double mass = 0;
    for (std::size_t i = 0; i < n; ++i) {
        const double mi = state.pos_mass[i].w;
        com += mi * xyz(state.pos_mass[i]);
        com_v += mi * xyz(state.velocity[i]);
        mass += mi;
    }
    com = com / mass;
    com_v = com_v / mass;
    for (std::size_t i = 0; i < n; ++i) {
        Vec4f& p = state.pos_mass[i];
        Vec4f& v = state.velocity[i];
        p = {float(p.x - com.x), float(p.y - com.y), float(p.z - com.z), p.w};
        v = {float(v.x - com_v.x), float(v.y - com_v.y), float(v.z - com_v.z), 0.0f};
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
