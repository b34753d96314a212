#pragma once
// The collectives a distributed solver needs, behind one interface, so that the code above it is
// the same on one process, on MPI ranks (host buffers) and on GPUs through NCCL (device buffers):
//   SerialCommunicator  one rank; every collective is a copy (the build without MPI, and a plain
//                       `nbody run` started without mpirun)
//   MPI                 host buffers, one rank per process (mpi_communicator.hpp)
//   NCCL                device buffers, one rank per GPU (nccl_communicator.hpp)
// Every rank calls every collective in the same order with the same counts (SPMD). Buffers live
// where memory() says: a device pointer given to the MPI communicator would be read as host memory
// (Debian's OpenMPI is not CUDA-aware).

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

namespace nbody::comm {

enum class DataType { Byte, Int32, Int64, Float32, Float64 };
enum class MemorySpace { Host, Device };

std::size_t size_of(DataType type);
std::string_view to_string(DataType type);

template <class T> constexpr DataType data_type_of();
template <> constexpr DataType data_type_of<std::byte>() { return DataType::Byte; }
template <> constexpr DataType data_type_of<std::int32_t>() { return DataType::Int32; }
template <> constexpr DataType data_type_of<std::int64_t>() { return DataType::Int64; }
template <> constexpr DataType data_type_of<float>() { return DataType::Float32; }
template <> constexpr DataType data_type_of<double>() { return DataType::Float64; }

// A value with the index it belongs to (a body, a particle id): what a min-with-index reduction
// carries. The reduction keeps the smallest value and, among equal values, the lowest index, so the
// answer does not depend on how the indices were split over the ranks. NaN counts as larger than
// every number.
struct ValueIndex {
    double value = 0;
    std::int64_t index = 0;
};

// The smaller of a and b under that order.
ValueIndex min_with_index(const ValueIndex& a, const ValueIndex& b);

class Communicator {
public:
    virtual ~Communicator() = default;
    Communicator() = default;
    Communicator(const Communicator&) = delete;
    Communicator& operator=(const Communicator&) = delete;

    virtual int rank() const = 0;
    virtual int size() const = 0;
    virtual MemorySpace memory() const = 0;
    virtual std::string_view name() const = 0;  // "serial", "mpi", "nccl"

    // recv gets every rank's send, in rank order: counts[r] elements from rank r, at the offset
    // counts[0] + ... + counts[r-1]. This rank sends counts[rank()] elements. `send` may point into
    // `recv` at this rank's own offset (in place).
    virtual void all_gather_v(const void* send, void* recv, std::span<const std::size_t> counts, DataType type) = 0;
    // recv[k] = sum over ranks of send[k], the same on every rank. send == recv is allowed. The
    // order of the additions is the library's: not bit for bit the same for different P.
    virtual void all_reduce_sum(const void* send, void* recv, std::size_t count, DataType type) = 0;
    // The element-wise sum over ranks of send (size() * recv_count elements), of which this rank
    // keeps block rank(): recv_count elements.
    virtual void reduce_scatter_sum(const void* send, void* recv, std::size_t recv_count, DataType type) = 0;
    virtual void broadcast(void* buffer, std::size_t count, DataType type, int root) = 0;
    // Host values on every implementation (a scalar: the NCCL one stages it through the device).
    virtual ValueIndex all_reduce_min_with_index(const ValueIndex& local) = 0;
    // Every rank's `local` bytes (the same length on every rank), in rank order, on the host: for
    // consistency checks, not for bulk data.
    virtual std::vector<std::byte> all_gather_host_bytes(std::span<const std::byte> local) = 0;
    // Returns once every earlier collective of this rank has completed (device work included).
    virtual void synchronize() = 0;
};

// One rank: the collectives copy send to recv (host memory).
class SerialCommunicator final : public Communicator {
public:
    int rank() const override { return 0; }
    int size() const override { return 1; }
    MemorySpace memory() const override { return MemorySpace::Host; }
    std::string_view name() const override { return "serial"; }
    void all_gather_v(const void* send, void* recv, std::span<const std::size_t> counts, DataType type) override;
    void all_reduce_sum(const void* send, void* recv, std::size_t count, DataType type) override;
    void reduce_scatter_sum(const void* send, void* recv, std::size_t recv_count, DataType type) override;
    void broadcast(void*, std::size_t, DataType, int root) override;
    ValueIndex all_reduce_min_with_index(const ValueIndex& local) override { return local; }
    std::vector<std::byte> all_gather_host_bytes(std::span<const std::byte> local) override;
    void synchronize() override {}
};

// Typed forms of the collectives.
template <class T>
void all_gather_v(Communicator& comm, const T* send, T* recv, std::span<const std::size_t> counts) {
    comm.all_gather_v(send, recv, counts, data_type_of<T>());
}
template <class T>
void all_reduce_sum(Communicator& comm, const T* send, T* recv, std::size_t count) {
    comm.all_reduce_sum(send, recv, count, data_type_of<T>());
}
template <class T>
void reduce_scatter_sum(Communicator& comm, const T* send, T* recv, std::size_t recv_count) {
    comm.reduce_scatter_sum(send, recv, recv_count, data_type_of<T>());
}
template <class T>
void broadcast(Communicator& comm, T* buffer, std::size_t count, int root) {
    comm.broadcast(buffer, count, data_type_of<T>(), root);
}

// A contiguous share of n items for each of `ranks` ranks, the first n % ranks shares one larger:
// rank r owns [begin(r), begin(r + 1)).
struct Partition {
    std::vector<std::size_t> counts;   // ranks entries
    std::vector<std::size_t> offsets;  // ranks + 1 entries, offsets.back() == n

    static Partition even(std::size_t n, int ranks);
    std::size_t begin(int rank) const { return offsets[std::size_t(rank)]; }
    std::size_t end(int rank) const { return offsets[std::size_t(rank) + 1]; }
    std::size_t count(int rank) const { return counts[std::size_t(rank)]; }
};

}  // namespace nbody::comm
