// The cpu force engine: double precision, the reference every other engine is tested against.

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include "nbody/sim/comm/nccl_communicator.hpp"
#include "nbody/sim/hermite/force_engine.hpp"
#include "parallel.hpp"

namespace nbody::hermite {

#ifdef NBODY_HERMITE_CUDA
// sim/cuda/hermite/engine_cuda.cpp
// On config.devices (several: the j-particles split over them), or the current GPU.
std::unique_ptr<ForceEngine> make_cuda_force_engine(const EngineConfig& config);
bool cuda_engine_available(std::string* why_not);
int cuda_device_count();
std::string cuda_device_model(int device);
#else
std::unique_ptr<ForceEngine> make_cuda_engine_across_ranks(const EngineConfig&, std::unique_ptr<comm::DeviceCommunicator>) {
    throw std::runtime_error("the cuda Hermite engine across ranks: this build has no CUDA");
}
static bool cuda_engine_available(std::string* why_not) {
    if (why_not) *why_not = "built without CUDA";
    return false;
}
static int cuda_device_count() { return 0; }
static std::string cuda_device_model(int) { return {}; }
#endif

std::string gpu_model(int device) { return cuda_device_model(device); }

namespace {

class CpuForceEngine final : public ForceEngine {
public:
    std::string_view name() const override { return "cpu"; }

    void reserve(std::size_t n) override {
        if (n > j_.size()) j_.resize(n);
    }
    void set_j(std::size_t address, const JParticle& p) override {
        if (address >= j_.size()) j_.resize(std::max(address + 1, j_.size() + j_.size() / 2));
        j_[address] = p;
    }
    void set_j_batch(std::span<const int> addresses, std::span<const JParticle> ps) override {
        int last = -1;
        for (const int a : addresses) last = std::max(last, a);
        if (last >= 0 && std::size_t(last) >= j_.size()) j_.resize(std::max(std::size_t(last) + 1, j_.size() + j_.size() / 2));
        parallel_for(
            addresses.size(),
            [&](std::size_t begin, std::size_t end) {
                for (std::size_t k = begin; k < end; ++k) j_[std::size_t(addresses[k])] = ps[k];
            },
            host_threads_from());
    }
    std::size_t j_capacity() const override { return j_.size(); }

    void compute(double t, std::size_t nj, std::span<const IParticle> in, double eps2, std::span<IForce> out,
                 bool want_neighbours) override {
        if (nj > j_.size())
            throw std::invalid_argument("force engine: " + std::to_string(nj) + " j-particles asked for, " +
                                        std::to_string(j_.size()) + " stored");
        if (out.size() != in.size()) throw std::invalid_argument("force engine: output size differs from input");
        // Predict every j-particle once per call: O(nj), against O(ni nj) for the forces.
        px_.resize(nj);
        pv_.resize(nj);
        pa_.resize(want_snap_ ? nj : 0);
        for (std::size_t k = 0; k < nj; ++k) {
            const double dt = t - j_[k].t;
            px_[k] = predict_position(j_[k], dt);
            pv_[k] = predict_velocity(j_[k], dt);
            if (want_snap_) pa_[k] = predict_acceleration(j_[k], dt);
        }
        lists_.assign(want_neighbours ? in.size() : 0, {});
        overflow_.assign(want_neighbours ? in.size() : 0, 0);
        auto body = [&](std::size_t begin, std::size_t end) {
            for (std::size_t i = begin; i < end; ++i) out[i] = force_on(in[i], nj, eps2, want_neighbours ? &lists_[i] : nullptr);
        };
        // Threads only where the pass is long enough to pay for waking them (a few-body system
        // steps millions of times with ni nj ~ 10). The pairs stand in for the GPU's work: on every
        // core whatever NBODY_HERMITE_THREADS says (it sets the threads of the host's loops only).
        if (double(in.size()) * double(nj) > 2e5)
            parallel_for_every_core(in.size(), body);
        else
            body(0, in.size());
        if (want_neighbours)
            for (std::size_t i = 0; i < in.size(); ++i)
                if (lists_[i].size() > std::size_t(max_neighbours_)) {
                    lists_[i].resize(std::size_t(max_neighbours_));
                    overflow_[i] = 1;
                }
        interactions_ += double(in.size()) * double(nj);
    }

    std::span<const int> neighbours(std::size_t i) const override {
        if (i >= lists_.size()) return {};
        return lists_[i];
    }
    bool neighbour_overflow(std::size_t i) const override { return i < overflow_.size() && overflow_[i]; }
    double interactions() const override { return interactions_; }
    void want_snap(bool on) override { want_snap_ = on; }

    explicit CpuForceEngine(int max_neighbours) : max_neighbours_(max_neighbours) {}

private:
    IForce force_on(const IParticle& p, std::size_t nj, double eps2, std::vector<int>* list) const {
        IForce f;
        double nearest_r2 = INFINITY;
        for (std::size_t k = 0; k < nj; ++k) {
            if (j_[k].id == p.id) continue;
            const Vec3d dx = px_[k] - p.x;
            const Vec3d dv = pv_[k] - p.v;
            const double r2 = dot(dx, dx);
            if (r2 < nearest_r2 || (r2 == nearest_r2 && j_[k].id < f.nearest)) {  // ties: the lowest id
                nearest_r2 = r2;
                f.nearest = j_[k].id;
            }
            if (list != nullptr && r2 < p.h2) list->push_back(j_[k].id);
            const double s2 = r2 + eps2;
            const double rinv = 1.0 / std::sqrt(s2);
            const double rinv2 = rinv * rinv;
            const double mr3 = j_[k].mass * rinv * rinv2;
            const double alpha = 3.0 * dot(dx, dv) * rinv2;
            f.acc += mr3 * dx;
            f.jerk += mr3 * (dv - alpha * dx);
            f.pot -= j_[k].mass * rinv;
            if (want_snap_) f.snap += snap_term(dx, dv, pa_[k] - p.a, rinv2, mr3);
        }
        f.nearest_r2 = f.nearest >= 0 ? nearest_r2 : 0.0;
        return f;
    }

    // One j's term of d^2 a / dt^2 (Nitadori & Makino 2008, eq. 8-10, with r^2 + eps^2 for r^2):
    // the pair's acceleration A and jerk J are recomputed here so that the 4th-order path keeps its
    // exact expressions.
    static Vec3d snap_term(const Vec3d& dx, const Vec3d& dv, const Vec3d& da, double rinv2, double mr3) {
        const double alpha = dot(dx, dv) * rinv2;
        const double beta = (dot(dv, dv) + dot(dx, da)) * rinv2 + alpha * alpha;
        const Vec3d acc = mr3 * dx;
        const Vec3d jerk = mr3 * dv - (3.0 * alpha) * acc;
        return mr3 * da - (6.0 * alpha) * jerk - (3.0 * beta) * acc;
    }

    std::vector<JParticle> j_;
    std::vector<Vec3d> px_, pv_, pa_;
    bool want_snap_ = false;
    std::vector<std::vector<int>> lists_;
    std::vector<char> overflow_;
    int max_neighbours_;
    double interactions_ = 0;
};

}  // namespace

bool cuda_engine_usable(std::string* why_not) { return cuda_engine_available(why_not); }

std::vector<int> engine_devices(const std::string& spec) {
    const int available = cuda_device_count();
    const std::string machine = "this machine has " + std::to_string(available) + " GPU" + (available == 1 ? "" : "s");
    if (spec == "all") {
        if (available < 1) throw std::invalid_argument("GPUs '" + spec + "': " + machine);
        std::vector<int> all(std::size_t(available), 0);
        for (int d = 0; d < available; ++d) all[std::size_t(d)] = d;
        return all;
    }
    std::vector<int> list;
    std::size_t at = 0;
    while (at <= spec.size()) {
        const std::size_t comma = std::min(spec.find(',', at), spec.size());
        const std::string item = spec.substr(at, comma - at);
        if (item.empty() || item.size() > 4 || !std::all_of(item.begin(), item.end(), [](unsigned char c) { return c >= '0' && c <= '9'; }))
            throw std::invalid_argument("GPUs '" + spec + "': give 'all', a count or a list such as 0,1");
        list.push_back(std::stoi(item));
        at = comma + 1;
    }
    if (list.size() == 1) {  // a count: the first N
        const int count = list.front();
        if (count < 1 || count > available) throw std::invalid_argument("GPUs '" + spec + "': " + machine);
        list.resize(std::size_t(count));
        for (int d = 0; d < count; ++d) list[std::size_t(d)] = d;
        return list;
    }
    for (std::size_t k = 0; k < list.size(); ++k)
        if (list[k] >= available || std::count(list.begin(), list.end(), list[k]) > 1)
            throw std::invalid_argument("GPUs '" + spec + "': GPU " + std::to_string(list[k]) +
                                        (list[k] >= available ? " does not exist (" + machine + ")" : " is listed twice"));
    return list;
}

EngineKind parse_engine_kind(std::string_view text) {
    if (text == "cpu" || text == "reference") return EngineKind::Cpu;
    if (text == "cuda") return EngineKind::Cuda;
    if (text == "auto") return EngineKind::Auto;
    throw std::invalid_argument("unknown Hermite force engine '" + std::string(text) + "' (supported: cpu, cuda, auto)");
}

std::unique_ptr<ForceEngine> make_force_engine(EngineKind kind, const EngineConfig& config, std::string* why,
                                               bool needs_snap, std::size_t bodies) {
    if (kind == EngineKind::Auto && bodies > 0 && bodies < kGpuFromBodies) {
        if (why)
            *why = "Hermite force engine: cpu (" + std::to_string(bodies) + " bodies: below " +
                   std::to_string(kGpuFromBodies) + " the cpu engine is faster than a GPU's latency per step)";
        return std::make_unique<CpuForceEngine>(config.max_neighbours);
    }
    std::string reason;
    const bool gpu = kind != EngineKind::Cpu && cuda_engine_available(&reason);
    if (kind == EngineKind::Cuda && !gpu) throw std::runtime_error("cuda force engine unavailable: " + reason);
#ifdef NBODY_HERMITE_CUDA
    const std::string on_gpus =
        config.devices.size() > 1 ? ", j-particles split over " + std::to_string(config.devices.size()) + " GPUs" : "";
    if (gpu && needs_snap) {  // the snap kernel is fp64: the 6th order is for accuracies float forces cannot give
        EngineConfig fp64 = config;
        fp64.precision = "fp64";
        if (why) *why = "Hermite force engine: cuda, fp64 (the 6th order's snap kernel is double)" + on_gpus;
        return make_cuda_force_engine(fp64);
    }
    if (gpu) {
        if (why) *why = "Hermite force engine: cuda" + on_gpus;
        return make_cuda_force_engine(config);
    }
    if (config.devices.size() > 1)
        throw std::invalid_argument("the Hermite engine splits the j-particles over several GPUs on the cuda engine only");
#endif
    if (why) *why = kind == EngineKind::Auto ? "Hermite force engine: cpu (" + reason + ")" : "Hermite force engine: cpu";
    return std::make_unique<CpuForceEngine>(config.max_neighbours);
}

}  // namespace nbody::hermite
