#pragma once
// Driver functions of the Hermite kernels (hermite_kernels.cu): plain functions on raw device
// pointers, the only way host code reaches them.
//
//   scatter   writes a batch of updated j-particles (the corrected active bodies) into j-memory
//   permute   moves the j-particles to other slots (the engine's spatial order, made on the GPU:
//             Morton keys, CUB's radix sort, spatial_order.cu)
//   predict   every j-particle to time t in double (x + dt (v + dt (a2 + dt j6))), stored for the
//             force kernel as double-single positions (hi + lo floats, Sapporo eq. 3) and float
//             velocities, or as doubles (fp64)
//   force     acceleration, jerk and potential on ni i-particles from nj j-particles. Each thread
//             holds one i-particle (or two or four); a block stages `block` j-particles at a time in
//             shared memory.
//             The grid is (i-blocks) x (j_split): the j-range is cut into j_split parts summed by
//             separate blocks, so that a few hundred active bodies still fill 132 SMs (Sapporo
//             fig. 4, across blocks). Per-thread sums are float within a tile and double across
//             tiles; the j_split partials are added in double, in a fixed order, by `reduce`.
// Compile-time variants: precision (ds, fp64) x block (64, 128, 256) x unroll (1, 4, 8) x extras
// (none; nearest neighbour; nearest + neighbour lists), the last two only at block 128, unroll 4;
// ds without extras also with 2 or 4 i-bodies per thread (each shared-memory load serves them all);
// and the snap (fp64, block 128, unroll 4, with or without the nearest neighbour) for the 6th order.

#include <cuda_runtime_api.h>

#include <cstddef>
#include <string>

namespace nbody::cuda::hermite {

// Four doubles, 32-byte aligned (CUDA 13 deprecates double4 for its ambiguous alignment).
struct alignas(32) Real4 {
    double x, y, z, w;
};
#ifdef __CUDACC__
__host__ __device__
#endif
inline Real4 r4(double x, double y, double z, double w) { return {x, y, z, w}; }

enum class Precision { Ds, Fp64 };
enum Extras { kNoExtras = 0, kNearest = 1, kNeighbours = 2 };

struct JMemory {            // SoA j-memory, double
    Real4* xm;            // x, y, z, mass
    Real4* vt;            // vx, vy, vz, t
    Real4* a2;            // a/2, w: id (as a double)
    Real4* j6;            // jerk/6
    Real4* s24;           // snap/24 (the 6th order; null: predict to the jerk only, as GRAPE-6)
    Real4* c120;          // crackle/120 (with s24)
};
struct JUpdate {
    Real4 xm, vt, a2, j6, s24, c120;
    long long address;
};
struct Predicted {          // what the force kernel reads
    float4* hi;             // ds: x, y, z high parts, mass
    float4* lo;             // ds: x, y, z low parts, id (int bits)
    float4* vel;            // ds: vx, vy, vz
    Real4* pos64;         // fp64: x, y, z, mass
    Real4* vel64;         // fp64: vx, vy, vz, id
    Real4* acc64;         // fp64 with the snap: predicted ax, ay, az
};
struct IBatch {             // ni i-particles, double on the device
    Real4* x;             // x, y, z, h2
    Real4* v;             // vx, vy, vz, id
    Real4* a;             // with the snap: predicted ax, ay, az
};
struct Partials {           // j_split x ni_pad
    Real4* acc_pot;       // ax, ay, az, pot
    Real4* jerk_nn;       // jx, jy, jz, nearest r^2
    int* nearest;
    Real4* snap = nullptr;  // with the snap: sx, sy, sz
    // Optional (tests, benchmark): warp-tiles of the ds kernel without extras by loop, added to:
    // [0] self test, [1] any mass, [2] one mass, [3] far apart, any mass, [4] far apart, one mass.
    unsigned long long* tile_loops = nullptr;
};
inline constexpr int kDsTileLoops = 5;
struct Results {            // ni
    Real4* acc_pot;
    Real4* jerk_nn;
    int* nearest;
    Real4* snap;          // with the snap
};
struct NeighbourLists {
    int* count;             // ni
    int* ids;               // ni x capacity
    int capacity;
};

struct ForceVariant {
    Precision precision = Precision::Ds;
    int block = 128, unroll = 4;  // block: i-bodies per block (and j-particles per tile)
    int bodies_per_thread = 1;    // i-bodies per thread (1, 2, 4): a block has block / bodies_per_thread threads
    int extras = kNoExtras;
    bool snap = false;            // also d^2 a / dt^2 (the 6th order): fp64, block 128, unroll 4, no neighbour lists
    // ds without extras: tiles far from a warp's i-bodies for their distance from the origin skip the
    // low parts of the positions (hermite_kernels.cu, far_apart). Pays where i- and j-particles are in
    // spatial (Morton) order, as the cuda engine keeps them for large batches; off, no tile's box is
    // computed.
    bool far_tiles = false;
};

// The i-bodies per thread of one force evaluation of `ni` active bodies: `configured` (1, 2, 4) where
// given; else (0), for the ds kernel without extras, four from kFourBodiesPerThreadFrom active bodies
// on, two from kTwoBodiesPerThreadFrom, one below. Device run 23 (docs/HERMITE.md): two pay +1..6 %
// from 8K active; at 4K of 32K the doubled j-split hits its cap of two tiles per block and loses 9 %.
// Device run 35 (block 128 x 4, auto split): four pay +3.6 % with all of 256K active, +4.7 % at 32K
// of 256K, +5.6 % at 32K of 32K, and lose 15 % at 8K of 32K. Four need blocks of 128 i-bodies or
// more (a block is whole warps). The extras variants have one.
inline constexpr int kTwoBodiesPerThreadFrom = 8192;
inline constexpr int kFourBodiesPerThreadFrom = 32768;
constexpr int bodies_per_thread_for(int configured, Precision precision, int extras, int ni, int block) {
    if (extras != kNoExtras) return 1;
    if (configured > 0) return configured;
    if (precision != Precision::Ds) return 1;
    if (ni >= kFourBodiesPerThreadFrom && block >= 128) return 4;
    return ni >= kTwoBodiesPerThreadFrom ? 2 : 1;
}

void scatter_j(const JMemory& j, const JUpdate* updates, int count, cudaStream_t stream);
// Slot k of the first n slots of every j-memory array takes what slot source[k] held (source: n device
// ints, a permutation of 0 .. n-1); scratch holds n Real4.
void permute_j(const JMemory& j, const int* source, int n, Real4* scratch, cudaStream_t stream);
// The engine's spatial order (spatial_order.cu), made on the GPU from the j-memory. slot_of maps
// address -> slot (a permutation of its first n entries). order[s] for s < sorted: the address of the
// j-particle that goes to slot s, the addresses 0 .. sorted-1 by the Morton key of their positions
// xm[slot_of[a]], stable: exactly nbody::hermite::morton_order of those positions (its keys, cube
// and order of ties); order[s] = s for sorted <= s < n. Keys sorted by cub::DeviceRadixSort.
// `scratch` holds at least morton_order_scratch_bytes(n) bytes.
std::size_t morton_order_scratch_bytes(int n);
void morton_order_j(const Real4* xm, const int* slot_of, int sorted, int n, int* order, void* scratch,
                    std::size_t scratch_bytes, cudaStream_t stream);
// Puts the first n slots of the j-memory in `order` (a permutation of 0 .. n-1, as morton_order_j
// makes it): slot s takes address order[s]'s j-particle, and slot_of follows. source (n ints) and
// scratch (n Real4) are work space.
void apply_order_j(const JMemory& j, const int* order, int* slot_of, int n, int* source, Real4* scratch, cudaStream_t stream);
// to[k] = k for from <= k < n: a slot map's entries where no order has moved a j-particle.
void identity_slots(int* to, int from, int n, cudaStream_t stream);
// to[k] = from[index[k]] (gather) or to[index[k]] = from[k] (scatter) for k < n: the engine's sorted batches.
void gather_real4(Real4* to, const Real4* from, const int* index, int n, cudaStream_t stream);
void scatter_real4(Real4* to, const Real4* from, const int* index, int n, cudaStream_t stream);
// One more part of a body's results (`part`: rows of n bodies, acc (w: potential), jerk (w: the
// nearest's r^2), with `snap` the snap, then n nearest indices; body i) added into the running sums,
// the nearest kept by the smallest r^2, the lowest id on ties. Additions only (nothing to contract
// into an FMA): the one rule of the host's sum over GPUs (engine_cuda.cpp finish()) and the GPU's over
// ranks (add_result_blocks), so both give the same bits.
#ifdef __CUDACC__
__host__ __device__
#endif
inline void add_result_part(Real4& a, Real4& jn, Real4& s, int& nearest, double& nearest_r2, const Real4* part,
                            std::size_t n, std::size_t i, bool snap) {
    const Real4 ag = part[i], jg = part[n + i];
    a.x += ag.x, a.y += ag.y, a.z += ag.z, a.w += ag.w;
    jn.x += jg.x, jn.y += jg.y, jn.z += jg.z;
    if (snap) {
        const Real4 sg = part[2 * n + i];
        s.x += sg.x, s.y += sg.y, s.z += sg.z;
    }
    const int ng = reinterpret_cast<const int*>(part + (snap ? 3 : 2) * n)[i];
    if (ng >= 0 && (nearest < 0 || jg.w < nearest_r2 || (jg.w == nearest_r2 && ng < nearest))) nearest = ng, nearest_r2 = jg.w;
}
// `parts` blocks of results (each `block` Real4s from `blocks`: rows of ni bodies, acc (w: potential),
// jerk (w: the nearest's r^2) and, with rows 3, snap, then ni nearest indices) added in block order into
// one block at `out`, in double with the host engine's rule for the nearest (the smallest r^2, the
// lowest id on ties): the ranks' results of one evaluation under mpirun, with the bits the host gets
// adding several GPUs' (engine_cuda.cpp finish()).
void add_result_blocks(const Real4* blocks, int parts, std::size_t block, int ni, int rows, Real4* out, cudaStream_t stream);
// With j.s24 set, to the crackle term, and out.acc64 gets the predicted accelerations (fp64 only).
// slot_ids (ds): each j-particle's id for the force kernel is its slot, not a2.w; the engine's Morton
// order uses it where ids are addresses, so that a tile's ids stay a range for the self test.
// first > 0: slots [first, nj) only (a GPU's share of the slots on several GPUs), still at their own
// slots in `out` and with their own slots as ids.
void predict_j(const JMemory& j, int nj, double t, Precision precision, const Predicted& out, cudaStream_t stream,
               bool slot_ids = false, int first = 0);

// j_split blocks share each i-block's j-range; partials must hold j_split * ni_pad entries where
// ni_pad = ni rounded up to the block size. Throws std::invalid_argument listing the supported
// variants for one that is not compiled.
void hermite_force(const ForceVariant& variant, const Predicted& j, int nj, const IBatch& i, int ni, double eps2,
                   int j_split, const Partials& partials, const NeighbourLists& lists, cudaStream_t stream);
void reduce_partials(const Partials& partials, int ni, int ni_pad, int j_split, const Results& out, cudaStream_t stream);

// The split that fills the device: enough blocks for every SM, at least two tiles per block.
int choose_j_split(int ni, int nj, int block, int sm_count, int bodies_per_thread = 1, bool far_tiles = false);

std::string supported_variants();

}  // namespace nbody::cuda::hermite
