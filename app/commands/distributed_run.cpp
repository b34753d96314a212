#include "distributed_run.hpp"

#include <array>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <ostream>
#include <stdexcept>

#include "nbody/sim/comm/distributed_direct_backend.hpp"
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

// One GPU per rank: this rank's GPU is its local rank's, joined to the other ranks' through an NCCL
// communicator bootstrapped over MPI. Every rank checks the same facts before the collective.
std::unique_ptr<Backend> rank_gpu_backend(comm::Communicator& world) {
#ifdef NBODY_HAVE_CUDA
    if (!comm::have_nccl())
        throw std::invalid_argument("the cuda backend under mpirun needs NCCL, which this build has not (NBODY_NCCL); "
                                    "use --backend cpu under mpirun, or --gpus in one process");
    const LocalRank local = local_rank();
    const int gpus = comm::visible_gpu_count();
    if (gpus == 0)
        throw std::invalid_argument("the cuda backend under mpirun runs one rank per GPU, and this machine has no usable "
                                    "GPU: use --backend cpu or reference");
    if (local.size > gpus)
        throw std::invalid_argument(std::to_string(local.size) + " ranks on this machine but " + std::to_string(gpus) +
                                    " GPU" + (gpus == 1 ? "" : "s") + ": the cuda backend runs one rank per GPU "
                                    "(mpirun -np " + std::to_string(gpus) + " here)");
    auto backend = std::make_unique<CudaBackend>(local.rank);
    backend->join_ranks(comm::make_nccl_communicator(world, local.rank));
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

void refuse_command_across_ranks(const std::string& command) {
    if (launch_ranks() > 1 && command != "run" && command.rfind("-", 0) != 0)
        throw std::invalid_argument("nbody " + command + " does not run across " + std::to_string(launch_ranks()) +
                                    " MPI ranks: only `nbody run` does (docs/DISTRIBUTED.md); start it without mpirun");
}

namespace {
constexpr std::size_t kBuildIdBytes = 64;
std::string describe_build(std::span<const std::byte> bytes) {
    const std::string text(reinterpret_cast<const char*>(bytes.data()), bytes.size());
    return "build '" + text.substr(0, text.find('\0')) + "'";
}
}  // namespace

void require_same_build_on_every_rank(const std::string& build) {
    comm::Communicator& world = comm::launch_communicator();
    if (world.size() == 1) return;
    std::array<char, kBuildIdBytes> id{};
    build.copy(id.data(), id.size() - 1);
    comm::require_same_on_every_rank(world, std::as_bytes(std::span(id)), "the build", describe_build,
                                     "give every rank the same nbody executable");
}

void refuse_several_ranks(const std::string& what) {
    if (launch_ranks() > 1)
        throw std::invalid_argument(what + " does not run across " + std::to_string(launch_ranks()) +
                                    " MPI ranks yet (docs/DISTRIBUTED.md): run it in one process");
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

long long rank0_decides(long long value) {
    comm::Communicator& world = comm::launch_communicator();
    std::int64_t shared = value;
    if (world.size() > 1) comm::broadcast(world, &shared, 1, 0);
    return shared;
}

}  // namespace nbody::app
