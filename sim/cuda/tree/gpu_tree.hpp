#pragma once
// The GPU tree code (docs/TREE.md): one force pass = bounding box, Morton keys, a CUB radix sort,
// a binary radix tree built in one parallel pass (Karras 2012), monopole + quadrupole moments
// bottom-up, and one warp per group (a node of at most group_size bodies) walking the tree and
// evaluating its interaction list as it fills: bodies with the all-pairs kernel's unrolled tile
// loop (force_interaction.cuh), cells with the multipole expansion shared with the CPU tree
// (nbody/sim/tree/multipole.hpp).
//
// Bodies are sorted into a private copy every pass and the results scattered back through the
// permutation, so the caller's arrays (positions, velocities, accelerations, the viewer's vertex
// buffers, colours and tags) never change order.

#include <cuda_runtime_api.h>

#include <atomic>
#include <cstddef>
#include <string>

#include "../cuda_raii.hpp"
#include "nbody/sim/gravity.hpp"
#include "nbody/sim/tree/walk_room.hpp"

namespace nbody::cuda {

// Milliseconds of the phases of one pass, from CUDA events.
struct TreeTimings {
    double build_ms = 0;    // box, keys, sort, gather, radix tree
    double moments_ms = 0;  // bottom-up moments and boxes, then the groups (mark + CUB select)
    double walk_ms = 0;     // walks with evaluation, scatter and closing kick
    std::size_t nodes = 0;  // 2N - 1
    // What the walks did, per body of the pass: list entries evaluated (body-body and body-cell
    // terms), and per group: nodes tested; groups walked.
    double body_terms = 0, cell_terms = 0, nodes_tested_per_group = 0;
    std::size_t groups = 0;
};

// The tree terms of every force pass since the last reset_work(), summed on the device: the
// figures ForceWork (time_steps.hpp) reports. A block-steps pass counts its active bodies' terms.
struct TreeWork {
    double body_terms = 0, cell_terms = 0;
};

// The groups one GPU walks when several share a force pass (docs/DISTRIBUTED.md): the fraction
// [begin, end) of the pass's groups in key order; the shares of the ranks cover [0, 1) once.
struct WalkShare {
    double begin = 0, end = 1;
};

class GpuTree {
public:
    // GPU limits beyond check_tree_params(): a group is one warp holding up to 4 bodies per lane.
    static constexpr int kMaxGroupSize = 128;
    static constexpr int kMaxLeafSize = 64;
    // Empty when `p` can run here, else the reason (the shared ranges, then the GPU limits).
    static std::string check_params(const TreeParams& p);
    // The walk's j-loop unroll U for a kernel config's unroll: the largest compiled value <= wanted
    // (4 or 8), else the smallest. Tiles of the body list are 32 bodies.
    static int walk_unroll(int wanted);

    // Device bytes the tree needs for n bodies (all its buffers, CUB scratch included).
    static std::size_t bytes_needed(std::size_t n);

    // Accelerations of pos[0, n) (x, y, z, m, input order) into acc (input order, w = 0); with vel
    // also v += a half_dt (the closing kick). eps2 > 0. Grows the buffers when n grows, after
    // checking that the device has the memory (std::runtime_error with both figures if not).
    // Queued on `stream`; a non-finite coordinate or mass is reported by the next pass (or
    // check_errors()) as std::runtime_error, its accelerations being garbage.
    // With a share other than all groups, only the share's bodies get accelerations, the others
    // zeros (acc is cleared first), ready to be summed over the GPUs; vel must then be null.
    void force(const float4* pos, int n, float eps2, const TreeParams& params, int unroll, float4* acc, float4* vel,
               float half_dt, cudaStream_t stream, WalkShare share = {});

    // Block time steps (docs/TREE.md, "Block time steps"): the accelerations of the bodies with
    // active[i] != 0 (input order; n_active of them, a count the caller knows from its levels) from
    // all n bodies at pos, written to acc[i] for those bodies only: every other entry of acc is left
    // as it is. The tree is built over all n bodies as in force(); the active bodies are then copied
    // behind the sorted ones in key order, each group of the pass keeping its active bodies (groups
    // without one are dropped), so the walk runs over the active groups only, each with the box of
    // its active bodies (the CPU tree's tree_accelerations_active), and counts their terms alone.
    // n_active == n is the force pass itself, bit for bit. One GPU; no kick (the caller's levels
    // give each body its own). A count that does not match the flags is reported like a non-finite
    // body (check_errors()) and no acceleration is written.
    void force_active(const float4* pos, int n, const unsigned char* active, int n_active, float eps2,
                      const TreeParams& params, int unroll, float4* acc, cudaStream_t stream);

    // What the walks of the passes queued from now on leave of the GPU to other streams' kernels
    // (WalkRoom; none by default): the same accelerations, bit for bit, in another launch shape.
    // Any thread (the viewer's frame loop while a simulation thread queues the passes).
    // std::invalid_argument for a refused slice count (check_walk_room).
    void set_walk_room(const WalkRoom& room);

    // The relative criterion (TreeParams::alpha > 0) measures each group by its bodies' |a| of the
    // last force pass, which the tree keeps (4 bytes a body); without them (the first pass, a new N,
    // after forget_accelerations()) a pass with the geometric criterion alone estimates them first.
    // The owner forgets them when it loads other bodies.
    void forget_accelerations();
    // Several GPUs: each walks a share of the groups and writes |a| for its bodies only; once the
    // shares are summed, the whole accelerations give every GPU the |a| one GPU would keep.
    void take_accelerations(const float4* acc, int n, cudaStream_t stream);

    // The terms of the force passes since the last reset_work() (waits for the stream), and the reset.
    TreeWork work(cudaStream_t stream);
    void reset_work(cudaStream_t stream);

    // The same pass with a potential walk instead of the force walk (same tree, criterion and
    // lists): phi[i] = -sum_j m_j / r_ij over the listed bodies (i itself excluded) plus the
    // accepted cells' monopole + quadrupole potential, input order. acc and velocities untouched.
    void potentials(const float4* pos, int n, float eps2, const TreeParams& params, float* phi, cudaStream_t stream);

    // (1/2) sum_i m_i phi_i of potentials(), summed in double on the device (CUB); waits for it.
    // Throws like check_errors() when the pass met non-finite input.
    double potential_energy(const float4* pos, int n, float eps2, const TreeParams& params, cudaStream_t stream);

    // Throws std::runtime_error if a finished pass met non-finite input or overflowed a walk stack;
    // waits for the last pass.
    void check_errors();

    // Most walk-stack entries any warp needed since the tree was created (waits for the last pass).
    unsigned deepest_stack();

    // The newest pass whose timing events have completed (never blocks).
    TreeTimings timings();

    std::size_t bytes() const;

private:
    // `active`: with the room force_active() needs (kept once made).
    void reserve(int n, cudaStream_t stream, bool active = false);
    // A force pass (phi null) or a potential pass (phi given; acc, vel unused); with `active`, the
    // force pass of force_active().
    void pass(const float4* pos, int n, float eps2, const TreeParams& params, int unroll, float4* acc, float4* vel,
              float half_dt, float* phi, cudaStream_t stream, const unsigned char* active = nullptr,
              int n_active = 0);
    // The nodes' moments, boxes and opening radii, bottom-up (gpu_tree.cu says how).
    void moments(int n, float theta, int* scratch, cudaStream_t stream);
    // force_active(): the active bodies copied behind the sorted ones and their groups listed.
    void select_active(const unsigned char* active, int n_active, int n, int* order, cudaStream_t stream);
    void read_flags(bool wait);
    // group_order_: the groups by their smallest |a|, ascending (the longest walks first); the
    // `first` of them (at most) marked in group_flags_ to be walked ahead of the key order. Returns how
    // many are.
    int order_groups_by_cost(int n, int first, const int* order, unsigned long long* key_room, int* group_room,
                             cudaStream_t stream);
    // accel_norm_ of every body from a pass with the geometric criterion (no acceleration written).
    void estimate_accelerations(const float4* pos, int n, float eps2, const TreeParams& params, int unroll,
                                cudaStream_t stream);

    int capacity_ = 0;
    // Per body (sorted order) and per node.
    DeviceBuffer<unsigned long long> keys_[2];
    DeviceBuffer<int> order_[2];
    DeviceBuffer<float4> sorted_;  // positions in key order (force_active: then the active bodies')
    DeviceBuffer<int2> children_;  // internal nodes: (left, right) node ids
    DeviceBuffer<int2> range_;     // all nodes: sorted bodies [first, last]
    DeviceBuffer<int> parent_;     // all nodes
    DeviceBuffer<unsigned> visits_;  // internal nodes: arrivals of the moments pass
    DeviceBuffer<float4> com_;     // all nodes: centre of mass, mass
    DeviceBuffer<float4> quad_;    // all nodes: qxx, qyy, qzz, qxy
    DeviceBuffer<float4> quad2_;   // all nodes: qxz, qyz, open_r2, unused
    DeviceBuffer<float4> cube_;    // all nodes: centre and half side of the cube the criterion uses
    DeviceBuffer<float4> box_lo_, box_hi_;  // internal nodes: bounding box of their bodies
    DeviceBuffer<unsigned char> group_flags_;  // sorted bodies: 1 where a group starts
    DeviceBuffer<int> group_start_;  // groups' first sorted body, in order
    DeviceBuffer<int> group_count_;  // [0]: number of groups
    DeviceBuffer<unsigned long long> stats_;  // the walk's sums (gpu_tree.cu's WalkStat)
    DeviceBuffer<unsigned char> cub_temp_;
    DeviceBuffer<float> accel_norm_;  // per body (input order): |a| of its last force pass
    DeviceBuffer<int> group_order_;   // the groups in the order a full pass walks them (by cost)
    int norms_for_ = 0;               // the bodies accel_norm_ holds (0: none yet, or forgotten)
    int groups_hint_ = 0;             // groups of a recent pass, read without waiting (0: none yet)
    // Potential passes only (allocated at the first): phi per body, the CUB sum's scratch and result.
    DeviceBuffer<float> potential_;
    DeviceBuffer<unsigned char> potential_temp_;
    DeviceBuffer<double> potential_sum_;
    DeviceBuffer<float4> frame_;   // [0]: lo (xyz), side (w); [1]: box lo; [2]: box hi
    DeviceBuffer<float4> partial_boxes_;
    DeviceBuffer<int> stacks_;     // walk stacks, one per resident warp
    DeviceBuffer<unsigned long long> totals_;  // [0] body terms, [1] cell terms since reset_work()
    // force_active() only (allocated at its first pass, with sorted_ and order_ of 2n entries):
    // per sorted body its flag and rank among the active, per group its active start and the kept list.
    bool active_room_ = false;
    DeviceBuffer<int> active_flag_, active_rank_, active_candidates_, active_group_start_;
    DeviceBuffer<int> active_group_count_;
    DeviceBuffer<unsigned> counters_;  // [0]: next group; [1]: error bits; [2]: deepest stack; [3]: moments' list
    int walk_warps_ = 0;
    WalkShare share_;  // of the force pass being queued
    std::atomic<WalkRoom> room_{WalkRoom{}};  // read once a pass (pass())
    std::size_t cub_bytes_ = 0;
    PinnedBuffer<unsigned> host_flags_;             // page-locked copy of counters_[1]
    PinnedBuffer<unsigned long long> host_stats_;  // page-locked copy of stats_
    bool flags_pending_ = false;
    Event flags_ready_{cudaEventDisableTiming};
    Event stats_ready_{cudaEventDisableTiming};
    Event t0_, t1_, t2_, t3_;
    bool timing_pending_ = false;
    TreeTimings last_;
    int last_n_ = 0;
    int last_walked_ = 0;  // bodies whose force the last pass computed (n, or force_active's n_active)

public:
    GpuTree() = default;
    ~GpuTree();
    GpuTree(const GpuTree&) = delete;
    GpuTree& operator=(const GpuTree&) = delete;
};

}  // namespace nbody::cuda
