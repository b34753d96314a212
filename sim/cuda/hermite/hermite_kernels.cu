// Hermite kernels: j-particle scatter and predictor, force + jerk + potential, partial-sum
// reduction. See hermite_kernels.hpp.

#include <algorithm>
#include <climits>
#include <stdexcept>
#include <string>

#include "../cuda_check.hpp"
#include "hermite_kernels.hpp"

namespace nbody::cuda::hermite {
namespace {

__global__ void scatter_kernel(JMemory j, const JUpdate* u, int count) {
    const int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= count) return;
    const long long a = u[k].address;
    j.xm[a] = u[k].xm;
    j.vt[a] = u[k].vt;
    j.a2[a] = u[k].a2;
    j.j6[a] = u[k].j6;
    if (j.s24 != nullptr) j.s24[a] = u[k].s24, j.c120[a] = u[k].c120;
}

template <bool GATHER>
__global__ void move_kernel(Real4* to, const Real4* from, const int* index, int n) {
    const int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= n) return;
    if constexpr (GATHER) to[k] = from[index[k]];
    else to[index[k]] = from[k];
}

// The 6th order's predictor (nbody::hermite::predict_position / _velocity / _acceleration with
// snap/24 and crackle/120): fp64 positions, velocities and accelerations.
__device__ void predict_to_crackle(const JMemory& j, int k, double t, const Predicted& out) {
    const Real4 xm = j.xm[k], vt = j.vt[k], a2 = j.a2[k], j6 = j.j6[k], s = j.s24[k], c = j.c120[k];
    const double dt = t - vt.w;
    auto x = [dt](double x0, double v, double a, double jk, double sn, double cr) {
        return x0 + dt * (v + dt * (a + dt * (jk + dt * (sn + dt * cr))));
    };
    auto v = [dt](double v0, double a, double jk, double sn, double cr) {
        return v0 + dt * (2.0 * a + dt * 3.0 * jk + dt * dt * (4.0 * sn + dt * 5.0 * cr));
    };
    auto acc = [dt](double a, double jk, double sn, double cr) {
        return 2.0 * a + dt * (6.0 * jk + dt * (12.0 * sn + dt * 20.0 * cr));
    };
    out.pos64[k] = r4(x(xm.x, vt.x, a2.x, j6.x, s.x, c.x), x(xm.y, vt.y, a2.y, j6.y, s.y, c.y),
                      x(xm.z, vt.z, a2.z, j6.z, s.z, c.z), xm.w);
    out.vel64[k] = r4(v(vt.x, a2.x, j6.x, s.x, c.x), v(vt.y, a2.y, j6.y, s.y, c.y), v(vt.z, a2.z, j6.z, s.z, c.z),
                      a2.w);
    out.acc64[k] = r4(acc(a2.x, j6.x, s.x, c.x), acc(a2.y, j6.y, s.y, c.y), acc(a2.z, j6.z, s.z, c.z), 0);
}

// The same expression as nbody::hermite::predict_position / predict_velocity (host).
__global__ void predict_kernel(JMemory j, int first, int nj, double t, Precision precision, Predicted out, bool slot_ids) {
    const int k = first + int(blockIdx.x * blockDim.x + threadIdx.x);
    if (k >= nj) return;
    if (j.s24 != nullptr) return predict_to_crackle(j, k, t, out);
    const Real4 xm = j.xm[k], vt = j.vt[k], a2 = j.a2[k], j6 = j.j6[k];
    const double dt = t - vt.w;
    const double x = xm.x + dt * (vt.x + dt * (a2.x + dt * j6.x));
    const double y = xm.y + dt * (vt.y + dt * (a2.y + dt * j6.y));
    const double z = xm.z + dt * (vt.z + dt * (a2.z + dt * j6.z));
    const double vx = vt.x + dt * (2.0 * a2.x + dt * 3.0 * j6.x);
    const double vy = vt.y + dt * (2.0 * a2.y + dt * 3.0 * j6.y);
    const double vz = vt.z + dt * (2.0 * a2.z + dt * 3.0 * j6.z);
    const int id = slot_ids ? k : int(a2.w);
    if (precision == Precision::Ds) {
        const float hx = float(x), hy = float(y), hz = float(z);
        out.hi[k] = make_float4(hx, hy, hz, float(xm.w));
        out.lo[k] = make_float4(float(x - double(hx)), float(y - double(hy)), float(z - double(hz)), __int_as_float(id));
        out.vel[k] = make_float4(float(vx), float(vy), float(vz), 0.f);
    } else {
        out.pos64[k] = r4(x, y, z, xm.w);
        out.vel64[k] = r4(vx, vy, vz, double(id));
    }
}

// Far away and massless: a padding j contributes exactly 0 (r^2 ~ 1e36 stays finite in float).
constexpr float kFar = 1e18f;

template <int EXTRAS>
struct Nearest {
    float r2 = 3.0e38f;
    int id = -1;
    __device__ void see(float d2, int jid, bool self) {
        // Ties go to the lowest id, whatever order (or GPU) the j-particles come in.
        if (EXTRAS >= kNearest && !self && (d2 < r2 || (d2 == r2 && jid < id))) {
            r2 = d2;
            id = jid;
        }
    }
};

// Sums of one i-body's acceleration, jerk and potential over its j-bodies, in float (ds) or double
// (fp64): the same expressions for both, so the two precisions differ only in rounding.
__device__ inline double inverse_distance(double r2) { return 1.0 / sqrt(r2); }

template <typename T>
struct ForceJerkSums {
    T ax = 0, ay = 0, az = 0, jx = 0, jy = 0, jz = 0, pot = 0;
    // rinv = 0 drops the term (the i-body itself).
    __device__ void add(T dx, T dy, T dz, T dvx, T dvy, T dvz, T mass, T rinv) {
        const T rinv2 = rinv * rinv;
        const T mr = mass * rinv;
        const T mr3 = mr * rinv2;
        const T rv = T(3) * (dx * dvx + dy * dvy + dz * dvz) * rinv2;
        ax += mr3 * dx;
        ay += mr3 * dy;
        az += mr3 * dz;
        jx += mr3 * (dvx - rv * dx);
        jy += mr3 * (dvy - rv * dy);
        jz += mr3 * (dvz - rv * dz);
        pot -= mr;
    }
};

// The j-range [first, last) of split `split` of `splits` (blockIdx.y of the force kernels).
struct JRange {
    int first, last;
};
// Whole tiles of TILE j-particles (the last split ends at nj): a tile cut at a split's edge would be
// padded, and padding (id -2, mass 0) sends the tile to the self-test, any-mass loop.
template <int TILE>
__device__ inline JRange split_range(int nj, int split, int splits) {
    const long long tiles = (nj + TILE - 1) / TILE;
    const int first = int(tiles * split / splits) * TILE, last = int(tiles * (split + 1) / splits) * TILE;
    return {min(first, nj), min(last, nj)};
}

template <int EXTRAS>
__device__ void record_neighbour(const NeighbourLists& lists, int i, float d2, float h2, int jid, bool self) {
    if (EXTRAS >= kNeighbours && !self && d2 < h2) {
        const int slot = atomicAdd(&lists.count[i], 1);
        if (slot < lists.capacity) lists.ids[std::size_t(i) * lists.capacity + slot] = jid;
    }
}

// 1 / sqrt(r2) with denormal inputs flushed to zero: one MUFU.RSQ. rsqrtf() without --use_fast_math
// (this file's flags) compiles to rsqrt.approx.f32, which ptxas wraps in a denormal test and two
// scalings: three more issue slots per interaction, for separations below 1e-19 that are a collision
// anyway (the integrator stops on the infinite force).
__device__ __forceinline__ float rsqrt_ftz(float r2) {
    float r;
    asm("rsqrt.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(r2));
    return r;
}

// One i-body of a thread of force_ds: its double-single position and float velocity, its sums.
template <int EXTRAS>
struct DsIBody {
    float xh = kFar, yh = kFar, zh = kFar, xl = 0, yl = 0, zl = 0, vx = 0, vy = 0, vz = 0, h2 = 0;
    int id = -1, i = 0;
    bool valid = false;
    // The sums over all tiles in double (in registers: keeping them in shared memory frees 56 of the
    // ~190 registers at four bodies per thread, but measured 2 % slower, device run 34).
    double ax = 0, ay = 0, az = 0, jx = 0, jy = 0, jz = 0, pot = 0;
    Nearest<EXTRAS> nn;

    __device__ void add(const ForceJerkSums<float>& t, double scale) {
        ax = fma(double(t.ax), scale, ax), ay = fma(double(t.ay), scale, ay), az = fma(double(t.az), scale, az);
        jx = fma(double(t.jx), scale, jx), jy = fma(double(t.jy), scale, jy), jz = fma(double(t.jz), scale, jz);
        pot = fma(double(t.pot), scale, pot);
    }
};

// The loops a tile of force_ds can take (versions 3 and 4, docs/HERMITE.md). The self test (the id
// compare, a zeroed reciprocal and a select: 3 of ~38 issue slots per interaction in the SASS) is
// needed only where an i-body's own id can be among the tile's j-ids; the mass multiply (1 FMUL) not
// where every j-particle of the tile has one mass: the sums are then kept in units of that mass and
// scaled once per tile. The low parts of the positions (6 FADD and one LDS.128 of ~34 slots) not where
// the warp's i-bodies and the tile are far apart for their distance from the origin (far_apart below).
enum class TileLoop { SelfTest, AnyMass, UnitMass, FarAnyMass, FarUnitMass };  // Partials::tile_loops order
static_assert(int(TileLoop::FarUnitMass) + 1 == kDsTileLoops);

// Float bits as an int of the same order (negative floats' magnitude bits flipped), so that one REDUX
// finds a float minimum or maximum over a warp.
__device__ inline int ordered_bits(float f) {
    const int i = __float_as_int(f);
    return i >= 0 ? i : i ^ 0x7fffffff;
}
__device__ inline float from_ordered_bits(int i) { return __int_as_float(i >= 0 ? i : i ^ 0x7fffffff); }

// The bounding box of a set of positions (their high parts) and their largest squared distance from
// the origin, as ordered bits. An empty box (lo > hi, from empty_box()) is far from everything. No
// constructor: the block keeps boxes in shared memory.
struct Box {
    int lo[3], hi[3], r2;
    __device__ void add(float x, float y, float z) {
        const float p[3] = {x, y, z};
#pragma unroll
        for (int d = 0; d < 3; ++d) lo[d] = min(lo[d], ordered_bits(p[d])), hi[d] = max(hi[d], ordered_bits(p[d]));
        r2 = max(r2, ordered_bits(fmaf(x, x, fmaf(y, y, z * z))));
    }
    __device__ void merge(const Box& o) {
#pragma unroll
        for (int d = 0; d < 3; ++d) lo[d] = min(lo[d], o.lo[d]), hi[d] = max(hi[d], o.hi[d]);
        r2 = max(r2, o.r2);
    }
};
__device__ inline Box empty_box() {
    const int big = ordered_bits(3.0e38f), small = ordered_bits(-3.0e38f);
    return {{big, big, big}, {small, small, small}, 0};
}

// A pair's separation from the high parts alone, (xj_hi - xi_hi) rounded, is off from the double-single
// one by at most 2^-24 (|xi| + |xj| + |dx|) (each low part is at most half an ulp of its high part).
// Where the boxes of the warp's i-bodies and of the tile are at least (|xi| + |xj|) / kFarRatio apart,
// that is at most (kFarRatio + 1) 2^-24 = 4.2e-7 of |dx|, about the error the rsqrt already puts in
// 1/r^3 (3 x 2^-22.9 = 4.0e-7, rsqrt.approx), so the tile skips the low parts. Positive separation
// also means no i-body is in the tile (no self test). Device runs 52-53 (docs/HERMITE.md, version 4),
// 256K Plummer bodies in Morton order: kFarRatio 4 sends 66-80 % of the warp-tiles (by shape) this way,
// 6 sends 80-89 % (Partials::tile_loops).
inline constexpr float kFarRatio = 6.f;
__device__ inline bool far_apart(const Box& a, const Box& b) {
    float d2 = 0.f;
#pragma unroll
    for (int d = 0; d < 3; ++d) {
        const float gap = fmaxf(0.f, fmaxf(from_ordered_bits(b.lo[d]) - from_ordered_bits(a.hi[d]),
                                           from_ordered_bits(a.lo[d]) - from_ordered_bits(b.hi[d])));
        d2 = fmaf(gap, gap, d2);
    }
    const float reach = sqrtf(from_ordered_bits(a.r2)) + sqrtf(from_ordered_bits(b.r2));
    return d2 > 0.f && d2 * (kFarRatio * kFarRatio) >= reach * reach;
}

// Far first: a far tile holds none of the warp's bodies whatever the ids (a body's j-particle is within
// an ulp of its i-position, far means a sixth of 2|x| away), and the engine's Morton order scatters the
// ids of a tile over their whole range.
__device__ inline TileLoop choose_loop(bool far, bool one_mass, bool may_hold_self) {
    if (far) return one_mass ? TileLoop::FarUnitMass : TileLoop::FarAnyMass;
    if (may_hold_self) return TileLoop::SelfTest;
    return one_mass ? TileLoop::UnitMass : TileLoop::AnyMass;
}

// What the block learns of a tile while staging it: the range of its j-ids and of its masses' bits
// (all bits equal <=> min == max), and its box. Padding j-particles (id -2, mass 0) count in the
// masses only.
struct TileSummary {
    int id_min, id_max, mass_min, mass_max;
    Box box;
};

// The smallest (MAX false) or largest value over the warp: one REDUX from sm_80 on.
template <bool MAX>
__device__ inline int warp_extreme(int v) {
#if __CUDA_ARCH__ >= 800
    return MAX ? __reduce_max_sync(0xffffffffu, v) : __reduce_min_sync(0xffffffffu, v);
#else
    for (int off = 16; off > 0; off /= 2) {
        const int other = __shfl_xor_sync(0xffffffffu, v, off);
        v = MAX ? max(v, other) : min(v, other);
    }
    return v;
#endif
}

// Each warp folds its threads' j-slots and writes one summary; after the barrier every thread
// folds the block's few warps (<= 8 LDS.128 per tile, against ~10^4 issue slots of interactions).
template <int WARPS>
__device__ TileSummary fold_summaries(const TileSummary (&per_warp)[WARPS]) {
    TileSummary s = per_warp[0];
#pragma unroll
    for (int w = 1; w < WARPS; ++w) {
        s.id_min = min(s.id_min, per_warp[w].id_min), s.id_max = max(s.id_max, per_warp[w].id_max);
        s.mass_min = min(s.mass_min, per_warp[w].mass_min), s.mass_max = max(s.mass_max, per_warp[w].mass_max);
        s.box.merge(per_warp[w].box);
    }
    return s;
}

__device__ inline Box warp_box(const Box& mine) {
    Box w{};
#pragma unroll
    for (int d = 0; d < 3; ++d) w.lo[d] = warp_extreme<false>(mine.lo[d]), w.hi[d] = warp_extreme<true>(mine.hi[d]);
    w.r2 = warp_extreme<true>(mine.r2);
    return w;
}

// The tile's interactions for every i-body of the thread: the j-loop, unrolled UNROLL times.
template <TileLoop LOOP, int BLOCK, int UNROLL, int EXTRAS, int IPT>
__device__ __forceinline__ void interact_tile(const float4* s_hi, const float4* s_lo, const float4* s_v, float eps2,
                                              DsIBody<EXTRAS> (&me)[IPT], ForceJerkSums<float> (&t)[IPT],
                                              const NeighbourLists& lists) {
    constexpr bool kHighPartsOnly = LOOP == TileLoop::FarAnyMass || LOOP == TileLoop::FarUnitMass;
    constexpr bool kUnitMass = LOOP == TileLoop::UnitMass || LOOP == TileLoop::FarUnitMass;
#pragma unroll UNROLL
    for (int q = 0; q < BLOCK; ++q) {
        const float4 hi = s_hi[q], vv = s_v[q];
        const float4 lo = kHighPartsOnly ? make_float4(0.f, 0.f, 0.f, 0.f) : s_lo[q];
        const float mass = kUnitMass ? 1.f : hi.w;  // x * 1 folds away: no FMUL
#pragma unroll
        for (int b = 0; b < IPT; ++b) {
            DsIBody<EXTRAS>& m = me[b];
            const float dx = kHighPartsOnly ? hi.x - m.xh : (hi.x - m.xh) + (lo.x - m.xl);
            const float dy = kHighPartsOnly ? hi.y - m.yh : (hi.y - m.yh) + (lo.y - m.yl);
            const float dz = kHighPartsOnly ? hi.z - m.zh : (hi.z - m.zh) + (lo.z - m.zl);
            if constexpr (EXTRAS == kNoExtras) {
                const float r2 = fmaf(dx, dx, fmaf(dy, dy, fmaf(dz, dz, eps2)));
                const bool self = LOOP == TileLoop::SelfTest && __float_as_int(lo.w) == m.id;
                t[b].add(dx, dy, dz, vv.x - m.vx, vv.y - m.vy, vv.z - m.vz, mass, self ? 0.f : rsqrt_ftz(r2));
            } else {
                const int jid = __float_as_int(lo.w);
                const bool self = jid == m.id;
                const float d2 = dx * dx + dy * dy + dz * dz;
                t[b].add(dx, dy, dz, vv.x - m.vx, vv.y - m.vy, vv.z - m.vz, mass, self ? 0.f : rsqrt_ftz(d2 + eps2));
                m.nn.see(d2, jid, self);
                if (m.valid) record_neighbour<EXTRAS>(lists, m.i, d2, m.h2, jid, self || jid == -2);
            }
        }
    }
}

// Double-single positions: dx = (xj_hi - xi_hi) + (xj_lo - xi_lo) (Sapporo eq. 3), the rest float.
// ~34 FP32 instructions per interaction (FLOP count convention: 60, Sapporo sec. 3): 9 for the
// separation, 3 for dv, 3 FFMA for r^2 + eps^2, 7 scalar factors (6 in a tile of one mass), 3 + 6 for
// the acceleration and jerk, 1 for the potential; one MUFU.RSQ; 3 LDS.128 per j-particle, shared by the
// IPT i-bodies each thread holds; the self test (3) only in tiles that may hold an i-body's own id
// (docs/HERMITE.md). The variants with extras (nearest neighbour, lists) always take the self test.
// IPT i-bodies per thread (1, 2, 4): the BLOCK / IPT threads of a block hold its BLOCK i-bodies, thread
// t bodies t + b BLOCK / IPT (coalesced), and stage BLOCK j-particles per tile, IPT each.
template <int BLOCK, int UNROLL, int EXTRAS, int IPT>
__global__ void __launch_bounds__(BLOCK / IPT) force_ds(Predicted j, int nj, IBatch ib, int ni, int ni_pad,
                                                        float eps2, Partials part, NeighbourLists lists, bool far_tiles) {
    constexpr int kThreads = BLOCK / IPT, kWarps = kThreads / 32;
    static_assert(kThreads % 32 == 0, "force_ds: whole warps");
    __shared__ float4 s_hi[BLOCK], s_lo[BLOCK], s_v[BLOCK];
    __shared__ TileSummary s_summary[kWarps];
    __shared__ Box s_warp_i_box[kWarps];  // of each warp's valid i-bodies
    DsIBody<EXTRAS> me[IPT];
#pragma unroll
    for (int b = 0; b < IPT; ++b) {
        DsIBody<EXTRAS>& m = me[b];
        m.i = blockIdx.x * BLOCK + threadIdx.x + b * kThreads;
        m.valid = m.i < ni;
        if (m.valid) {
            const Real4 x = ib.x[m.i], v = ib.v[m.i];
            m.xh = float(x.x), m.yh = float(x.y), m.zh = float(x.z);
            m.xl = float(x.x - double(m.xh)), m.yl = float(x.y - double(m.yh)), m.zl = float(x.z - double(m.zh));
            m.vx = float(v.x), m.vy = float(v.y), m.vz = float(v.z);
            m.h2 = float(x.w);
            m.id = int(v.w);
        }
    }
    const int warp = threadIdx.x / 32;
    if (EXTRAS == kNoExtras && far_tiles) {
        Box mine = empty_box();
#pragma unroll
        for (int b = 0; b < IPT; ++b)
            if (me[b].valid) mine.add(me[b].xh, me[b].yh, me[b].zh);
        const Box w = warp_box(mine);
        if (threadIdx.x % 32 == 0) s_warp_i_box[warp] = w;  // read after the tile's barrier
    }
    const int split = blockIdx.y;
    const auto [j0, j1] = split_range<BLOCK>(nj, split, gridDim.y);
    for (int tile = j0; tile < j1; tile += BLOCK) {
        TileSummary mine{INT_MAX, INT_MIN, INT_MAX, INT_MIN, empty_box()};
#pragma unroll
        for (int b = 0; b < IPT; ++b) {
            const int slot = threadIdx.x + b * kThreads, k = tile + slot;
            float4 hi = make_float4(kFar, kFar, kFar, 0.f), lo = make_float4(0.f, 0.f, 0.f, __int_as_float(-2)),
                   vel = make_float4(0.f, 0.f, 0.f, 0.f);
            if (k < j1) hi = j.hi[k], lo = j.lo[k], vel = j.vel[k];
            s_hi[slot] = hi, s_lo[slot] = lo, s_v[slot] = vel;
            mine.mass_min = min(mine.mass_min, __float_as_int(hi.w)), mine.mass_max = max(mine.mass_max, __float_as_int(hi.w));
            if (k < j1) {  // padding (id -2) is never an i-body's own id
                mine.id_min = min(mine.id_min, __float_as_int(lo.w)), mine.id_max = max(mine.id_max, __float_as_int(lo.w));
                if (far_tiles) mine.box.add(hi.x, hi.y, hi.z);
            }
        }
        if constexpr (EXTRAS == kNoExtras) {
            mine = {warp_extreme<false>(mine.id_min), warp_extreme<true>(mine.id_max), warp_extreme<false>(mine.mass_min),
                    warp_extreme<true>(mine.mass_max), far_tiles ? warp_box(mine.box) : mine.box};
            if (threadIdx.x % 32 == 0) s_summary[warp] = mine;
        }
        __syncthreads();
        TileLoop loop = TileLoop::SelfTest;  // the variants with extras always take it
        double scale = 1.0;                  // the tile's mass where its sums are in units of it
        if constexpr (EXTRAS == kNoExtras) {
            const TileSummary tile_s = fold_summaries(s_summary);
            bool may_hold_self = false;
#pragma unroll
            for (int b = 0; b < IPT; ++b)
                may_hold_self |= me[b].valid && me[b].id >= tile_s.id_min && me[b].id <= tile_s.id_max;
            // Warp-uniform: every input is the warp's or the block's.
            loop = choose_loop(far_tiles && far_apart(s_warp_i_box[warp], tile_s.box), tile_s.mass_min == tile_s.mass_max,
                               __any_sync(0xffffffffu, may_hold_self));
            if (loop == TileLoop::UnitMass || loop == TileLoop::FarUnitMass) scale = double(__int_as_float(tile_s.mass_min));
            if (part.tile_loops != nullptr && threadIdx.x % 32 == 0) atomicAdd(&part.tile_loops[int(loop)], 1ull);
        }
        ForceJerkSums<float> t[IPT];  // one tile in float, accumulated in double below
        switch (loop) {
            case TileLoop::SelfTest: interact_tile<TileLoop::SelfTest, BLOCK, UNROLL>(s_hi, s_lo, s_v, eps2, me, t, lists); break;
            case TileLoop::AnyMass: interact_tile<TileLoop::AnyMass, BLOCK, UNROLL>(s_hi, s_lo, s_v, eps2, me, t, lists); break;
            case TileLoop::UnitMass: interact_tile<TileLoop::UnitMass, BLOCK, UNROLL>(s_hi, s_lo, s_v, eps2, me, t, lists); break;
            case TileLoop::FarAnyMass: interact_tile<TileLoop::FarAnyMass, BLOCK, UNROLL>(s_hi, s_lo, s_v, eps2, me, t, lists); break;
            case TileLoop::FarUnitMass: interact_tile<TileLoop::FarUnitMass, BLOCK, UNROLL>(s_hi, s_lo, s_v, eps2, me, t, lists); break;
        }
#pragma unroll
        for (int b = 0; b < IPT; ++b) me[b].add(t[b], scale);
        __syncthreads();
    }
#pragma unroll
    for (int b = 0; b < IPT; ++b) {
        const DsIBody<EXTRAS>& m = me[b];
        if (!m.valid) continue;
        const std::size_t o = std::size_t(split) * ni_pad + m.i;
        part.acc_pot[o] = r4(m.ax, m.ay, m.az, m.pot);
        part.jerk_nn[o] = r4(m.jx, m.jy, m.jz, double(m.nn.r2));
        part.nearest[o] = m.nn.id;
    }
}

// One pair's term of the snap (Nitadori & Makino 2008; the cpu engine's snap_term): the 6th order,
// in double, for accuracies float forces cannot give.
__device__ inline void add_snap(Real4& s, double dx, double dy, double dz, double dvx, double dvy, double dvz,
                                double dax, double day, double daz, double mass, double rinv) {
    const double rinv2 = rinv * rinv, mr3 = mass * rinv * rinv2;
    const double alpha = (dx * dvx + dy * dvy + dz * dvz) * rinv2;
    const double beta = (dvx * dvx + dvy * dvy + dvz * dvz + dx * dax + dy * day + dz * daz) * rinv2 + alpha * alpha;
    const double ax = mr3 * dx, ay = mr3 * dy, az = mr3 * dz;
    const double jx = mr3 * dvx - (3.0 * alpha) * ax, jy = mr3 * dvy - (3.0 * alpha) * ay, jz = mr3 * dvz - (3.0 * alpha) * az;
    s.x += mr3 * dax - (6.0 * alpha) * jx - (3.0 * beta) * ax;
    s.y += mr3 * day - (6.0 * alpha) * jy - (3.0 * beta) * ay;
    s.z += mr3 * daz - (6.0 * alpha) * jz - (3.0 * beta) * az;
}

// Everything in double: the reference on the GPU (fp64 is half the fp32 rate on H100/H200, and
// the reciprocal square root is a division and a square root). With SNAP (the 6th order) also the
// snap, from the j-particles' predicted accelerations (add_snap above); SNAP takes no neighbour lists.
template <int BLOCK, int UNROLL, int EXTRAS, bool SNAP>
__global__ void __launch_bounds__(BLOCK) force_fp64(Predicted j, int nj, IBatch ib, int ni, int ni_pad, double eps2,
                                                    Partials part, NeighbourLists lists) {
    static_assert(!SNAP || EXTRAS < kNeighbours, "the snap kernel keeps no neighbour lists");
    __shared__ Real4 s_x[BLOCK], s_v[BLOCK], s_a[SNAP ? BLOCK : 1];
    const int i = blockIdx.x * BLOCK + threadIdx.x;
    const bool valid = i < ni;
    Real4 xi = r4(1e18, 1e18, 1e18, 0), vi = r4(0, 0, 0, -1), ai = r4(0, 0, 0, 0);
    if (valid) {
        xi = ib.x[i], vi = ib.v[i];
        if constexpr (SNAP) ai = ib.a[i];
    }
    const int id = int(vi.w);
    const int split = blockIdx.y;
    const auto [j0, j1] = split_range<BLOCK>(nj, split, gridDim.y);
    ForceJerkSums<double> sums;
    Real4 snap = r4(0, 0, 0, 0);
    Nearest<EXTRAS> nn;
    for (int tile = j0; tile < j1; tile += BLOCK) {
        const int k = tile + threadIdx.x;
        s_x[threadIdx.x] = k < j1 ? j.pos64[k] : r4(1e18, 1e18, 1e18, 0);
        s_v[threadIdx.x] = k < j1 ? j.vel64[k] : r4(0, 0, 0, -2);
        if constexpr (SNAP) s_a[threadIdx.x] = k < j1 ? j.acc64[k] : r4(0, 0, 0, 0);
        __syncthreads();
#pragma unroll UNROLL
        for (int q = 0; q < BLOCK; ++q) {
            const Real4 xj = s_x[q], vj = s_v[q];
            const double dx = xj.x - xi.x, dy = xj.y - xi.y, dz = xj.z - xi.z;
            const double dvx = vj.x - vi.x, dvy = vj.y - vi.y, dvz = vj.z - vi.z;
            const double d2 = dx * dx + dy * dy + dz * dz;
            const int jid = int(vj.w);
            const bool self = jid == id;
            const double rinv = self ? 0.0 : inverse_distance(d2 + eps2);
            sums.add(dx, dy, dz, dvx, dvy, dvz, xj.w, rinv);
            if constexpr (SNAP) {
                const Real4 aj = s_a[q];
                add_snap(snap, dx, dy, dz, dvx, dvy, dvz, aj.x - ai.x, aj.y - ai.y, aj.z - ai.z, xj.w, rinv);
            }
            nn.see(float(d2), jid, self);
            if (valid) record_neighbour<EXTRAS>(lists, i, float(d2), float(xi.w), jid, self || jid == -2);
        }
        __syncthreads();
    }
    if (!valid) return;
    const std::size_t o = std::size_t(split) * ni_pad + i;
    part.acc_pot[o] = r4(sums.ax, sums.ay, sums.az, sums.pot);
    part.jerk_nn[o] = r4(sums.jx, sums.jy, sums.jz, double(nn.r2));
    part.nearest[o] = nn.id;
    if constexpr (SNAP) part.snap[o] = snap;
}

// The partial sums of one i-body over a subset of the splits, and the nearest neighbour among them
// (ties to the lowest id, as within a split: the answer does not depend on the split or the GPUs).
struct SplitSum {
    Real4 a = r4(0, 0, 0, 0), jn = r4(0, 0, 0, 3.0e38), sn = r4(0, 0, 0, 0);
    int nearest = -1, nearest_split = INT_MAX;
    template <bool SNAP>
    __device__ void add(const Real4& p, const Real4& q, int nn, const Real4& r, int split) {
        a.x += p.x, a.y += p.y, a.z += p.z, a.w += p.w;
        jn.x += q.x, jn.y += q.y, jn.z += q.z;
        if (nn >= 0 && (q.w < jn.w || (q.w == jn.w && nn < nearest))) jn.w = q.w, nearest = nn, nearest_split = split;
        if constexpr (SNAP) sn.x += r.x, sn.y += r.y, sn.z += r.z;
    }
};

// The reduction of the j-split's partials: 32 i-bodies per block, kReduceRows threads per i-body,
// thread row r summing splits r, r + kReduceRows, ... in order, then row 0 adding the rows' sums in
// row order: a fixed order, so results do not depend on block timing. One thread per i-body, as
// before, waited on L2 for each of a small block's 128 partials in turn: ~45 us of its ~110 us on
// the GPU, now ~7 us (device runs 41-42, docs/HERMITE.md).
constexpr int kReduceRows = 8;
// Adds i-body i's partials of splits first, first + stride, ... (below `splits`) to `sum`, in that
// order, with kUnroll splits' loads in flight at once.
template <bool SNAP>
__device__ __forceinline__ void add_splits(SplitSum& sum, const Partials& part, int i, int ni_pad, int splits, int first,
                                           int stride) {
    constexpr int kUnroll = 4;
    for (int s = first; s < splits; s += kUnroll * stride) {
        Real4 p[kUnroll], q[kUnroll], r[kUnroll] = {};
        int nn[kUnroll];
#pragma unroll
        for (int u = 0; u < kUnroll; ++u) {
            const int su = s + u * stride;
            if (su >= splits) continue;
            const std::size_t o = std::size_t(su) * ni_pad + i;
            p[u] = part.acc_pot[o], q[u] = part.jerk_nn[o], nn[u] = part.nearest[o];
            if constexpr (SNAP) r[u] = part.snap[o];
        }
#pragma unroll
        for (int u = 0; u < kUnroll; ++u)
            if (s + u * stride < splits) sum.add<SNAP>(p[u], q[u], nn[u], r[u], s + u * stride);
    }
}

template <bool SNAP>
__global__ void __launch_bounds__(32 * kReduceRows) reduce_kernel(Partials part, int ni, int ni_pad, int splits, Results out) {
    const int i = blockIdx.x * 32 + threadIdx.x, row = threadIdx.y;
    SplitSum sum;
    if (i < ni) add_splits<SNAP>(sum, part, i, ni_pad, splits, row, kReduceRows);
    // Raw storage: a __shared__ variable may not have a constructor that does something.
    __shared__ alignas(SplitSum) unsigned char storage[sizeof(SplitSum) * kReduceRows * 32];
    auto rows = reinterpret_cast<SplitSum(*)[32]>(storage);
    rows[row][threadIdx.x] = sum;
    __syncthreads();
    if (row != 0 || i >= ni) return;
    SplitSum total = rows[0][threadIdx.x];
    for (int k = 1; k < kReduceRows; ++k) {
        const SplitSum& o = rows[k][threadIdx.x];
        const int nn = o.nearest_split == INT_MAX ? -1 : o.nearest;
        total.add<SNAP>(o.a, o.jn, nn, o.sn, o.nearest_split);
    }
    out.acc_pot[i] = total.a;
    out.jerk_nn[i] = total.jn;
    out.nearest[i] = total.nearest;
    if constexpr (SNAP) out.snap[i] = total.sn;
}

// The same reduction for a batch of few i-bodies and many splits (a small block's 23 bodies over
// 512 splits: one block of the kernel above, each thread waiting on 16 loads in turn, 15-18 us of a
// ~80 us block on an H200, device run 208): a warp per i-body, lane l summing splits l, l + 32, ...
// in order, then the lanes' sums added by a fixed tree of shuffles (lane l takes lane l + 16's, then
// l + 8's, ...): another fixed order, so its results are the same from run to run and GPU to GPU.
// From this many splits (two loads a lane and more) a warp per i-body; fewer: the kernel above.
constexpr int kReduceWarps = 8, kReduceByWarpFromSplits = 64;
constexpr unsigned kFullMask = 0xffffffffu;
__device__ Real4 shuffle_down(const Real4& v, int offset) {
    return r4(__shfl_down_sync(kFullMask, v.x, offset), __shfl_down_sync(kFullMask, v.y, offset),
              __shfl_down_sync(kFullMask, v.z, offset), __shfl_down_sync(kFullMask, v.w, offset));
}
template <bool SNAP>
__global__ void __launch_bounds__(32 * kReduceWarps) reduce_by_warp_kernel(Partials part, int ni, int ni_pad, int splits,
                                                                           Results out) {
    const int i = blockIdx.x * kReduceWarps + threadIdx.y, lane = threadIdx.x;
    if (i >= ni) return;  // the whole warp
    SplitSum sum;
    add_splits<SNAP>(sum, part, i, ni_pad, splits, lane, 32);
#pragma unroll
    for (int offset = 16; offset >= 1; offset /= 2) {
        const Real4 a = shuffle_down(sum.a, offset), jn = shuffle_down(sum.jn, offset);
        const Real4 sn = SNAP ? shuffle_down(sum.sn, offset) : r4(0, 0, 0, 0);
        const int nearest = __shfl_down_sync(kFullMask, sum.nearest, offset);
        const int nearest_split = __shfl_down_sync(kFullMask, sum.nearest_split, offset);
        if (lane < offset) sum.add<SNAP>(a, jn, nearest_split == INT_MAX ? -1 : nearest, sn, nearest_split);
    }
    if (lane != 0) return;
    out.acc_pot[i] = sum.a;
    out.jerk_nn[i] = sum.jn;
    out.nearest[i] = sum.nearest;
    if constexpr (SNAP) out.snap[i] = sum.sn;
}

using Launch = void (*)(const Predicted&, int, const IBatch&, int, int, double, int, const Partials&,
                        const NeighbourLists&, bool, cudaStream_t);

template <Precision P, int BLOCK, int UNROLL, int EXTRAS, int IPT>
void launch(const Predicted& j, int nj, const IBatch& ib, int ni, int ni_pad, double eps2, int j_split,
            const Partials& part, const NeighbourLists& lists, bool far_tiles, cudaStream_t stream) {
    const dim3 grid(unsigned(ni_pad / BLOCK), unsigned(j_split));
    if constexpr (P == Precision::Ds)
        force_ds<BLOCK, UNROLL, EXTRAS, IPT>
            <<<grid, BLOCK / IPT, 0, stream>>>(j, nj, ib, ni, ni_pad, float(eps2), part, lists, far_tiles);
    else
        force_fp64<BLOCK, UNROLL, EXTRAS, false><<<grid, BLOCK, 0, stream>>>(j, nj, ib, ni, ni_pad, eps2, part, lists);
}

// The launch of one shape; none where a block would not be whole warps (64 i-bodies, 4 per thread).
template <Precision P, int BLOCK, int UNROLL, int EXTRAS, int IPT>
constexpr Launch shape() {
    if constexpr ((BLOCK / IPT) % 32 != 0) return nullptr;
    else return &launch<P, BLOCK, UNROLL, EXTRAS, IPT>;
}

template <Precision P, int EXTRAS, int IPT>
Launch pick_shape(int block, int unroll) {
    if constexpr (EXTRAS != kNoExtras) {
        return block == 128 && unroll == 4 ? shape<P, 128, 4, EXTRAS, IPT>() : nullptr;
    } else {
    switch (block * 100 + unroll) {
        case 6401: return shape<P, 64, 1, EXTRAS, IPT>();
        case 6404: return shape<P, 64, 4, EXTRAS, IPT>();
        case 6408: return shape<P, 64, 8, EXTRAS, IPT>();
        case 12801: return shape<P, 128, 1, EXTRAS, IPT>();
        case 12804: return shape<P, 128, 4, EXTRAS, IPT>();
        case 12808: return shape<P, 128, 8, EXTRAS, IPT>();
        case 25601: return shape<P, 256, 1, EXTRAS, IPT>();
        case 25604: return shape<P, 256, 4, EXTRAS, IPT>();
        case 25608: return shape<P, 256, 8, EXTRAS, IPT>();
        default: return nullptr;
    }
    }
}

template <int EXTRAS>
void launch_snap(const Predicted& j, int nj, const IBatch& ib, int ni, int ni_pad, double eps2, int j_split,
                 const Partials& part, const NeighbourLists& lists, bool, cudaStream_t stream) {
    const dim3 grid(unsigned(ni_pad / 128), unsigned(j_split));
    force_fp64<128, 4, EXTRAS, true><<<grid, 128, 0, stream>>>(j, nj, ib, ni, ni_pad, eps2, part, lists);
}

Launch pick_snap(const ForceVariant& v) {
    if (v.precision != Precision::Fp64 || v.block != 128 || v.unroll != 4 || v.bodies_per_thread != 1) return nullptr;
    switch (v.extras) {
        case kNoExtras: return &launch_snap<kNoExtras>;
        case kNearest: return &launch_snap<kNearest>;
        default: return nullptr;
    }
}

template <Precision P>
Launch pick_extras(int extras, int block, int unroll, int bodies_per_thread) {
    if (bodies_per_thread == 2 || bodies_per_thread == 4) {  // ds without extras only
        if (P != Precision::Ds || extras != kNoExtras) return nullptr;
        return bodies_per_thread == 2 ? pick_shape<P, kNoExtras, 2>(block, unroll) : pick_shape<P, kNoExtras, 4>(block, unroll);
    }
    if (bodies_per_thread != 1) return nullptr;
    switch (extras) {
        case kNoExtras: return pick_shape<P, kNoExtras, 1>(block, unroll);
        case kNearest: return pick_shape<P, kNearest, 1>(block, unroll);
        case kNearest | kNeighbours: return pick_shape<P, kNeighbours, 1>(block, unroll);
        default: return nullptr;
    }
}

}  // namespace

std::string supported_variants() {
    return "precision ds | fp64, block 64 | 128 | 256, unroll 1 | 4 | 8, bodies per thread 1 | 2 | 4 (2, 4: ds without "
           "neighbours only; nearest neighbour or neighbour lists: block 128, unroll 4 only; the snap: fp64, block "
           "128, unroll 4, one body per thread, no neighbour lists)";
}

void scatter_j(const JMemory& j, const JUpdate* updates, int count, cudaStream_t stream) {
    if (count <= 0) return;
    scatter_kernel<<<unsigned((count + 127) / 128), 128, 0, stream>>>(j, updates, count);
    CUDA_CHECK_LAUNCH();
}

void gather_real4(Real4* to, const Real4* from, const int* index, int n, cudaStream_t stream) {
    if (n <= 0) return;
    move_kernel<true><<<unsigned((n + 255) / 256), 256, 0, stream>>>(to, from, index, n);
    CUDA_CHECK_LAUNCH();
}

void scatter_real4(Real4* to, const Real4* from, const int* index, int n, cudaStream_t stream) {
    if (n <= 0) return;
    move_kernel<false><<<unsigned((n + 255) / 256), 256, 0, stream>>>(to, from, index, n);
    CUDA_CHECK_LAUNCH();
}

namespace {
__global__ void add_result_blocks_kernel(const Real4* blocks, int parts, std::size_t block, int ni, int rows, Real4* out) {
    const int i = int(blockIdx.x * blockDim.x + threadIdx.x);
    if (i >= ni) return;
    const std::size_t n = std::size_t(ni);
    Real4 a = blocks[i], jn = blocks[n + i], s = rows > 2 ? blocks[2 * n + i] : Real4{0, 0, 0, 0};
    int nearest = reinterpret_cast<const int*>(blocks + std::size_t(rows) * n)[i];
    double nearest_r2 = jn.w;
    for (int p = 1; p < parts; ++p)
        add_result_part(a, jn, s, nearest, nearest_r2, blocks + std::size_t(p) * block, n, std::size_t(i), rows > 2);
    jn.w = nearest_r2;
    out[i] = a, out[n + i] = jn;
    if (rows > 2) out[2 * n + i] = s;
    reinterpret_cast<int*>(out + std::size_t(rows) * n)[i] = nearest;
}
}  // namespace

void add_result_blocks(const Real4* blocks, int parts, std::size_t block, int ni, int rows, Real4* out, cudaStream_t stream) {
    if (ni <= 0) return;
    add_result_blocks_kernel<<<unsigned((ni + 255) / 256), 256, 0, stream>>>(blocks, parts, block, ni, rows, out);
    CUDA_CHECK_LAUNCH();
}

void permute_j(const JMemory& j, const int* source, int n, Real4* scratch, cudaStream_t stream) {
    for (Real4* a : {j.xm, j.vt, j.a2, j.j6, j.s24, j.c120}) {
        if (a == nullptr || n <= 0) continue;
        gather_real4(scratch, a, source, n, stream);
        CUDA_CHECK(cudaMemcpyAsync(a, scratch, sizeof(Real4) * std::size_t(n), cudaMemcpyDeviceToDevice, stream));
    }
}

void predict_j(const JMemory& j, int nj, double t, Precision precision, const Predicted& out, cudaStream_t stream,
               bool slot_ids, int first) {
    if (nj - first <= 0) return;
    predict_kernel<<<unsigned((nj - first + 255) / 256), 256, 0, stream>>>(j, first, nj, t, precision, out, slot_ids);
    CUDA_CHECK_LAUNCH();
}

void hermite_force(const ForceVariant& v, const Predicted& j, int nj, const IBatch& i, int ni, double eps2,
                   int j_split, const Partials& partials, const NeighbourLists& lists, cudaStream_t stream) {
    const int extras = v.extras & kNeighbours ? (kNearest | kNeighbours) : v.extras;
    const Launch f = v.snap                          ? pick_snap(v)
                     : v.precision == Precision::Ds ? pick_extras<Precision::Ds>(extras, v.block, v.unroll, v.bodies_per_thread)
                                                    : pick_extras<Precision::Fp64>(extras, v.block, v.unroll, v.bodies_per_thread);
    if (f == nullptr)
        throw std::invalid_argument(std::string("Hermite force kernel: no variant with ") +
                                    (v.precision == Precision::Ds ? "ds" : "fp64") + ", block " + std::to_string(v.block) +
                                    ", unroll " + std::to_string(v.unroll) + ", bodies per thread " +
                                    std::to_string(v.bodies_per_thread) + ", extras " + std::to_string(v.extras) +
                                    (v.snap ? ", snap" : "") + " (supported: " + supported_variants() + ")");
    if (ni <= 0) return;
    const int ni_pad = (ni + v.block - 1) / v.block * v.block;
    f(j, nj, i, ni, ni_pad, eps2, std::max(1, j_split), partials, lists, v.far_tiles, stream);
    CUDA_CHECK_LAUNCH();
}

void reduce_partials(const Partials& partials, int ni, int ni_pad, int j_split, const Results& out, cudaStream_t stream) {
    if (ni <= 0) return;
    // A warp per i-body from kReduceByWarpFromSplits splits on (i-bodies kReduceWarps to a block), else
    // 32 i-bodies to a block with kReduceRows threads each.
    const bool by_warp = j_split >= kReduceByWarpFromSplits;
    const bool snap = out.snap != nullptr;
    const int per_block = by_warp ? kReduceWarps : 32;
    const dim3 threads(32, by_warp ? kReduceWarps : kReduceRows);
    const auto kernel = by_warp ? (snap ? reduce_by_warp_kernel<true> : reduce_by_warp_kernel<false>)
                                : (snap ? reduce_kernel<true> : reduce_kernel<false>);
    kernel<<<unsigned((ni + per_block - 1) / per_block), threads, 0, stream>>>(partials, ni, ni_pad, j_split, out);
    CUDA_CHECK_LAUNCH();
}

int choose_j_split(int ni, int nj, int block, int sm_count, int bodies_per_thread, bool far_tiles) {
    const int i_blocks = (ni + block - 1) / block;
    const int resident = sm_count * (2048 * bodies_per_thread / block);  // blocks the device holds at once
    const int max_split = std::max(1, nj / (2 * block));   // at least two tiles per block
    // Far and near tiles cost ~28 and ~34 slots per interaction: more, shorter blocks balance the SMs
    // (device run 60, 256K all active, block 128 x 4, four per thread: split 5 0.862e12 (run 57),
    // 10 0.895e12, 20 0.909e12; 1M: 2 0.926e12 (run 59), 4 0.922e12, 8 0.930e12).
    const int want = (resident + i_blocks - 1) / i_blocks * (far_tiles ? 4 : 1);
    return std::clamp(want, 1, max_split);
}

}  // namespace nbody::cuda::hermite
