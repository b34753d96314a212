#include "nbody/sim/memory_check.hpp"

#include <sys/resource.h>

#include <algorithm>
#include <cstdio>
#include <exception>
#include <fstream>
#include <limits>
#include <new>
#include <sstream>
#include <stdexcept>
#include <thread>
#include <utility>

#include "nbody/sim/hermite/force_engine.hpp"
#include "nbody/sim/hermite/integrator.hpp"

#ifdef NBODY_HAVE_CUDA
#include "../cuda/cuda_probe.hpp"
#endif
#include "nbody/sim/io/body_check.hpp"

namespace nbody {
namespace {

std::optional<std::uint64_t> read_number(const char* path) {
    std::ifstream in(path);
    std::string text;
    if (!(in >> text) || text == "max") return std::nullopt;
    try {
        return std::stoull(text);
    } catch (const std::exception&) {
        return std::nullopt;
    }
}

// One term of an estimate: bytes per body and what they are, e.g. {40, "cpu arrays"}.
struct Term {
    std::uint64_t bytes;
    std::string what;
};

void add(std::uint64_t& total, std::string& detail, const Term& term) {
    if (term.bytes == 0) return;
    total += term.bytes;
    detail += (detail.empty() ? "" : " + ") + std::to_string(term.bytes) + " " + term.what;
}

// The octree of --gravity tree: Morton keys (built and kept), the key order, the sorted copy of
// positions and masses, and about one walk cell per four bodies (centre, mass, quadrupole, box).
std::uint64_t tree_bytes_per_body(std::size_t real_bytes) { return 8 + 8 + 4 + 4 * real_bytes + 24; }

MemoryNeed hermite_need(const Workload& w) {
    using namespace hermite;
    MemoryNeed m;
    add(m.host_per_body, m.host_detail, {7 * sizeof(double) + 35, "input in double and its labels"});
    // Bodies: mass, x, v, a, jerk, snap, crackle, pot, t, level, and its place in the level lists.
    add(m.host_per_body, m.host_detail,
        {sizeof(double) + 6 * sizeof(Vec3d) + 2 * sizeof(double) + 2 * sizeof(int), "integrator state"});
    add(m.host_per_body, m.host_detail,
        {sizeof(StepEnd) + sizeof(int) + sizeof(IParticle) + sizeof(IForce) + sizeof(int), "block-step work lists"});
    add(m.host_per_body, m.host_detail, {sizeof(JParticle), "j-particles"});
    add(m.host_per_body, m.host_detail, {2 * sizeof(Vec3d) + 7 * sizeof(double) + 35, "output copies"});
    if (w.backend == "cuda") {
        m.device_per_body = sizeof(JParticle) + sizeof(IParticle) + sizeof(IForce);
        m.device_detail = "j-particles, i-particles and forces in double";
    }
    return m;
}

}  // namespace

MemoryNeed memory_need(const Workload& w) {
    if (w.hermite_order != 0) return hermite_need(w);
    MemoryNeed m;
    const bool cuda = w.backend == "cuda";
    const bool precise =
        w.backend == "reference" || (cuda && (w.precision == Precision::Ds || w.precision == Precision::Fp64));
    const std::uint64_t own = w.backend == "reference" ? 80 : w.backend == "cpu" ? 40 : 0;
    m.host_per_body = 3 * 35;
    m.host_detail = "3 x 35 state";
    if (precise) {
        m.host_per_body += 2 * 56;
        m.host_detail += " + 2 x 56 double state";
    }
    add(m.host_per_body, m.host_detail, {own, std::string(w.backend) + " arrays"});
    const bool host_tree = w.gravity == Gravity::Tree && !cuda;
    if (host_tree)
        add(m.host_per_body, m.host_detail, {tree_bytes_per_body(w.backend == "reference" ? 8 : 4), "tree arrays"});
    if (w.force_pass) add(m.host_per_body, m.host_detail, {sizeof(Vec3d), "accelerations in double"});
    if (cuda) {
        const std::uint64_t extra = w.precision == Precision::Ds ? 32 : w.precision == Precision::Fp64 ? 96 : 0;
        add(m.device_per_body, m.device_detail, {64, "float4 buffers"});
        add(m.device_per_body, m.device_detail, {extra, std::string(to_string(w.precision)) + " extras"});
        if (w.viewer) add(m.device_per_body, m.device_detail, {32, "vertex buffers"});
        if (w.gravity == Gravity::Tree) add(m.device_per_body, m.device_detail, {tree_bytes_per_body(4), "tree arrays"});
    }
    return m;
}

MemoryNeed memory_need(std::string_view backend, Precision precision, bool viewer) {
    return memory_need(Workload{std::string(backend), precision, viewer});
}

namespace {

// "VmSize:" / "VmData:" of /proc/self/status in bytes.
std::optional<std::uint64_t> own_usage(const std::string& key) {
    std::ifstream in("/proc/self/status");
    for (std::string line; std::getline(in, line);) {
        if (line.rfind(key, 0) != 0) continue;
        std::istringstream fields(line.substr(key.size()));
        std::uint64_t kib = 0;
        if (fields >> kib) return kib * 1024;
    }
    return std::nullopt;
}

// What is left under a resource limit of this process; nullopt when it is unlimited.
std::optional<std::uint64_t> rlimit_headroom(int resource, const std::string& usage_key) {
    rlimit limit{};
    if (::getrlimit(resource, &limit) != 0 || limit.rlim_cur == RLIM_INFINITY) return std::nullopt;
    const std::uint64_t used = own_usage(usage_key).value_or(0);
    return std::uint64_t(limit.rlim_cur) > used ? std::uint64_t(limit.rlim_cur) - used : 0;
}

}  // namespace

std::optional<HostMemory> host_memory() {
    std::optional<HostMemory> best;
    const auto consider = [&best](std::optional<std::uint64_t> bytes, const char* limit) {
        if (bytes && (!best || *bytes < best->bytes)) best = HostMemory{*bytes, limit};
    };
    std::ifstream in("/proc/meminfo");
    for (std::string line; std::getline(in, line);) {
        if (line.rfind("MemAvailable:", 0) == 0) {
            std::istringstream fields(line.substr(13));
            std::uint64_t kib = 0;
            if (fields >> kib) consider(kib * 1024, "MemAvailable");
        }
    }
    // cgroup v2: the limit of this process's group (a container, a CI job).
    if (const auto limit = read_number("/sys/fs/cgroup/memory.max")) {
        const std::uint64_t used = read_number("/sys/fs/cgroup/memory.current").value_or(0);
        consider(*limit > used ? *limit - used : 0, "the cgroup memory limit");
    }
    // ulimit -v counts address space, which threads' stacks and mapped libraries take too.
    consider(rlimit_headroom(RLIMIT_AS, "VmSize:"), "ulimit -v (RLIMIT_AS)");
    consider(rlimit_headroom(RLIMIT_DATA, "VmData:"), "ulimit -d (RLIMIT_DATA)");
    return best;
}

std::optional<std::uint64_t> host_memory_available() {
    const auto host = host_memory();
    return host ? std::optional<std::uint64_t>(host->bytes) : std::nullopt;
}

std::optional<std::uint64_t> device_memory_available() {
#ifdef NBODY_HAVE_CUDA
    std::size_t free_bytes = 0;
    if (cuda_memory_info(&free_bytes, nullptr)) return free_bytes;
#endif
    return std::nullopt;
}

namespace {

// Mesa's llvmpipe (the renderer without a GPU) maps about 0.7 GiB of address space to compile the
// shaders with LLVM and to run a rasterizer thread per core, and crashes inside the driver (no
// error returned) when ulimit -v refuses it: measured with 4096 bodies at 640x480 on 2 cores,
// 650-700 MB of ulimit -v worked or crashed at random, 450-600 MB crashed. A GPU driver maps more.
// So the viewer asks for 1 GiB plus 32 MiB per hardware thread (up to 32) beyond the bodies.
void check_renderer_address_space(const std::string& who, double body_bytes) {
    const auto headroom = rlimit_headroom(RLIMIT_AS, "VmSize:");
    if (!headroom) return;
    // llvmpipe caps its rasterizer threads (LP_MAX_THREADS in Mesa's lp_limits.h, not checked here
    // for each version), so the reserve stops growing at 32 threads.
    const unsigned threads = std::clamp(std::thread::hardware_concurrency(), 1u, 32u);
    const double reserve = double(1ull << 30) + double(32ull << 20) * threads;
    if (body_bytes + reserve > double(*headroom))
        throw std::runtime_error(who + " needs about " + format_gib(body_bytes + reserve) +
                                 " of address space (" + format_gib(body_bytes) + " for the bodies and " +
                                 format_gib(reserve) + " for the OpenGL driver: Mesa's llvmpipe crashes when it cannot "
                                 "map its shader compiler and threads), but ulimit -v leaves " +
                                 format_gib(double(*headroom)) + "; raise or remove ulimit -v");
}

}  // namespace

std::uint64_t check_memory_for(std::uint64_t bodies, const Workload& work) {
    using io::kMaxBodies;  // the kernels index bodies with int; 2^30 is the cuda backend's own limit
    if (bodies > kMaxBodies)
        throw std::runtime_error("N = " + std::to_string(bodies) + " bodies is more than nbody supports (at most " +
                                 std::to_string(kMaxBodies) + " = 2^30)");
    const MemoryNeed need = memory_need(work);
    const std::string n = "N = " + std::to_string(bodies);
    const double host_bytes = double(bodies) * double(need.host_per_body);
    if (const auto host = host_memory(); host && host_bytes > double(host->bytes))
        throw std::runtime_error(n + " needs about " + format_gib(host_bytes) + " of host memory (" +
                                 std::to_string(need.host_per_body) + " bytes per body: " + need.host_detail +
                                 "), but " + format_gib(double(host->bytes)) +
                                 " are available; use fewer bodies (the limit that binds: " + host->limit + ")");
    if (work.viewer) check_renderer_address_space(bodies > 0 ? n + " in the viewer" : "the viewer", host_bytes);
    if (need.device_per_body > 0) {
        if (const auto device = device_memory_available()) {
            const double bytes = double(bodies) * double(need.device_per_body);
            if (bytes > double(*device))
                throw std::runtime_error(n + " needs about " + format_gib(bytes) + " of GPU memory (" +
                                         std::to_string(need.device_per_body) + " bytes per body: " +
                                         need.device_detail + "), but " + format_gib(double(*device)) +
                                         " are free on the GPU; use fewer bodies");
        }
    }
    return std::uint64_t(host_bytes);
}

std::string format_gib(double bytes) {
    char buf[32];
    if (bytes >= double(1ull << 30))
        std::snprintf(buf, sizeof buf, "%.1f GiB", bytes / double(1ull << 30));
    else
        std::snprintf(buf, sizeof buf, "%.1f MiB", bytes / double(1ull << 20));
    return buf;
}

namespace {

// The activity a std::bad_alloc unwound through last (see MemoryActivity).
struct FailedActivity {
    std::string what;
    std::uint64_t bodies = 0, bytes = 0;
};
std::optional<FailedActivity>& failed_activity() {
    static std::optional<FailedActivity> failed;
    return failed;
}

}  // namespace

MemoryActivity::MemoryActivity(std::string what, std::uint64_t bodies, std::uint64_t estimated_bytes)
    : what_(std::move(what)), bodies_(bodies), bytes_(estimated_bytes), uncaught_at_start_(std::uncaught_exceptions()) {
    failed_activity().reset();  // a new activity: an older failure was handled
}

MemoryActivity::~MemoryActivity() {
    auto& failed = failed_activity();
    if (std::uncaught_exceptions() <= uncaught_at_start_)
        failed.reset();  // left normally: whatever failed inside was handled there
    else if (!failed)
        failed = FailedActivity{what_, bodies_, bytes_};  // the innermost scope of the exception
}

std::string error_text(const std::exception& e, std::string_view doing) {
    if (dynamic_cast<const std::bad_alloc*>(&e) == nullptr) return e.what();
    return "out of memory while " + std::string(doing) + "; use fewer bodies or free memory";
}

std::string out_of_memory_message() {
    const auto& failed = failed_activity();
    if (!failed)
        return "out of memory: an allocation was refused (see `ulimit -v` and the memory available); use fewer "
               "bodies or a smaller image";
    std::string numbers;  // what is known of N and of the estimate
    if (failed->bodies > 0) numbers = "N = " + std::to_string(failed->bodies);
    if (failed->bytes > 0) numbers += (numbers.empty() ? "" : ", ") + std::string("about ") + format_gib(double(failed->bytes)) + " estimated";
    return "out of memory while " + failed->what + (numbers.empty() ? "" : " (" + numbers + ")") +
           "; use fewer bodies or free memory";
}

}  // namespace nbody
