// The engine's spatial order on the GPU (hermite_kernels.hpp: morton_order_j, apply_order_j): the
// keys of nbody::hermite::morton_order (morton_cube.hpp, shared with the host) computed from the
// j-memory, sorted by CUB, and the j-memory permuted to match. No copy of the j-memory to the host.

#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_reduce.cuh>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "../cuda_check.hpp"
#include "hermite_kernels.hpp"
#include "nbody/sim/hermite/morton_cube.hpp"

namespace nbody::cuda::hermite {
namespace {

using nbody::hermite::MortonBox;
using nbody::hermite::MortonCube;

// The box of address a's position (its j-particle is in slot slot_of[a]).
struct BoxOfAddress {
    const Real4* xm;
    const int* slot_of;
    __host__ __device__ MortonBox operator()(int a) const {
        const Real4 x = xm[slot_of[a]];
        return nbody::hermite::morton_box_of(x.x, x.y, x.z);
    }
};
struct MergeBoxes {
    __host__ __device__ MortonBox operator()(const MortonBox& a, const MortonBox& b) const { return nbody::hermite::merged(a, b); }
};
auto boxes_of(const Real4* xm, const int* slot_of) {
    return thrust::make_transform_iterator(thrust::counting_iterator<int>(0), BoxOfAddress{xm, slot_of});
}

// Addresses below `sorted`: their key and themselves as the sort's values; the others keep their slot
// in the order.
__global__ void keys_kernel(const Real4* xm, const int* slot_of, int sorted, int n, const MortonBox* box,
                            std::uint32_t* keys, int* addresses, int* order) {
    const int a = int(blockIdx.x * blockDim.x + threadIdx.x);
    if (a >= n) return;
    if (a >= sorted) {
        order[a] = a;
        return;
    }
    const MortonCube cube = nbody::hermite::morton_cube_of(*box);  // a few flops: cheaper than a launch
    const Real4 x = xm[slot_of[a]];
    keys[a] = nbody::hermite::morton_key_in(cube, x.x, x.y, x.z);
    addresses[a] = a;
}

// Slot s takes address order[s]: the slot it leaves is its source, and its map entry becomes s. Each
// address is read and written by the one thread whose s names it.
__global__ void sources_kernel(const int* order, int* slot_of, int n, int* source) {
    const int s = int(blockIdx.x * blockDim.x + threadIdx.x);
    if (s >= n) return;
    const int a = order[s];
    source[s] = slot_of[a];
    slot_of[a] = s;
}

__global__ void identity_kernel(int* to, int from, int n) {
    const int k = from + int(blockIdx.x * blockDim.x + threadIdx.x);
    if (k < n) to[k] = k;
}

unsigned blocks_for(int n) { return unsigned((n + 255) / 256); }

// CUB's scratch for n items: the box's reduction and the keys' sort use it in turn.
std::size_t cub_bytes(int n) {
    std::size_t sort = 0, reduce = 0;
    CUDA_CHECK(cub::DeviceRadixSort::SortPairs(nullptr, sort, static_cast<const std::uint32_t*>(nullptr),
                                               static_cast<std::uint32_t*>(nullptr), static_cast<const int*>(nullptr),
                                               static_cast<int*>(nullptr), n, 0, nbody::hermite::kMortonKeyBits));
    CUDA_CHECK(cub::DeviceReduce::Reduce(nullptr, reduce, boxes_of(nullptr, nullptr), static_cast<MortonBox*>(nullptr), n,
                                         MergeBoxes{}, nbody::hermite::empty_morton_box()));
    return std::max(sort, reduce);
}

// The scratch cut into the keys (in and out), the addresses, the box and CUB's part, each on 256 bytes.
struct Scratch {
    std::uint32_t* keys_in;
    std::uint32_t* keys_out;
    int* addresses;
    MortonBox* box;
    void* cub;
    std::size_t cub_bytes;
};
constexpr std::size_t aligned(std::size_t bytes) { return (bytes + 255) / 256 * 256; }
std::size_t scratch_bytes_before_cub(int n) {
    return 2 * aligned(sizeof(std::uint32_t) * std::size_t(n)) + aligned(sizeof(int) * std::size_t(n)) + aligned(sizeof(MortonBox));
}
Scratch cut(void* scratch, int n, std::size_t cub) {
    auto* at = static_cast<unsigned char*>(scratch);
    const std::size_t keys = aligned(sizeof(std::uint32_t) * std::size_t(n));
    return {reinterpret_cast<std::uint32_t*>(at), reinterpret_cast<std::uint32_t*>(at + keys),
            reinterpret_cast<int*>(at + 2 * keys), reinterpret_cast<MortonBox*>(at + 2 * keys + aligned(sizeof(int) * std::size_t(n))),
            at + scratch_bytes_before_cub(n), cub};
}

}  // namespace

std::size_t morton_order_scratch_bytes(int n) { return scratch_bytes_before_cub(n) + cub_bytes(std::max(n, 1)); }

void morton_order_j(const Real4* xm, const int* slot_of, int sorted, int n, int* order, void* scratch,
                    std::size_t scratch_bytes, cudaStream_t stream) {
    if (n <= 0) return;
    if (sorted < 0 || sorted > n || scratch_bytes < scratch_bytes_before_cub(n))
        throw std::invalid_argument("morton_order_j: " + std::to_string(sorted) + " of " + std::to_string(n) +
                                    " j-particles to sort with " + std::to_string(scratch_bytes) + " bytes of scratch");
    // CUB checks its part against what it needs and fails (cudaErrorInvalidValue) where it is short.
    const Scratch s = cut(scratch, n, scratch_bytes - scratch_bytes_before_cub(n));
    std::size_t bytes = s.cub_bytes;
    if (sorted > 0)
        CUDA_CHECK(cub::DeviceReduce::Reduce(s.cub, bytes, boxes_of(xm, slot_of), s.box, sorted, MergeBoxes{},
                                             nbody::hermite::empty_morton_box(), stream));
    keys_kernel<<<blocks_for(n), 256, 0, stream>>>(xm, slot_of, sorted, n, s.box, s.keys_in, s.addresses, order);
    CUDA_CHECK_LAUNCH();
    // Stable, as the host's: addresses of one cell stay in address order.
    bytes = s.cub_bytes;
    if (sorted > 0)
        CUDA_CHECK(cub::DeviceRadixSort::SortPairs(s.cub, bytes, s.keys_in, s.keys_out, s.addresses, order, sorted, 0,
                                                   nbody::hermite::kMortonKeyBits, stream));
}

void apply_order_j(const JMemory& j, const int* order, int* slot_of, int n, int* source, Real4* scratch, cudaStream_t stream) {
    if (n <= 0) return;
    sources_kernel<<<blocks_for(n), 256, 0, stream>>>(order, slot_of, n, source);
    CUDA_CHECK_LAUNCH();
    permute_j(j, source, n, scratch, stream);
}

void identity_slots(int* to, int from, int n, cudaStream_t stream) {
    if (n - from <= 0) return;
    identity_kernel<<<blocks_for(n - from), 256, 0, stream>>>(to, from, n);
    CUDA_CHECK_LAUNCH();
}

}  // namespace nbody::cuda::hermite
