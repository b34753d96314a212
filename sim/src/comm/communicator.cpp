#include "nbody/sim/comm/communicator.hpp"

#include <cmath>
#include <cstring>
#include <stdexcept>
#include <string>

namespace nbody::comm {

std::size_t size_of(DataType type) {
    switch (type) {
        case DataType::Byte: return 1;
        case DataType::Int32: return 4;
        case DataType::Int64: return 8;
        case DataType::Float32: return 4;
        case DataType::Float64: return 8;
    }
    throw std::invalid_argument("unknown communicator data type " + std::to_string(int(type)));
}

std::string_view to_string(DataType type) {
    switch (type) {
        case DataType::Byte: return "byte";
        case DataType::Int32: return "int32";
        case DataType::Int64: return "int64";
        case DataType::Float32: return "float32";
        case DataType::Float64: return "float64";
    }
    return "unknown";
}

ValueIndex min_with_index(const ValueIndex& a, const ValueIndex& b) {
    const bool a_nan = std::isnan(a.value), b_nan = std::isnan(b.value);
    if (a_nan != b_nan) return a_nan ? b : a;
    if (!a_nan && a.value != b.value) return a.value < b.value ? a : b;
    return a.index <= b.index ? a : b;
}

void SerialCommunicator::all_gather_v(const void* send, void* recv, std::span<const std::size_t> counts,
                                      DataType type) {
    if (counts.size() != 1)
        throw std::invalid_argument("all_gather_v on one rank takes one count, got " + std::to_string(counts.size()));
    if (send != recv) std::memmove(recv, send, counts[0] * size_of(type));
}

void SerialCommunicator::all_reduce_sum(const void* send, void* recv, std::size_t count, DataType type) {
    if (send != recv) std::memmove(recv, send, count * size_of(type));
}

void SerialCommunicator::reduce_scatter_sum(const void* send, void* recv, std::size_t recv_count, DataType type) {
    if (send != recv) std::memmove(recv, send, recv_count * size_of(type));
}

void SerialCommunicator::broadcast(void*, std::size_t, DataType, int root) {
    if (root != 0) throw std::invalid_argument("broadcast from rank " + std::to_string(root) + " of a single rank");
}

std::vector<std::byte> SerialCommunicator::all_gather_host_bytes(std::span<const std::byte> local) {
    return {local.begin(), local.end()};
}

Partition Partition::even(std::size_t n, int ranks) {
    if (ranks < 1) throw std::invalid_argument("a partition needs at least one rank, got " + std::to_string(ranks));
    Partition p;
    p.counts.resize(std::size_t(ranks));
    p.offsets.resize(std::size_t(ranks) + 1, 0);
    const std::size_t share = n / std::size_t(ranks), extra = n % std::size_t(ranks);
    for (std::size_t r = 0; r < std::size_t(ranks); ++r) {
        p.counts[r] = share + (r < extra ? 1 : 0);
        p.offsets[r + 1] = p.offsets[r] + p.counts[r];
    }
    return p;
}

}  // namespace nbody::comm
