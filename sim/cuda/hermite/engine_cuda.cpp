// The cuda force engine: j-memory on the GPU, updated in batches of the bodies the host
// corrected; per compute(): scatter the updates, predict every j-particle, force on the i-batch
// (j-split across blocks), reduce, copy back. See hermite_kernels.hpp.

#include <cuda_runtime_api.h>

#include <algorithm>
#include <stdexcept>
#include <string>
#include <vector>

#include "../cuda_raii.hpp"
#include "hermite_kernels.hpp"
#include "nbody/sim/hermite/force_engine.hpp"

namespace nbody::hermite {

namespace k = nbody::cuda::hermite;
using k::r4;
using k::Real4;
using nbody::cuda::DeviceBuffer;

bool cuda_engine_available(std::string* why_not) {
    int count = 0;
    const cudaError_t err = cudaGetDeviceCount(&count);
    if (err != cudaSuccess) {
        if (why_not) *why_not = std::string("no usable CUDA device (") + cudaGetErrorString(err) + ")";
        cudaGetLastError();
        return false;
    }
    if (count == 0) {
        if (why_not) *why_not = "no CUDA device";
        return false;
    }
    return true;
}

namespace {

class CudaForceEngine final : public ForceEngine {
public:
    explicit CudaForceEngine(const EngineConfig& c) : config_(c) {
        if (c.precision == "ds")
            variant_.precision = k::Precision::Ds;
        else if (c.precision == "fp64")
            variant_.precision = k::Precision::Fp64;
        else
            throw std::invalid_argument("Hermite precision '" + c.precision + "' (supported: ds, fp64)");
        variant_.block = c.block;
        variant_.unroll = c.unroll;
        variant_.bodies_per_thread = c.bodies_per_thread;
        // Fails now, with the list, rather than at the first step.
        k::hermite_force(variant_, {}, 0, {}, 0, 0, 1, {}, {}, nullptr);
        int device = 0;
        CUDA_CHECK(cudaGetDevice(&device));
        CUDA_CHECK(cudaDeviceGetAttribute(&sm_count_, cudaDevAttrMultiProcessorCount, device));
    }

    std::string_view name() const override { return "cuda"; }

    void reserve(std::size_t n) override {
        if (n <= capacity_) return;
        flush();
        std::size_t cap = std::max<std::size_t>(n, 1024);
        DeviceBuffer<Real4> xm(cap), vt(cap), a2(cap), j6(cap);
        CUDA_CHECK(cudaMemset(xm.get(), 0, xm.bytes()));
        CUDA_CHECK(cudaMemset(vt.get(), 0, vt.bytes()));
        CUDA_CHECK(cudaMemset(a2.get(), 0, a2.bytes()));
        CUDA_CHECK(cudaMemset(j6.get(), 0, j6.bytes()));
        if (capacity_ > 0) {
            CUDA_CHECK(cudaMemcpy(xm.get(), xm_.get(), xm_.bytes(), cudaMemcpyDeviceToDevice));
            CUDA_CHECK(cudaMemcpy(vt.get(), vt_.get(), vt_.bytes(), cudaMemcpyDeviceToDevice));
            CUDA_CHECK(cudaMemcpy(a2.get(), a2_.get(), a2_.bytes(), cudaMemcpyDeviceToDevice));
            CUDA_CHECK(cudaMemcpy(j6.get(), j6_.get(), j6_.bytes(), cudaMemcpyDeviceToDevice));
        }
        xm_ = std::move(xm), vt_ = std::move(vt), a2_ = std::move(a2), j6_ = std::move(j6);
        hi_ = DeviceBuffer<float4>(cap), lo_ = DeviceBuffer<float4>(cap), vel_ = DeviceBuffer<float4>(cap);
        if (variant_.precision == k::Precision::Fp64) pos64_ = DeviceBuffer<Real4>(cap), vel64_ = DeviceBuffer<Real4>(cap);
        capacity_ = cap;
    }

    void set_j(std::size_t address, const JParticle& p) override {
        if (address >= capacity_) reserve(std::max(address + 1, capacity_ + capacity_ / 2));
        k::JUpdate u;
        u.address = (long long)address;
        u.xm = r4(p.x.x, p.x.y, p.x.z, p.mass);
        u.vt = r4(p.v.x, p.v.y, p.v.z, p.t);
        u.a2 = r4(p.a2.x, p.a2.y, p.a2.z, double(p.id));
        u.j6 = r4(p.j6.x, p.j6.y, p.j6.z, 0);
        pending_.push_back(u);
    }
    std::size_t j_capacity() const override { return capacity_; }

    void compute(double t, std::size_t nj, std::span<const IParticle> in, double eps2, std::span<IForce> out,
                 bool want_neighbours) override {
        if (nj > capacity_) throw std::invalid_argument("cuda force engine: " + std::to_string(nj) + " j-particles asked for, " + std::to_string(capacity_) + " stored");
        if (out.size() != in.size()) throw std::invalid_argument("cuda force engine: output size differs from input");
        const int ni = int(in.size());
        if (ni == 0) return;
        flush();
        k::ForceVariant v = variant_;
        v.extras = want_neighbours ? (k::kNearest | k::kNeighbours) : extras_;
        if (v.extras != k::kNoExtras) v.block = 128, v.unroll = 4, v.bodies_per_thread = 1;
        const int ni_pad = (ni + v.block - 1) / v.block * v.block;
        const int split = config_.j_split > 0 ? config_.j_split : k::choose_j_split(ni, int(nj), v.block, sm_count_, v.bodies_per_thread);
        ensure_i(std::size_t(ni_pad), std::size_t(split));

        host_x_.resize(std::size_t(ni));
        host_v_.resize(std::size_t(ni));
        for (int i = 0; i < ni; ++i) {
            const IParticle& p = in[std::size_t(i)];
            host_x_[std::size_t(i)] = r4(p.x.x, p.x.y, p.x.z, p.h2);
            host_v_[std::size_t(i)] = r4(p.v.x, p.v.y, p.v.z, double(p.id));
        }
        CUDA_CHECK(cudaMemcpy(ix_.get(), host_x_.data(), sizeof(Real4) * std::size_t(ni), cudaMemcpyHostToDevice));
        CUDA_CHECK(cudaMemcpy(iv_.get(), host_v_.data(), sizeof(Real4) * std::size_t(ni), cudaMemcpyHostToDevice));
        k::Predicted pred{hi_.get(), lo_.get(), vel_.get(), pos64_.get(), vel64_.get()};
        k::predict_j({xm_.get(), vt_.get(), a2_.get(), j6_.get()}, int(nj), t, variant_.precision, pred, nullptr);
        k::NeighbourLists lists{nb_count_.get(), nb_ids_.get(), config_.max_neighbours};
        if (want_neighbours) CUDA_CHECK(cudaMemset(nb_count_.get(), 0, sizeof(int) * std::size_t(ni)));
        k::Partials part{p_acc_.get(), p_jerk_.get(), p_nn_.get()};
        k::hermite_force(v, pred, int(nj), {ix_.get(), iv_.get()}, ni, eps2, split, part, lists, nullptr);
        k::reduce_partials(part, ni, ni_pad, split, {r_acc_.get(), r_jerk_.get(), r_nn_.get()}, nullptr);
        res_acc_.resize(std::size_t(ni));
        res_jerk_.resize(std::size_t(ni));
        res_nn_.resize(std::size_t(ni));
        CUDA_CHECK(cudaMemcpy(res_acc_.data(), r_acc_.get(), sizeof(Real4) * std::size_t(ni), cudaMemcpyDeviceToHost));
        CUDA_CHECK(cudaMemcpy(res_jerk_.data(), r_jerk_.get(), sizeof(Real4) * std::size_t(ni), cudaMemcpyDeviceToHost));
        CUDA_CHECK(cudaMemcpy(res_nn_.data(), r_nn_.get(), sizeof(int) * std::size_t(ni), cudaMemcpyDeviceToHost));
        for (int i = 0; i < ni; ++i) {
            IForce& f = out[std::size_t(i)];
            const Real4 a = res_acc_[std::size_t(i)], jn = res_jerk_[std::size_t(i)];
            f.acc = {a.x, a.y, a.z};
            f.pot = a.w;
            f.jerk = {jn.x, jn.y, jn.z};
            f.nearest = res_nn_[std::size_t(i)];
            f.nearest_r2 = f.nearest >= 0 ? jn.w : 0.0;
        }
        lists_.assign(want_neighbours ? std::size_t(ni) : 0, {});
        overflow_.assign(want_neighbours ? std::size_t(ni) : 0, 0);
        if (want_neighbours) {
            std::vector<int> counts(static_cast<std::size_t>(ni), 0);
            std::vector<int> ids(static_cast<std::size_t>(ni) * static_cast<std::size_t>(config_.max_neighbours), 0);
            CUDA_CHECK(cudaMemcpy(counts.data(), nb_count_.get(), sizeof(int) * counts.size(), cudaMemcpyDeviceToHost));
            CUDA_CHECK(cudaMemcpy(ids.data(), nb_ids_.get(), sizeof(int) * ids.size(), cudaMemcpyDeviceToHost));
            for (int i = 0; i < ni; ++i) {
                const int c = std::min(counts[std::size_t(i)], config_.max_neighbours);
                overflow_[std::size_t(i)] = counts[std::size_t(i)] > config_.max_neighbours;
                auto begin = ids.begin() + std::ptrdiff_t(i) * config_.max_neighbours;
                lists_[std::size_t(i)].assign(begin, begin + c);
                std::sort(lists_[std::size_t(i)].begin(), lists_[std::size_t(i)].end());  // atomics fill in any order
            }
        }
        interactions_ += double(ni) * double(nj);
    }

    std::span<const int> neighbours(std::size_t i) const override {
        if (i >= lists_.size()) return {};
        return lists_[i];
    }
    bool neighbour_overflow(std::size_t i) const override { return i < overflow_.size() && overflow_[i]; }
    double interactions() const override { return interactions_; }
    void want_nearest(bool on) override { extras_ = on ? k::kNearest : k::kNoExtras; }

private:
    void flush() {
        if (pending_.empty()) return;
        if (updates_.size() < pending_.size()) updates_ = DeviceBuffer<k::JUpdate>(pending_.size() * 2);
        CUDA_CHECK(cudaMemcpy(updates_.get(), pending_.data(), sizeof(k::JUpdate) * pending_.size(), cudaMemcpyHostToDevice));
        k::scatter_j({xm_.get(), vt_.get(), a2_.get(), j6_.get()}, updates_.get(), int(pending_.size()), nullptr);
        pending_.clear();
    }
    void ensure_i(std::size_t ni_pad, std::size_t split) {
        if (ix_.size() < ni_pad) {
            ix_ = DeviceBuffer<Real4>(ni_pad), iv_ = DeviceBuffer<Real4>(ni_pad);
            r_acc_ = DeviceBuffer<Real4>(ni_pad), r_jerk_ = DeviceBuffer<Real4>(ni_pad), r_nn_ = DeviceBuffer<int>(ni_pad);
            nb_count_ = DeviceBuffer<int>(ni_pad);
            nb_ids_ = DeviceBuffer<int>(ni_pad * std::size_t(config_.max_neighbours));
        }
        if (p_acc_.size() < ni_pad * split) {
            p_acc_ = DeviceBuffer<Real4>(ni_pad * split), p_jerk_ = DeviceBuffer<Real4>(ni_pad * split);
            p_nn_ = DeviceBuffer<int>(ni_pad * split);
        }
    }

    EngineConfig config_;
    k::ForceVariant variant_;
    int extras_ = k::kNearest;
    int sm_count_ = 1;
    std::size_t capacity_ = 0;
    DeviceBuffer<Real4> xm_, vt_, a2_, j6_, pos64_, vel64_;
    DeviceBuffer<float4> hi_, lo_, vel_;
    DeviceBuffer<k::JUpdate> updates_;
    std::vector<k::JUpdate> pending_;
    DeviceBuffer<Real4> ix_, iv_, r_acc_, r_jerk_, p_acc_, p_jerk_;
    DeviceBuffer<int> r_nn_, p_nn_, nb_count_, nb_ids_;
    std::vector<Real4> host_x_, host_v_, res_acc_, res_jerk_;
    std::vector<int> res_nn_;
    std::vector<std::vector<int>> lists_;
    std::vector<char> overflow_;
    double interactions_ = 0;
};

}  // namespace

std::unique_ptr<ForceEngine> make_cuda_force_engine(const EngineConfig& config) {
    return std::make_unique<CudaForceEngine>(config);
}

}  // namespace nbody::hermite
