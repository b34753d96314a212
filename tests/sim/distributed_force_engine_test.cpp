// The Hermite force engine split over ranks (comm/distributed_force_engine.hpp) in one process: P
// "ranks" as P threads sharing a communicator whose one collective the engine uses, all_gather_v,
// is a copy through shared memory. The split forces equal the unsplit engine's to rounding, every
// rank gets the same bits, and P replicated integrators take the one-process run's block steps.
// Across real MPI ranks: tests/cli/mpi_run_cli_test.cpp (MpiRun.Hermite...).

#include <gtest/gtest.h>

#include <algorithm>
#include <barrier>
#include <cmath>
#include <cstring>
#include <functional>
#include <memory>
#include <random>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "nbody/sim/comm/distributed_force_engine.hpp"
#include "nbody/sim/hermite/integrator.hpp"
#include "nbody/sim/ic/plummer.hpp"

namespace nbody::comm {
namespace {

using hermite::IForce;
using hermite::IParticle;
using hermite::JParticle;

// P ranks of one process, one thread each. all_gather_v only: the rest is not needed here.
class ThreadRanks {
public:
    explicit ThreadRanks(int ranks) : ranks_(ranks), barrier_(ranks), slots_(std::size_t(ranks)) {}

    class Rank final : public Communicator {
    public:
        Rank(ThreadRanks& all, int rank) : all_(all), rank_(rank) {}
        int rank() const override { return rank_; }
        int size() const override { return all_.ranks_; }
        MemorySpace memory() const override { return MemorySpace::Host; }
        std::string_view name() const override { return "threads"; }
        void all_gather_v(const void* send, void* recv, std::span<const std::size_t> counts, DataType type) override {
            const std::size_t width = size_of(type);
            const auto* bytes = static_cast<const std::byte*>(send);
            all_.slots_[std::size_t(rank_)].assign(bytes, bytes + counts[std::size_t(rank_)] * width);
            all_.barrier_.arrive_and_wait();
            auto* to = static_cast<std::byte*>(recv);
            for (const auto& slot : all_.slots_) to = std::copy(slot.begin(), slot.end(), to);
            all_.barrier_.arrive_and_wait();  // every rank has read every slot before one is written again
        }
        void all_reduce_sum(const void*, void*, std::size_t, DataType) override { unused(); }
        void reduce_scatter_sum(const void*, void*, std::size_t, DataType) override { unused(); }
        void broadcast(void*, std::size_t, DataType, int) override { unused(); }
        ValueIndex all_reduce_min_with_index(const ValueIndex&) override { unused(); }
        std::vector<std::byte> all_gather_host_bytes(std::span<const std::byte>) override { unused(); }
        void synchronize() override {}

    private:
        [[noreturn]] static void unused() { throw std::logic_error("not used by the distributed force engine"); }
        ThreadRanks& all_;
        int rank_;
    };

    // body(rank) on one thread per rank; the first failure is rethrown once all ended.
    void run(const std::function<void(Communicator&)>& body) {
        std::vector<std::exception_ptr> errors(static_cast<std::size_t>(ranks_));
        std::vector<std::thread> threads;
        for (int r = 0; r < ranks_; ++r)
            threads.emplace_back([&, r] {
                Rank rank(*this, r);
                try {
                    body(rank);
                } catch (...) {
                    errors[std::size_t(r)] = std::current_exception();
                }
            });
        for (auto& t : threads) t.join();
        for (const auto& e : errors)
            if (e) std::rethrow_exception(e);
    }

private:
    int ranks_;
    std::barrier<> barrier_;
    std::vector<std::vector<std::byte>> slots_;
};

std::vector<JParticle> random_j(std::size_t n, std::uint64_t seed) {
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<double> u(-1.0, 1.0);
    const auto vec = [&](double scale) { return Vec3d{scale * u(rng), scale * u(rng), scale * u(rng)}; };
    std::vector<JParticle> j(n);
    for (std::size_t k = 0; k < n; ++k) {
        j[k].id = int(k);
        j[k].t = -0.01 * double(k % 4);
        j[k].mass = 1.0 / double(n) * (1.0 + 0.5 * u(rng));
        j[k].x = vec(1.0), j[k].v = vec(0.5), j[k].a2 = vec(0.1), j[k].j6 = vec(0.05);
        j[k].s24 = vec(0.01), j[k].c120 = vec(0.001);
    }
    return j;
}

std::vector<IParticle> i_of(const std::vector<JParticle>& j, std::size_t count) {
    std::vector<IParticle> in;
    for (std::size_t k = 0; k < count; ++k)  // every 3rd body: ids that are not 0..count-1
        in.push_back({j[3 * k].id, j[3 * k].x, j[3 * k].v, 0.0, 2.0 * j[3 * k].a2});
    return in;
}

double relative(const Vec3d& a, const Vec3d& b) { return norm(a - b) / std::max(norm(b), 1e-300); }

TEST(DistributedForceEngine, SplitForcesEqualTheUnsplitEnginesOnEveryRank) {
    constexpr std::size_t n = 301;
    const std::vector<JParticle> j = random_j(n, 7);
    const std::vector<IParticle> in = i_of(j, 40);
    const double t = 0.003, eps2 = 1e-4;
    for (const std::size_t nj : {n, n - 5}) {  // all, and a prefix (the integrator's nj is N; libg6's may be less)
        auto whole = hermite::make_force_engine(hermite::EngineKind::Cpu);
        whole->want_snap(true);
        for (std::size_t k = 0; k < n; ++k) whole->set_j(k, j[k]);
        std::vector<IForce> expected(in.size());
        whole->compute(t, nj, in, eps2, expected);
        for (const int ranks : {2, 3, 5}) {
            ThreadRanks world(ranks);
            std::vector<std::vector<IForce>> got(std::size_t(ranks), std::vector<IForce>(in.size()));
            world.run([&](Communicator& comm) {
                DistributedForceEngine engine(hermite::make_force_engine(hermite::EngineKind::Cpu), comm);
                engine.want_snap(true);
                engine.reserve(n);
                // Half one by one, half as a batch (a block's corrected bodies).
                for (std::size_t k = 0; k < n / 2; ++k) engine.set_j(k, j[k]);
                std::vector<int> addresses;
                for (std::size_t k = n / 2; k < n; ++k) addresses.push_back(int(k));
                engine.set_j_batch(addresses, std::span(j).subspan(n / 2));
                EXPECT_EQ(engine.j_capacity(), n);
                EXPECT_NE(engine.device_blocks_unavailable().find("across ranks through the host"), std::string::npos);
                // Profiling adds a small collective before the gather (the wait for the slowest rank):
                // the same forces, two more rows.
                engine.set_profiling(ranks == 3);
                engine.compute(t, nj, in, eps2, got[std::size_t(comm.rank())]);
                if (ranks == 3) {
                    std::vector<std::string> rows;
                    for (const auto& phase : engine.profile()) rows.push_back(phase.name);
                    EXPECT_NE(std::find(rows.begin(), rows.end(), "wait for the slowest of 3 ranks"), rows.end());
                    EXPECT_NE(std::find(rows.begin(), rows.end(), "gather and add 3 ranks' sums"), rows.end());
                }
                EXPECT_EQ(engine.interactions(), double(in.size()) * double(nj));
                EXPECT_THROW(engine.compute(t, nj, in, eps2, got[std::size_t(comm.rank())], true), std::invalid_argument);
            });
            for (std::size_t i = 0; i < in.size(); ++i) {
                const IForce& e = expected[i];
                const IForce& g = got[0][i];
                EXPECT_LT(relative(g.acc, e.acc), 1e-13) << ranks << " ranks, i " << i;
                EXPECT_LT(relative(g.jerk, e.jerk), 1e-13) << ranks << " ranks, i " << i;
                EXPECT_LT(relative(g.snap, e.snap), 1e-12) << ranks << " ranks, i " << i;
                EXPECT_LT(std::abs(g.pot - e.pot) / std::abs(e.pot), 1e-13) << ranks << " ranks, i " << i;
                // One pair's r^2 is computed alike on any rank: the nearest is exact.
                EXPECT_EQ(g.nearest, e.nearest) << ranks << " ranks, i " << i;
                EXPECT_EQ(g.nearest_r2, e.nearest_r2) << ranks << " ranks, i " << i;
                for (int r = 1; r < ranks; ++r)
                    EXPECT_EQ(std::memcmp(&got[std::size_t(r)][i], &g, sizeof g), 0) << "rank " << r << " of " << ranks;
            }
        }
    }
}

TEST(DistributedForceEngine, NearestTiesKeepTheLowestIdWhicheverRankHoldsIt) {
    // Bodies 1 and 2 are at the same distance from body 0; with 2 ranks body 2 is on rank 0 and body 1 on rank 1.
    std::vector<JParticle> j(3);
    for (int k = 0; k < 3; ++k) j[std::size_t(k)].id = k, j[std::size_t(k)].mass = 1.0;
    j[1].x = {1, 0, 0};
    j[2].x = {0, 1, 0};
    const std::vector<IParticle> in = {{0, {}, {}, 0.0, {}}};
    ThreadRanks world(2);
    std::vector<IForce> got(2);
    world.run([&](Communicator& comm) {
        DistributedForceEngine engine(hermite::make_force_engine(hermite::EngineKind::Cpu), comm);
        for (std::size_t k = 0; k < 3; ++k) engine.set_j(k, j[k]);
        engine.compute(0.0, 3, in, 0.0, std::span(&got[std::size_t(comm.rank())], 1));
    });
    EXPECT_EQ(got[0].nearest, 1);
    EXPECT_EQ(got[0].nearest_r2, 1.0);
    EXPECT_EQ(got[1].nearest, 1);
}

// Slot ranges (the cuda engine's share under mpirun): every rank holds every j-particle; an evaluation
// below the spread threshold runs whole on every rank and nothing is gathered; one above is gathered
// and added. The cpu engine stands in for the cuda engine here and computes whole either way, so a
// gathered evaluation on two ranks comes out twice the whole: what shows that it was gathered.
TEST(DistributedForceEngine, SlotRangesGatherOnlyTheSpreadEvaluations) {
    constexpr std::size_t n = 200;
    const std::vector<JParticle> j = random_j(n, 11);
    const std::vector<IParticle> in = i_of(j, 30);  // 30 x 200 = 6,000 pairs
    auto whole = hermite::make_force_engine(hermite::EngineKind::Cpu);
    for (std::size_t k = 0; k < n; ++k) whole->set_j(k, j[k]);
    std::vector<IForce> expected(in.size());
    whole->compute(0.001, n, in, 1e-4, expected);
    for (const double spread_from : {6001.0, 6000.0}) {
        ThreadRanks world(2);
        std::vector<std::vector<IForce>> got(2, std::vector<IForce>(in.size()));
        world.run([&](Communicator& comm) {
            DistributedForceEngine engine(hermite::make_force_engine(hermite::EngineKind::Cpu), comm,
                                          {JShare::SlotRanges, spread_from});
            EXPECT_EQ(engine.local_count(n), n);
            for (std::size_t k = 0; k < n / 2; ++k) engine.set_j(k, j[k]);
            std::vector<int> addresses;
            for (std::size_t k = n / 2; k < n; ++k) addresses.push_back(int(k));
            engine.set_j_batch(addresses, std::span(j).subspan(n / 2));
            engine.compute(0.001, n, in, 1e-4, got[std::size_t(comm.rank())]);
        });
        const double times = spread_from > 6000 ? 1.0 : 2.0;
        for (int r = 0; r < 2; ++r)
            for (std::size_t i = 0; i < in.size(); ++i) {
                const IForce& g = got[std::size_t(r)][i];
                EXPECT_EQ(g.acc.x, times * expected[i].acc.x) << "spread from " << spread_from << ", rank " << r;
                EXPECT_EQ(g.pot, times * expected[i].pot) << "spread from " << spread_from << ", rank " << r;
                EXPECT_EQ(g.nearest, expected[i].nearest);
            }
    }
}

TEST(DistributedForceEngine, ReplicatedIntegratorsTakeTheOneProcessBlockSteps) {
    const State st = ic::make_plummer({.bodies = 128, .seed = 3});
    std::vector<double> m;
    std::vector<Vec3d> x, v;
    for (std::size_t i = 0; i < st.size(); ++i) {
        m.push_back(st.pos_mass[i].w);
        x.push_back(xyz(st.pos_mass[i]));
        v.push_back(xyz(st.velocity[i]));
    }
    for (const int order : {4, 6}) {
        hermite::HermiteParams p;
        p.order = order;
        p.eta = hermite::default_eta(order);
        p.softening = 1.0 / 128;
        const double t_end = 0.125;
        hermite::HermiteIntegrator one(hermite::make_force_engine(hermite::EngineKind::Cpu), p);
        one.start(m, x, v, 0.0);
        one.evolve(t_end);
        ThreadRanks world(3);
        std::vector<hermite::Bodies> end(3);
        std::vector<hermite::HermiteStats> stats(3);
        world.run([&](Communicator& comm) {
            hermite::HermiteIntegrator h(
                std::make_unique<DistributedForceEngine>(hermite::make_force_engine(hermite::EngineKind::Cpu), comm), p);
            h.start(m, x, v, 0.0);
            h.evolve(t_end);
            end[std::size_t(comm.rank())] = h.bodies();
            stats[std::size_t(comm.rank())] = h.stats();
        });
        EXPECT_EQ(stats[0].blocks, one.stats().blocks) << "order " << order;
        EXPECT_EQ(stats[0].body_steps, one.stats().body_steps) << "order " << order;
        double worst = 0;
        for (std::size_t i = 0; i < m.size(); ++i) worst = std::max(worst, norm(end[0].x[i] - one.bodies().x[i]));
        EXPECT_LT(worst, 1e-12) << "order " << order;
        for (int r = 1; r < 3; ++r)
            for (std::size_t i = 0; i < m.size(); ++i)
                EXPECT_EQ(std::memcmp(&end[std::size_t(r)].x[i], &end[0].x[i], sizeof(Vec3d)), 0) << "rank " << r;
    }
}

}  // namespace
}  // namespace nbody::comm
