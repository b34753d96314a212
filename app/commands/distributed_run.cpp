#include "distributed_run.hpp"

#include <array>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <ostream>
#include <stdexcept>

#include "nbody/sim/comm/distributed_direct_backend.hpp"
#include "nbody/sim/comm/distributed_force_engine.hpp"
#include "nbody/sim/comm/mpi_session.hpp"
#include "nbody/sim/comm/nccl_communicator.hpp"
#include "nbody/sim/cuda_backend.hpp"

namespace nbody::app {

int launch_ranks() { return comm::launch_communicator().size(); }

bool is_output_rank() { return comm::launch_communicator().rank() == 0; }

namespace {

// This process's place among the ranks of its machine, from the launcher's environment (Open MPI,
// MPICH/Intel MPI, Slurm); rank 0 of 1 when none says.
struct LocalRank {
    int rank = 0, size = 1;
};
LocalRank local_rank() {
    const auto read = [](std::initializer_list<const char*> names) -> std::optional<int> {
        for (const char* name : names)
            if (const char* value = std::getenv(name); value != nullptr && *value != '\0') return std::atoi(value);
        return std::nullopt;
    };
    LocalRank r;
    r.rank = read({"OMPI_COMM_WORLD_LOCAL_RANK", "MPI_LOCALRANKID", "SLURM_LOCALID"}).value_or(0);
    r.size = read({"OMPI_COMM_WORLD_LOCAL_SIZE", "MPI_LOCALNRANKS", "SLURM_NTASKS_PER_NODE"}).value_or(1);
    return r;
}

// One GPU per rank: this rank's GPU is its local rank's among the `gpus` of its machine. `what`
// names what runs there, for the refusals. Every rank checks the same facts, before any collective.
int rank_gpu(int gpus, const std::string& what) {
    const LocalRank local = local_rank();
    if (gpus == 0)
        throw std::invalid_argument(what + " under mpirun runs one rank per GPU, and this machine has no usable GPU: use "
                                    "--backend cpu");
    if (local.size > gpus)
        throw std::invalid_argument(std::to_string(local.size) + " ranks on this machine but " + std::to_string(gpus) +
                                    " GPU" + (gpus == 1 ? "" : "s") + ": " + what + " runs one rank per GPU (mpirun -np " +
                                    std::to_string(gpus) + " here)");
    return local.rank;
}

// The GPU backend of a rank, joined to the other ranks' through an NCCL communicator bootstrapped
// over MPI.
std::unique_ptr<Backend> rank_gpu_backend(comm::Communicator& world) {
#ifdef NBODY_HAVE_CUDA
    if (!comm::have_nccl())
        throw std::invalid_argument("the cuda backend under mpirun needs NCCL, which this build has not (NBODY_NCCL); "
                                    "use --backend cpu under mpirun, or --gpus in one process");
    const int gpu = rank_gpu(comm::visible_gpu_count(), "the cuda backend");
    auto backend = std::make_unique<CudaBackend>(gpu);
    backend->join_ranks(comm::make_nccl_communicator(world, gpu));
    return backend;
#else
    throw std::invalid_argument("this build has no cuda backend to run under mpirun (" + std::to_string(world.size()) +
                                " ranks): use --backend cpu or reference");
#endif
}

}  // namespace

std::unique_ptr<Backend> make_stepping_backend(BackendKind kind, const std::vector<int>& gpus, std::ostream& notice) {
    comm::Communicator& world = comm::launch_communicator();
    if (world.size() > 1) {
        if (!gpus.empty())
            throw std::invalid_argument("--gpus picks the GPUs of one process; under mpirun every rank steps on one GPU "
                                        "of its machine: leave --gpus out");
        const bool on_gpu = kind == BackendKind::Cuda || (kind == BackendKind::Auto && cuda_available());
        if (on_gpu) return rank_gpu_backend(world);
        return comm::make_distributed_backend(make_backend(kind, notice)->name(), world);
    }
    std::unique_ptr<Backend> backend = make_backend(kind, notice);
    if (gpus.size() < 2) return backend;
#ifdef NBODY_HAVE_CUDA
    if (auto* cuda = dynamic_cast<CudaBackend*>(backend.get())) {
        cuda->use_gpus(gpus);
        notice << "nbody: stepping on " << gpus.size() << " GPUs through NCCL\n";
        return backend;
    }
#endif
    throw std::invalid_argument("--gpus " + std::to_string(gpus.size()) + ": several GPUs step the cuda backend; this run "
                                "uses the " + std::string(backend->name()) + " backend (--backend cuda)");
}

void choose_process_gpu() {
    if (launch_ranks() > 1) set_process_gpu(local_rank().rank);
}

void refuse_command_across_ranks(const std::string& command) {
    if (launch_ranks() > 1 && command != "run" && command.rfind("-", 0) != 0)
        throw std::invalid_argument("nbody " + command + " does not run across " + std::to_string(launch_ranks()) +
                                    " MPI ranks: only `nbody run` does (docs/DISTRIBUTED.md); start it without mpirun");
}

namespace {
// A text every rank must give alike (a build, a GPU model), which names itself in the message: "the
// ranks disagree on <what>: rank R has <text>, rank 0 has <text> (<remedy>)". Cut at 127 characters.
constexpr std::size_t kSharedTextBytes = 128;
std::string describe_text(std::span<const std::byte> bytes) {
    const std::string text(reinterpret_cast<const char*>(bytes.data()), bytes.size());
    return text.substr(0, text.find('\0'));
}
void require_same_text_on_every_rank(comm::Communicator& world, const std::string& text, std::string_view what,
                                     std::string_view remedy) {
    std::array<char, kSharedTextBytes> bytes{};
    text.copy(bytes.data(), bytes.size() - 1);
    comm::require_same_on_every_rank(world, std::as_bytes(std::span(bytes)), what, describe_text, remedy);
}
}  // namespace

void require_same_build_on_every_rank(const std::string& build) {
    comm::Communicator& world = comm::launch_communicator();
    if (world.size() == 1) return;
    require_same_text_on_every_rank(world, "build '" + build + "'", "the build", "give every rank the same nbody executable");
}

namespace {
// Ranks whose engines share evaluations by slot ranges run a small evaluation whole on every rank and
// must get the same bits: the same kernel shape, whose j-split follows the SM count.
void require_same_gpu_model_on_every_rank(comm::Communicator& world, const std::string& model) {
    require_same_text_on_every_rank(world, "GPU '" + model + "'", "the GPU model",
                                    "the Hermite cuda engine across ranks needs one GPU model on every rank; use "
                                    "--backend cpu, or ranks on GPUs of one model");
}
}  // namespace

std::unique_ptr<hermite::ForceEngine> make_hermite_engine(hermite::EngineKind kind, const hermite::EngineConfig& config,
                                                          std::string& why, bool needs_snap, std::size_t bodies,
                                                          const std::vector<int>& gpus) {
    comm::Communicator& world = comm::launch_communicator();
    if (world.size() == 1) {
        std::unique_ptr<hermite::ForceEngine> engine = hermite::make_force_engine(kind, config, &why, needs_snap, bodies);
        // Block steps on several GPUs of this process meet through NCCL (the engine's step_blocks).
        if (config.devices.size() > 1 && !needs_snap && engine->name() == "cuda" && comm::have_nccl())
            engine->join_local_gpus(comm::make_nccl_communicators(config.devices));
        return engine;
    }
    const std::string ranks = std::to_string(world.size()) + " MPI ranks";
    if (!gpus.empty())
        throw std::invalid_argument("--gpus picks the GPUs of one process; under mpirun the Hermite integrator runs on one "
                                    "GPU per rank (--backend cuda) or on the cpu engine: leave --gpus out");
    std::string gpu_missing;
    const bool gpu_usable = hermite::cuda_engine_usable(&gpu_missing);
    const bool on_gpu =
        kind == hermite::EngineKind::Cuda ||
        (kind == hermite::EngineKind::Auto && gpu_usable && (bodies == 0 || bodies >= hermite::kGpuFromBodies));
    const std::string split = " (j-particle a on rank a % " + std::to_string(world.size()) +
                              "; the partial forces are added on every rank)";
    if (!on_gpu) {
        why = "Hermite force engine: cpu across " + ranks + split;
        return std::make_unique<comm::DistributedForceEngine>(
            hermite::make_force_engine(hermite::EngineKind::Cpu, config, nullptr, needs_snap, bodies), world);
    }
    if (!gpu_usable) throw std::invalid_argument("--backend cuda under mpirun: " + gpu_missing + "; use --backend cpu");
    const int gpu = rank_gpu(int(hermite::engine_devices("all").size()), "the Hermite cuda engine");
    require_same_gpu_model_on_every_rank(world, hermite::gpu_model(gpu));
    hermite::EngineConfig on_rank = config;
    on_rank.devices = {gpu};
    on_rank.rank = world.rank(), on_rank.ranks = world.size();
    const comm::JShare share{comm::JShare::SlotRanges, on_rank.several_gpus_from};
    why = "Hermite force engine: cuda across " + ranks + ", one GPU each (GPU " + std::to_string(gpu) +
          " of this machine on rank " + std::to_string(world.rank()) + "; every rank holds every j-particle and "
          "computes its range of them, as --gpus does in one process)";
    if (comm::have_nccl()) {
        // The ranks' partial forces meet on the GPUs, over NCCL, and come down once: through the host
        // and MPI they took ~1 ms a block at 128K and 4 ms at 512K (runs 123-124, docs/DISTRIBUTED.md).
        if (needs_snap) on_rank.precision = "fp64";  // the snap kernel's, as make_force_engine takes it
        return hermite::make_cuda_engine_across_ranks(on_rank, comm::make_nccl_communicator(world, gpu));
    }
    return std::make_unique<comm::DistributedForceEngine>(
        hermite::make_force_engine(hermite::EngineKind::Cuda, on_rank, nullptr, needs_snap, bodies), world, share);
}

namespace {
// What every rank of a Hermite run must agree on.
struct HermiteRunFingerprint {
    std::uint64_t bodies = 0, hash = 0;  // hash: masses, positions, velocities and time
    double t_end = 0, eta = 0, dt_max = 0, softening = 0;
    std::int64_t order = 0;
};
std::string describe_hermite_run(std::span<const std::byte> bytes) {
    HermiteRunFingerprint f;
    std::memcpy(&f, bytes.data(), sizeof f);
    char text[200];
    std::snprintf(text, sizeof text, "%llu bodies (content hash %016llx), order %lld, t_end %.17g, eta %.17g, dt_max %.17g, "
                  "softening %.17g", (unsigned long long)f.bodies, (unsigned long long)f.hash, (long long)f.order,
                  f.t_end, f.eta, f.dt_max, f.softening);
    return text;
}
}  // namespace

void require_same_hermite_run_on_every_rank(const std::vector<double>& mass, const std::vector<Vec3d>& x,
                                            const std::vector<Vec3d>& v, double time,
                                            const hermite::HermiteParams& params, double t_end) {
    comm::Communicator& world = comm::launch_communicator();
    if (world.size() == 1) return;
    HermiteRunFingerprint f;
    f.bodies = mass.size();
    f.hash = comm::content_hash(mass.data(), mass.size() * sizeof(double));
    f.hash = comm::content_hash(x.data(), x.size() * sizeof(Vec3d), f.hash);
    f.hash = comm::content_hash(v.data(), v.size() * sizeof(Vec3d), f.hash);
    f.hash = comm::content_hash(&time, sizeof time, f.hash);
    f.t_end = t_end, f.eta = params.eta, f.dt_max = params.dt_max, f.softening = params.softening;
    f.order = params.order;
    comm::require_same_on_every_rank(world, std::as_bytes(std::span(&f, 1)), "the Hermite run", describe_hermite_run,
                                     "every rank must read the same input with the same options");
}

std::shared_ptr<std::optional<std::string>> add_gpus_option(CLI::App& cmd) {
    auto gpus = std::make_shared<std::optional<std::string>>();
    cmd.add_option("--gpus", *gpus,
                   "Step the cuda backend on N GPUs of this machine (or 'all') through NCCL: every pair, each pair "
                   "once (--pairs symmetric) and the tree code, in fp32; `run --integrator hermite4|6` splits its "
                   "j-particles over them. Needs a build with NCCL (docs/DISTRIBUTED.md)");
    return gpus;
}

std::vector<int> check_gpus_request(const std::optional<std::string>& gpus) {
    if (!gpus) return {};
    // The value's form first (0, "two"): its message holds in any build, on any machine.
    comm::select_gpus(*gpus, std::numeric_limits<int>::max());
    if (!comm::have_nccl())
        throw std::invalid_argument("--gpus " + *gpus +
                                    ": this build has no NCCL, which several GPUs need (configure with the CUDA "
                                    "Toolkit's nccl.h and libnccl.so: NBODY_NCCL=AUTO or ON); without --gpus the run "
                                    "uses one GPU");
    return comm::select_gpus(*gpus, comm::visible_gpu_count());
}

std::string wait_for_every_rank() {
    comm::Communicator& world = comm::launch_communicator();
    if (world.size() == 1) return {};
    const auto began = std::chrono::steady_clock::now();
    const std::byte ready{};
    (void)world.all_gather_host_bytes(std::span(&ready, 1));  // returns once every rank sent its byte
    const double waited_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - began).count();
    const std::vector<std::byte> all = world.all_gather_host_bytes(std::as_bytes(std::span(&waited_ms, 1)));
    std::string text = "every rank ready to step; each waited for the others (ms, rank 0 first):";
    for (std::size_t r = 0; r * sizeof(double) < all.size(); ++r) {
        double ms = 0;
        std::memcpy(&ms, all.data() + r * sizeof(double), sizeof ms);
        char item[32];
        std::snprintf(item, sizeof item, " %.1f", ms);
        text += item;
    }
    return text;
}

long long rank0_decides(long long value) {
    comm::Communicator& world = comm::launch_communicator();
    std::int64_t shared = value;
    if (world.size() > 1) comm::broadcast(world, &shared, 1, 0);
    return shared;
}

}  // namespace nbody::app
