// nbody_hermite_bench: the measurements of docs/HERMITE.md, run on the GPU machine.
//   nbody_hermite_bench kernel N NI [REPS [BLOCK UNROLL BPT]]
//                                                  force kernel rate, every variant and j-split (or
//                                                  the ds shapes BLOCK x UNROLL x BPT only, 0: any),
//                                                  NI active i-particles against N j-particles, in
//                                                  Morton order with the ds kernel's far tiles on
//                                                  (environment HERMITE_BENCH_ORDER=input: the
//                                                  Plummer generator's order, far tiles off, as the
//                                                  cuda engine runs); prints the ds tile loops' mix
//                                                  (docs/HERMITE.md, version 4)
//   nbody_hermite_bench engine N [REPS [ACTIVE]]  the cuda engine's compute() with all N active (or
//                                                  the first ACTIVE of them; environment
//                                                  HERMITE_BENCH_NEAREST=1: with the nearest
//                                                  neighbours, as g6 and the first step;
//                                                  HERMITE_BENCH_GPUS=2|all|0,1: on those GPUs,
//                                                  HERMITE_BENCH_SEVERAL_FROM=PAIRS: their
//                                                  EngineConfig::several_gpus_from); prints each
//                                                  GPU's tile loops of the first call
//   nbody_hermite_bench plummer N T_END ETA EPS [cpu|cuda] [ds|fp64] [BODIES_PER_THREAD (ds: 1, 2, 4; 0, the
//   default: the engine's choice per block)] [ORDER (4, the default; 6: the engine computes the snap, cuda in fp64)]
//                                                  environment ETA_START: HermiteParams::eta_start (the first steps);
//                                                  HERMITE_BENCH_PROFILE=1: the block steps' phases (--profile's report)
//                                                  equal-mass Plummer, block steps to T_END:
//                                                  wall time, blocks, force evaluations, rate, dE/E

#include <cuda_runtime_api.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <algorithm>
#include <string>
#include <vector>

#include "../../sim/cuda/cuda_raii.hpp"
#include "../../sim/cuda/hermite/engine_cuda.hpp"
#include "../../sim/cuda/hermite/hermite_kernels.hpp"
#include "nbody/sim/hermite/integrator.hpp"
#include "nbody/sim/hermite/spatial_order.hpp"
#include "nbody/sim/ic/plummer.hpp"

using namespace nbody;
namespace k = nbody::cuda::hermite;
using nbody::cuda::DeviceBuffer;
using k::r4;
using k::Real4;

// A shape of the kernel benchmark; 0 in a field: every value of it.
struct Shape {
    int block = 0, unroll = 0, bpt = 0;
    bool filters() const { return block != 0 || unroll != 0 || bpt != 0; }
    bool takes(int b, int u, int p) const {
        return (block == 0 || block == b) && (unroll == 0 || unroll == u) && (bpt == 0 || bpt == p);
    }
};

// "self 2.0% any 0.0% ...": the share of each loop among the warp-tiles counted.
static std::string tile_mix(const std::vector<unsigned long long>& counts) {
    static const char* names[k::kDsTileLoops] = {"self", "any", "one", "far-any", "far-one"};
    double total = 0;
    for (unsigned long long c : counts) total += double(c);
    std::string s;
    for (int l = 0; l < k::kDsTileLoops; ++l) {
        char b[48];
        std::snprintf(b, sizeof b, "%s%s %.1f%%", l ? " " : "", names[l], total > 0 ? 100.0 * double(counts[l]) / total : 0.0);
        s += b;
    }
    return s;
}

static int kernel_bench(int n, int ni, int reps, Shape only) {
    const State st = ic::make_plummer({.bodies = std::size_t(n), .seed = 1});
    std::vector<std::uint32_t> order(n);
    const char* order_env = std::getenv("HERMITE_BENCH_ORDER");
    const bool input_order = order_env != nullptr && std::string(order_env) == "input";
    if (input_order) {
        for (int i = 0; i < n; ++i) order[i] = std::uint32_t(i);
    } else {
        std::vector<hermite::Point> p(n);
        for (int i = 0; i < n; ++i) p[i] = {st.pos_mass[i].x, st.pos_mass[i].y, st.pos_mass[i].z};
        order = hermite::morton_order(p);
    }
    std::vector<Real4> xm(n), vt(n), a2(n), j6(n, r4(0, 0, 0, 0));
    for (int i = 0; i < n; ++i) {
        const std::size_t b = order[i];
        xm[i] = r4(st.pos_mass[b].x, st.pos_mass[b].y, st.pos_mass[b].z, st.pos_mass[b].w);
        vt[i] = r4(st.velocity[b].x, st.velocity[b].y, st.velocity[b].z, 0);
        a2[i] = r4(0, 0, 0, double(i));  // ids: the slots, as the engine gives the kernel where ids are addresses
    }
    DeviceBuffer<Real4> dxm(n), dvt(n), da2(n), dj6(n), p64(n), v64(n), ix(n), iv(n);
    DeviceBuffer<float4> hi(n), lo(n), vel(n);
    CUDA_CHECK(cudaMemcpy(dxm.get(), xm.data(), dxm.bytes(), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(dvt.get(), vt.data(), dvt.bytes(), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(da2.get(), a2.data(), da2.bytes(), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(dj6.get(), j6.data(), dj6.bytes(), cudaMemcpyHostToDevice));
    std::vector<Real4> hx(ni), hv(ni);
    for (int i = 0; i < ni; ++i) {
        const int s = int((long long)i * n / ni);
        hx[i] = r4(xm[s].x, xm[s].y, xm[s].z, 0);
        hv[i] = r4(vt[s].x, vt[s].y, vt[s].z, a2[s].w);
    }
    CUDA_CHECK(cudaMemcpy(ix.get(), hx.data(), sizeof(Real4) * ni, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(iv.get(), hv.data(), sizeof(Real4) * ni, cudaMemcpyHostToDevice));
    int device = 0, sms = 0;
    CUDA_CHECK(cudaGetDevice(&device));
    CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    const int max_split = 1024;
    DeviceBuffer<Real4> pa(std::size_t(ni + 256) * max_split), pj(std::size_t(ni + 256) * max_split);
    DeviceBuffer<int> pn(std::size_t(ni + 256) * max_split), rn(ni);
    DeviceBuffer<Real4> ra(ni), rj(ni);
    DeviceBuffer<unsigned long long> loops(k::kDsTileLoops);
    std::vector<unsigned long long> loop_counts(k::kDsTileLoops);
    cuda::Event start, stop;
    for (k::Precision prec : {k::Precision::Ds, k::Precision::Fp64}) {
        const k::Predicted pred{hi.get(), lo.get(), vel.get(), p64.get(), v64.get()};
        k::predict_j({dxm.get(), dvt.get(), da2.get(), dj6.get()}, n, 0.0, prec, pred, nullptr);
        for (int block : {64, 128, 256})
            for (int unroll : {1, 4, 8})
            for (int bpt : {1, 2, 4}) {
                if (prec == k::Precision::Fp64 && (unroll != 4 || bpt != 1)) continue;
                if (block / bpt < 32) continue;  // not whole warps: no such variant
                if (!only.takes(block, unroll, bpt) || (only.filters() && prec != k::Precision::Ds)) continue;
                const int auto_split = k::choose_j_split(ni, n, block, sms, bpt, prec == k::Precision::Ds && !input_order);
                for (int split : {1, auto_split, auto_split * 2}) {
                    if (split > max_split) continue;
                    const int ni_pad = (ni + block - 1) / block * block;
                    k::ForceVariant v{prec, block, unroll, bpt, k::kNoExtras};
                    v.far_tiles = !input_order;
                    k::Partials part{pa.get(), pj.get(), pn.get()};
                    auto once = [&] {
                        k::hermite_force(v, pred, n, {ix.get(), iv.get()}, ni, 0.0, split, part, {}, nullptr);
                        k::reduce_partials(part, ni, ni_pad, split, {ra.get(), rj.get(), rn.get()}, nullptr);
                    };
                    CUDA_CHECK(cudaMemset(loops.get(), 0, loops.bytes()));
                    part.tile_loops = loops.get();  // counted in the untimed first call only
                    once();
                    part.tile_loops = nullptr;
                    CUDA_CHECK(cudaMemcpy(loop_counts.data(), loops.get(), loops.bytes(), cudaMemcpyDeviceToHost));
                    start.record(nullptr);
                    for (int r = 0; r < reps; ++r) once();
                    stop.record(nullptr);
                    CUDA_CHECK(cudaEventSynchronize(stop.get()));
                    const double s = cuda::elapsed_ms(start, stop) * 1e-3 / reps;
                    // The reduction of the split's partials alone, which the time above includes.
                    start.record(nullptr);
                    for (int r = 0; r < reps; ++r)
                        k::reduce_partials(part, ni, ni_pad, split, {ra.get(), rj.get(), rn.get()}, nullptr);
                    stop.record(nullptr);
                    CUDA_CHECK(cudaEventSynchronize(stop.get()));
                    const double reduce_s = cuda::elapsed_ms(start, stop) * 1e-3 / reps;
                    std::printf("kernel %s N %d active %d block %d unroll %d bpt %d j_split %d%s: %.3f ms (reduction %.1f us), "
                                "%.3e interactions/s%s%s\n",
                                prec == k::Precision::Ds ? "ds" : "fp64", n, ni, block, unroll, bpt, split,
                                split == auto_split ? " (auto)" : "", s * 1e3, reduce_s * 1e6, double(n) * ni / s,
                                prec == k::Precision::Ds ? "; tiles " : "",
                                prec == k::Precision::Ds ? tile_mix(loop_counts).c_str() : "");
                }
            }
    }
    return 0;
}

static double seconds_since(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// Where the wall time of a block-step run goes: the engine's compute() (on the GPU: the uploads, the
// predictor, force and reduction kernels, the copies back and the one wait) and, by difference, the
// host's work around it (the integrator, and set_j() queueing the corrected bodies: not timed per call,
// since two clock reads per body cost as much as set_j itself).
class TimedEngine final : public hermite::ForceEngine {
public:
    explicit TimedEngine(std::unique_ptr<hermite::ForceEngine> e) : e_(std::move(e)) {}
    std::string_view name() const override { return e_->name(); }
    void reserve(std::size_t n) override { e_->reserve(n); }
    void set_j(std::size_t address, const hermite::JParticle& p) override { e_->set_j(address, p); }
    void set_j_batch(std::span<const int> addresses, std::span<const hermite::JParticle> ps) override {
        e_->set_j_batch(addresses, ps);
    }
    void set_profiling(bool on) override { e_->set_profiling(on); }
    std::vector<hermite::PhaseTime> profile() const override { return e_->profile(); }
    std::size_t j_capacity() const override { return e_->j_capacity(); }
    void compute(double t, std::size_t nj, std::span<const hermite::IParticle> in, double eps2,
                 std::span<hermite::IForce> out, bool neighbours) override {
        const auto t0 = std::chrono::steady_clock::now();
        e_->compute(t, nj, in, eps2, out, neighbours);
        compute_s += seconds_since(t0);
        ++computes;
    }
    std::span<const int> neighbours(std::size_t i) const override { return e_->neighbours(i); }
    bool neighbour_overflow(std::size_t i) const override { return e_->neighbour_overflow(i); }
    void want_nearest(bool on) override { e_->want_nearest(on); }
    void want_snap(bool on) override { e_->want_snap(on); }
    double interactions() const override { return e_->interactions(); }

    double compute_s = 0;
    long long computes = 0;

private:
    std::unique_ptr<hermite::ForceEngine> e_;
};

// What `run --integrator hermite4` gets when every body is active (or `active` of them, the first in
// address order: a block of that size): the cuda engine's compute() on N Plummer bodies in the
// generator's order, wall time per call (the host's sort and copies included), the first call (which
// also puts the j-particles in Morton order) apart.
static int engine_bench(int n, int reps, int active) {
    const State st = ic::make_plummer({.bodies = std::size_t(n), .seed = 1});
    hermite::EngineConfig config;
    if (const char* gpus = std::getenv("HERMITE_BENCH_GPUS")) config.devices = hermite::engine_devices(gpus);
    if (const char* from = std::getenv("HERMITE_BENCH_SEVERAL_FROM")) config.several_gpus_from = std::atof(from);
    auto e = hermite::make_cuda_engine(config);
    // As the integrator's block steps (its first step, and g6calc_lasthalf2, also want the nearest
    // neighbour: environment HERMITE_BENCH_NEAREST=1; that variant takes no far tiles).
    e->want_nearest(std::getenv("HERMITE_BENCH_NEAREST") != nullptr);
    const std::size_t un = std::size_t(n);
    std::vector<hermite::IParticle> in(un);
    for (int i = 0; i < n; ++i) {
        hermite::JParticle p;
        p.id = i, p.mass = st.pos_mass[i].w, p.x = xyz(st.pos_mass[i]), p.v = xyz(st.velocity[i]);
        e->set_j(std::size_t(i), p);
        in[std::size_t(i)] = {.id = i, .x = p.x, .v = p.v};
    }
    if (active > 0 && active < n) in.resize(std::size_t(active));
    const int ni = int(in.size());
    std::vector<hermite::IForce> out(in.size());
    e->count_tile_loops(true);
    auto t0 = std::chrono::steady_clock::now();
    e->compute(0.0, std::size_t(n), in, 0.0, out, false);
    const double first = seconds_since(t0);
    const std::vector<hermite::CudaEngine::TileLoops> loops = e->tile_loops();
    e->count_tile_loops(false);
    t0 = std::chrono::steady_clock::now();
    for (int r = 0; r < reps; ++r) e->compute(0.0, std::size_t(n), in, 0.0, out, false);
    const double each = seconds_since(t0) / reps;
    std::printf("engine cuda ds%s N %d active %d on %zu GPU(s), %s: first call %.3f ms, then %.3f ms per call = %.3e "
                "interactions/s\n",
                std::getenv("HERMITE_BENCH_NEAREST") != nullptr ? " (nearest neighbours)" : "", n, ni, loops.size(),
                e->spread_evaluations() > 0 ? "on every GPU" : "on the first GPU", first * 1e3, each * 1e3,
                double(n) * ni / each);
    for (std::size_t g = 0; g < loops.size(); ++g)
        std::printf("  GPU %zu's tiles: %s\n", g, tile_mix(std::vector<unsigned long long>(loops[g].begin(), loops[g].end())).c_str());
    return 0;
}

static int plummer(int n, double t_end, double eta, double eps, const std::string& engine, const std::string& prec,
                   int bodies_per_thread, int order) {
    const State st = ic::make_plummer({.bodies = std::size_t(n), .seed = 42});
    std::vector<double> m(n);
    std::vector<Vec3d> x(n), v(n);
    for (int i = 0; i < n; ++i) {
        m[i] = 1.0 / n;  // equal masses, total 1
        x[i] = xyz(st.pos_mass[i]);
        v[i] = xyz(st.velocity[i]);
    }
    hermite::EngineConfig c;
    c.precision = prec;
    c.bodies_per_thread = bodies_per_thread;
    auto timed = std::make_unique<TimedEngine>(
        hermite::make_force_engine(hermite::parse_engine_kind(engine), c, nullptr, order == 6));
    TimedEngine& timing = *timed;
    hermite::HermiteIntegrator h(std::move(timed),
                                 {.eta = eta,
                                  .eta_start = std::getenv("ETA_START") ? std::atof(std::getenv("ETA_START")) : 0.0,
                                  .order = order,
                                  .softening = eps});
    const auto t0 = std::chrono::steady_clock::now();
    h.start(m, x, v, 0);
    const double e0 = h.energy();
    const bool profiling = std::getenv("HERMITE_BENCH_PROFILE") != nullptr;
    h.set_profiling(profiling);  // the phases of the block steps, printed at the end
    const auto t1 = std::chrono::steady_clock::now();
    const double compute_at_start = timing.compute_s;
    const long long computes_at_start = timing.computes;
    double next_report = 1.0, energy_wall = 0;  // the energy sums are O(N^2) on the host: kept out of the rate
    while (h.time() < t_end) {
        const double target = std::min(t_end, next_report);
        h.evolve(target);
        const auto te = std::chrono::steady_clock::now();
        const double wall = std::chrono::duration<double>(te - t1).count() - energy_wall;
        const double e = h.energy();
        energy_wall += std::chrono::duration<double>(std::chrono::steady_clock::now() - te).count();
        std::printf("  t = %g: %.1f s, %llu blocks, %.3e force evaluations, %.3e interactions/s, dE/E %+.3e\n", h.time(),
                    wall, (unsigned long long)h.stats().blocks, double(h.stats().body_steps), h.stats().interactions / wall,
                    (e - e0) / e0);
        std::fflush(stdout);
        next_report += 1.0;
    }
    const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t1).count() - energy_wall;
    const double e1 = h.energy();
    const auto& s = h.stats();
    std::printf("plummer N %d order %d eta %g eps %g t_end %g engine %s %s bpt %d: %.2f s (start %.2f s), %llu blocks (mean %.1f bodies), "
                "%.4e force evaluations, %.4e interactions, %.3e interactions/s = %.1f Gflop/s (60 flops), |dE/E| = %.3e\n",
                n, order, eta, eps, t_end, engine.c_str(), prec.c_str(), bodies_per_thread, wall,
                std::chrono::duration<double>(t1 - t0).count(), (unsigned long long)s.blocks,
                double(s.body_steps) / double(s.blocks), double(s.body_steps), s.interactions, s.interactions / wall,
                s.interactions / wall * 60 / 1e9, std::abs((e1 - e0) / e0));
    const double compute_s = timing.compute_s - compute_at_start;
    const long long computes = std::max(1LL, timing.computes - computes_at_start);
    std::printf("  of the %.2f s after the start: engine compute %.2f s (%lld calls, %.1f us each), the host's work "
                "around it (integrator, set_j) %.2f s (%.1f us per block)\n",
                wall, compute_s, computes, compute_s / double(computes) * 1e6, wall - compute_s,
                (wall - compute_s) / double(std::max<unsigned long long>(1, s.blocks)) * 1e6);
    if (profiling) std::printf("%s", h.profile_report(wall).c_str());
    return 0;
}

int main(int argc, char** argv) {
    try {
        const std::string mode = argc > 1 ? argv[1] : "";
        if (mode == "engine" && argc >= 3)
            return engine_bench(std::atoi(argv[2]), argc > 3 ? std::atoi(argv[3]) : 5, argc > 4 ? std::atoi(argv[4]) : 0);
        if (mode == "kernel" && (argc == 4 || argc == 5 || argc == 8))
            return kernel_bench(std::atoi(argv[2]), std::atoi(argv[3]), argc > 4 ? std::atoi(argv[4]) : 5,
                                argc == 8 ? Shape{std::atoi(argv[5]), std::atoi(argv[6]), std::atoi(argv[7])} : Shape{});
        if (mode == "plummer" && argc >= 6)
            return plummer(std::atoi(argv[2]), std::atof(argv[3]), std::atof(argv[4]), std::atof(argv[5]),
                           argc > 6 ? argv[6] : "cuda", argc > 7 ? argv[7] : "ds", argc > 8 ? std::atoi(argv[8]) : 0,
                           argc > 9 ? std::atoi(argv[9]) : 4);
        std::fprintf(stderr, "usage: %s kernel N NI [REPS [BLOCK UNROLL BPT]] | engine N [REPS [ACTIVE]] | plummer N T_END ETA EPS [cpu|cuda] [ds|fp64] [BODIES_PER_THREAD] [ORDER (4, 6)]\n", argv[0]);
        return 2;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "nbody_hermite_bench: %s\n", e.what());
        return 1;
    }
}
