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

#include "nbody/sim/hermite/integrator.hpp"
#include "nbody/sim/ic/plummer.hpp"

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
        const State st = ic::make_plummer({.bodies = n, .scale_radius = kScaleRadius, .seed = 42});
        std::vector<double> m(n, 1.0 / double(n));
        std::vector<Vec3d> x(n), v(n);
        for (std::size_t i = 0; i < n; ++i) x[i] = xyz(st.pos_mass[i]), v[i] = xyz(st.velocity[i]);
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
