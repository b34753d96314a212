#pragma once
// What `run` does differently when launched as several MPI ranks (`mpirun -np P nbody run ...`),
// kept here so that cmd_run.cpp stays one program for one rank and for P:
//   - the backend is the distributed form of the host backend (comm/distributed_direct_backend.hpp);
//   - rank 0 alone writes the output (main silences the other ranks' stdout and stderr);
//   - a decision that depends on the clock or a signal (batch size, checkpoint, Ctrl-C) is rank
//     0's, broadcast, so that every rank makes the same collective calls in the same order.
// With one rank (no mpirun) each of these is the identity.

#include <CLI/CLI.hpp>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "nbody/sim/backend.hpp"
#include "nbody/sim/hermite/integrator.hpp"

namespace nbody::app {

// The number of ranks this process was launched with (1 without mpirun).
int launch_ranks();
bool is_output_rank();

// The backend that steps a run or a benchmark:
//   - one process: make_backend(kind); with two or more `gpus` (check_gpus_request) the cuda backend
//     split over them through NCCL (CudaBackend::use_gpus);
//   - under mpirun: the cuda backend (cuda, or auto with a GPU) as one rank per GPU (the rank's
//     local rank picks its GPU; NCCL bootstrapped over MPI), else the distributed host backend.
// Throws std::invalid_argument with the reason: --gpus on another backend or under mpirun, more
// ranks on a machine than it has GPUs, no NCCL.
std::unique_ptr<Backend> make_stepping_backend(BackendKind kind, const std::vector<int>& gpus, std::ostream& notice);

// Under several ranks: this rank's GPU (its local rank's) is the one the probes and memory checks
// look at (set_process_gpu). Before any of them. Nothing on one rank.
void choose_process_gpu();

// Under several ranks only `run` steps distributed; any other command would run whole on every
// rank (each writing its own outputs). Throws std::invalid_argument naming `command` (the first
// argument) for those; nothing on one rank.
void refuse_command_across_ranks(const std::string& command);

// Under several ranks, refuses a launch whose ranks run different builds: `build` (version and
// compile time of main.cpp) must be the same on every rank. Nothing on one rank.
void require_same_build_on_every_rank(const std::string& build);

// The force engine of `run --integrator hermite4|6` (hermite::make_force_engine's arguments). Under
// mpirun the engine is split over the ranks, each holding every P-th j-particle
// (comm/distributed_force_engine.hpp), `why` saying so: the cuda engine (cuda, or auto with a GPU and
// kGpuFromBodies or more) on the rank's GPU (its local rank's, one rank per GPU), else the cpu engine.
// --gpus, more ranks on a machine than it has GPUs and cuda without a usable GPU are refused with the
// reason.
std::unique_ptr<hermite::ForceEngine> make_hermite_engine(hermite::EngineKind kind, const hermite::EngineConfig& config,
                                                          std::string& why, bool needs_snap, std::size_t bodies,
                                                          const std::vector<int>& gpus);

// Under several ranks, refuses a Hermite run whose ranks loaded another system (masses, positions,
// velocities, time) or chose other parameters or end time: the replicated integrators would part
// ways. Nothing on one rank.
void require_same_hermite_run_on_every_rank(const std::vector<double>& mass, const std::vector<Vec3d>& x,
                                            const std::vector<Vec3d>& v, double time,
                                            const hermite::HermiteParams& params, double t_end);

// --gpus N|all on `cmd` (run, bench): the every-pair step over N GPUs of this process through NCCL.
// The returned holder has the value once parsed.
std::shared_ptr<std::optional<std::string>> add_gpus_option(CLI::App& cmd);

// Before any work (nothing is written when it throws): --gpus in a build without NCCL, --gpus 0 or
// more GPUs than the machine has are refused with the reason. Returns the GPUs asked for (empty
// without --gpus; --gpus 1 is the one-GPU run).
std::vector<int> check_gpus_request(const std::optional<std::string>& gpus);

// Under several ranks: returns once every rank has called it, with a line saying how long each
// waited for the others (the ranks' set-up differs: rank 0 alone sums the first energy), so that a
// run's clock starts with every rank ready. Empty on one rank.
std::string wait_for_every_rank();

// Rank 0's value on every rank (a broadcast; the value itself on one rank).
long long rank0_decides(long long value);
inline bool rank0_decides(bool value) { return rank0_decides((long long)value) != 0; }
inline int rank0_decides(int value) { return int(rank0_decides((long long)value)); }

}  // namespace nbody::app
