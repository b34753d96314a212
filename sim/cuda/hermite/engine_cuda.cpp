// The cuda force engine: j-memory on the GPU, updated in batches of the bodies the host
// corrected; per compute(): scatter the updates, predict every j-particle, force on the i-batch
// (j-split across blocks), reduce, copy back, all queued on one stream through page-locked
// buffers with a single wait at the end. See hermite_kernels.hpp.

#include <cuda_runtime_api.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <numeric>
#include <stdexcept>
#include <string>
#include <vector>

#include "../../src/hermite/parallel.hpp"
#include "../cuda_raii.hpp"
#include "engine_cuda.hpp"
#include "hermite_kernels.hpp"
#include "nbody/sim/hermite/force_engine.hpp"
#include "nbody/sim/hermite/spatial_order.hpp"

namespace nbody::hermite {

namespace k = nbody::cuda::hermite;
using k::r4;
using k::Real4;
using nbody::cuda::DeviceBuffer;

int cuda_device_count() {
    int count = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess) {
        cudaGetLastError();
        return 0;
    }
    return count;
}

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

// Batches of this many active bodies or more take the ds kernel's far tiles, with the j-particles in
// Morton order and the batch sorted to match (docs/HERMITE.md, version 4): a warp's 64-128 bodies are
// then close together. The order is made again once the bodies have been updated kReorderAfter times
// over on average (a 256K order costs a few milliseconds on the host, against ~80 ms per evaluation).
inline constexpr int kFarTilesFrom = 32768;
inline constexpr std::size_t kReorderAfter = 4;

// Seconds since `since`, added to `phase` and `since` moved to now (profiling only).
void lap(std::chrono::steady_clock::time_point& since, double& phase) {
    const auto now = std::chrono::steady_clock::now();
    phase += std::chrono::duration<double>(now - since).count();
    since = now;
}

class CudaForceEngine final : public CudaEngine {
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
        // Fails now, with the list, rather than at the first step; with bodies_per_thread 0 (chosen
        // per evaluation) the variants larger batches take are checked too.
        for (int ni : {1, k::kTwoBodiesPerThreadFrom, k::kFourBodiesPerThreadFrom}) {
            variant_.bodies_per_thread =
                k::bodies_per_thread_for(c.bodies_per_thread, variant_.precision, k::kNoExtras, ni, c.block);
            k::hermite_force(variant_, {}, 0, {}, 0, 0, 1, {}, {}, nullptr);
        }
        CUDA_CHECK(cudaGetDevice(&device_));
        CUDA_CHECK(cudaDeviceGetAttribute(&sm_count_, cudaDevAttrMultiProcessorCount, device_));
    }


    std::string_view name() const override { return "cuda"; }

    void reserve(std::size_t n) override {
        if (n <= capacity_) return;
        const nbody::cuda::ScopedDevice on(device_);
        flush();
        const std::size_t cap = std::max<std::size_t>(n, 1024);
        for (DeviceBuffer<Real4>* a : j_arrays()) *a = grown(*a, cap);
        hi_ = DeviceBuffer<float4>(cap), lo_ = DeviceBuffer<float4>(cap), vel_ = DeviceBuffer<float4>(cap);
        if (variant_.precision == k::Precision::Fp64) pos64_ = DeviceBuffer<Real4>(cap), vel64_ = DeviceBuffer<Real4>(cap);
        if (variant_.snap) acc64_ = DeviceBuffer<Real4>(cap);
        capacity_ = cap;
    }

    // The 6th order: the snap kernel is fp64 (docs/HERMITE.md), and the j-memory gains snap/24 and
    // crackle/120. Asked for before the first j-particle is stored (the integrator's constructor).
    void want_snap(bool on) override {
        if (on == variant_.snap) return;
        if (on && variant_.precision != k::Precision::Fp64)
            throw std::invalid_argument("the cuda engine computes the snap in fp64 only (precision is " + config_.precision +
                                        "): use --precision fp64");
        if (capacity_ > 0 || pending_ > 0)
            throw std::logic_error("cuda force engine: want_snap after j-particles were stored");
        variant_.snap = on;
    }

    void set_j(std::size_t address, const JParticle& p) override {
        const int a = int(address);
        set_j_every(std::span<const int>(&a, 1), std::span<const JParticle>(&p, 1), 1, 0);
    }
    void set_j_batch(std::span<const int> addresses, std::span<const JParticle> ps) override {
        set_j_every(addresses, ps, 1, 0);
    }
    // Those ps[k] whose addresses[k] % stride == offset, at local address addresses[k] / stride (the
    // multi-GPU engine's share of a batch: engine_cuda.hpp). Written straight into the page-locked
    // buffer that the next compute() copies up, in parallel for large batches.
    void set_j_every(std::span<const int> addresses, std::span<const JParticle> ps, std::size_t stride,
                     std::size_t offset) override {
        std::size_t count = 0, last = 0;
        for (const int a : addresses)
            if (std::size_t(a) % stride == offset) ++count, last = std::max(last, std::size_t(a) / stride);
        if (count == 0) return;
        if (last >= capacity_) reserve(std::max(last + 1, capacity_ + capacity_ / 2));  // on device_
        if (id_is_address_.size() <= last) id_is_address_.resize(last + 1, 1);
        k::JUpdate* const at = append_updates(count);
        updates_since_order_ += count;
        // Where each k goes among this engine's updates: a serial pass of a few ns a body.
        place_in_batch_.resize(addresses.size());
        for (std::size_t k = 0, next = 0; k < addresses.size(); ++k)
            place_in_batch_[k] = std::size_t(addresses[k]) % stride == offset ? next++ : std::size_t(-1);
        std::atomic<std::ptrdiff_t> other_ids{0};
        parallel_for(
            addresses.size(),
            [&](std::size_t begin, std::size_t end) {
                std::ptrdiff_t others = 0;
                for (std::size_t k = begin; k < end; ++k) {
                    if (place_in_batch_[k] == std::size_t(-1)) continue;
                    const std::size_t address = std::size_t(addresses[k]) / stride;
                    const JParticle& p = ps[k];
                    const char is_address = p.id == int(address);
                    others += std::ptrdiff_t(!is_address) - std::ptrdiff_t(!id_is_address_[address]);
                    id_is_address_[address] = is_address;
                    k::JUpdate& u = at[place_in_batch_[k]];
                    u.address = (long long)slot(address);
                    u.xm = r4(p.x.x, p.x.y, p.x.z, p.mass);
                    u.vt = r4(p.v.x, p.v.y, p.v.z, p.t);
                    u.a2 = r4(p.a2.x, p.a2.y, p.a2.z, double(p.id));
                    u.j6 = r4(p.j6.x, p.j6.y, p.j6.z, 0);
                    u.s24 = r4(p.s24.x, p.s24.y, p.s24.z, 0);
                    u.c120 = r4(p.c120.x, p.c120.y, p.c120.z, 0);
                }
                other_ids += others;
            },
            host_threads_from());
        other_ids_ += other_ids.load();
    }
    std::size_t j_capacity() const override { return capacity_; }

    void compute(double t, std::size_t nj, std::span<const IParticle> in, double eps2, std::span<IForce> out,
                 bool want_neighbours) override {
        if (out.size() != in.size()) throw std::invalid_argument("cuda force engine: output size differs from input");
        launch(t, nj, in, eps2, want_neighbours);
        finish(out);
    }

    // compute() in two halves, so that one thread can keep several GPUs busy (engine_cuda.hpp).
    void launch(double t, std::size_t nj, std::span<const IParticle> in, double eps2, bool want_neighbours) override {
        if (nj > capacity_) throw std::invalid_argument("cuda force engine: " + std::to_string(nj) + " j-particles asked for, " + std::to_string(capacity_) + " stored");
        const int ni = int(in.size());
        launched_ = {true, std::size_t(ni), nj, want_neighbours};
        if (ni == 0) return;
        const nbody::cuda::ScopedDevice on(device_);
        auto since = profiling_ ? std::chrono::steady_clock::now() : std::chrono::steady_clock::time_point();
        k::ForceVariant v = variant_;
        v.extras = want_neighbours ? (k::kNearest | k::kNeighbours) : extras_;
        if (v.extras != k::kNoExtras || v.snap) v.block = 128, v.unroll = 4;
        v.bodies_per_thread = k::bodies_per_thread_for(config_.bodies_per_thread, v.precision, v.extras, ni, v.block);
        v.far_tiles = v.precision == k::Precision::Ds && v.extras == k::kNoExtras && !v.snap && ni >= kFarTilesFrom;
        keep_order(nj, v.far_tiles);
        const std::span<const std::uint32_t> batch_order = v.far_tiles ? sort_batch(in) : std::span<const std::uint32_t>();
        // In Morton order a tile's ids are scattered, and the self test would run on every tile that is
        // not far: where every id is its address, the kernel sees slots instead (an i-body gets the slot
        // of its own j-particle; an id beyond nj gets -3, which no j-particle has).
        const bool slot_ids = v.far_tiles && other_ids_ == 0;
        auto kernel_id = [&](int id) { return !slot_ids ? id : id >= 0 && std::size_t(id) < nj ? int(slot(std::size_t(id))) : -3; };
        const int ni_pad = (ni + v.block - 1) / v.block * v.block;
        const int split = config_.j_split > 0 ? config_.j_split : k::choose_j_split(ni, int(nj), v.block, sm_count_, v.bodies_per_thread, v.far_tiles);
        ensure_i(std::size_t(ni_pad), std::size_t(split));
        if (profiling_) lap(since, phases_[kOrder]), gpu_start_.record(nullptr);

        // One stream, one wait: the corrected j-particles and the i-batch [x(ni) | v(ni) (| a(ni))] go
        // up in one copy from page-locked memory, the results come back in one copy ([acc(ni) |
        // jerk(ni) (| snap(ni))] and the nearest indices); the host waits once, at the end (a few
        // hundred active bodies take tens of microseconds on the GPU, so each copy's latency counted
        // as much as the kernel: device runs 21 and 39, docs/HERMITE.md).
        const std::size_t rows = i_rows();
        // A sorted batch goes up in the caller's order with its order (ints) after the rows, and is
        // gathered on the GPU; its results are scattered back there, so that the host reads and writes
        // the caller's bodies in order (sorting on the host would visit 256K-1M bodies at random).
        const std::size_t batch_bytes = sizeof(Real4) * rows * std::size_t(ni) + (v.far_tiles ? sizeof(int) * std::size_t(ni) : 0);
        Real4* ixv = reinterpret_cast<Real4*>(upload(batch_bytes, [&](unsigned char* at) {
            Real4* staged = reinterpret_cast<Real4*>(at);
            std::copy(batch_order.begin(), batch_order.end(), reinterpret_cast<int*>(staged + rows * std::size_t(ni)));
            parallel_for(
                std::size_t(ni),
                [&](std::size_t begin, std::size_t end) {
                    for (std::size_t i = begin; i < end; ++i) {
                        const IParticle& p = in[i];
                        staged[i] = r4(p.x.x, p.x.y, p.x.z, p.h2);
                        staged[std::size_t(ni) + i] = r4(p.v.x, p.v.y, p.v.z, double(kernel_id(p.id)));
                        if (v.snap) staged[2 * std::size_t(ni) + i] = r4(p.a.x, p.a.y, p.a.z, 0);
                    }
                },
                host_threads_from());
            if (profiling_) lap(since, phases_[kStage]);
        }));
        const int* const sorted_from = v.far_tiles ? reinterpret_cast<const int*>(ixv + rows * std::size_t(ni)) : nullptr;
        if (v.far_tiles) {
            for (std::size_t r = 0; r < rows; ++r)
                k::gather_real4(sorted_in_.get() + r * std::size_t(ni), ixv + r * std::size_t(ni), sorted_from, ni, nullptr);
            ixv = sorted_in_.get();
        }
        const k::IBatch batch{ixv, ixv + ni, v.snap ? ixv + 2 * ni : nullptr};
        k::Predicted pred{hi_.get(), lo_.get(), vel_.get(), pos64_.get(), vel64_.get(), acc64_.get()};
        k::predict_j(j_memory(), int(nj), t, variant_.precision, pred, nullptr, slot_ids);
        k::NeighbourLists lists{nb_count_.get(), nb_ids_.get(), config_.max_neighbours};
        if (want_neighbours) CUDA_CHECK(cudaMemsetAsync(nb_count_.get(), 0, sizeof(int) * std::size_t(ni), nullptr));
        k::Partials part{p_acc_.get(), p_jerk_.get(), p_nn_.get(), v.snap ? p_snap_.get() : nullptr};
        k::hermite_force(v, pred, int(nj), batch, ni, eps2, split, part, lists, nullptr);
        // The nearest indices follow the rows in r_, so that one copy brings everything back.
        int* const nearest = reinterpret_cast<int*>(r_.get() + rows * std::size_t(ni));
        k::reduce_partials(part, ni, ni_pad, split,
                           {r_.get(), r_.get() + ni, nearest, v.snap ? r_.get() + 2 * ni : nullptr}, nullptr);
        if (v.far_tiles) {  // back to the caller's order (no nearest neighbours without extras: all -1)
            for (std::size_t r = 0; r < rows; ++r)
                k::scatter_real4(sorted_in_.get() + r * std::size_t(ni), r_.get() + r * std::size_t(ni), sorted_from, ni, nullptr);
            CUDA_CHECK(cudaMemcpyAsync(r_.get(), sorted_in_.get(), sizeof(Real4) * rows * std::size_t(ni), cudaMemcpyDeviceToDevice, nullptr));
        }
        CUDA_CHECK(cudaMemcpyAsync(r_stage_.get(), r_.get(), sizeof(Real4) * rows * std::size_t(ni) + sizeof(int) * std::size_t(ni),
                                   cudaMemcpyDeviceToHost, nullptr));
        if (profiling_) gpu_stop_.record(nullptr), lap(since, phases_[kQueue]);
    }

    void finish(std::span<IForce> out) override {
        if (!launched_.pending) throw std::logic_error("cuda force engine: finish() without launch()");
        launched_.pending = false;
        if (out.size() != launched_.ni) throw std::invalid_argument("cuda force engine: output size differs from input");
        const int ni = int(launched_.ni);
        const bool want_neighbours = launched_.neighbours;
        lists_.assign(want_neighbours ? std::size_t(ni) : 0, {});
        overflow_.assign(want_neighbours ? std::size_t(ni) : 0, 0);
        if (ni == 0) return;
        const nbody::cuda::ScopedDevice on(device_);
        auto since = profiling_ ? std::chrono::steady_clock::now() : std::chrono::steady_clock::time_point();
        const std::size_t rows = i_rows();
        CUDA_CHECK(cudaStreamSynchronize(nullptr));
        if (profiling_) lap(since, phases_[kWait]), phases_[kGpu] += 1e-3 * nbody::cuda::elapsed_ms(gpu_start_, gpu_stop_);
        const int* const nearest_back = reinterpret_cast<const int*>(r_stage_.get() + rows * std::size_t(ni));
        updates_in_flight_ = false;
        parallel_for(
            std::size_t(ni),
            [&](std::size_t begin, std::size_t end) {
                for (std::size_t i = begin; i < end; ++i) {
                    IForce& f = out[i];
                    const Real4 a = r_stage_[i], jn = r_stage_[std::size_t(ni) + i];
                    f.acc = {a.x, a.y, a.z};
                    f.pot = a.w;
                    f.jerk = {jn.x, jn.y, jn.z};
                    f.nearest = nearest_back[i];
                    f.nearest_r2 = f.nearest >= 0 ? jn.w : 0.0;
                    if (variant_.snap) {
                        const Real4 s = r_stage_[2 * std::size_t(ni) + i];
                        f.snap = {s.x, s.y, s.z};
                    }
                }
            },
            host_threads_from());
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
        interactions_ += double(ni) * double(launched_.nj);
        if (profiling_) lap(since, phases_[kUnpack]);
    }

    std::span<const int> neighbours(std::size_t i) const override {
        if (i >= lists_.size()) return {};
        return lists_[i];
    }
    bool neighbour_overflow(std::size_t i) const override { return i < overflow_.size() && overflow_[i]; }
    double interactions() const override { return interactions_; }
    void want_nearest(bool on) override { extras_ = on ? k::kNearest : k::kNoExtras; }

    void set_profiling(bool on) override { profiling_ = on; }
    std::vector<PhaseTime> profile() const override {
        static const char* const names[kPhases] = {
            "spatial order, buffers", "stage (j-updates, i-batch)", "queue (copies, kernels)",
            "wait for the GPU", "unpack results", "GPU busy (events; in the wait)"};
        std::vector<PhaseTime> out;
        for (int p = 0; p < kPhases; ++p) out.push_back({names[p], phases_[p]});
        return out;
    }

private:
    std::size_t slot(std::size_t address) const { return address < slot_of_.size() ? slot_of_[address] : address; }

    // The kernel reads slots 0 .. nj-1, so the order maps the first nj addresses onto them (a compute
    // over another nj makes it again); a batch with far tiles wants it spatial and fresh.
    void keep_order(std::size_t nj, bool spatial) {
        const bool ordered = !slot_of_.empty();
        if (ordered && nj != ordered_nj_) return reorder(nj, spatial);
        if (spatial && (!ordered || updates_since_order_ >= kReorderAfter * nj)) reorder(nj, true);
    }

    // Moves the j-particles to Morton order of their last positions (spatial; read back from the
    // j-memory, positions at each body's own time) or back to their addresses, on the GPU; the updates
    // still queued carry the old slots, so they go first.
    void reorder(std::size_t nj, bool spatial) {
        flush();
        const std::size_t n = std::max(nj, ordered_nj_);
        std::vector<std::uint32_t> next(n);  // address -> its new slot
        std::iota(next.begin(), next.end(), 0u);
        if (spatial) {
            std::vector<Real4> by_slot(n);
            CUDA_CHECK(cudaMemcpy(by_slot.data(), xm_.get(), sizeof(Real4) * n, cudaMemcpyDeviceToHost));
            std::vector<Point> position(nj);
            for (std::size_t a = 0; a < nj; ++a) {
                const Real4& x = by_slot[slot(a)];
                position[a] = {x.x, x.y, x.z};
            }
            const std::vector<std::uint32_t> order = morton_order(position);
            for (std::size_t s = 0; s < nj; ++s) next[order[s]] = std::uint32_t(s);
        }
        std::vector<int> source(n);  // new slot -> the slot its j-particle is in now
        for (std::size_t a = 0; a < n; ++a) source[next[a]] = int(slot(a));
        DeviceBuffer<int> source_dev(n);
        DeviceBuffer<Real4> scratch(n);
        CUDA_CHECK(cudaMemcpy(source_dev.get(), source.data(), source_dev.bytes(), cudaMemcpyHostToDevice));
        k::permute_j(j_memory(), source_dev.get(), int(n), scratch.get(), nullptr);
        CUDA_CHECK(cudaStreamSynchronize(nullptr));  // the buffers above go out of scope
        updates_in_flight_ = false;
        if (spatial) {
            address_of_.resize(nj);
            for (std::size_t a = 0; a < nj; ++a) address_of_[next[a]] = std::uint32_t(a);
            slot_of_ = std::move(next), ordered_nj_ = nj;
        } else {
            slot_of_.clear(), address_of_.clear(), ordered_nj_ = 0;
        }
        updates_since_order_ = 0;
    }

    // The batch by the slot of the j-particle with each body's id (the integrator's ids are its
    // addresses; where a GRAPE-6 program numbers them otherwise, or repeats one, those bodies go last
    // in their order: the batch is less compact and fewer tiles go far, the results are the same).
    // Returns place -> index in the batch.
    std::span<const std::uint32_t> sort_batch(std::span<const IParticle> in) {
        const std::size_t slots = slot_of_.size();
        bool every_address_in_order = in.size() == address_of_.size();
        for (std::size_t k = 0; k < in.size() && every_address_in_order; ++k) every_address_in_order = in[k].id == int(k);
        if (every_address_in_order) return address_of_;  // every body active, as the integrator lists them
        place_.assign(slots, -1);
        i_order_.clear();
        std::vector<std::uint32_t> rest;
        for (std::size_t k = 0; k < in.size(); ++k) {
            const int id = in[k].id;
            if (id >= 0 && std::size_t(id) < slots && place_[slot_of_[std::size_t(id)]] < 0)
                place_[slot_of_[std::size_t(id)]] = int(k);
            else
                rest.push_back(std::uint32_t(k));
        }
        for (int k : place_)
            if (k >= 0) i_order_.push_back(std::uint32_t(k));
        i_order_.insert(i_order_.end(), rest.begin(), rest.end());
        return i_order_;
    }

    // Room for `count` more j-updates at the start of the page-locked buffer, after those queued;
    // waits first where a copy from the buffer may still run (no compute() has waited since the last
    // upload).
    k::JUpdate* append_updates(std::size_t count) {
        if (updates_in_flight_) {
            const nbody::cuda::ScopedDevice on(device_);  // the caller's thread may have another GPU current
            CUDA_CHECK(cudaStreamSynchronize(nullptr));
            updates_in_flight_ = false;
        }
        stage_room((pending_ + count) * sizeof(k::JUpdate));
        k::JUpdate* const at = reinterpret_cast<k::JUpdate*>(in_stage_.get()) + pending_;
        pending_ += count;
        return at;
    }
    // The page-locked buffer (and its device twin) at least `bytes` long, the queued updates kept.
    void stage_room(std::size_t bytes) {
        if (in_stage_.size() >= bytes) return;
        const nbody::cuda::ScopedDevice on(device_);
        nbody::cuda::PinnedBuffer<unsigned char> grown(bytes * 2);
        std::copy_n(in_stage_.get(), pending_ * sizeof(k::JUpdate), grown.get());
        in_stage_ = std::move(grown);
        in_dev_ = DeviceBuffer<unsigned char>(bytes * 2);
    }

    // The queued j-updates (set_j wrote them into the page-locked buffer) and `batch_bytes` that
    // `fill_batch` writes after them go up in one copy, without waiting; the updates are scattered
    // into the j-memory. Returns the device address of the batch.
    template <class FillBatch>
    unsigned char* upload(std::size_t batch_bytes, const FillBatch& fill_batch) {
        if (updates_in_flight_) CUDA_CHECK(cudaStreamSynchronize(nullptr)), updates_in_flight_ = false;
        const std::size_t updates = pending_;
        const std::size_t update_bytes = (updates * sizeof(k::JUpdate) + sizeof(Real4) - 1) / sizeof(Real4) * sizeof(Real4);
        stage_room(update_bytes + batch_bytes);
        fill_batch(in_stage_.get() + update_bytes);
        CUDA_CHECK(cudaMemcpyAsync(in_dev_.get(), in_stage_.get(), update_bytes + batch_bytes, cudaMemcpyHostToDevice,
                                   nullptr));
        updates_in_flight_ = true;
        k::scatter_j(j_memory(), reinterpret_cast<const k::JUpdate*>(in_dev_.get()), int(updates), nullptr);
        pending_ = 0;
        return in_dev_.get() + update_bytes;
    }
    void flush() {
        if (pending_ > 0) upload(0, [](unsigned char*) {});
    }
    // The j-memory arrays (snap/24 and crackle/120 only for the 6th order), as the kernels see them.
    std::vector<DeviceBuffer<Real4>*> j_arrays() {
        std::vector<DeviceBuffer<Real4>*> a{&xm_, &vt_, &a2_, &j6_};
        if (variant_.snap) a.insert(a.end(), {&s24_, &c120_});
        return a;
    }
    k::JMemory j_memory() {
        return {xm_.get(), vt_.get(), a2_.get(), j6_.get(), variant_.snap ? s24_.get() : nullptr,
                variant_.snap ? c120_.get() : nullptr};
    }
    // `old` copied into a zeroed buffer of `cap` elements.
    static DeviceBuffer<Real4> grown(const DeviceBuffer<Real4>& old, std::size_t cap) {
        DeviceBuffer<Real4> b(cap);
        CUDA_CHECK(cudaMemset(b.get(), 0, b.bytes()));
        if (old.size() > 0) CUDA_CHECK(cudaMemcpy(b.get(), old.get(), old.bytes(), cudaMemcpyDeviceToDevice));
        return b;
    }
    // Rows of the i-side buffers per i-body: x and v in, acc and jerk out; the 6th order's third row
    // is the predicted a in and the snap out.
    std::size_t i_rows() const { return variant_.snap ? 3 : 2; }
    void ensure_i(std::size_t ni_pad, std::size_t split) {
        if (ni_capacity_ < ni_pad) {
            const std::size_t rows = i_rows();
            // r_: the rows, then the nearest indices (ni ints: ni / 8 more Real4, rounded up).
            const std::size_t r_size = rows * ni_pad + (ni_pad * sizeof(int) + sizeof(Real4) - 1) / sizeof(Real4);
            r_ = DeviceBuffer<Real4>(r_size), r_stage_ = nbody::cuda::PinnedBuffer<Real4>(r_size);
            nb_count_ = DeviceBuffer<int>(ni_pad);
            sorted_in_ = DeviceBuffer<Real4>(rows * ni_pad);
            nb_ids_ = DeviceBuffer<int>(ni_pad * std::size_t(config_.max_neighbours));
            ni_capacity_ = ni_pad;
        }
        if (p_acc_.size() < ni_pad * split) {
            p_acc_ = DeviceBuffer<Real4>(ni_pad * split), p_jerk_ = DeviceBuffer<Real4>(ni_pad * split);
            p_nn_ = DeviceBuffer<int>(ni_pad * split);
            if (variant_.snap) p_snap_ = DeviceBuffer<Real4>(ni_pad * split);
        }
    }

    EngineConfig config_;
    k::ForceVariant variant_;
    int extras_ = k::kNearest;
    int sm_count_ = 1;
    // The GPU of this engine's memory: reserve() and compute() make it current for their calls,
    // whatever device the caller's thread has (engine_multi_gpu.cpp drives one engine per GPU).
    int device_ = 0;
    std::size_t capacity_ = 0;
    DeviceBuffer<Real4> xm_, vt_, a2_, j6_, s24_, c120_, pos64_, vel64_, acc64_;
    DeviceBuffer<float4> hi_, lo_, vel_;
    bool updates_in_flight_ = false;  // in_stage_ may still be read by an asynchronous copy
    std::size_t pending_ = 0;         // j-updates queued at the start of in_stage_
    std::vector<std::size_t> place_in_batch_;  // set_j_every: k -> its place among this engine's updates
    // r_: [acc | jerk | snap] of the i-batch, then the nearest indices (ints); r_stage_ its host side.
    DeviceBuffer<Real4> r_, p_acc_, p_jerk_, p_snap_;
    DeviceBuffer<Real4> sorted_in_;  // a sorted batch's rows on the GPU, then its results in the caller's order
    DeviceBuffer<int> p_nn_, nb_count_, nb_ids_;
    nbody::cuda::PinnedBuffer<Real4> r_stage_;
    DeviceBuffer<unsigned char> in_dev_;  // [JUpdate x pending | the i-batch rows], see upload()
    nbody::cuda::PinnedBuffer<unsigned char> in_stage_;
    std::size_t ni_capacity_ = 0;  // i-bodies (padded) the i-side buffers hold
    // The j-particles in Morton order (kFarTilesFrom): slot_of_[address] for the first ordered_nj_
    // addresses, the address itself beyond them and while slot_of_ is empty; address_of_ its inverse;
    // i_order_ a sorted batch that is not every address in order (place -> body).
    std::vector<std::uint32_t> slot_of_, address_of_, i_order_;
    std::vector<int> place_;
    std::vector<char> id_is_address_;  // by address: set_j gave the j-particle its address as id
    std::ptrdiff_t other_ids_ = 0;     // j-particles whose id is not their address
    std::size_t ordered_nj_ = 0, updates_since_order_ = 0;
    std::vector<std::vector<int>> lists_;
    std::vector<char> overflow_;
    double interactions_ = 0;
    // The profile (set_profiling): host seconds by phase of compute(), and the GPU's time between two
    // events around its work.
    enum { kOrder, kStage, kQueue, kWait, kUnpack, kGpu, kPhases };
    bool profiling_ = false;
    double phases_[kPhases] = {};
    struct Launched {
        bool pending = false;  // launch() queued work that finish() has not collected
        std::size_t ni = 0, nj = 0;
        bool neighbours = false;
    } launched_;
    nbody::cuda::Event gpu_start_, gpu_stop_;
};

}  // namespace

std::unique_ptr<CudaEngine> make_cuda_engine(const EngineConfig& config) { return std::make_unique<CudaForceEngine>(config); }

std::unique_ptr<ForceEngine> make_cuda_force_engine(const EngineConfig& config) { return make_cuda_engine(config); }

}  // namespace nbody::hermite
