#include "distributed_run.hpp"

#include <array>
#include <cstdint>
#include <limits>
#include <stdexcept>

#include "nbody/sim/comm/distributed_direct_backend.hpp"
#include "nbody/sim/comm/mpi_session.hpp"
#include "nbody/sim/comm/nccl_communicator.hpp"

namespace nbody::app {

int launch_ranks() { return comm::launch_communicator().size(); }

bool is_output_rank() { return comm::launch_communicator().rank() == 0; }

std::unique_ptr<Backend> distribute_over_launch(std::unique_ptr<Backend> local) {
    comm::Communicator& world = comm::launch_communicator();
    if (world.size() == 1) return local;
    return comm::make_distributed_backend(local->name(), world);
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
                   "Step on N GPUs of this machine (or 'all') through NCCL, every pair; needs a build with NCCL "
                   "(docs/DISTRIBUTED.md)");
    return gpus;
}

void check_gpus_request(const std::optional<std::string>& gpus) {
    if (!gpus) return;
    // The value's form first (0, "two"): its message holds in any build, on any machine.
    comm::select_gpus(*gpus, std::numeric_limits<int>::max());
    if (!comm::have_nccl())
        throw std::invalid_argument("--gpus " + *gpus +
                                    ": this build has no NCCL, which several GPUs need (configure with the CUDA "
                                    "Toolkit's nccl.h and libnccl.so: NBODY_NCCL=AUTO or ON); without --gpus the run "
                                    "uses one GPU");
    const std::vector<int> devices = comm::select_gpus(*gpus, comm::visible_gpu_count());
    if (devices.size() > 1)
        throw std::invalid_argument("--gpus " + *gpus + ": stepping on " + std::to_string(devices.size()) +
                                    " GPUs is not built yet (the NCCL communicator is; the force kernel's i-slice is "
                                    "not: docs/DISTRIBUTED.md). Run on one GPU, or across ranks with mpirun and "
                                    "--backend cpu");
}

long long rank0_decides(long long value) {
    comm::Communicator& world = comm::launch_communicator();
    std::int64_t shared = value;
    if (world.size() > 1) comm::broadcast(world, &shared, 1, 0);
    return shared;
}

}  // namespace nbody::app
