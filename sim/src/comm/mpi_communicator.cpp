#include "nbody/sim/comm/mpi_communicator.hpp"

#include <climits>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <string>

#include "nbody/sim/comm/mpi_session.hpp"

#ifdef NBODY_HAVE_MPI
// The C API only: OpenMPI's deprecated C++ bindings add nothing here and warn under -Wextra.
#define OMPI_SKIP_MPICXX 1
#define MPICH_SKIP_MPICXX 1
#include <mpi.h>
#endif

namespace nbody::comm {
namespace {

MpiSession* g_session = nullptr;  // the process's session, for launch_communicator()

}  // namespace

bool launched_by_mpi() {
    for (const char* name : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK"})
        if (const char* value = std::getenv(name); value && *value) return true;
    return false;
}

Communicator& launch_communicator() {
    if (g_session) return g_session->world();
    static SerialCommunicator serial;  // stateless: one rank, collectives are copies
    return serial;
}

#ifdef NBODY_HAVE_MPI
namespace {

std::string mpi_error_text(int code) {
    char text[MPI_MAX_ERROR_STRING];
    int length = 0;
    if (MPI_Error_string(code, text, &length) != MPI_SUCCESS) return "MPI error " + std::to_string(code);
    return std::string(text, std::size_t(length));
}

void check_mpi(int code, const char* call, const char* file, int line) {
    if (code != MPI_SUCCESS)
        throw std::runtime_error(std::string(file) + ":" + std::to_string(line) + ": " + call + " failed: " +
                                 mpi_error_text(code));
}
#define NBODY_MPI_CHECK(call) check_mpi((call), #call, __FILE__, __LINE__)

MPI_Datatype mpi_type(DataType type) {
    switch (type) {
        case DataType::Byte: return MPI_BYTE;
        case DataType::Int32: return MPI_INT32_T;
        case DataType::Int64: return MPI_INT64_T;
        case DataType::Float32: return MPI_FLOAT;
        case DataType::Float64: return MPI_DOUBLE;
    }
    throw std::invalid_argument("unknown communicator data type");
}

// MPI counts are int: a larger count is refused with the numbers rather than wrapped.
int mpi_count(std::size_t count, const char* what) {
    if (count > std::size_t(INT_MAX))
        throw std::invalid_argument(std::string(what) + ": " + std::to_string(count) +
                                    " elements is more than MPI's int count allows (" + std::to_string(INT_MAX) + ")");
    return int(count);
}

const void* in_place_or(const void* send, const void* recv) { return send == recv ? MPI_IN_PLACE : send; }

class MpiCommunicator final : public Communicator {
public:
    MpiCommunicator() {
        NBODY_MPI_CHECK(MPI_Comm_dup(MPI_COMM_WORLD, &comm_));
        NBODY_MPI_CHECK(MPI_Comm_set_errhandler(comm_, MPI_ERRORS_RETURN));
        NBODY_MPI_CHECK(MPI_Comm_rank(comm_, &rank_));
        NBODY_MPI_CHECK(MPI_Comm_size(comm_, &size_));
    }
    ~MpiCommunicator() override {
        int finalized = 0;
        MPI_Finalized(&finalized);
        if (!finalized && MPI_Comm_free(&comm_) != MPI_SUCCESS)
            std::fprintf(stderr, "nbody: warning: MPI_Comm_free failed on rank %d\n", rank_);
    }

    int rank() const override { return rank_; }
    int size() const override { return size_; }
    MemorySpace memory() const override { return MemorySpace::Host; }
    std::string_view name() const override { return "mpi"; }

    void all_gather_v(const void* send, void* recv, std::span<const std::size_t> counts, DataType type) override {
        if (counts.size() != std::size_t(size_))
            throw std::invalid_argument("all_gather_v: " + std::to_string(counts.size()) + " counts for " +
                                        std::to_string(size_) + " ranks");
        std::vector<int> ints(counts.size()), displacements(counts.size());
        std::size_t offset = 0;
        for (std::size_t r = 0; r < counts.size(); ++r) {
            ints[r] = mpi_count(counts[r], "all_gather_v");
            displacements[r] = mpi_count(offset, "all_gather_v offset");
            offset += counts[r];
        }
        const auto* own = static_cast<const std::byte*>(recv) + std::size_t(displacements[std::size_t(rank_)]) * size_of(type);
        const void* source = send == own ? MPI_IN_PLACE : send;
        NBODY_MPI_CHECK(MPI_Allgatherv(source, ints[std::size_t(rank_)], mpi_type(type), recv, ints.data(),
                                       displacements.data(), mpi_type(type), comm_));
    }

    void all_reduce_sum(const void* send, void* recv, std::size_t count, DataType type) override {
        NBODY_MPI_CHECK(MPI_Allreduce(in_place_or(send, recv), recv, mpi_count(count, "all_reduce_sum"), mpi_type(type),
                                      MPI_SUM, comm_));
    }

    void reduce_scatter_sum(const void* send, void* recv, std::size_t recv_count, DataType type) override {
        NBODY_MPI_CHECK(MPI_Reduce_scatter_block(send, recv, mpi_count(recv_count, "reduce_scatter_sum"),
                                                 mpi_type(type), MPI_SUM, comm_));
    }

    void broadcast(void* buffer, std::size_t count, DataType type, int root) override {
        NBODY_MPI_CHECK(MPI_Bcast(buffer, mpi_count(count, "broadcast"), mpi_type(type), root, comm_));
    }

    ValueIndex all_reduce_min_with_index(const ValueIndex& local) override {
        // Gathered and folded in rank order rather than MPI_MINLOC: that takes an int index
        // (MPI_DOUBLE_INT), and this keeps one rule (min_with_index) for every implementation.
        std::vector<ValueIndex> all(static_cast<std::size_t>(size_));
        NBODY_MPI_CHECK(MPI_Allgather(&local, int(sizeof local), MPI_BYTE, all.data(), int(sizeof local), MPI_BYTE, comm_));
        ValueIndex best = all[0];
        for (const ValueIndex& v : all) best = min_with_index(best, v);
        return best;
    }

    std::vector<std::byte> all_gather_host_bytes(std::span<const std::byte> local) override {
        std::vector<std::byte> all(local.size() * std::size_t(size_));
        const int n = mpi_count(local.size(), "all_gather_host_bytes");
        NBODY_MPI_CHECK(MPI_Allgather(local.data(), n, MPI_BYTE, all.data(), n, MPI_BYTE, comm_));
        return all;
    }

    void synchronize() override {}  // every call above is blocking

private:
    MPI_Comm comm_ = MPI_COMM_NULL;
    int rank_ = 0, size_ = 1;
};

}  // namespace

bool have_mpi() { return true; }

std::unique_ptr<Communicator> make_mpi_world_communicator() { return std::make_unique<MpiCommunicator>(); }

MpiSession::MpiSession(int* argc, char*** argv) {
    if (launched_by_mpi()) {
        int initialized = 0;
        NBODY_MPI_CHECK(MPI_Initialized(&initialized));
        if (!initialized) NBODY_MPI_CHECK(MPI_Init(argc, argv));
        active_ = true;
        world_ = make_mpi_world_communicator();
    } else {
        world_ = std::make_unique<SerialCommunicator>();
    }
    g_session = this;
}

MpiSession::~MpiSession() {
    g_session = nullptr;
    world_.reset();  // MPI_Comm_free must come before MPI_Finalize
    if (active_) MPI_Finalize();
}

void MpiSession::abort_all(int code) {
    std::fflush(nullptr);
    if (active_) MPI_Abort(MPI_COMM_WORLD, code);
    std::_Exit(code);
}

#else  // no MPI in this build

bool have_mpi() { return false; }

std::unique_ptr<Communicator> make_mpi_world_communicator() {
    throw std::runtime_error("this build has no MPI communicator (configured without MPI: apt-get install "
                             "libopenmpi-dev openmpi-bin and configure again, NBODY_MPI=AUTO or ON)");
}

MpiSession::MpiSession(int*, char***) {
    if (launched_by_mpi())
        throw std::runtime_error("started by an MPI launcher (mpirun), but this build has no MPI: install "
                                 "libopenmpi-dev and configure again (NBODY_MPI=AUTO or ON), or run without mpirun");
    world_ = std::make_unique<SerialCommunicator>();
    g_session = this;
}

MpiSession::~MpiSession() { g_session = nullptr; }

void MpiSession::abort_all(int code) {
    std::fflush(nullptr);
    std::_Exit(code);
}

#endif

}  // namespace nbody::comm
