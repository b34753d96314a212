// The GPU tree code; gpu_tree.hpp has the outline. Node ids: internal nodes 0 .. n-2 (0 is the
// root), leaf of sorted body s = n - 1 + s; with n = 1 node 0 is that body's leaf. Every node
// holds a contiguous range of sorted bodies, so a node with at most leaf_size bodies is read as a
// leaf by the walk whatever lies below it: the radix tree needs no leaf buckets of its own.
//
// Opening criterion, as the CPU octree's: a node is measured by the cube about the centre c of its
// bodies' bounding box with the box's longest side l; it is accepted for a group when its centre
// of mass is farther than l / theta + |com - c| from the group's bounding box and that cube does
// not overlap the box. Groups are the largest nodes with at most group_size bodies (as the CPU
// tree's cells), so a group is spatially compact: consecutive runs of the Morton order were not,
// where the curve jumps, and cost 4x the walk time at 1M (docs/TREE.md).
//
// Cost (N bodies, list length L ~ a few thousand): keys, sort, gather, build and moments are
// O(N) passes over memory (a few ms at 1M on an H200); the walk is N * L interactions of 12 FP32
// instructions (bodies) or ~30 (cells) plus the node tests per group.

#include "gpu_tree.hpp"

#include <cub/block/block_reduce.cuh>
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_reduce.cuh>
#include <cub/device/device_scan.cuh>
#include <cub/device/device_select.cuh>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <mutex>
#include <stdexcept>
#include <string>
#include <type_traits>

#include "../cuda_check.hpp"
#include "../force_interaction.cuh"
#include "../leapfrog_step.cuh"
#include "../share_start.cuh"
#include "nbody/sim/tree/multipole.hpp"

namespace nbody::cuda {
namespace {

using nbody::tree::box_distance2;
using nbody::tree::CellMoments;
using nbody::tree::grid_cell;
using nbody::tree::kKeyCells;
using nbody::tree::morton_key;

constexpr unsigned kFull = 0xffffffffu;
constexpr int kBoxBlock = 256, kBoxBlocks = 512;
constexpr int kWalkBlock = 128;  // 4 warps, one group each at a time
constexpr int kWarpsPerBlock = kWalkBlock / 32;
// Walk stack entries per warp. A warp pops up to 32 nodes and pushes 2 per opened node; the
// deepest stack measured on the scenes is reported by docs/TREE.md. Overflow stops the walk and
// raises kOverflow (the pass throws) instead of writing past the buffer.
constexpr int kStackCapacity = 8192;
// kActiveCount: force_active() was given an active count its flags do not have (nothing written).
constexpr unsigned kNonFinite = 1u, kOverflow = 2u, kActiveCount = 4u;

struct Box {
    float lo[3], hi[3];
};
struct BoxMerge {
    __device__ Box operator()(const Box& a, const Box& b) const {
        Box r;
        for (int k = 0; k < 3; ++k) r.lo[k] = fminf(a.lo[k], b.lo[k]), r.hi[k] = fmaxf(a.hi[k], b.hi[k]);
        return r;
    }
};
// |a| as the relative criterion reads it. One function for the walk's store and for
// take_accelerations(), so that several GPUs' |a| from summed accelerations is one GPU's bit for bit
// (written out in two places, nvcc may contract each into FMAs differently).
__device__ __forceinline__ float acceleration_norm(float ax, float ay, float az) {
    return sqrtf(ax * ax + ay * ay + az * az);
}

__device__ Box empty_box() {
    const float inf = __int_as_float(0x7f800000);
    return Box{{inf, inf, inf}, {-inf, -inf, -inf}};
}

// Pass 1 of the bounding box: one box per block (grid-stride), non-finite bodies flagged.
__global__ void box_partial_kernel(const float4* pos, int n, float4* partial, unsigned* flags) {
    Box b = empty_box();
    bool bad = false;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
        const float4 p = pos[i];
        if (!isfinite(p.x) || !isfinite(p.y) || !isfinite(p.z) || !isfinite(p.w)) {
            bad = true;
            continue;
        }
        b.lo[0] = fminf(b.lo[0], p.x), b.lo[1] = fminf(b.lo[1], p.y), b.lo[2] = fminf(b.lo[2], p.z);
        b.hi[0] = fmaxf(b.hi[0], p.x), b.hi[1] = fmaxf(b.hi[1], p.y), b.hi[2] = fmaxf(b.hi[2], p.z);
    }
    if (bad) atomicOr(flags, kNonFinite);
    using Reduce = cub::BlockReduce<Box, kBoxBlock>;
    __shared__ typename Reduce::TempStorage temp;
    const Box r = Reduce(temp).Reduce(b, BoxMerge{});
    if (threadIdx.x == 0) {
        partial[2 * blockIdx.x] = make_float4(r.lo[0], r.lo[1], r.lo[2], 0);
        partial[2 * blockIdx.x + 1] = make_float4(r.hi[0], r.hi[1], r.hi[2], 0);
    }
}

// Pass 2: the cube the keys are taken on: frame[0] = (lo, side).
__global__ void box_final_kernel(const float4* partial, int blocks, float4* frame) {
    Box b = empty_box();
    for (int k = threadIdx.x; k < blocks; k += blockDim.x) {
        const float4 lo = partial[2 * k], hi = partial[2 * k + 1];
        b.lo[0] = fminf(b.lo[0], lo.x), b.lo[1] = fminf(b.lo[1], lo.y), b.lo[2] = fminf(b.lo[2], lo.z);
        b.hi[0] = fmaxf(b.hi[0], hi.x), b.hi[1] = fmaxf(b.hi[1], hi.y), b.hi[2] = fmaxf(b.hi[2], hi.z);
    }
    using Reduce = cub::BlockReduce<Box, kBoxBlock>;
    __shared__ typename Reduce::TempStorage temp;
    const Box r = Reduce(temp).Reduce(b, BoxMerge{});
    if (threadIdx.x == 0) {
        float side = fmaxf(r.hi[0] - r.lo[0], fmaxf(r.hi[1] - r.lo[1], r.hi[2] - r.lo[2]));
        // Every body non-finite (empty box) or all at one point: a unit cube.
        side = side > 0 && isfinite(side) ? side * (1.0f + 1e-6f) : 1.0f;
        float c[3];
        for (int k = 0; k < 3; ++k) c[k] = r.hi[k] >= r.lo[k] ? 0.5f * (r.lo[k] + r.hi[k]) : 0.0f;
        frame[0] = make_float4(c[0] - 0.5f * side, c[1] - 0.5f * side, c[2] - 0.5f * side, side);
    }
}

__global__ void keys_kernel(const float4* pos, int n, const float4* frame, unsigned long long* keys, int* order) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const float4 f = frame[0];
    const float scale = float(kKeyCells) / f.w;
    const float4 p = pos[i];
    // grid_cell sends NaN to cell 0 (the flag has been raised): the tree stays well formed.
    keys[i] = morton_key(grid_cell((p.x - f.x) * scale), grid_cell((p.y - f.y) * scale), grid_cell((p.z - f.z) * scale));
    order[i] = i;
}

// Leaves: bodies gathered into key order and the walk's figures of each (a point: such a node is
// accepted as soon as it lies outside a group's box, its monopole being exact). A leaf's box is its
// position: the moments pass reads that from `sorted`.
__global__ void gather_kernel(const float4* pos, const int* order, int n, float4* sorted, int2* range, float4* com,
                              float4* quad, float4* quad2, float4* cube) {
    const int s = blockIdx.x * blockDim.x + threadIdx.x;
    if (s >= n) return;
    const float4 p = pos[order[s]];
    sorted[s] = p;
    const int node = n - 1 + s;
    range[node] = make_int2(s, s);
    com[node] = p;
    quad[node] = make_float4(0, 0, 0, 0);
    cube[node] = make_float4(p.x, p.y, p.z, 0.0f);
    quad2[node] = make_float4(0, 0, 0, 0);  // opening radius 0, error scale 0: a point is exact
}

// Length of the common prefix of sorted keys i and j in bits (equal keys: 64 + that of the
// indices, Karras' tie-break), -1 outside [0, n).
__device__ __forceinline__ int common_prefix(const unsigned long long* keys, int n, int i, int j) {
    if (j < 0 || j >= n) return -1;
    const unsigned long long a = keys[i], b = keys[j];
    if (a == b) return 64 + __clz(static_cast<unsigned>(i ^ j));
    return __clzll(static_cast<long long>(a ^ b));
}

// Karras (2012), fig. 4: internal node i finds its range and split in O(log n) steps.
__global__ void radix_tree_kernel(const unsigned long long* keys, int n, int2* children, int2* range, int* parent,
                                  unsigned* visits) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n - 1) return;
    const int d = common_prefix(keys, n, i, i + 1) - common_prefix(keys, n, i, i - 1) >= 0 ? 1 : -1;
    const int dmin = common_prefix(keys, n, i, i - d);
    int lmax = 2;
    while (common_prefix(keys, n, i, i + lmax * d) > dmin) lmax *= 2;
    int l = 0;
    for (int t = lmax / 2; t >= 1; t /= 2)
        if (common_prefix(keys, n, i, i + (l + t) * d) > dmin) l += t;
    const int j = i + l * d;
    const int dnode = common_prefix(keys, n, i, j);
    int s = 0;
    for (int t = l; t > 1;) {
        t = (t + 1) / 2;
        if (common_prefix(keys, n, i, i + (s + t) * d) > dnode) s += t;
    }
    const int gamma = i + s * d + min(d, 0);
    const int first = min(i, j), last = max(i, j);
    const int left = first == gamma ? n - 1 + gamma : gamma;
    const int right = last == gamma + 1 ? n - 1 + gamma + 1 : gamma + 1;
    children[i] = make_int2(left, right);
    range[i] = make_int2(first, last);
    parent[left] = i;
    parent[right] = i;
    visits[i] = 0;
    if (i == 0) parent[0] = -1;
}

// The moments, bottom-up (Karras 2012): a node is computed once both children are, from their
// figures. In two kernels:
// - moments_in_blocks_kernel: a block of kMomentsBlock consecutive sorted bodies finishes the nodes
//   whose bodies all lie in it, in shared memory, and lists the nodes above them that straddle blocks.
// - moments_straddling_kernel: from each listed arrival a thread climbs on; the second child's
//   thread to arrive at a node (device-wide atomics and fences) computes it.
// At 16M (H100, device runs 115-118, Nsight Compute): one kernel climbing device-wide from every
// body took 4.3 ms (4.5 live threads per warp, waiting mostly on __threadfence()); these two take
// 2.66 + 0.50 ms. The first is bound neither by DRAM (38 %) nor by its lanes (22 of 32 busy):
// not analysed further.
constexpr int kMomentsBlock = 256;

// What a node's parent needs of it: mass and centre, quadrupole, bounding box.
struct NodeMoments {
    float4 com, quad;
    float2 qxz_qyz;
    float4 lo, hi;
};
__device__ __forceinline__ NodeMoments body_moments(const float4& p) {
    const float4 at = make_float4(p.x, p.y, p.z, 0.0f);
    return {p, make_float4(0, 0, 0, 0), make_float2(0, 0), at, at};
}

struct NodeArrays {
    float4 *com, *quad, *quad2, *cube, *box_lo, *box_hi;  // box: internal nodes only
};

// The node over children a and b; its walk figures (com, quad, quad2 with the opening radius, cube)
// and its box stored at `node`.
__device__ __forceinline__ NodeMoments combine_and_store(const NodeMoments& a, const NodeMoments& b, float theta,
                                                         int node, const NodeArrays& out) {
    const float4 lo = make_float4(fminf(a.lo.x, b.lo.x), fminf(a.lo.y, b.lo.y), fminf(a.lo.z, b.lo.z), 0.0f);
    const float4 hi = make_float4(fmaxf(a.hi.x, b.hi.x), fmaxf(a.hi.y, b.hi.y), fmaxf(a.hi.z, b.hi.z), 0.0f);
    // The criterion's cube: about the centre of the bodies' bounding box, half its longest side.
    const float4 c = make_float4(0.5f * (lo.x + hi.x), 0.5f * (lo.y + hi.y), 0.5f * (lo.z + hi.z),
                                 0.5f * fmaxf(hi.x - lo.x, fmaxf(hi.y - lo.y, hi.z - lo.z)));
    const float m = a.com.w + b.com.w;
    float cx = c.x, cy = c.y, cz = c.z;
    if (m > 0) {
        const float inv = 1.0f / m;
        cx = (a.com.w * a.com.x + b.com.w * b.com.x) * inv, cy = (a.com.w * a.com.y + b.com.w * b.com.y) * inv,
        cz = (a.com.w * a.com.z + b.com.w * b.com.z) * inv;
    }
    // Parallel-axis shift of each child's quadrupole to the new centre of mass.
    float q[6] = {a.quad.x + b.quad.x, a.quad.y + b.quad.y, a.quad.z + b.quad.z,
                  a.quad.w + b.quad.w, a.qxz_qyz.x + b.qxz_qyz.x, a.qxz_qyz.y + b.qxz_qyz.y};
    auto shift = [&](const float4& k) {
        const float dx = k.x - cx, dy = k.y - cy, dz = k.z - cz;
        const float r2 = dx * dx + dy * dy + dz * dz;
        q[0] += k.w * (3 * dx * dx - r2), q[1] += k.w * (3 * dy * dy - r2), q[2] += k.w * (3 * dz * dz - r2);
        q[3] += k.w * 3 * dx * dy, q[4] += k.w * 3 * dx * dz, q[5] += k.w * 3 * dy * dz;
    };
    shift(a.com);
    shift(b.com);
    const float ex = cx - c.x, ey = cy - c.y, ez = cz - c.z;
    const float r = 2.0f * c.w / theta + sqrtf(ex * ex + ey * ey + ez * ez);
    const float side = 2.0f * c.w;  // the relative criterion's error scale m l^3 (quad2.w)
    const NodeMoments made{make_float4(cx, cy, cz, m), make_float4(q[0], q[1], q[2], q[3]), make_float2(q[4], q[5]),
                           lo, hi};
    out.com[node] = made.com;
    out.quad[node] = made.quad;
    out.quad2[node] = make_float4(q[4], q[5], r * r, m * side * side * side);
    out.cube[node] = c;
    out.box_lo[node] = lo;
    out.box_hi[node] = hi;
    return made;
}

// Slot k of block b stands for sorted body b * kMomentsBlock + k and for the internal node of that
// index: a node's index is the first or last body of its range, so a node inside the block has a slot.
// The block works in rounds: the nodes whose children are both done are listed, then computed one
// per thread, with a barrier between rounds (no fences; a climb per thread, run 117, kept 6.5 of 32
// lanes busy for the same 2.65 ms). `listed` receives the straddling nodes the block's nodes and
// bodies hang from (at most n in all: they hang off the straddling nodes, which form the top of the
// tree), `listed_count` their number.
__global__ void __launch_bounds__(kMomentsBlock)
    moments_in_blocks_kernel(int n, float theta, const float4* sorted, const int2* children, const int2* range,
                             const int* parent, NodeArrays nodes, int* listed, unsigned* listed_count) {
    __shared__ float4 body[kMomentsBlock];
    __shared__ NodeMoments made[kMomentsBlock];
    __shared__ int2 node_range[kMomentsBlock], node_children[kMomentsBlock];
    __shared__ int node_parent[kMomentsBlock];
    __shared__ unsigned arrived[kMomentsBlock];
    __shared__ int ready[2][kMomentsBlock];
    __shared__ unsigned ready_count[2];
    __shared__ int straddling[2 * kMomentsBlock];
    __shared__ unsigned straddling_count, block_first;
    const int first_leaf = n - 1, base = blockIdx.x * kMomentsBlock, k = threadIdx.x, s = base + k;
    const int end = min(base + kMomentsBlock, n);
    if (s < n) body[k] = sorted[s];
    if (s < first_leaf) node_range[k] = range[s], node_children[k] = children[s], node_parent[k] = parent[s];
    arrived[k] = 0;
    if (k < 2) ready_count[k] = 0;
    if (k == 0) straddling_count = 0;
    __syncthreads();
    // A child done: its parent is ready at the second arrival, or listed for the second kernel.
    const auto arrive = [&](int up, int list) {
        if (up < 0) return;  // the root
        const int2 r = up >= base && up < end ? node_range[up - base] : make_int2(-1, -1);
        if (r.x >= base && r.y < end) {
            if (atomicAdd_block(arrived + (up - base), 1u) == 1) ready[list][atomicAdd_block(ready_count + list, 1u)] = up;
        } else {
            straddling[atomicAdd_block(&straddling_count, 1u)] = up;
        }
    };
    const auto from_block = [&](int child) {
        return child >= first_leaf ? body_moments(body[child - first_leaf - base]) : made[child - base];
    };
    if (s < n) arrive(parent[first_leaf + s], 0);
    for (int cur = 0;; cur ^= 1) {
        __syncthreads();  // the last round's nodes and arrivals are in
        const unsigned count = ready_count[cur];
        if (count == 0) break;
        __syncthreads();  // every thread has the count: the list is free for the round after next
        if (k == 0) ready_count[cur] = 0;
        if (k < int(count)) {
            const int node = ready[cur][k];
            const int2 ch = node_children[node - base];
            made[node - base] = combine_and_store(from_block(ch.x), from_block(ch.y), theta, node, nodes);
            arrive(node_parent[node - base], cur ^ 1);
        }
    }
    if (k == 0 && straddling_count > 0) block_first = atomicAdd(listed_count, straddling_count);
    __syncthreads();
    for (int e = k; e < int(straddling_count); e += kMomentsBlock) listed[block_first + e] = straddling[e];
}

// A child of a straddling node, as stored by whichever thread finished it (read through L2).
__device__ __forceinline__ NodeMoments stored_moments(int child, int first_leaf, const float4* sorted,
                                                      const NodeArrays& in) {
    if (child >= first_leaf) return body_moments(__ldg(sorted + child - first_leaf));
    const float4 q2 = __ldcg(in.quad2 + child);
    return {__ldcg(in.com + child), __ldcg(in.quad + child), make_float2(q2.x, q2.y), __ldcg(in.box_lo + child),
            __ldcg(in.box_hi + child)};
}

__global__ void moments_straddling_kernel(int n, float theta, const float4* sorted, const int2* children,
                                          const int* parent, unsigned* visits, NodeArrays nodes, const int* listed,
                                          const unsigned* listed_count) {
    const int first_leaf = n - 1, count = int(*listed_count);
    for (int e = blockIdx.x * blockDim.x + threadIdx.x; e < count; e += gridDim.x * blockDim.x) {
        int node = listed[e];
        while (node >= 0) {
            __threadfence();
            if (atomicAdd(visits + node, 1u) == 0) break;  // the sibling's thread finishes it
            __threadfence();
            const int2 ch = children[node];
            combine_and_store(stored_moments(ch.x, first_leaf, sorted, nodes),
                              stored_moments(ch.y, first_leaf, sorted, nodes), theta, node, nodes);
            node = parent[node];
        }
    }
}

// Groups from the tree: the largest nodes with at most group_size bodies. Their ranges partition
// the sorted bodies, so each is marked by its first body; a CUB select lists the starts in order.
__global__ void mark_groups_kernel(const int2* range, const int* parent, int nodes, int group_size,
                                   unsigned char* starts_here) {
    const int node = blockIdx.x * blockDim.x + threadIdx.x;
    if (node >= nodes) return;
    const int2 r = range[node];
    if (r.y - r.x + 1 > group_size) return;
    const int up = parent[node];
    if (up >= 0) {
        const int2 pr = range[up];
        if (pr.y - pr.x + 1 <= group_size) return;
    }
    starts_here[r.x] = 1;
}

// ---- force_active() (block time steps): the active bodies' groups -----------------------------
// The walk reads group g as the sorted bodies [group_start[g], group_start[g + 1]) (the last ends at
// WalkParams::n) and its lists from the nodes' ranges in [0, n). Copying each active body behind the
// n sorted ones, in key order, makes the active bodies of one group a contiguous run there: the
// groups of a pass of n_active bodies are runs of [n, n + n_active), listed where not empty, with
// WalkParams::n = n + n_active. The walk itself is the force pass's.

// Flag (0/1) of each sorted body, from the input-order flags through the sort's permutation.
__global__ void active_flags_kernel(const unsigned char* active, const int* order, int n, int* flag) {
    const int s = blockIdx.x * blockDim.x + threadIdx.x;
    if (s < n) flag[s] = active[order[s]] != 0;
}

// Active sorted body s (rank[s] active ones before it) copied to n + rank[s], with its input index.
__global__ void compact_active_kernel(const int* flag, const int* rank, int n, float4* sorted, int* order) {
    const int s = blockIdx.x * blockDim.x + threadIdx.x;
    if (s >= n || flag[s] == 0) return;
    const int k = n + rank[s];
    sorted[k] = sorted[s];
    order[k] = order[s];
}

// Group g of the pass holds the active bodies ranked [rank[start_g], rank[start_g+1]): kept (keep[g])
// when that is not empty, its run starting at n + rank[start_g]. Entries g >= the group count are
// cleared, so that a select over n entries lists the kept groups in order. A flag count other than
// n_active keeps no group and raises kActiveCount.
__global__ void active_groups_kernel(const int* group_start, const int* group_count, const int* flag, const int* rank,
                                     int n, int n_active, unsigned char* keep, int* start, unsigned* errors) {
    const int g = blockIdx.x * blockDim.x + threadIdx.x;
    if (g >= n) return;
    const int groups = *group_count;
    const int total = rank[n - 1] + flag[n - 1];
    if (g >= groups || total != n_active) {
        keep[g] = 0;
        if (g == 0 && total != n_active) atomicOr(errors, kActiveCount);
        return;
    }
    const int a = rank[group_start[g]];
    const int b = g + 1 < groups ? rank[group_start[g + 1]] : total;
    keep[g] = b > a;
    start[g] = n + a;
}

struct WalkParams {
    const float4* sorted;
    const int* order;
    int n;
    const int2* children;
    const int2* range;
    const float4* com;
    const float4* quad;
    const float4* quad2;
    const float4* cube;
    float eps2;
    int leaf_size;
    // Group g is sorted bodies [group_start[g], group_start[g + 1]) (the last ends at n); their
    // number is *group_count.
    const int* group_start;
    const int* group_count;
    float4* acc;
    float4* vel;
    float half_dt;
    int* stacks;
    unsigned* counters;  // [0] next group, [1] error bits, [2] deepest stack
    unsigned long long* stats;  // WalkStats: summed over the groups of the pass
    // Last, so that the force-only instances see the parameters at the offsets they always had.
    float* pot;  // potential walks: phi of each body, input order (acc and vel are not written)
    // The slots this launch walks: [share_begin, share_end) of this GPU's (fractions; all: 0, 1), when
    // a WalkRoom cuts the pass into slices (the GPU's groups: group_share_begin/end below).
    double share_begin, share_end;
    // The relative criterion (TreeParams::alpha > 0): a cell is accepted only where m l^3 / d^5 <=
    // alpha times the group's smallest accel_norm (|a| of each body's previous pass, input order).
    // Force walks write the new |a| there whatever alpha is (null: not at all).
    float alpha;
    float* accel_norm;
    // The order the warps take the groups in (null: key order). A full pass under the relative
    // criterion walks the `ordered` costliest groups first (group_order[0, ordered)), then every
    // group in key order but those (taken[g] != 0): slot k >= ordered is group k - ordered.
    const int* group_order;
    int ordered;
    const unsigned char* taken;  // set only with group_order
    // This GPU's groups when several share the pass (GpuTree::force's WalkShare): [group_share_begin,
    // group_share_end) of the groups in key order (fractions; all: 0, 1). share_begin/end then cut
    // this GPU's slots (its costliest groups first, then its groups in key order) into the launches
    // of a WalkRoom's slices.
    double group_share_begin, group_share_end;
};


// What one pass's walks did, summed over groups (the cost model of docs/TREE.md).
enum WalkStat { kBodyTerms, kCellTerms, kNodesTested, kGroups, kWalkStats };

struct WarpShared {
    float4 tile[64];  // body list: a tile of 32 is evaluated as soon as it is full
    float4 cell_com[64], cell_quad[64], cell_quad2[64];
    int excl[32], first[32];
};
// Potential walks also keep each tile entry's sorted index, so that a body skips its own term
// (-m_i / eps would not cancel in float when subtracted afterwards). 256 B more per warp, in those
// instances only.
struct WarpSharedWithIndex : WarpShared {
    int tile_index[64];
};

// What a walk instance accumulates per body: accelerations (force passes) or the potential.
template <bool Potential, int B>
struct Sums {
    float3 a[B];
};
template <int B>
struct Sums<true, B> {
    float phi[B];
};

// The evaluations below compute the first Used of a lane's B bodies: the group's occupied slices.
// The cell loop is not unrolled: the walk's speed is bound by its code size as much as by its
// instruction count (run 101-102 at 1M: four slice instances with the loop unrolled 4 took 9.3-13.4
// ms a step, unrolled 2 6.6-8.2 ms depending on the body loop's unroll, not unrolled 6.7 ms with
// either; B independent bodies per cell give the loop its instruction-level parallelism).
template <int Used, bool Potential, int B>
__device__ __forceinline__ void eval_cells(const WarpShared& w, const float3 (&xi)[B], Sums<Potential, B>& sums,
                                           float eps2) {
#pragma unroll 1
    for (int k = 0; k < 32; ++k) {
        const float4 c = w.cell_com[k], q = w.cell_quad[k], q2 = w.cell_quad2[k];
        const CellMoments<float> mom{c.w, q.x, q.y, q.z, q.w, q2.x, q2.y};
#pragma unroll
        for (int b = 0; b < Used; ++b) {
            const float dx = c.x - xi[b].x, dy = c.y - xi[b].y, dz = c.z - xi[b].z;
            if constexpr (Potential)
                sums.phi[b] += nbody::tree::cell_potential(dx, dy, dz, mom, eps2);
            else
                nbody::tree::accumulate_cell(dx, dy, dz, mom, eps2, sums.a[b].x, sums.a[b].y, sums.a[b].z);
        }
    }
}

// A full tile of 32 bodies: force passes run the all-pairs kernel's loop; potential passes add
// -m_j / r_j (a padded entry has mass 0) except the body's own entry. 7 FP32 instructions + 1
// MUFU per term.
template <int U, int Used, bool Potential, int B, class Shared>
__device__ __forceinline__ void eval_bodies(const Shared& w, const float3 (&xi)[B], const int (&self)[B],
                                            Sums<Potential, B>& sums, float eps2) {
    if constexpr (Potential) {
#pragma unroll 8
        for (int k = 0; k < 32; ++k) {
            const float4 pj = w.tile[k];
            const int j = w.tile_index[k];
#pragma unroll
            for (int b = 0; b < Used; ++b) {
                const float dx = pj.x - xi[b].x, dy = pj.y - xi[b].y, dz = pj.z - xi[b].z;
                const float r2 = fmaf(dz, dz, fmaf(dy, dy, fmaf(dx, dx, eps2)));
                const float term = pj.w * rsqrtf(r2);
                sums.phi[b] -= j == self[b] ? 0.0f : term;
            }
        }
    } else {
        (void)self;
        (void)detail::interact_unrolled<U, 1, B, false, false, Used>(w.tile, 32, xi, sums.a, eps2);  // U divides 32
    }
}

// Calls eval(std::integral_constant<int, S>) for S = the group's occupied slices of 32 (1..B, warp-uniform),
// so that a lane computes only bodies its group has. The radix tree's groups are its largest
// nodes of at most group_size bodies: at 1M (Plummer, group 128) they hold 87 bodies on average,
// so evaluating all 4 slices spent 32 % of the terms on padding; by slices, 15 %
// (docs/TREE.md, "The walk by occupied slices"). Each instance is inlined once per list type: the
// walk's code grows with the sum of the slice counts (1 + 2 + 3 + 4 = 10 against 4).
template <int B, int S = 1, class Eval>
__device__ __forceinline__ void for_occupied_slices(int slices, const Eval& eval) {
    if constexpr (S < B) {
        if (slices > S) return for_occupied_slices<B, S + 1>(slices, eval);
    }
    eval(std::integral_constant<int, S>{});
}

// alpha times the smallest previous |a| of the group's bodies [begin, end) (infinite without the
// relative criterion), the same on every lane: the group's bound on a cell's error estimate.
__device__ __forceinline__ float allowed_error(const WalkParams& p, int begin, int end, int lane) {
    const float inf = __int_as_float(0x7f800000);
    if (!(p.alpha > 0.0f)) return inf;
    float smallest = inf;
    for (int s = begin + lane; s < end; s += 32) smallest = fminf(smallest, __ldg(p.accel_norm + __ldg(p.order + s)));
#pragma unroll
    for (int off = 16; off >= 1; off /= 2) smallest = fminf(smallest, __shfl_xor_sync(kFull, smallest, off));
    return p.alpha * smallest;
}

// One warp per group (a node of at most group_size sorted bodies), B per lane. The walk pops up to 32
// nodes at a time (one per lane), sorts them into accepted cells, leaves (their bodies join the
// body list) and nodes to open (children pushed), and evaluates the lists 32 entries at a time.
// Potential = true: the same walk evaluates the potential (Sums<true>), written to p.pot; no
// acceleration is computed or written. The force instances are the code they were before.
template <int U, int B, bool Potential = false>
__global__ void __launch_bounds__(kWalkBlock) walk_kernel(const WalkParams p) {
    using Shared = std::conditional_t<Potential, WarpSharedWithIndex, WarpShared>;
    __shared__ Shared shared[kWarpsPerBlock];
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    Shared& w = shared[warp];
    int* stack = p.stacks + (std::size_t(blockIdx.x) * kWarpsPerBlock + warp) * kStackCapacity;
    const unsigned lower = (1u << lane) - 1u;
    int deepest = 0;
    const int groups = __ldg(p.group_count);
    const int gs = share_start(groups, p.group_share_begin), ge = share_start(groups, p.group_share_end);
    const int ahead = p.group_order != nullptr ? p.ordered : 0;  // slots of the costliest groups (at least 1 with an order)
    const int slots = ge - gs + ahead;
    const int share_first = share_start(slots, p.share_begin), share_end = share_start(slots, p.share_end);

    for (;;) {
        int g = 0;
        if (lane == 0) g = share_first + int(atomicAdd(p.counters, 1u));
        g = __shfl_sync(kFull, g, 0);
        if (g >= share_end) break;
        if (g < ahead) {
            g = __ldg(p.group_order + g);
            if (g < gs || g >= ge) continue;  // fewer groups than slots ahead: their empty entries sort last
        } else {
            g = gs + g - ahead;
            if (ahead > 0 && __ldg(p.taken + g) != 0) continue;  // walked among the costliest
        }
        const int begin = __ldg(p.group_start + g), end = g + 1 < groups ? __ldg(p.group_start + g + 1) : p.n;
        unsigned long long listed_bodies = 0, listed_cells = 0, tested = 0;
        float3 xi[B];
        Sums<Potential, B> sums;
        int self[B];  // sorted index: a potential walk's body skips its own entry
        bool valid[B];
        float lo[3], hi[3];
        const float inf = __int_as_float(0x7f800000);
        lo[0] = lo[1] = lo[2] = inf, hi[0] = hi[1] = hi[2] = -inf;
#pragma unroll
        for (int b = 0; b < B; ++b) {
            const int s = begin + lane + 32 * b;
            valid[b] = s < end;
            const float4 q = __ldg(p.sorted + (valid[b] ? s : begin));
            xi[b] = make_float3(q.x, q.y, q.z);
            self[b] = s;
            if constexpr (Potential)
                sums.phi[b] = 0.0f;
            else
                sums.a[b] = make_float3(0, 0, 0);
            if (valid[b]) {
                lo[0] = fminf(lo[0], q.x), lo[1] = fminf(lo[1], q.y), lo[2] = fminf(lo[2], q.z);
                hi[0] = fmaxf(hi[0], q.x), hi[1] = fmaxf(hi[1], q.y), hi[2] = fmaxf(hi[2], q.z);
            }
        }
#pragma unroll
        for (int off = 16; off >= 1; off /= 2)
#pragma unroll
            for (int k = 0; k < 3; ++k) {
                lo[k] = fminf(lo[k], __shfl_xor_sync(kFull, lo[k], off));
                hi[k] = fmaxf(hi[k], __shfl_xor_sync(kFull, hi[k], off));
            }
        const float allowed = allowed_error(p, begin, end, lane);

        const int slices = (end - begin + 31) / 32;
        const auto cells = [&](auto used) { eval_cells<decltype(used)::value, Potential>(w, xi, sums, p.eps2); };
        const auto bodies = [&](auto used) {
            eval_bodies<U, decltype(used)::value, Potential>(w, xi, self, sums, p.eps2);
        };
        int top = 1, ncell = 0, nbody = 0;
        if (lane == 0) stack[0] = 0;  // the root
        __syncwarp();
        // Each evaluation has one call site: the round after the stack empties pops nothing and
        // flushes what is left of the lists through the same code, padded with massless entries
        // (their terms are exactly 0). A second copy of the four instances of each evaluation
        // overflowed the instruction cache (run 100: 2.1x slower, 12 of 15 cycles per instruction
        // waiting for instructions).
        for (;;) {
            const bool finishing = top == 0;
            if (finishing && ncell == 0 && nbody == 0) break;
            const int take = min(top, 32);
            top -= take;
            int node = -1;
            if (lane < take) node = stack[top + lane];
            tested += take;
            __syncwarp();  // every pop read before the pushes below overwrite the slots
            bool accept = false, leaf = false, open = false;
            float4 c, q2;
            int2 r = make_int2(0, -1);
            if (node >= 0) {
                c = __ldg(p.com + node);
                q2 = __ldg(p.quad2 + node);
                const float4 cb = __ldg(p.cube + node);
                const bool overlaps = cb.x - cb.w <= hi[0] && cb.x + cb.w >= lo[0] && cb.y - cb.w <= hi[1] &&
                                      cb.y + cb.w >= lo[1] && cb.z - cb.w <= hi[2] && cb.z + cb.w >= lo[2];
                const float d2 = box_distance2(c.x, c.y, c.z, lo[0], lo[1], lo[2], hi[0], hi[1], hi[2]);
                // The CPU tree's HostTree::accepted(), expression for expression.
                accept = !overlaps && d2 > q2.z && q2.w <= allowed * d2 * d2 * sqrtf(d2);
                if (!accept) {
                    r = __ldg(p.range + node);
                    leaf = r.y - r.x + 1 <= p.leaf_size;
                    open = !leaf;
                }
            }
            // Accepted cells join the cell list.
            const unsigned am = __ballot_sync(kFull, accept);
            if (accept) {
                const int slot = ncell + __popc(am & lower);
                w.cell_com[slot] = c;
                w.cell_quad[slot] = __ldg(p.quad + node);
                w.cell_quad2[slot] = q2;
            }
            ncell += __popc(am);
            listed_cells += __popc(am);
            __syncwarp();
            if (ncell >= 32 || (finishing && ncell > 0)) {
                if (lane >= ncell) {  // finishing only: ncell < 32
                    w.cell_com[lane] = make_float4(0, 0, 0, 0);
                    w.cell_quad[lane] = make_float4(0, 0, 0, 0);
                    w.cell_quad2[lane] = make_float4(0, 0, 0, 0);
                }
                __syncwarp();
                for_occupied_slices<B>(slices, cells);
                __syncwarp();
                if (lane < ncell - 32) {
                    w.cell_com[lane] = w.cell_com[32 + lane];
                    w.cell_quad[lane] = w.cell_quad[32 + lane];
                    w.cell_quad2[lane] = w.cell_quad2[32 + lane];
                }
                ncell = max(ncell - 32, 0);
                __syncwarp();
            }
            // Opened nodes push their two children.
            const unsigned om = __ballot_sync(kFull, open);
            const int pushes = 2 * __popc(om);
            if (top + pushes > kStackCapacity) {
                if (lane == 0) atomicOr(p.counters + 1, kOverflow);
                break;  // `top` is warp-uniform: every lane leaves
            }
            if (open) {
                const int slot = top + 2 * __popc(om & lower);
                const int2 ch = __ldg(p.children + node);
                stack[slot] = ch.y;
                stack[slot + 1] = ch.x;
            }
            top += pushes;
            deepest = max(deepest, top);
            // Leaves: their bodies, flattened across the warp by an exclusive scan of the counts.
            const int count = leaf ? r.y - r.x + 1 : 0;
            int incl = count;
#pragma unroll
            for (int off = 1; off < 32; off *= 2) {
                const int v = __shfl_up_sync(kFull, incl, off);
                if (lane >= off) incl += v;
            }
            const int total = __shfl_sync(kFull, incl, 31);
            listed_bodies += total;
            w.excl[lane] = incl - count;
            w.first[lane] = r.x;
            __syncwarp();
            for (int base = 0; base < total || (finishing && nbody > 0); base += 32) {
                const int idx = base + lane;
                if (idx < total) {
                    int owner = 0;  // the last lane whose range starts at or before idx
#pragma unroll
                    for (int step = 16; step >= 1; step /= 2)
                        if (owner + step < 32 && w.excl[owner + step] <= idx) owner += step;
                    if constexpr (Potential) {
                        const int j = w.first[owner] + idx - w.excl[owner];
                        w.tile[nbody + lane] = __ldg(p.sorted + j);
                        w.tile_index[nbody + lane] = j;
                    } else {  // the force walk's own expression: its PTX stays the same instruction for instruction
                        w.tile[nbody + lane] = __ldg(p.sorted + w.first[owner] + idx - w.excl[owner]);
                    }
                }
                nbody += max(min(32, total - base), 0);  // finishing: total = 0
                __syncwarp();
                if (nbody >= 32 || finishing) {
                    if (lane >= nbody) {  // finishing only: nbody < 32
                        w.tile[lane] = make_float4(0, 0, 0, 0);
                        if constexpr (Potential) w.tile_index[lane] = -1;
                    }
                    __syncwarp();
                    for_occupied_slices<B>(slices, bodies);
                    __syncwarp();
                    if (lane < nbody - 32) {
                        w.tile[lane] = w.tile[32 + lane];
                        if constexpr (Potential) w.tile_index[lane] = w.tile_index[32 + lane];
                    }
                    nbody = max(nbody - 32, 0);
                    __syncwarp();
                }
            }
            __syncwarp();
        }
        if (lane == 0) {
            const unsigned long long members = end - begin;
            atomicAdd(p.stats + kBodyTerms, listed_bodies * members);
            atomicAdd(p.stats + kCellTerms, listed_cells * members);
            atomicAdd(p.stats + kNodesTested, tested);
            atomicAdd(p.stats + kGroups, 1ull);
        }
#pragma unroll
        for (int b = 0; b < B; ++b) {
            if (!valid[b]) continue;
            const int i = __ldg(p.order + begin + lane + 32 * b);
            if constexpr (Potential) {
                p.pot[i] = sums.phi[b];
                continue;
            } else {
                const float3 a = sums.a[b];
                if (p.accel_norm != nullptr) p.accel_norm[i] = acceleration_norm(a.x, a.y, a.z);
                if (p.acc == nullptr) continue;  // the relative criterion's estimate: |a| alone
                p.acc[i] = make_float4(a.x, a.y, a.z, 0.0f);
                if (p.vel != nullptr) p.vel[i] = detail::kicked(p.vel[i], make_float4(a.x, a.y, a.z, 0.0f), p.half_dt);
            }
        }
    }
    if (lane == 0) atomicMax(p.counters + 2, unsigned(deepest));
}

using WalkKernel = void (*)(WalkParams);

// The one switch from (U, B) to an instance; B = bodies per lane = ceil(group_size / 32). A
// potential walk does not use U (its body loop is its own): one instance per B.
WalkKernel walk_instance(int unroll, int bodies_per_lane, bool potential) {
    if (potential) {
        switch (bodies_per_lane) {
            case 1: return walk_kernel<8, 1, true>;
            case 2: return walk_kernel<8, 2, true>;
            case 4: return walk_kernel<8, 4, true>;
            default: break;  // refused below with the list
        }
        unroll = 0;
    }
    switch (unroll * 10 + bodies_per_lane) {
        case 41: return walk_kernel<4, 1>;
        case 42: return walk_kernel<4, 2>;
        case 44: return walk_kernel<4, 4>;
        case 81: return walk_kernel<8, 1>;
        case 82: return walk_kernel<8, 2>;
        case 84: return walk_kernel<8, 4>;
        default:
            throw std::invalid_argument("tree walk: no instance for unroll " + std::to_string(unroll) +
                                        " with " + std::to_string(bodies_per_lane) +
                                        " bodies per lane; supported: unroll 4, 8 with 1, 2, 4 bodies per lane "
                                        "(group size up to 128)");
    }
}

int bodies_per_lane(int group_size) {
    const int b = (group_size + 31) / 32;
    return b <= 1 ? 1 : b <= 2 ? 2 : 4;
}

// Resident blocks of the walk instance on the current device (cached per instance); with
// `leave_block` (WalkRoom::Kind::Block), one per SM fewer, so that another stream's blocks find
// room on every SM while the walk runs. What that room holds on an H100 (65,536 registers an SM):
// the walk's 128 threads x 95 registers are allocated as 96, 12,288 registers a block, so 5 blocks
// an SM (61,440); 4 blocks (16 of the 64 warps, 4 x 17,408 B of the 228 KB of shared memory) leave
// 16,384 registers. The CUDA sprites' deposit (render/src/cuda_splat.cu) is held to 64 registers
// at 128 threads by its __launch_bounds__, 8,192 registers a block: at least two of its blocks fit
// (at its 40 registers, three). The walk then has a fifth fewer warps to hide its latency with.
int walk_blocks(WalkKernel k, bool leave_block) {
    static std::mutex mutex;
    static WalkKernel cached_kernel = nullptr;
    static int cached_device = -1, cached_per_sm = 0, cached_sms = 0;
    int device = 0;
    CUDA_CHECK(cudaGetDevice(&device));
    std::lock_guard lock(mutex);
    if (k != cached_kernel || device != cached_device) {
        int per_sm = 0, sms = 0;
        CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, k, kWalkBlock, 0));
        CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
        cached_kernel = k, cached_device = device, cached_per_sm = per_sm, cached_sms = sms;
    }
    return std::max(1, cached_per_sm - (leave_block ? 1 : 0)) * cached_sms;
}

// Where slice k of `count` begins (k = count: where it ends), as a fraction of the pass's slots
// (several GPUs: of this GPU's) for share_start(): the slices cover them once, the ends exactly.
double slice_bound(int k, int count) {
    if (k <= 0) return 0.0;
    if (k >= count) return 1.0;
    return double(k) / count;
}

// CUB scratch for the key sort and the group select (one buffer serves both, in turn).
std::size_t sort_temp_bytes(int n) {
    std::size_t bytes = 0, select = 0;
    cub::DoubleBuffer<unsigned long long> keys(nullptr, nullptr);
    cub::DoubleBuffer<int> values(nullptr, nullptr);
    CUDA_CHECK(cub::DeviceRadixSort::SortPairs(nullptr, bytes, keys, values, n, 0, 63));
    CUDA_CHECK(cub::DeviceSelect::Flagged(nullptr, select, thrust::counting_iterator<int>(0),
                                          static_cast<const unsigned char*>(nullptr), static_cast<int*>(nullptr),
                                          static_cast<int*>(nullptr), n));
    std::size_t scan = 0;
    CUDA_CHECK(cub::DeviceScan::ExclusiveSum(nullptr, scan, static_cast<const int*>(nullptr), static_cast<int*>(nullptr),
                                             n));
    std::size_t by_cost = 0;  // GpuTree::order_groups_by_cost
    CUDA_CHECK(cub::DeviceRadixSort::SortPairs(nullptr, by_cost, static_cast<const unsigned short*>(nullptr),
                                               static_cast<unsigned short*>(nullptr), static_cast<const int*>(nullptr),
                                               static_cast<int*>(nullptr), n, 0, 16));
    return std::max({bytes, select, scan, by_cost});
}

// The key each of this GPU's groups gs + k (k < m; the share of WalkParams::group_share_begin/end)
// is walked by under the relative criterion: the top 16 bits of its smallest |a| (a positive float's
// bits order as the float; 8 bits of exponent, 7 of mantissa), so that an ascending sort puts the
// longest lists first. Entries past the share's end sort last, as group -1.
__global__ void group_cost_keys_kernel(const int* group_start, const int* group_count, int n, int m, double share_begin,
                                       double share_end, const int* order, const float* accel_norm,
                                       unsigned short* key, int* group) {
    const int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= m) return;
    const int groups = *group_count;
    const int g = share_start(groups, share_begin) + k;
    if (g >= share_start(groups, share_end)) {
        key[k] = 0xffff;
        group[k] = -1;
        return;
    }
    group[k] = g;
    const int end = g + 1 < groups ? group_start[g + 1] : n;
    float smallest = __int_as_float(0x7f800000);
    for (int s = group_start[g]; s < end; ++s) smallest = fminf(smallest, accel_norm[order[s]]);
    key[k] = static_cast<unsigned short>(__float_as_uint(fmaxf(smallest, 0.0f)) >> 16);
}

// The costliest groups, walked first, are skipped when the key order reaches them.
__global__ void mark_taken_kernel(const int* group_order, int ordered, unsigned char* taken) {
    const int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k < ordered && group_order[k] >= 0) taken[group_order[k]] = 1;
}

// |a| of each body (input order), as the walk writes it: the relative criterion's scale.
__global__ void acceleration_norms_kernel(const float4* acc, int n, float* norm) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const float4 a = acc[i];
    norm[i] = acceleration_norm(a.x, a.y, a.z);
}

// The tree terms of a force pass added to the running totals (GpuTree::work).
__global__ void add_totals_kernel(const unsigned long long* stats, unsigned long long* totals) {
    totals[0] += stats[kBodyTerms];
    totals[1] += stats[kCellTerms];
}

// What force_active() adds for n bodies: sorted positions and both orders twice as long, and per
// body a flag, a rank, a group start and a kept group start.
std::size_t active_bytes(std::size_t n) { return n * (sizeof(float4) + 2 * sizeof(int) + 4 * sizeof(int)); }

// Most walk stacks any device could ask for: every SM of the largest GPUs full of walk warps.
std::size_t stack_bytes(int blocks) {
    return std::size_t(blocks) * kWarpsPerBlock * kStackCapacity * sizeof(int);
}

}  // namespace

std::string GpuTree::check_params(const TreeParams& p) {
    if (std::string reason = check_tree_params(p); !reason.empty()) return reason;
    if (p.group_size > kMaxGroupSize)
        return "group size " + std::to_string(p.group_size) + " is above the GPU tree's limit of " +
               std::to_string(kMaxGroupSize) + " (one warp, at most 4 bodies per lane)";
    if (p.leaf_size > kMaxLeafSize)
        return "leaf size " + std::to_string(p.leaf_size) + " is above the GPU tree's limit of " +
               std::to_string(kMaxLeafSize);
    return {};
}

int GpuTree::walk_unroll(int wanted) { return wanted >= 8 ? 8 : 4; }

std::size_t GpuTree::bytes_needed(std::size_t n) {
    const std::size_t nodes = n > 0 ? 2 * n - 1 : 0;
    const std::size_t per_body = 2 * sizeof(unsigned long long) + 2 * sizeof(int) + sizeof(float4) +
                                 sizeof(unsigned char) + sizeof(int) + sizeof(float) +  // float: accel_norm_
                                 sizeof(int);                                           // group_order_
    const std::size_t per_node = sizeof(int2) + sizeof(int) + 4 * sizeof(float4);
    const std::size_t per_internal = sizeof(int2) + sizeof(unsigned) + 2 * sizeof(float4);  // children, visits, box
    // The walk stacks are sized for the device (walk_blocks); 132 SMs x 16 blocks is the H200's.
    return n * per_body + nodes * per_node + n * per_internal + sort_temp_bytes(int(std::max<std::size_t>(n, 1))) +
           stack_bytes(132 * 16) + 2 * kBoxBlocks * sizeof(float4);
}

GpuTree::~GpuTree() = default;

std::size_t GpuTree::bytes() const {
    std::size_t b = cub_temp_.bytes() + sorted_.bytes() + children_.bytes() + range_.bytes() + parent_.bytes() +
                    visits_.bytes() + com_.bytes() + quad_.bytes() + quad2_.bytes() +
                    cube_.bytes() + box_lo_.bytes() + box_hi_.bytes() + group_flags_.bytes() + group_start_.bytes() +
                    group_count_.bytes() + stats_.bytes() + frame_.bytes() + partial_boxes_.bytes() + stacks_.bytes() +
                    counters_.bytes() + potential_.bytes() + potential_temp_.bytes() + potential_sum_.bytes() +
                    totals_.bytes() + active_flag_.bytes() + active_rank_.bytes() + active_candidates_.bytes() +
                    active_group_start_.bytes() + active_group_count_.bytes() + accel_norm_.bytes() +
                    group_order_.bytes();
    for (int k = 0; k < 2; ++k) b += keys_[k].bytes() + order_[k].bytes();
    return b;
}

void GpuTree::reserve(int n, cudaStream_t stream, bool active) {
    if (n <= capacity_ && (!active || active_room_)) return;
    const bool room = active || active_room_;
    // Everything the tree holds is replaced: count what it needs against what is free plus what
    // it already has.
    std::size_t free_bytes = 0, total_bytes = 0;
    CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
    const std::size_t need = bytes_needed(std::size_t(n)) + (room ? active_bytes(std::size_t(n)) : 0);
    if (need > free_bytes + bytes()) {
        char msg[256];
        std::snprintf(msg, sizeof msg,
                      "the GPU tree code needs %.1f MiB of device memory for %d bodies; the GPU has %.1f MiB free "
                      "(of %.1f MiB)",
                      need / 1048576.0, n, (free_bytes + bytes()) / 1048576.0, total_bytes / 1048576.0);
        throw std::runtime_error(msg);
    }
    CUDA_CHECK(cudaStreamSynchronize(stream));  // buffers in use by a queued pass are about to go
    const std::size_t nodes = 2 * std::size_t(n) - 1;
    // force_active() copies up to n - 1 active bodies behind the n sorted ones (select_active).
    const std::size_t extended = room ? 2 * std::size_t(n) : std::size_t(n);
    for (int k = 0; k < 2; ++k) {
        keys_[k] = DeviceBuffer<unsigned long long>(n);
        order_[k] = DeviceBuffer<int>(extended);
    }
    sorted_ = DeviceBuffer<float4>(extended);
    if (room) {
        active_flag_ = DeviceBuffer<int>(n);
        active_rank_ = DeviceBuffer<int>(n);
        active_candidates_ = DeviceBuffer<int>(n);
        active_group_start_ = DeviceBuffer<int>(n);
        active_group_count_ = DeviceBuffer<int>(1);
    }
    active_room_ = room;
    children_ = DeviceBuffer<int2>(std::max(n - 1, 1));
    visits_ = DeviceBuffer<unsigned>(std::max(n - 1, 1));
    range_ = DeviceBuffer<int2>(nodes);
    parent_ = DeviceBuffer<int>(nodes);
    com_ = DeviceBuffer<float4>(nodes);
    quad_ = DeviceBuffer<float4>(nodes);
    quad2_ = DeviceBuffer<float4>(nodes);
    cube_ = DeviceBuffer<float4>(nodes);
    box_lo_ = DeviceBuffer<float4>(std::max(n - 1, 1));
    box_hi_ = DeviceBuffer<float4>(std::max(n - 1, 1));
    group_flags_ = DeviceBuffer<unsigned char>(n);
    group_start_ = DeviceBuffer<int>(n);
    accel_norm_ = DeviceBuffer<float>(n);
    group_order_ = DeviceBuffer<int>(n);
    norms_for_ = 0;
    cub_bytes_ = sort_temp_bytes(n);
    cub_temp_ = DeviceBuffer<unsigned char>(cub_bytes_);
    if (frame_.empty()) {
        frame_ = DeviceBuffer<float4>(4);
        partial_boxes_ = DeviceBuffer<float4>(2 * kBoxBlocks);
        counters_ = DeviceBuffer<unsigned>(4);
        group_count_ = DeviceBuffer<int>(1);
        stats_ = DeviceBuffer<unsigned long long>(kWalkStats);
        totals_ = DeviceBuffer<unsigned long long>(2);
        CUDA_CHECK(cudaMemsetAsync(counters_.get(), 0, counters_.bytes(), stream));
        CUDA_CHECK(cudaMemsetAsync(totals_.get(), 0, totals_.bytes(), stream));
        host_flags_ = PinnedBuffer<unsigned>(2);
        host_flags_[0] = host_flags_[1] = 0;
        host_stats_ = PinnedBuffer<unsigned long long>(kWalkStats);
        std::fill(host_stats_.get(), host_stats_.get() + kWalkStats, 0ull);
    }
    capacity_ = n;
}

void GpuTree::read_flags(bool wait) {
    if (!flags_pending_) return;
    if (wait) {
        CUDA_CHECK(cudaEventSynchronize(flags_ready_.get()));
    } else {
        const cudaError_t q = cudaEventQuery(flags_ready_.get());
        if (q == cudaErrorNotReady) return;
        CUDA_CHECK(q);
    }
    flags_pending_ = false;
    const unsigned bits = host_flags_[0];
    if (bits == 0) return;
    // Sticky on the device: clear so that one bad state is reported once.
    host_flags_[0] = 0;
    CUDA_CHECK(cudaMemset(counters_.get() + 1, 0, sizeof(unsigned)));
    if (bits & kNonFinite)
        throw std::runtime_error("tree code: a body has a non-finite position or mass (the system has diverged: "
                                 "try a smaller time step or a larger softening)");
    if (bits & kActiveCount)
        throw std::runtime_error("tree code: a block-steps pass was given an active count its flags do not have "
                                 "(an internal error; no acceleration of that pass was written)");
    throw std::runtime_error("tree code: a walk needed more than " + std::to_string(kStackCapacity) +
                             " stack entries (the forces of that pass are incomplete)");
}

void GpuTree::check_errors() { read_flags(true); }

TreeTimings GpuTree::timings() {
    if (timing_pending_ && cudaEventQuery(stats_ready_.get()) == cudaSuccess) {
        timing_pending_ = false;
        last_.build_ms = elapsed_ms(t0_, t1_);
        last_.moments_ms = elapsed_ms(t1_, t2_);
        last_.walk_ms = elapsed_ms(t2_, t3_);
        last_.nodes = last_n_ > 0 ? 2 * std::size_t(last_n_) - 1 : 0;
        const double n = std::max(last_walked_, 1);
        last_.groups = std::size_t(host_stats_[kGroups]);
        last_.body_terms = double(host_stats_[kBodyTerms]) / n;
        last_.cell_terms = double(host_stats_[kCellTerms]) / n;
        last_.nodes_tested_per_group = double(host_stats_[kNodesTested]) / double(std::max<std::size_t>(last_.groups, 1));
    }
    return last_;
}

void GpuTree::force(const float4* pos, int n, float eps2, const TreeParams& params, int unroll, float4* acc,
                    float4* vel, float half_dt, cudaStream_t stream, WalkShare share) {
    if (!(share.begin >= 0 && share.begin <= share.end && share.end <= 1))
        throw std::invalid_argument("tree walk share [" + std::to_string(share.begin) + ", " +
                                    std::to_string(share.end) + ") is not within [0, 1]");
    const bool partial = share.begin > 0 || share.end < 1;
    if (partial && vel != nullptr)
        throw std::invalid_argument("a shared tree walk computes part of the accelerations: kick after summing them");
    if (partial && n > 0) CUDA_CHECK(cudaMemsetAsync(acc, 0, std::size_t(n) * sizeof(float4), stream));
    share_ = share;
    pass(pos, n, eps2, params, unroll, acc, vel, half_dt, nullptr, stream);
    share_ = {};
}

void GpuTree::set_walk_room(const WalkRoom& room) {
    if (std::string reason = check_walk_room(room); !reason.empty())
        throw std::invalid_argument("tree walk room refused: " + reason);
    room_.store(room);
}

void GpuTree::force_active(const float4* pos, int n, const unsigned char* active, int n_active, float eps2,
                           const TreeParams& params, int unroll, float4* acc, cudaStream_t stream) {
    if (n_active < 0 || n_active > n)
        throw std::invalid_argument("tree code: " + std::to_string(n_active) + " active bodies of " +
                                    std::to_string(n));
    if (active == nullptr) throw std::invalid_argument("tree code: force_active() without the active flags");
    if (n_active == 0) return;
    share_ = {};
    pass(pos, n, eps2, params, unroll, acc, nullptr, 0.0f, nullptr, stream, active, n_active);
}

TreeWork GpuTree::work(cudaStream_t stream) {
    if (totals_.empty()) return {};
    unsigned long long t[2] = {0, 0};
    CUDA_CHECK(cudaMemcpyAsync(t, totals_.get(), sizeof t, cudaMemcpyDeviceToHost, stream));
    CUDA_CHECK(cudaStreamSynchronize(stream));
    return {double(t[0]), double(t[1])};
}

void GpuTree::reset_work(cudaStream_t stream) {
    if (!totals_.empty()) CUDA_CHECK(cudaMemsetAsync(totals_.get(), 0, totals_.bytes(), stream));
}

void GpuTree::select_active(const unsigned char* active, int n_active, int n, int* order, cudaStream_t stream) {
    const int threads = 256, grid = (n + threads - 1) / threads;
    active_flags_kernel<<<grid, threads, 0, stream>>>(active, order, n, active_flag_.get());
    CUDA_CHECK_LAUNCH();
    std::size_t scan_bytes = cub_bytes_;
    CUDA_CHECK(cub::DeviceScan::ExclusiveSum(cub_temp_.get(), scan_bytes, active_flag_.get(), active_rank_.get(), n,
                                             stream));
    compact_active_kernel<<<grid, threads, 0, stream>>>(active_flag_.get(), active_rank_.get(), n, sorted_.get(),
                                                        order);
    // group_flags_ is free again (the group select has read it): it holds the kept groups' flags.
    active_groups_kernel<<<grid, threads, 0, stream>>>(group_start_.get(), group_count_.get(), active_flag_.get(),
                                                       active_rank_.get(), n, n_active, group_flags_.get(),
                                                       active_candidates_.get(), counters_.get() + 1);
    CUDA_CHECK_LAUNCH();
    std::size_t select_bytes = cub_bytes_;
    CUDA_CHECK(cub::DeviceSelect::Flagged(cub_temp_.get(), select_bytes, active_candidates_.get(), group_flags_.get(),
                                          active_group_start_.get(), active_group_count_.get(), n, stream));
}

void GpuTree::potentials(const float4* pos, int n, float eps2, const TreeParams& params, float* phi,
                         cudaStream_t stream) {
    pass(pos, n, eps2, params, 8, nullptr, nullptr, 0.0f, phi, stream);
}

namespace {
struct MassTimesPotential {
    const float4* pos;
    const float* phi;
    __host__ __device__ double operator()(int i) const { return double(pos[i].w) * double(phi[i]); }
};
}  // namespace

double GpuTree::potential_energy(const float4* pos, int n, float eps2, const TreeParams& params,
                                 cudaStream_t stream) {
    if (n < 1) return 0.0;
    if (potential_.size() < std::size_t(n)) {
        CUDA_CHECK(cudaStreamSynchronize(stream));
        potential_ = DeviceBuffer<float>(n);
    }
    potentials(pos, n, eps2, params, potential_.get(), stream);
    // sum_i m_i phi_i in double by CUB; (1/2) of it is the energy (each pair is in two phi).
    const auto terms = thrust::make_transform_iterator(thrust::counting_iterator<int>(0),
                                                       MassTimesPotential{pos, potential_.get()});
    std::size_t temp_bytes = 0;
    CUDA_CHECK(cub::DeviceReduce::Sum(nullptr, temp_bytes, terms, potential_sum_.get(), n, stream));
    if (potential_temp_.bytes() < temp_bytes || potential_sum_.empty()) {
        CUDA_CHECK(cudaStreamSynchronize(stream));
        potential_temp_ = DeviceBuffer<unsigned char>(std::max<std::size_t>(temp_bytes, 1));
        if (potential_sum_.empty()) potential_sum_ = DeviceBuffer<double>(1);
    }
    CUDA_CHECK(cub::DeviceReduce::Sum(potential_temp_.get(), temp_bytes, terms, potential_sum_.get(), n, stream));
    double sum = 0;
    CUDA_CHECK(cudaMemcpyAsync(&sum, potential_sum_.get(), sizeof sum, cudaMemcpyDeviceToHost, stream));
    CUDA_CHECK(cudaStreamSynchronize(stream));
    check_errors();  // a non-finite body or a stack overflow makes the figure meaningless
    return 0.5 * sum;
}

// `scratch`: room for n ints, free during the pass (the sort's other order buffer): the straddling
// nodes the first kernel lists for the second.
void GpuTree::moments(int n, float theta, int* scratch, cudaStream_t stream) {
    unsigned* listed_count = counters_.get() + 3;
    CUDA_CHECK(cudaMemsetAsync(listed_count, 0, sizeof(unsigned), stream));
    const NodeArrays nodes{com_.get(), quad_.get(), quad2_.get(), cube_.get(), box_lo_.get(), box_hi_.get()};
    moments_in_blocks_kernel<<<(n + kMomentsBlock - 1) / kMomentsBlock, kMomentsBlock, 0, stream>>>(
        n, theta, sorted_.get(), children_.get(), range_.get(), parent_.get(), nodes, scratch, listed_count);
    CUDA_CHECK_LAUNCH();
    // The list's length stays on the device; ~12 entries per block of bodies, read grid-stride.
    const int blocks = std::min((n + kMomentsBlock - 1) / kMomentsBlock, 2048);
    moments_straddling_kernel<<<blocks, 256, 0, stream>>>(n, theta, sorted_.get(), children_.get(), parent_.get(),
                                                          visits_.get(), nodes, scratch, listed_count);
}

void GpuTree::pass(const float4* pos, int n, float eps2, const TreeParams& params, int unroll, float4* acc,
                   float4* vel, float half_dt, float* phi, cudaStream_t stream, const unsigned char* active,
                   int n_active) {
    if (std::string reason = check_params(params); !reason.empty())
        throw std::invalid_argument("tree parameters refused: " + reason);
    if (n < 1) return;
    read_flags(false);  // a previous pass's error, if it has finished
    if (last_n_ > 0 && cudaEventQuery(stats_ready_.get()) == cudaSuccess) groups_hint_ = int(host_stats_[kGroups]);
    const WalkKernel walk =
        walk_instance(walk_unroll(unroll), bodies_per_lane(params.group_size), phi != nullptr);
    // Every body active: the force pass itself (the same groups and lists, bit for bit).
    const bool some_active = active != nullptr && n_active < n;
    reserve(n, stream, some_active);
    if (params.alpha > 0 && norms_for_ != n) estimate_accelerations(pos, n, eps2, params, unroll, stream);
    const WalkRoom room = room_.load();
    const int blocks = walk_blocks(walk, room.kind == WalkRoom::Kind::Block);
    if (stacks_.bytes() < stack_bytes(blocks)) {
        CUDA_CHECK(cudaStreamSynchronize(stream));
        stacks_ = DeviceBuffer<int>(stack_bytes(blocks) / sizeof(int));
    }
    const float theta = static_cast<float>(params.theta);
    const int threads = 256, grid = (n + threads - 1) / threads;
    t0_.record(stream);
    box_partial_kernel<<<kBoxBlocks, kBoxBlock, 0, stream>>>(pos, n, partial_boxes_.get(), counters_.get() + 1);
    box_final_kernel<<<1, kBoxBlock, 0, stream>>>(partial_boxes_.get(), kBoxBlocks, frame_.get());
    keys_kernel<<<grid, threads, 0, stream>>>(pos, n, frame_.get(), keys_[0].get(), order_[0].get());
    CUDA_CHECK_LAUNCH();
    cub::DoubleBuffer<unsigned long long> keys(keys_[0].get(), keys_[1].get());
    cub::DoubleBuffer<int> order(order_[0].get(), order_[1].get());
    std::size_t temp = cub_bytes_;
    CUDA_CHECK(cub::DeviceRadixSort::SortPairs(cub_temp_.get(), temp, keys, order, n, 0, 63, stream));
    gather_kernel<<<grid, threads, 0, stream>>>(pos, order.Current(), n, sorted_.get(), range_.get(), com_.get(),
                                                quad_.get(), quad2_.get(), cube_.get());
    if (n > 1)
        radix_tree_kernel<<<(n - 1 + threads - 1) / threads, threads, 0, stream>>>(
            keys.Current(), n, children_.get(), range_.get(), parent_.get(), visits_.get());
    else
        CUDA_CHECK(cudaMemsetAsync(parent_.get(), 0xff, sizeof(int), stream));  // the lone leaf is the root
    CUDA_CHECK_LAUNCH();
    t1_.record(stream);
    if (n > 1)
        moments(n, theta, order.Alternate(), stream);
    CUDA_CHECK_LAUNCH();
    const int nodes = 2 * n - 1;
    CUDA_CHECK(cudaMemsetAsync(group_flags_.get(), 0, group_flags_.bytes(), stream));
    mark_groups_kernel<<<(nodes + threads - 1) / threads, threads, 0, stream>>>(range_.get(), parent_.get(), nodes,
                                                                                 params.group_size, group_flags_.get());
    CUDA_CHECK_LAUNCH();
    std::size_t select_bytes = cub_bytes_;
    CUDA_CHECK(cub::DeviceSelect::Flagged(cub_temp_.get(), select_bytes, thrust::counting_iterator<int>(0),
                                          group_flags_.get(), group_start_.get(), group_count_.get(), n, stream));
    if (some_active) select_active(active, n_active, n, order.Current(), stream);
    // Under the relative criterion a group's list grows as its smallest |a| falls (a Plummer
    // sphere's centre and outskirts): walked first, the long walks no longer end the pass alone.
    // That matters where a warp walks few groups: up to 32 a resident warp by the last pass's count
    // (1M: ~5, 8 % faster; 4M: ~18, 4 %; 16M: ~72, 1.2 % slower, run 166). Several GPUs: each
    // orders its own share of the groups (the count is then its share's), the shares still cut in
    // key order.
    const bool few_groups_a_warp = groups_hint_ > 0 && groups_hint_ <= 32 * kWarpsPerBlock * blocks;
    const bool whole_share = share_.begin <= 0 && share_.end >= 1;
    const bool by_cost = params.alpha > 0 && phi == nullptr && !some_active && norms_for_ == n && few_groups_a_warp;
    const int ordered =
        by_cost ? order_groups_by_cost(n, 2 * kWarpsPerBlock * blocks, order.Current(), keys.Alternate(), order.Alternate(), stream)
                : 0;
    t2_.record(stream);
    WalkParams w;
    w.sorted = sorted_.get();
    w.order = order.Current();
    w.n = n;
    w.children = children_.get();
    w.range = range_.get();
    w.com = com_.get();
    w.quad = quad_.get();
    w.quad2 = quad2_.get();
    w.cube = cube_.get();
    w.eps2 = eps2;
    w.leaf_size = params.leaf_size;
    w.group_start = some_active ? active_group_start_.get() : group_start_.get();
    w.group_count = some_active ? active_group_count_.get() : group_count_.get();
    if (some_active) w.n = n + n_active;  // the last active group ends there (select_active)
    w.stats = stats_.get();
    w.acc = acc;
    w.vel = vel;
    w.half_dt = half_dt;
    w.stacks = stacks_.get();
    w.counters = counters_.get();
    w.pot = phi;
    w.alpha = float(params.alpha);
    w.accel_norm = accel_norm_.get();
    w.group_order = by_cost ? group_order_.get() : nullptr;
    w.ordered = ordered;
    w.taken = by_cost ? group_flags_.get() : nullptr;
    w.group_share_begin = share_.begin;
    w.group_share_end = share_.end;
    CUDA_CHECK(cudaMemsetAsync(stats_.get(), 0, stats_.bytes(), stream));
    // WalkRoom::Kind::Slices: the share's groups by several launches in turn, each with its group
    // counter from 0 (a group's sums do not depend on which warp or launch walks it).
    const int slices = room.kind == WalkRoom::Kind::Slices ? room.slices : 1;
    for (int slice = 0; slice < slices; ++slice) {
        w.share_begin = slice_bound(slice, slices);
        w.share_end = slice_bound(slice + 1, slices);
        CUDA_CHECK(cudaMemsetAsync(counters_.get(), 0, sizeof(unsigned), stream));  // the group counter
        walk<<<blocks, kWalkBlock, 0, stream>>>(w);
        CUDA_CHECK_LAUNCH();
    }
    // Force passes only; not the relative criterion's estimate (acc null), which the CPU tree's
    // counts leave out too.
    if (phi == nullptr && acc != nullptr) add_totals_kernel<<<1, 1, 0, stream>>>(stats_.get(), totals_.get());
    CUDA_CHECK_LAUNCH();
    t3_.record(stream);
    timing_pending_ = true;
    // A force pass over every group wrote every body's |a|.
    if (phi == nullptr && !some_active && whole_share) norms_for_ = n;
    last_n_ = n;
    last_walked_ = some_active ? n_active : n;
    CUDA_CHECK(cudaMemcpyAsync(host_flags_.get(), counters_.get() + 1, 2 * sizeof(unsigned), cudaMemcpyDeviceToHost, stream));
    flags_ready_.record(stream);
    flags_pending_ = true;
    CUDA_CHECK(cudaMemcpyAsync(host_stats_.get(), stats_.get(), stats_.bytes(), cudaMemcpyDeviceToHost, stream));
    stats_ready_.record(stream);
}

void GpuTree::estimate_accelerations(const float4* pos, int n, float eps2, const TreeParams& params, int unroll,
                                     cudaStream_t stream) {
    TreeParams geometric = params;
    geometric.alpha = 0;
    const WalkShare share = share_;
    share_ = {};
    pass(pos, n, eps2, geometric, unroll, nullptr, nullptr, 0.0f, nullptr, stream);
    share_ = share;
}

void GpuTree::forget_accelerations() { norms_for_ = 0; }

// `key_room` (8 bytes a body) and `group_room` (4) are free during the walk: the sort's other buffers.
// The group count is on the device; the host sorts the first m slots, m from the last pass's count
// read without waiting (twice it, and 1,024 more): a 16M-body pass has ~190,000 groups, and sorting
// all n slots cost it 2 ms (run 163). Groups past m, where the count grew beyond it, keep key order.
// Only the `first` costliest (two per resident warp) go ahead: walking all groups by cost lost the key
// order's locality in the tree (run 165: 1M 10 % faster, 4M 3 %, 16M 3.6 % slower). Returns how many.
int GpuTree::order_groups_by_cost(int n, int first, const int* order, unsigned long long* key_room, int* group_room,
                                  cudaStream_t stream) {
    const int m = groups_hint_ > 0 ? int(std::min<long long>(n, 2LL * groups_hint_ + 1024)) : n;
    auto* keys_in = reinterpret_cast<unsigned short*>(key_room);
    unsigned short* keys_out = keys_in + n;
    group_cost_keys_kernel<<<(m + 255) / 256, 256, 0, stream>>>(group_start_.get(), group_count_.get(), n, m,
                                                                 share_.begin, share_.end, order, accel_norm_.get(),
                                                                 keys_in, group_room);
    CUDA_CHECK_LAUNCH();
    std::size_t bytes = cub_bytes_;
    CUDA_CHECK(cub::DeviceRadixSort::SortPairs(cub_temp_.get(), bytes, keys_in, keys_out, group_room,
                                               group_order_.get(), m, 0, 16, stream));
    // group_flags_ (one byte a body) is free once the groups are selected: it marks those taken first.
    const int ordered = std::max(1, std::min(first, m));
    CUDA_CHECK(cudaMemsetAsync(group_flags_.get(), 0, group_flags_.bytes(), stream));
    mark_taken_kernel<<<(ordered + 255) / 256, 256, 0, stream>>>(group_order_.get(), ordered, group_flags_.get());
    CUDA_CHECK_LAUNCH();
    return ordered;
}

void GpuTree::take_accelerations(const float4* acc, int n, cudaStream_t stream) {
    if (n < 1 || n > capacity_) return forget_accelerations();
    acceleration_norms_kernel<<<(n + 255) / 256, 256, 0, stream>>>(acc, n, accel_norm_.get());
    CUDA_CHECK_LAUNCH();
    norms_for_ = n;
}

unsigned GpuTree::deepest_stack() {
    read_flags(true);
    return host_flags_[1];
}

}  // namespace nbody::cuda
