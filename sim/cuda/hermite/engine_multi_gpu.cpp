// The Hermite force engine on several GPUs of one process, Sapporo's way (Gaburov et al. 2009, the
// multi-GPU section): the j-particles are split over the GPUs, every GPU computes the partial
// acceleration, jerk, potential (and snap) of the whole i-batch from its j-particles with the cuda
// engine, and the host adds the partials in double, in GPU order. The nearest neighbour is the
// partials' smallest r^2, the lowest id on ties, so it does not depend on how the j-particles were
// split; neighbour lists are merged and sorted.
//
// j-particle at address a lives on GPU a % P at local address a / P: the split never moves as the
// j-memory grows, and any nj (libg6's g6_set_nj) leaves each GPU within one particle of nj / P.
// Costs against one GPU: the i-batch goes to every GPU, and the results (ni x 8 doubles) come back
// from every GPU and are summed on the host: O(ni P) host work per evaluation against O(ni nj / P)
// on each GPU. One thread drives every GPU (CudaEngine::launch, then finish: GPU g computes while
// the host stages GPU g + 1's batch), and the host work is spread over the host pool (parallel.hpp):
// each GPU's share of the corrected bodies, each GPU's copy of the i-batch and the sum.

#include <cuda_runtime_api.h>

#include <algorithm>
#include <chrono>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

#include "../../src/hermite/parallel.hpp"
#include "../cuda_raii.hpp"
#include "../gpu_workers.hpp"
#include "engine_cuda.hpp"
#include "nbody/sim/hermite/force_engine.hpp"

namespace nbody::hermite {

namespace {

class MultiGpuForceEngine final : public ForceEngine {
public:
    explicit MultiGpuForceEngine(const EngineConfig& config)
        : devices_(config.devices), max_neighbours_(std::size_t(config.max_neighbours)) {
        EngineConfig one = config;
        one.devices.clear();
        for (const int device : devices_) {
            const cuda::ScopedDevice on(device);  // an engine takes the current device as its own
            engines_.push_back(make_cuda_engine(one));
        }
        partials_.resize(devices_.size());
        workers_ = std::make_unique<cuda::GpuWorkers>(int(devices_.size()) - 1);
    }

    std::string_view name() const override { return "cuda"; }

    void reserve(std::size_t n) override {
        on_every_gpu([&](std::size_t g) { engines_[g]->reserve(local_count(n, g)); });
    }
    void set_j(std::size_t address, const JParticle& p) override {
        const std::size_t g = address % gpus();
        engines_[g]->set_j(address / gpus(), p);  // the engine makes its GPU current where it needs one
    }
    // Every GPU takes its share from the whole batch, one after the other on this thread: each share
    // is written by the host pool, whose threads the commit that made the batch left awake, where the
    // GPUs' threads sleep since their last compute() and would take a wake-up each.
    void set_j_batch(std::span<const int> addresses, std::span<const JParticle> ps) override {
        for (std::size_t g = 0; g < gpus(); ++g) engines_[g]->set_j_every(addresses, ps, gpus(), g);
    }
    std::size_t j_capacity() const override {
        std::size_t capacity = engines_.front()->j_capacity() * gpus();
        for (std::size_t g = 0; g < gpus(); ++g) capacity = std::min(capacity, engines_[g]->j_capacity() * gpus() + g);
        return capacity;
    }

    void compute(double t, std::size_t nj, std::span<const IParticle> in, double eps2, std::span<IForce> out,
                 bool neighbours) override {
        if (out.size() != in.size()) throw std::invalid_argument("cuda force engine: output size differs from input");
        auto since = profiling_ ? std::chrono::steady_clock::now() : std::chrono::steady_clock::time_point();
        // From this thread: every GPU's batch staged (on the host pool) and queued in turn, so that
        // GPU g computes while the host stages GPU g + 1's; then each GPU's results collected.
        for (std::size_t g = 0; g < gpus(); ++g) engines_[g]->launch(t, local_count(nj, g), in, eps2, neighbours);
        for (std::size_t g = 0; g < gpus(); ++g) {
            if (partials_[g].size() < in.size()) partials_[g].resize(in.size());  // grown, never shrunk
            engines_[g]->finish(std::span<IForce>(partials_[g].data(), in.size()));
        }
        const auto computed = profiling_ ? std::chrono::steady_clock::now() : since;
        parallel_for(
            out.size(),
            [&](std::size_t begin, std::size_t end) {
                for (std::size_t i = begin; i < end; ++i) out[i] = sum_over_gpus(i);
            },
            host_threads_from());
        if (neighbours) merge_neighbours(in.size());
        if (profiling_) {
            const auto now = std::chrono::steady_clock::now();
            on_gpus_s_ += std::chrono::duration<double>(computed - since).count();
            sum_s_ += std::chrono::duration<double>(now - computed).count();
        }
    }

    std::span<const int> neighbours(std::size_t i) const override {
        if (i >= lists_.size()) return {};
        return lists_[i];
    }
    bool neighbour_overflow(std::size_t i) const override { return i < overflow_.size() && overflow_[i]; }
    void want_nearest(bool on) override {
        for (auto& e : engines_) e->want_nearest(on);
    }
    void want_snap(bool on) override {
        for (auto& e : engines_) e->want_snap(on);
    }
    void set_profiling(bool on) override {
        profiling_ = on;
        for (auto& e : engines_) e->set_profiling(on);
    }
    std::vector<PhaseTime> profile() const override {
        std::vector<PhaseTime> out{{"every GPU's compute (launch all, finish each)", on_gpus_s_}, {"sum of the partials", sum_s_}};
        for (std::size_t g = 0; g < gpus(); ++g)
            for (const PhaseTime& p : engines_[g]->profile()) out.push_back({"GPU " + std::to_string(devices_[g]) + ": " + p.name, p.seconds});
        return out;
    }
    double interactions() const override {
        double sum = 0;
        for (const auto& e : engines_) sum += e->interactions();
        return sum;
    }

private:
    std::size_t gpus() const { return devices_.size(); }
    // Addresses below n that GPU g holds: a % P == g.
    std::size_t local_count(std::size_t n, std::size_t g) const { return (n + gpus() - 1 - g) / gpus(); }

    void on_every_gpu(const std::function<void(std::size_t)>& work) {
        workers_->run([&](int k) { work(std::size_t(k)); });  // each engine makes its own GPU current
    }

    // Body i's force: the partials added in GPU order, in double; the nearest neighbour the
    // smallest r^2 over the GPUs, the lowest id on ties.
    IForce sum_over_gpus(std::size_t i) const {
        IForce f = partials_.front()[i];
        for (std::size_t g = 1; g < gpus(); ++g) {
            const IForce& p = partials_[g][i];
            f.acc += p.acc;
            f.jerk += p.jerk;
            f.snap += p.snap;
            f.pot += p.pot;
            const bool closer = p.nearest >= 0 && (f.nearest < 0 || p.nearest_r2 < f.nearest_r2 ||
                                                   (p.nearest_r2 == f.nearest_r2 && p.nearest < f.nearest));
            if (closer) f.nearest = p.nearest, f.nearest_r2 = p.nearest_r2;
        }
        return f;
    }

    void merge_neighbours(std::size_t ni) {
        lists_.assign(ni, {});
        overflow_.assign(ni, 0);
        for (std::size_t i = 0; i < ni; ++i) {
            for (std::size_t g = 0; g < gpus(); ++g) {
                const std::span<const int> part = engines_[g]->neighbours(i);
                lists_[i].insert(lists_[i].end(), part.begin(), part.end());
                overflow_[i] |= engines_[g]->neighbour_overflow(i);
            }
            std::sort(lists_[i].begin(), lists_[i].end());
            if (lists_[i].size() > max_neighbours_) lists_[i].resize(max_neighbours_), overflow_[i] = 1;
        }
    }

    std::vector<int> devices_;
    std::size_t max_neighbours_;
    std::vector<std::unique_ptr<CudaEngine>> engines_;  // engines_[g] on devices_[g]
    std::vector<std::vector<IForce>> partials_;          // [g][i] of the last compute()
    std::vector<std::vector<int>> lists_;
    std::vector<char> overflow_;
    bool profiling_ = false;
    double on_gpus_s_ = 0, sum_s_ = 0;
    std::unique_ptr<cuda::GpuWorkers> workers_;  // last: its threads end before the engines go
};

}  // namespace

std::unique_ptr<ForceEngine> make_multi_gpu_force_engine(const EngineConfig& config) {
    if (config.devices.size() < 2) throw std::invalid_argument("the multi-GPU Hermite engine needs two GPUs or more");
    return std::make_unique<MultiGpuForceEngine>(config);
}

}  // namespace nbody::hermite
