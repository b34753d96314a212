// The CPU tree code. Cost per pass: keys O(N), sort O(N log N), build O(N) nodes with a binary
// search per child, moments O(N), walk O(N/G * list) and evaluation O(N * list), list ~ log N.
// The octree is built level by level (breadth first) from the sorted keys, so that the node array
// read backwards is a bottom-up order for the moments: no recursion, no fixed-size stack anywhere.

#include "nbody/sim/tree/host_tree.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numeric>
#include <stdexcept>
#include <string>
#include <vector>

#include "nbody/sim/tree/multipole.hpp"
#include "thread_pool.hpp"

namespace nbody::tree {
namespace {

using Clock = std::chrono::steady_clock;
double ms_since(Clock::time_point t0) { return std::chrono::duration<double, std::milli>(Clock::now() - t0).count(); }

struct Node {
    std::uint32_t begin = 0, end = 0;  // bodies [begin, end) in key order
    std::uint32_t child = 0;           // first child (children are consecutive); 0: a leaf
    std::uint8_t children = 0;
    std::uint8_t level = 0;
    double cx = 0, cy = 0, cz = 0, half = 0;  // geometric centre and half side
};

// The cube the opening criterion measures a cell by: about the centre of its bodies' bounding box,
// half the box's longest side (as the GPU tree; Bonsai's choice). Tighter than the octree cell,
// so cells are accepted sooner at the same theta: on the GPU at 1M bodies and theta 0.5 the lists
// got 20-30 % fewer bodies and 8-10 % fewer cells for an 11-13 % larger median error (docs/TREE.md).
struct TightCube {
    double cx, cy, cz, half;
};
inline TightCube tight_cube(const double* lo, const double* hi) {
    return {0.5 * (lo[0] + hi[0]), 0.5 * (lo[1] + hi[1]), 0.5 * (lo[2] + hi[2]),
            0.5 * std::max({hi[0] - lo[0], hi[1] - lo[1], hi[2] - lo[2]})};
}

// The cells as the walk reads them (Real), one struct per node.
template <class Real>
struct WalkCell {
    Real x, y, z;           // centre of mass
    Real open_r2;           // (l / theta + delta)^2
    Real error_scale;       // m l^3: the relative criterion's estimate of the expansion's error, times d^5
    Real lox, loy, loz, hix, hiy, hiz;  // the cell's cube
    CellMoments<Real> mom;
};

template <class Real>
void require_finite(const Real* x, const Real* y, const Real* z, const Real* m, std::size_t n) {
    for (std::size_t i = 0; i < n; ++i)
        if (!std::isfinite(x[i]) || !std::isfinite(y[i]) || !std::isfinite(z[i]) || !std::isfinite(m[i]))
            throw std::invalid_argument("tree code: body " + std::to_string(i) +
                                        " has a non-finite position or mass (the system has diverged or "
                                        "the input is invalid)");
}

// Scratch of one walking thread: the group's interaction list in structure-of-arrays form so the
// body loop vectorises like the direct sum's.
template <class Real>
struct ListScratch {
    std::vector<std::uint32_t> stack;
    std::vector<Real> bx, by, bz, bm;
    // Accepted cells: centre of mass, mass and quadrupole, one array per component.
    std::vector<Real> cx, cy, cz, cm, qxx, qyy, qzz, qxy, qxz, qyz;
    // Potential walks only: where each body of the group sits in the body list (kNotListed if it
    // does not), so that its own term -m_i / eps is left out.
    static constexpr std::uint32_t kNotListed = std::numeric_limits<std::uint32_t>::max();
    std::vector<std::uint32_t> self_at;
    void clear() {
        stack.clear();
        for (auto* v : {&bx, &by, &bz, &bm, &cx, &cy, &cz, &cm, &qxx, &qyy, &qzz, &qxy, &qxz, &qyz}) v->clear();
    }
    void add_cell(Real x, Real y, Real z, const CellMoments<Real>& c) {
        cx.push_back(x), cy.push_back(y), cz.push_back(z), cm.push_back(c.m);
        qxx.push_back(c.qxx), qyy.push_back(c.qyy), qzz.push_back(c.qzz);
        qxy.push_back(c.qxy), qxz.push_back(c.qxz), qyz.push_back(c.qyz);
    }
};

// Pull of the list's cells, in eight lanes like the bodies (the loop vectorises). WithPotential
// also sums their potential into phi from the same 1/r (cell_terms): the accelerations are bit for
// bit those of the force-only loop.
template <bool WithPotential, class Real>
void accumulate_cells(const ListScratch<Real>& l, Real xi, Real yi, Real zi, Real eps2, Real& ax, Real& ay,
                      Real& az, Real& phi) {
    constexpr int kLanes = 8;
    Real sx[kLanes] = {}, sy[kLanes] = {}, sz[kLanes] = {}, sp[kLanes] = {};
    const std::size_t n = l.cx.size();
    auto term = [&](std::size_t k, int lane) {
        const CellMoments<Real> c{l.cm[k], l.qxx[k], l.qyy[k], l.qzz[k], l.qxy[k], l.qxz[k], l.qyz[k]};
        cell_terms<WithPotential>(l.cx[k] - xi, l.cy[k] - yi, l.cz[k] - zi, c, eps2, sx[lane], sy[lane], sz[lane],
                                  sp[lane]);
    };
    std::size_t j = 0;
    for (; j + kLanes <= n; j += kLanes)
        for (int k = 0; k < kLanes; ++k) term(j + k, k);
    for (; j < n; ++j) term(j, 0);
    for (int k = 0; k < kLanes; ++k) ax += sx[k], ay += sy[k], az += sz[k];
    if constexpr (WithPotential)
        for (int k = 0; k < kLanes; ++k) phi += sp[k];
}

// Pull of the list's bodies on (xi, yi, zi); eight lanes of partial sums as in the direct sum.
// With eps2 > 0 the body itself contributes exactly 0 (dx = 0); with eps2 = 0 (Guard) a term at
// zero separation (itself, or a coincident body) is skipped, which costs the loop its vectorising.
// WithPotential also sums -m_j / r into phi, from the same 1/r, except at list position `self`
// (the body's own -m_i / eps): a multiply more per term, the accelerations bit for bit those of the
// force-only loop. Only the block of eight holding `self` tests for it: a compare of every index
// kept the loop from vectorising (1.5x a force pass at 64K instead of ~1.1x).
template <bool Guard, bool WithPotential, class Real>
void accumulate_bodies(const ListScratch<Real>& l, std::size_t self, Real xi, Real yi, Real zi, Real eps2, Real& ax,
                       Real& ay, Real& az, Real& phi) {
    constexpr int kLanes = 8;
    Real sx[kLanes] = {}, sy[kLanes] = {}, sz[kLanes] = {}, sp[kLanes] = {};
    const std::size_t n = l.bx.size();
    const Real *x = l.bx.data(), *y = l.by.data(), *z = l.bz.data(), *m = l.bm.data();
    std::size_t j = 0;
    auto term = [&](std::size_t k, int lane, bool is_self) {
        const Real dx = x[k] - xi, dy = y[k] - yi, dz = z[k] - zi;
        const Real r2 = dx * dx + dy * dy + dz * dz + eps2;
        if (Guard && !(r2 > Real(0))) return;
        const Real inv_r = Real(1) / std::sqrt(r2);
        const Real s = m[k] * inv_r * inv_r * inv_r;
        sx[lane] += dx * s;
        sy[lane] += dy * s;
        sz[lane] += dz * s;
        if constexpr (WithPotential)
            if (!is_self) sp[lane] -= m[k] * inv_r;
    };
    for (; j + kLanes <= n; j += kLanes) {
        if (WithPotential && self - j < std::size_t(kLanes))
            for (int k = 0; k < kLanes; ++k) term(j + k, k, j + k == self);
        else
            for (int k = 0; k < kLanes; ++k) term(j + k, k, false);
    }
    for (; j < n; ++j) term(j, 0, j == self);
    for (int k = 0; k < kLanes; ++k) ax += sx[k], ay += sy[k], az += sz[k];
    if constexpr (WithPotential)
        for (int k = 0; k < kLanes; ++k) phi += sp[k];
}

// Potential of the list's bodies [begin, end) at (xi, yi, zi): -sum m_j / r_j, eight lanes. As
// in accumulate_bodies, Guard (eps2 = 0) skips a term at zero separation.
template <bool Guard, class Real>
Real bodies_potential(const ListScratch<Real>& l, std::size_t begin, std::size_t end, Real xi, Real yi, Real zi,
                      Real eps2) {
    constexpr int kLanes = 8;
    Real sum[kLanes] = {};
    const Real *x = l.bx.data(), *y = l.by.data(), *z = l.bz.data(), *m = l.bm.data();
    auto term = [&](std::size_t k, int lane) {
        const Real dx = x[k] - xi, dy = y[k] - yi, dz = z[k] - zi;
        const Real r2 = dx * dx + dy * dy + dz * dz + eps2;
        if (Guard && !(r2 > Real(0))) return;
        sum[lane] -= m[k] / std::sqrt(r2);
    };
    std::size_t j = begin;
    for (; j + kLanes <= end; j += kLanes)
        for (int k = 0; k < kLanes; ++k) term(j + k, k);
    for (; j < end; ++j) term(j, 0);
    Real total = 0;
    for (int k = 0; k < kLanes; ++k) total += sum[k];
    return total;
}

template <class Real>
Real cells_potential(const ListScratch<Real>& l, Real xi, Real yi, Real zi, Real eps2) {
    constexpr int kLanes = 8;
    Real sum[kLanes] = {};
    const std::size_t n = l.cx.size();
    auto term = [&](std::size_t k, int lane) {
        const CellMoments<Real> c{l.cm[k], l.qxx[k], l.qyy[k], l.qzz[k], l.qxy[k], l.qxz[k], l.qyz[k]};
        sum[lane] += cell_potential(l.cx[k] - xi, l.cy[k] - yi, l.cz[k] - zi, c, eps2);
    };
    std::size_t j = 0;
    for (; j + kLanes <= n; j += kLanes)
        for (int k = 0; k < kLanes; ++k) term(j + k, k);
    for (; j < n; ++j) term(j, 0);
    Real total = 0;
    for (int k = 0; k < kLanes; ++k) total += sum[k];
    return total;
}

enum class Pass { Force, Potential, ForceAndPotential };

template <class Real>
class HostTree {
public:
    HostTree(const Real* x, const Real* y, const Real* z, const Real* m, std::size_t n, const TreeParams& p)
        : x_(x), y_(y), z_(z), m_(m), n_(n), params_(p) {}

    void build(TreeStats& stats) {
        const auto t0 = Clock::now();
        sort_bodies();
        build_nodes();
        stats.build_ms = ms_since(t0);
        const auto t1 = Clock::now();
        compute_moments();
        stats.moments_ms = ms_since(t1);
        stats.nodes = nodes_.size();
        for (const Node& nd : nodes_) {
            if (nd.children != 0) continue;
            ++stats.leaves;
            stats.largest_leaf = std::max<std::size_t>(stats.largest_leaf, nd.end - nd.begin);
            stats.depth = std::max<int>(stats.depth, nd.level);
        }
    }

    // Block time steps: only the bodies listed (input indices) get a force; the groups without one
    // are not walked, and a group's box is that of its listed bodies (its list the shorter for it).
    void restrict_to(const std::uint32_t* active, std::size_t n_active) {
        std::vector<std::uint8_t> listed(n_, 0);
        for (std::size_t k = 0; k < n_active; ++k) {
            if (active[k] >= n_)
                throw std::invalid_argument("tree code: active body " + std::to_string(active[k]) + " of " +
                                            std::to_string(n_));
            listed[active[k]] = 1;
        }
        active_.resize(n_);
        for (std::size_t s = 0; s < n_; ++s) active_[s] = listed[order_[s]];
    }

    // The relative criterion's scale: alpha |a| of each body's previous acceleration (input order).
    void set_previous_accelerations(const Real* ax, const Real* ay, const Real* az) {
        allowed_.resize(n_);
        const Real alpha = Real(params_.alpha);
        for (std::size_t s = 0; s < n_; ++s) {
            const std::uint32_t i = order_[s];
            allowed_[s] = alpha * std::sqrt(ax[i] * ax[i] + ay[i] * ay[i] + az[i] * az[i]);
        }
    }

    // One walk, one criterion; the pass picks the evaluation only: Force (accelerations into ax, ay,
    // az), Potential (potentials into phi), or both from one list and one 1/r per term.
    template <Pass What>
    void walk(Real eps2, Real* ax, Real* ay, Real* az, Real* phi, TreeStats& stats) {
        const auto t0 = Clock::now();
        collect_groups();
        stats.groups = groups_.size();
        std::atomic<std::size_t> next{0};
        std::atomic<std::uint64_t> body_terms{0}, cell_terms{0};
        ThreadPool& pool = shared_thread_pool();
        // One chunk per worker, each taking groups from a shared counter: groups near the centre of a
        // galaxy have lists several times longer than those in the outskirts.
        pool.parallel_for(2 * pool.size(), [&](std::size_t, std::size_t) {
            ListScratch<Real> list;
            std::uint64_t bt = 0, ct = 0;
            for (std::size_t g; (g = next.fetch_add(1)) < groups_.size();) {
                const std::uint64_t members = active_members(groups_[g]);
                if (members == 0) continue;
                build_list<What != Pass::Force>(groups_[g], list);
                if constexpr (What == Pass::Potential)
                    evaluate_potential(groups_[g], list, eps2, phi);
                else
                    evaluate<What == Pass::ForceAndPotential>(groups_[g], list, eps2, ax, ay, az, phi);
                bt += members * list.bx.size();
                ct += members * list.cx.size();
            }
            body_terms += bt;
            cell_terms += ct;
        });
        stats.body_interactions = double(body_terms.load());
        stats.cell_interactions = double(cell_terms.load());
        stats.walk_ms = ms_since(t0);
    }

private:
    bool active(std::uint32_t s) const { return active_.empty() || active_[s]; }
    std::uint64_t active_members(const std::pair<std::uint32_t, std::uint32_t>& group) const {
        if (active_.empty()) return group.second - group.first;
        std::uint64_t count = 0;
        for (std::uint32_t s = group.first; s < group.second; ++s) count += active_[s];
        return count;
    }

    // Morton keys on the bounding cube, bodies sorted by key (stable: equal keys keep input order).
    void sort_bodies() {
        double lo[3] = {x_[0], y_[0], z_[0]}, hi[3] = {x_[0], y_[0], z_[0]};
        for (std::size_t i = 1; i < n_; ++i) {
            const double p[3] = {x_[i], y_[i], z_[i]};
            for (int a = 0; a < 3; ++a) lo[a] = std::min(lo[a], p[a]), hi[a] = std::max(hi[a], p[a]);
        }
        double side = std::max({hi[0] - lo[0], hi[1] - lo[1], hi[2] - lo[2]});
        // A point (N = 1, or every body at one place) gets a unit cube; otherwise a cube a little
        // larger than the extent, so that no coordinate lands exactly on the top edge.
        side = side > 0 ? side * (1 + 1e-6) : 1.0;
        for (int a = 0; a < 3; ++a) lo_[a] = 0.5 * (lo[a] + hi[a]) - 0.5 * side;
        side_ = side;
        const double scale = double(kKeyCells) / side;
        std::vector<std::uint64_t> keys(n_);
        for (std::size_t i = 0; i < n_; ++i)
            keys[i] = morton_key(grid_cell((x_[i] - lo_[0]) * scale), grid_cell((y_[i] - lo_[1]) * scale),
                                 grid_cell((z_[i] - lo_[2]) * scale));
        order_.resize(n_);
        std::iota(order_.begin(), order_.end(), 0u);
        std::stable_sort(order_.begin(), order_.end(), [&](std::uint32_t a, std::uint32_t b) { return keys[a] < keys[b]; });
        keys_.resize(n_);
        sx_.resize(n_), sy_.resize(n_), sz_.resize(n_), sm_.resize(n_);
        for (std::size_t s = 0; s < n_; ++s) {
            const std::uint32_t i = order_[s];
            keys_[s] = keys[i];
            sx_[s] = x_[i], sy_[s] = y_[i], sz_[s] = z_[i], sm_[s] = m_[i];
        }
    }

    // Breadth first: a node is split into its non-empty octants unless it holds at most leaf_size
    // bodies or all its keys are equal (bodies closer than the finest grid cell: the 21-level
    // limit, reached only by coincident or nearly coincident bodies).
    void build_nodes() {
        nodes_.clear();
        Node root;
        root.begin = 0, root.end = static_cast<std::uint32_t>(n_);
        root.cx = lo_[0] + 0.5 * side_, root.cy = lo_[1] + 0.5 * side_, root.cz = lo_[2] + 0.5 * side_;
        root.half = 0.5 * side_;
        nodes_.push_back(root);
        for (std::size_t i = 0; i < nodes_.size(); ++i) {
            const Node nd = nodes_[i];
            if (nd.end - nd.begin <= std::uint32_t(params_.leaf_size) || keys_[nd.begin] == keys_[nd.end - 1]) continue;
            const int shift = 3 * (kMaxLevel - 1 - nd.level);
            auto digit = [&](std::uint64_t k) { return int((k >> shift) & 7); };
            const auto first = static_cast<std::uint32_t>(nodes_.size());
            std::uint8_t count = 0;
            std::uint32_t pos = nd.begin;
            for (int d = 0; d < 8 && pos < nd.end; ++d) {
                const auto it = std::partition_point(keys_.begin() + pos, keys_.begin() + nd.end,
                                                     [&](std::uint64_t k) { return digit(k) <= d; });
                const auto end = static_cast<std::uint32_t>(it - keys_.begin());
                if (end == pos) continue;
                Node c;
                c.begin = pos, c.end = end;
                c.level = static_cast<std::uint8_t>(nd.level + 1);
                c.half = 0.5 * nd.half;
                c.cx = nd.cx + ((d & 4) ? c.half : -c.half);
                c.cy = nd.cy + ((d & 2) ? c.half : -c.half);
                c.cz = nd.cz + ((d & 1) ? c.half : -c.half);
                nodes_.push_back(c);
                ++count;
                pos = end;
            }
            nodes_[i].child = first;
            nodes_[i].children = count;
        }
    }

    // The bounding box of node k's bodies (children's boxes are already there: k runs backwards).
    void bound_bodies(std::size_t k, std::vector<double>& lo, std::vector<double>& hi) const {
        const Node& nd = nodes_[k];
        double l[3] = {HUGE_VAL, HUGE_VAL, HUGE_VAL}, h[3] = {-HUGE_VAL, -HUGE_VAL, -HUGE_VAL};
        auto grow = [&](const double* plo, const double* phi) {
            for (int a = 0; a < 3; ++a) l[a] = std::min(l[a], plo[a]), h[a] = std::max(h[a], phi[a]);
        };
        if (nd.children == 0) {
            for (std::uint32_t s = nd.begin; s < nd.end; ++s) {
                const double p[3] = {double(sx_[s]), double(sy_[s]), double(sz_[s])};
                grow(p, p);
            }
        } else {
            for (std::uint32_t ch = nd.child; ch < nd.child + nd.children; ++ch) grow(&lo[3 * ch], &hi[3 * ch]);
        }
        for (int a = 0; a < 3; ++a) lo[3 * k + a] = l[a], hi[3 * k + a] = h[a];
    }

    // Bottom-up in double: leaves sum their bodies, parents shift their children's moments to
    // their own centre of mass (parallel axis). A massless cell gets its geometric centre.
    void compute_moments() {
        const std::size_t count = nodes_.size();
        std::vector<double> mass(count), com(3 * count), quad(6 * count), box_lo(3 * count), box_hi(3 * count);
        for (std::size_t k = count; k-- > 0;) {
            const Node& nd = nodes_[k];
            bound_bodies(k, box_lo, box_hi);
            double M = 0, c[3] = {0, 0, 0}, q[6] = {0, 0, 0, 0, 0, 0};
            auto add_point = [&](double m, double px, double py, double pz) {
                M += m, c[0] += m * px, c[1] += m * py, c[2] += m * pz;
            };
            if (nd.children == 0) {
                for (std::uint32_t s = nd.begin; s < nd.end; ++s) add_point(sm_[s], sx_[s], sy_[s], sz_[s]);
            } else {
                for (std::uint32_t ch = nd.child; ch < nd.child + nd.children; ++ch)
                    add_point(mass[ch], com[3 * ch], com[3 * ch + 1], com[3 * ch + 2]);
            }
            if (M > 0) c[0] /= M, c[1] /= M, c[2] /= M;
            else c[0] = nd.cx, c[1] = nd.cy, c[2] = nd.cz;
            auto add_quad = [&](double m, double dx, double dy, double dz) {
                const double r2 = dx * dx + dy * dy + dz * dz;
                q[0] += m * (3 * dx * dx - r2), q[1] += m * (3 * dy * dy - r2), q[2] += m * (3 * dz * dz - r2);
                q[3] += m * 3 * dx * dy, q[4] += m * 3 * dx * dz, q[5] += m * 3 * dy * dz;
            };
            if (nd.children == 0) {
                for (std::uint32_t s = nd.begin; s < nd.end; ++s) add_quad(sm_[s], sx_[s] - c[0], sy_[s] - c[1], sz_[s] - c[2]);
            } else {
                for (std::uint32_t ch = nd.child; ch < nd.child + nd.children; ++ch) {
                    add_quad(mass[ch], com[3 * ch] - c[0], com[3 * ch + 1] - c[1], com[3 * ch + 2] - c[2]);
                    for (int a = 0; a < 6; ++a) q[a] += quad[6 * ch + a];
                }
            }
            mass[k] = M;
            for (int a = 0; a < 3; ++a) com[3 * k + a] = c[a];
            for (int a = 0; a < 6; ++a) quad[6 * k + a] = q[a];
        }
        cells_.resize(count);
        for (std::size_t k = 0; k < count; ++k) {
            const double* c = &com[3 * k];
            const TightCube t = tight_cube(&box_lo[3 * k], &box_hi[3 * k]);
            const double delta = std::sqrt((c[0] - t.cx) * (c[0] - t.cx) + (c[1] - t.cy) * (c[1] - t.cy) +
                                           (c[2] - t.cz) * (c[2] - t.cz));
            const double r_open = 2 * t.half / params_.theta + delta;
            WalkCell<Real>& w = cells_[k];
            w.x = Real(c[0]), w.y = Real(c[1]), w.z = Real(c[2]);
            // Beyond float's range (theta -> 0 on a wide system) the cell simply always opens.
            w.open_r2 = Real(std::min(r_open * r_open, double(std::numeric_limits<Real>::max())));
            const double side = 2 * t.half;
            w.error_scale = Real(std::min(mass[k] * side * side * side, double(std::numeric_limits<Real>::max())));
            w.lox = Real(t.cx - t.half), w.loy = Real(t.cy - t.half), w.loz = Real(t.cz - t.half);
            w.hix = Real(t.cx + t.half), w.hiy = Real(t.cy + t.half), w.hiz = Real(t.cz + t.half);
            const double* q = &quad[6 * k];
            w.mom = {Real(mass[k]), Real(q[0]), Real(q[1]), Real(q[2]), Real(q[3]), Real(q[4]), Real(q[5])};
        }
    }

    // Groups: the largest cells with at most group_size bodies, in key order; a leaf holding more
    // (coincident bodies) is cut into runs of group_size.
    void collect_groups() {
        groups_.clear();
        const auto gs = static_cast<std::uint32_t>(params_.group_size);
        std::vector<std::uint32_t> stack{0};
        while (!stack.empty()) {
            const Node& nd = nodes_[stack.back()];
            stack.pop_back();
            if (nd.end - nd.begin <= gs || nd.children == 0) {
                for (std::uint32_t b = nd.begin; b < nd.end; b += gs) groups_.emplace_back(b, std::min(nd.end, b + gs));
                continue;
            }
            for (std::uint32_t ch = nd.child + nd.children; ch-- > nd.child;) stack.push_back(ch);
        }
    }

    // The bounding box of the group's bodies that get a force (all of them but under block steps).
    void group_box(const std::pair<std::uint32_t, std::uint32_t>& group, Real* lo, Real* hi) const {
        std::uint32_t s = group.first;
        while (!active(s)) ++s;  // a walked group holds at least one
        lo[0] = hi[0] = sx_[s], lo[1] = hi[1] = sy_[s], lo[2] = hi[2] = sz_[s];
        for (++s; s < group.second; ++s) {
            if (!active(s)) continue;
            lo[0] = std::min(lo[0], sx_[s]), hi[0] = std::max(hi[0], sx_[s]);
            lo[1] = std::min(lo[1], sy_[s]), hi[1] = std::max(hi[1], sy_[s]);
            lo[2] = std::min(lo[2], sz_[s]), hi[2] = std::max(hi[2], sz_[s]);
        }
    }

    // A cell is accepted as a multipole for the whole group when its centre of mass is farther
    // than l / theta + delta from the group's bounding box and its cube does not overlap the box
    // (so a group never sees itself through a multipole, whatever theta); with the relative
    // criterion also when m l^3 / d^5 <= alpha |a| for the group's smallest previous |a|
    // (accepted(), the GPU walk's test).
    template <bool FindSelf>
    void build_list(const std::pair<std::uint32_t, std::uint32_t>& group, ListScratch<Real>& list) const {
        list.clear();
        if constexpr (FindSelf) list.self_at.assign(group.second - group.first, ListScratch<Real>::kNotListed);
        Real lo[3] = {}, hi[3] = {};
        group_box(group, lo, hi);
        const Real allowed = allowed_error(group);
        list.stack.push_back(0);
        while (!list.stack.empty()) {
            const std::uint32_t k = list.stack.back();
            list.stack.pop_back();
            const WalkCell<Real>& c = cells_[k];
            const bool overlaps = c.lox <= hi[0] && c.hix >= lo[0] && c.loy <= hi[1] && c.hiy >= lo[1] &&
                                  c.loz <= hi[2] && c.hiz >= lo[2];
            if (!overlaps &&
                accepted(c, box_distance2(c.x, c.y, c.z, lo[0], lo[1], lo[2], hi[0], hi[1], hi[2]), allowed)) {
                list.add_cell(c.x, c.y, c.z, c.mom);
                continue;
            }
            const Node& nd = nodes_[k];
            if (nd.children == 0) {
                if constexpr (FindSelf) {
                    const auto offset = static_cast<std::uint32_t>(list.bx.size());
                    for (std::uint32_t s = std::max(nd.begin, group.first); s < std::min(nd.end, group.second); ++s)
                        list.self_at[s - group.first] = offset + (s - nd.begin);
                }
                list.bx.insert(list.bx.end(), sx_.begin() + nd.begin, sx_.begin() + nd.end);
                list.by.insert(list.by.end(), sy_.begin() + nd.begin, sy_.begin() + nd.end);
                list.bz.insert(list.bz.end(), sz_.begin() + nd.begin, sz_.begin() + nd.end);
                list.bm.insert(list.bm.end(), sm_.begin() + nd.begin, sm_.begin() + nd.end);
                continue;
            }
            for (std::uint32_t ch = nd.child + nd.children; ch-- > nd.child;) list.stack.push_back(ch);
        }
    }

    // alpha times the smallest previous |a| of the group's walked bodies; infinite without the
    // relative criterion.
    Real allowed_error(const std::pair<std::uint32_t, std::uint32_t>& group) const {
        Real allowed = std::numeric_limits<Real>::infinity();
        if (allowed_.empty()) return allowed;
        for (std::uint32_t s = group.first; s < group.second; ++s)
            if (active(s)) allowed = std::min(allowed, allowed_[s]);
        return allowed;
    }

    static bool accepted(const WalkCell<Real>& c, Real d2, Real allowed) {
        return d2 > c.open_r2 && c.error_scale <= allowed * d2 * d2 * std::sqrt(d2);
    }

    template <bool WithPotential>
    void evaluate(const std::pair<std::uint32_t, std::uint32_t>& group, const ListScratch<Real>& list, Real eps2,
                  Real* ax, Real* ay, Real* az, Real* phi) const {
        for (std::uint32_t s = group.first; s < group.second; ++s) {
            if (!active(s)) continue;
            const Real xi = sx_[s], yi = sy_[s], zi = sz_[s];
            const std::size_t self = WithPotential ? list.self_at[s - group.first] : ListScratch<Real>::kNotListed;
            Real a[3] = {0, 0, 0}, p = 0;
            if (eps2 > Real(0))
                accumulate_bodies<false, WithPotential>(list, self, xi, yi, zi, eps2, a[0], a[1], a[2], p);
            else
                accumulate_bodies<true, WithPotential>(list, self, xi, yi, zi, eps2, a[0], a[1], a[2], p);
            accumulate_cells<WithPotential>(list, xi, yi, zi, eps2, a[0], a[1], a[2], p);
            const std::uint32_t i = order_[s];
            ax[i] = a[0], ay[i] = a[1], az[i] = a[2];
            if constexpr (WithPotential) phi[i] = p;
        }
    }

    // The body itself is skipped by splitting the body list around it (as the direct sum skips i):
    // subtracting its term afterwards would cancel -m_i / eps in float, large for a small eps.
    void evaluate_potential(const std::pair<std::uint32_t, std::uint32_t>& group, const ListScratch<Real>& list,
                            Real eps2, Real* phi) const {
        const std::size_t listed = list.bx.size();
        for (std::uint32_t s = group.first; s < group.second; ++s) {
            const Real xi = sx_[s], yi = sy_[s], zi = sz_[s];
            const std::uint32_t self = list.self_at[s - group.first];
            const std::size_t cut = self == ListScratch<Real>::kNotListed ? listed : self;
            const std::size_t resume = self == ListScratch<Real>::kNotListed ? listed : self + 1;
            auto bodies = eps2 > Real(0) ? bodies_potential<false, Real> : bodies_potential<true, Real>;
            phi[order_[s]] = bodies(list, 0, cut, xi, yi, zi, eps2) + bodies(list, resume, listed, xi, yi, zi, eps2) +
                             cells_potential(list, xi, yi, zi, eps2);
        }
    }

    const Real *x_, *y_, *z_, *m_;
    std::size_t n_;
    TreeParams params_;
    double lo_[3] = {0, 0, 0}, side_ = 1;
    std::vector<std::uint32_t> order_;  // key order -> input index
    std::vector<std::uint64_t> keys_;
    std::vector<Real> sx_, sy_, sz_, sm_;
    std::vector<Node> nodes_;
    std::vector<WalkCell<Real>> cells_;
    std::vector<std::pair<std::uint32_t, std::uint32_t>> groups_;
    std::vector<std::uint8_t> active_;  // in key order; empty: every body gets a force
    std::vector<Real> allowed_;         // in key order: alpha |a| of the previous pass; empty: geometric only
};


// The checks and the build both entries share; returns false when there is nothing to walk.
template <class Real>
bool prepare(const Real* x, const Real* y, const Real* z, const Real* m, std::size_t n, Real eps2,
             const TreeParams& params, TreeStats& st) {
    if (std::string reason = check_tree_params(params); !reason.empty())
        throw std::invalid_argument("tree code: " + reason);
    if (!(eps2 >= 0)) throw std::invalid_argument("tree code: softening^2 must be >= 0");
    if (n > std::numeric_limits<std::uint32_t>::max() / 2)
        throw std::invalid_argument("tree code: " + std::to_string(n) + " bodies is above the CPU tree's limit of 2^31");
    st = TreeStats{};
    if (n == 0) return false;
    require_finite(x, y, z, m, n);
    return true;
}

// One tree over the bodies, walked once for what `P` asks (forces, potentials or both): the
// entry points below differ only in that.
// `previous`: the previous pass's accelerations (input order; may be ax, ay, az themselves), which
// the relative criterion (params.alpha > 0) measures each group by; null: a walk with the geometric
// criterion alone estimates them first (a second walk's cost: the first pass of a run).
template <Pass P, class Real>
void build_and_walk(const Real* x, const Real* y, const Real* z, const Real* m, std::size_t n, Real eps2,
                    const TreeParams& params, Real* ax, Real* ay, Real* az, Real* phi, TreeStats* stats,
                    const PreviousAccelerations<Real>& previous, const std::uint32_t* active = nullptr,
                    std::size_t n_active = 0) {
    TreeStats local;
    TreeStats& st = stats ? *stats : local;
    if (!prepare(x, y, z, m, n, eps2, params, st)) return;
    HostTree<Real> tree(x, y, z, m, n, params);
    tree.build(st);
    if (params.alpha > 0) {
        if (previous.ax != nullptr) {
            tree.set_previous_accelerations(previous.ax, previous.ay, previous.az);
        } else {
            std::vector<Real> ex(n), ey(n), ez(n);
            tree.template walk<Pass::Force>(eps2, ex.data(), ey.data(), ez.data(), nullptr, st);
            tree.set_previous_accelerations(ex.data(), ey.data(), ez.data());
        }
    }
    if (active) tree.restrict_to(active, n_active);
    tree.template walk<P>(eps2, ax, ay, az, phi, st);
}

template <class Real>
PreviousAccelerations<Real> from_outputs(const Real* ax, const Real* ay, const Real* az, bool previous) {
    return previous ? PreviousAccelerations<Real>{ax, ay, az} : PreviousAccelerations<Real>{};
}

}  // namespace

template <class Real>
void tree_accelerations(const Real* x, const Real* y, const Real* z, const Real* m, std::size_t n, Real eps2,
                        const TreeParams& params, Real* ax, Real* ay, Real* az, TreeStats* stats, bool previous) {
    build_and_walk<Pass::Force, Real>(x, y, z, m, n, eps2, params, ax, ay, az, nullptr, stats,
                                      from_outputs(ax, ay, az, previous));
}

template <class Real>
void tree_accelerations_active(const Real* x, const Real* y, const Real* z, const Real* m, std::size_t n, Real eps2,
                               const TreeParams& params, const std::uint32_t* active, std::size_t n_active, Real* ax,
                               Real* ay, Real* az, TreeStats* stats, bool previous) {
    build_and_walk<Pass::Force, Real>(x, y, z, m, n, eps2, params, ax, ay, az, nullptr, stats,
                                      from_outputs(ax, ay, az, previous), active, n_active);
}

template <class Real>
void tree_potentials(const Real* x, const Real* y, const Real* z, const Real* m, std::size_t n, Real eps2,
                     const TreeParams& params, Real* phi, TreeStats* stats, PreviousAccelerations<Real> previous) {
    build_and_walk<Pass::Potential, Real>(x, y, z, m, n, eps2, params, nullptr, nullptr, nullptr, phi, stats, previous);
}

template <class Real>
void tree_accelerations_and_potentials(const Real* x, const Real* y, const Real* z, const Real* m, std::size_t n,
                                       Real eps2, const TreeParams& params, Real* ax, Real* ay, Real* az, Real* phi,
                                       TreeStats* stats, bool previous) {
    build_and_walk<Pass::ForceAndPotential, Real>(x, y, z, m, n, eps2, params, ax, ay, az, phi, stats,
                                                  from_outputs(ax, ay, az, previous));
}

template <class Real>
double tree_potential_energy(const Real* x, const Real* y, const Real* z, const Real* m, std::size_t n, Real eps2,
                             const TreeParams& params, TreeStats* stats, PreviousAccelerations<Real> previous) {
    std::vector<Real> phi(n);
    tree_potentials(x, y, z, m, n, eps2, params, phi.data(), stats, previous);
    double sum = 0;
    for (std::size_t i = 0; i < n; ++i) sum += double(m[i]) * double(phi[i]);
    return 0.5 * sum;
}

template void tree_accelerations_and_potentials<float>(const float*, const float*, const float*, const float*,
                                                       std::size_t, float, const TreeParams&, float*, float*, float*,
                                                       float*, TreeStats*, bool);
template void tree_accelerations_and_potentials<double>(const double*, const double*, const double*, const double*,
                                                        std::size_t, double, const TreeParams&, double*, double*,
                                                        double*, double*, TreeStats*, bool);
template void tree_accelerations_active<float>(const float*, const float*, const float*, const float*, std::size_t,
                                               float, const TreeParams&, const std::uint32_t*, std::size_t, float*,
                                               float*, float*, TreeStats*, bool);
template void tree_accelerations_active<double>(const double*, const double*, const double*, const double*,
                                                std::size_t, double, const TreeParams&, const std::uint32_t*,
                                                std::size_t, double*, double*, double*, TreeStats*, bool);
template void tree_potentials<float>(const float*, const float*, const float*, const float*, std::size_t, float,
                                     const TreeParams&, float*, TreeStats*,
                                     PreviousAccelerations<float>);
template void tree_potentials<double>(const double*, const double*, const double*, const double*, std::size_t,
                                      double, const TreeParams&, double*, TreeStats*,
                                      PreviousAccelerations<double>);
template double tree_potential_energy<float>(const float*, const float*, const float*, const float*, std::size_t,
                                             float, const TreeParams&, TreeStats*,
                                             PreviousAccelerations<float>);
template double tree_potential_energy<double>(const double*, const double*, const double*, const double*,
                                              std::size_t, double, const TreeParams&, TreeStats*,
                                              PreviousAccelerations<double>);
template void tree_accelerations<float>(const float*, const float*, const float*, const float*, std::size_t, float,
                                        const TreeParams&, float*, float*, float*, TreeStats*, bool);
template void tree_accelerations<double>(const double*, const double*, const double*, const double*, std::size_t,
                                         double, const TreeParams&, double*, double*, double*, TreeStats*, bool);

}  // namespace nbody::tree
