// nbody_hermite_host_bench: the Hermite integrator's host work per block step, measured on a machine
// without a GPU (docs/HERMITE.md, "The host's share of a block step").
//
//   nbody_hermite_host_bench N T_END [ETA [smooth|cpu [ORDER]]]
//
// `smooth` (the default): the force engine is the Plummer sphere's own smooth potential (one fixed
// mass 1 at the origin softened by the scale radius: the field an N-body Plummer sphere has without
// its graininess), O(1) per active body, so that block steps of a 128K- or 1M-body Plummer sphere
// cost what the integrator's host work costs and no O(N^2) force hides it. The block structure is
// that of orbits in the mean field: fewer, larger blocks than the N-body system's at the same eta;
// a smaller eta gives more. `cpu`: the real cpu engine (O(N^2): small N only).
// Prints the integrator's profile (HermiteIntegrator::profile_report) of the run after the start.

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include <random>

#include "nbody/sim/hermite/integrator.hpp"

using namespace nbody;

namespace {

constexpr double kScaleRadius = 0.5890486226;  // 3 pi / 16: Henon units, as scenes/plummer.toml

// The smooth field of a unit Plummer sphere: acceleration, jerk, potential and snap from one mass 1
// at the origin with softening a^2, by the pair expressions of the cpu engine.
class SmoothPlummerEngine final : public hermite::ForceEngine {
public:
    std::string_view name() const override { return "smooth"; }
    void reserve(std::size_t n) override {
        if (n > j_.size()) j_.resize(n);
    }
    void set_j(std::size_t address, const hermite::JParticle& p) override {  // kept, as an engine's j-memory
        if (address >= j_.size()) j_.resize(address + 1);
        j_[address] = p;
    }
    std::size_t j_capacity() const override { return j_.size(); }
    void compute(double, std::size_t nj, std::span<const hermite::IParticle> in, double, std::span<hermite::IForce> out,
                 bool) override {
        const double a2 = kScaleRadius * kScaleRadius;
        for (std::size_t i = 0; i < in.size(); ++i) {
            const Vec3d dx = -1.0 * in[i].x, dv = -1.0 * in[i].v, da = -1.0 * in[i].a;
            const double rinv2 = 1.0 / (dot(dx, dx) + a2), rinv = std::sqrt(rinv2), mr3 = rinv * rinv2;
            const double alpha = dot(dx, dv) * rinv2;
            hermite::IForce& f = out[i];
            f = {};
            f.acc = mr3 * dx;
            f.jerk = mr3 * (dv - (3.0 * alpha) * dx);
            f.pot = -rinv;
            const double beta = (dot(dv, dv) + dot(dx, da)) * rinv2 + alpha * alpha;
            f.snap = mr3 * da - (6.0 * alpha) * f.jerk - (3.0 * beta) * f.acc;
            f.nearest = -1;
        }
        interactions_ += double(in.size()) * double(nj);
    }
    std::span<const int> neighbours(std::size_t) const override { return {}; }
    bool neighbour_overflow(std::size_t) const override { return false; }
    void want_snap(bool) override {}
    double interactions() const override { return interactions_; }

private:
    std::vector<hermite::JParticle> j_;
    double interactions_ = 0;
};

// A Plummer sphere of total mass 1 and scale radius a (Aarseth, Henon & Wielen 1974), in double, with
// a generator of its own so that the tool links the Hermite library alone (and builds in seconds at
// an older commit, for a before-and-after on one machine).
void plummer(std::size_t n, double a, std::vector<Vec3d>& x, std::vector<Vec3d>& v) {
    std::mt19937_64 rng(42);
    std::uniform_real_distribution<double> u(0.0, 1.0);
    auto direction = [&](double length) {
        const double z = 2 * u(rng) - 1, phi = 2 * M_PI * u(rng), s = std::sqrt(1 - z * z);
        return Vec3d{length * s * std::cos(phi), length * s * std::sin(phi), length * z};
    };
    x.resize(n), v.resize(n);
    Vec3d cx{}, cv{};
    for (std::size_t i = 0; i < n; ++i) {
        double r;
        do r = a / std::sqrt(std::pow(u(rng), -2.0 / 3.0) - 1); while (r > 10 * a);
        double q, g;
        do q = u(rng), g = 0.1 * u(rng); while (g > q * q * std::pow(1 - q * q, 3.5));
        x[i] = direction(r);
        v[i] = direction(q * std::sqrt(2.0) * std::pow(r * r + a * a, -0.25));
        cx += x[i], cv += v[i];
    }
    for (std::size_t i = 0; i < n; ++i) x[i] -= cx / double(n), v[i] -= cv / double(n);
}

}  // namespace

int main(int argc, char** argv) {
    if (argc < 3) {
        std::fprintf(stderr, "usage: %s N T_END [ETA [smooth|cpu [ORDER]]]\n", argv[0]);
        return 2;
    }
    try {
        const std::size_t n = std::size_t(std::atoll(argv[1]));
        const double t_end = std::atof(argv[2]);
        const double eta = argc > 3 ? std::atof(argv[3]) : 0.0;
        const std::string engine = argc > 4 ? argv[4] : "smooth";
        const int order = argc > 5 ? std::atoi(argv[5]) : 4;
        std::vector<double> m(n, 1.0 / double(n));
        std::vector<Vec3d> x, v;
        plummer(n, kScaleRadius, x, v);
        std::unique_ptr<hermite::ForceEngine> e;
        if (engine == "smooth")
            e = std::make_unique<SmoothPlummerEngine>();
        else
            e = hermite::make_force_engine(hermite::parse_engine_kind(engine), {}, nullptr, order == 6);
        hermite::HermiteIntegrator h(std::move(e), {.eta = eta, .order = order, .softening = engine == "smooth" ? 0.0 : 0.01});
        h.start(m, x, v, 0);
        h.set_profiling(true);
        const auto t0 = std::chrono::steady_clock::now();
        h.evolve(t_end);
        const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        std::vector<Vec3d> xe, ve;
        h.predicted(xe, ve);
        double checksum = 0;
        for (std::size_t i = 0; i < n; ++i) checksum += xe[i].x + 2 * xe[i].y + 3 * ve[i].z;
        std::printf("host bench: %zu bodies, order %d, eta %g, engine %s, t = 0..%g: %.3f s, %llu blocks, %llu force "
                    "evaluations, checksum %.17g\n",
                    n, order, h.params().eta, engine.c_str(), t_end, wall, (unsigned long long)h.stats().blocks,
                    (unsigned long long)h.stats().body_steps, checksum);
        std::printf("%s", h.profile_report(wall).c_str());
        return 0;
    } catch (const std::exception& ex) {
        std::fprintf(stderr, "nbody_hermite_host_bench: %s\n", ex.what());
        return 1;
    }
}
