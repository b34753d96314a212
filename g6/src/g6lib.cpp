// libg6.so: the GRAPE-6 calls (g6lib.h) on a Hermite ForceEngine. One "cluster" (GRAPE-6 board)
// per cluster id, each with its own engine and j-memory. Exceptions stop at this C boundary: they
// become a message on stderr and a non-zero return.

// Only the g6 calls are exported (the target builds with hidden visibility).
#pragma GCC visibility push(default)
#include "g6lib.h"
#pragma GCC visibility pop

#include <cstdio>
#include <cstdlib>
#include <exception>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "nbody/sim/hermite/force_engine.hpp"

namespace {

using nbody::Vec3d;
using namespace nbody::hermite;

// Sapporo's pipe count: a GRAPE-6 code sizes its i-particle arrays by g6_npipes() (GRAPE-6 had 48).
constexpr int kPipes = 256;

struct Cluster {
    std::unique_ptr<ForceEngine> engine;
    double ti = 0;
    std::vector<IParticle> in;
    std::vector<IForce> out;
    std::size_t nj = 0;
    bool neighbours = false;     // the last calculation asked for neighbour lists
    bool lists_read = false;     // g6_read_neighbour_list called since
    int error = 0;               // of the last g6calc_firsthalf
};

std::mutex g_mutex;
std::map<int, Cluster> g_clusters;

int fail(const char* call, const std::string& what) {
    std::fprintf(stderr, "libg6: %s: %s\n", call, what.c_str());
    return 1;
}

Cluster* find(int id, const char* call) {
    auto it = g_clusters.find(id);
    if (it == g_clusters.end() || !it->second.engine) {
        fail(call, "cluster " + std::to_string(id) + " is not open (call g6_open first)");
        return nullptr;
    }
    return &it->second;
}

Vec3d vec(const double v[3]) { return {v[0], v[1], v[2]}; }

}  // namespace

extern "C" {

int g6_open(int cluster_id) {
    std::lock_guard lock(g_mutex);
    try {
        const char* env = std::getenv("G6_ENGINE");
        const EngineKind kind = parse_engine_kind(env && *env ? env : "auto");
        std::string why;
        Cluster c;
        c.engine = make_force_engine(kind, {}, &why);
        c.engine->want_nearest(true);  // g6calc_lasthalf2's nearest-neighbour indices
        if (std::getenv("G6_VERBOSE")) std::fprintf(stderr, "libg6: cluster %d: %s\n", cluster_id, why.c_str());
        g_clusters[cluster_id] = std::move(c);
        return 0;
    } catch (const std::exception& e) {
        return fail("g6_open", e.what());
    }
}

int g6_close(int cluster_id) {
    std::lock_guard lock(g_mutex);
    return g_clusters.erase(cluster_id) ? 0 : fail("g6_close", "cluster " + std::to_string(cluster_id) + " is not open");
}

int g6_npipes(void) { return kPipes; }

int g6_set_tunit(double) { return 0; }
int g6_set_xunit(double) { return 0; }

int g6_set_ti(int cluster_id, double ti) {
    std::lock_guard lock(g_mutex);
    Cluster* c = find(cluster_id, "g6_set_ti");
    if (!c) return 1;
    c->ti = ti;
    return 0;
}

int g6_set_j_particle(int cluster_id, int address, int index, double tj, double /*dtj*/, double mass,
                      double /*k18*/[3], double j6[3], double a2[3], double v[3], double x[3]) {
    std::lock_guard lock(g_mutex);
    Cluster* c = find(cluster_id, "g6_set_j_particle");
    if (!c) return 1;
    if (address < 0) return fail("g6_set_j_particle", "negative address " + std::to_string(address));
    try {
        JParticle p;
        p.id = index;
        p.t = tj;
        p.mass = mass;
        p.x = vec(x);
        p.v = vec(v);
        p.a2 = vec(a2);
        p.j6 = vec(j6);
        c->engine->set_j(std::size_t(address), p);
        return 0;
    } catch (const std::exception& e) {
        return fail("g6_set_j_particle", e.what());
    }
}

void g6calc_firsthalf(int cluster_id, int nj, int ni, int index[], double xi[][3], double vi[][3],
                      double /*aold*/[][3], double /*j6old*/[][3], double /*phiold*/[], double eps2, double h2[]) {
    std::lock_guard lock(g_mutex);
    Cluster* c = find(cluster_id, "g6calc_firsthalf");
    if (!c) return;
    c->error = 0;
    try {
        if (ni < 0 || ni > kPipes)
            throw std::invalid_argument("ni = " + std::to_string(ni) + " outside 0.." + std::to_string(kPipes) + " (g6_npipes)");
        if (nj < 0 || std::size_t(nj) > c->engine->j_capacity())
            throw std::invalid_argument("nj = " + std::to_string(nj) + " but only " +
                                        std::to_string(c->engine->j_capacity()) + " j-particles were set");
        c->in.resize(std::size_t(ni));
        c->neighbours = false;
        for (int i = 0; i < ni; ++i) {
            IParticle& p = c->in[std::size_t(i)];
            p.id = index[i];
            p.x = vec(xi[i]);
            p.v = vec(vi[i]);
            p.h2 = h2 ? h2[i] : 0.0;
            c->neighbours = c->neighbours || p.h2 > 0;
        }
        c->out.resize(std::size_t(ni));
        c->nj = std::size_t(nj);
        c->engine->compute(c->ti, c->nj, c->in, eps2, c->out, c->neighbours);
        c->lists_read = false;
    } catch (const std::exception& e) {
        c->error = fail("g6calc_firsthalf", e.what());
    }
}

int g6calc_lasthalf2(int cluster_id, int /*nj*/, int ni, int /*index*/[], double /*xi*/[][3], double /*vi*/[][3],
                     double /*eps2*/, double /*h2*/[], double acc[][3], double jerk[][3], double pot[], int inn[]) {
    std::lock_guard lock(g_mutex);
    Cluster* c = find(cluster_id, "g6calc_lasthalf");
    if (!c) return 1;
    if (c->error) return c->error;
    if (ni != int(c->out.size()))
        return fail("g6calc_lasthalf", "ni = " + std::to_string(ni) + " differs from g6calc_firsthalf's " +
                                           std::to_string(c->out.size()));
    for (int i = 0; i < ni; ++i) {
        const IForce& f = c->out[std::size_t(i)];
        acc[i][0] = f.acc.x, acc[i][1] = f.acc.y, acc[i][2] = f.acc.z;
        jerk[i][0] = f.jerk.x, jerk[i][1] = f.jerk.y, jerk[i][2] = f.jerk.z;
        pot[i] = f.pot;
        if (inn) inn[i] = f.nearest;
    }
    return 0;
}

int g6calc_lasthalf(int cluster_id, int nj, int ni, int index[], double xi[][3], double vi[][3], double eps2,
                    double h2[], double acc[][3], double jerk[][3], double pot[]) {
    return g6calc_lasthalf2(cluster_id, nj, ni, index, xi, vi, eps2, h2, acc, jerk, pot, nullptr);
}

// GRAPE-6 buffers j-particle writes on the host and sends them in packets; here a write goes
// straight to the engine (which batches its own uploads), so there is nothing to flush.
int g6_initialize_jp_buffer(int cluster_id, int /*buf_size*/) {
    std::lock_guard lock(g_mutex);
    return find(cluster_id, "g6_initialize_jp_buffer") ? 0 : 1;
}
int g6_flush_jp_buffer(int cluster_id) {
    std::lock_guard lock(g_mutex);
    return find(cluster_id, "g6_flush_jp_buffer") ? 0 : 1;
}
// Hardware resets: the board state here is the j-memory, which stays until g6_close.
int g6_reset(int cluster_id) {
    std::lock_guard lock(g_mutex);
    return find(cluster_id, "g6_reset") ? 0 : 1;
}
int g6_reset_fofpga(int cluster_id) {
    std::lock_guard lock(g_mutex);
    return find(cluster_id, "g6_reset_fofpga") ? 0 : 1;
}

int g6_read_neighbour_list(int cluster_id) {
    std::lock_guard lock(g_mutex);
    Cluster* c = find(cluster_id, "g6_read_neighbour_list");
    if (!c) return 1;
    if (!c->neighbours) return fail("g6_read_neighbour_list", "the last calculation had no h2 > 0");
    c->lists_read = true;
    for (std::size_t i = 0; i < c->in.size(); ++i)
        if (c->engine->neighbour_overflow(i)) return 1;  // as GRAPE-6: some list overflowed its buffer
    return 0;
}

int g6_get_neighbour_list(int cluster_id, int ipipe, int maxlength, int* n_neighbours, int neighbour_list[]) {
    std::lock_guard lock(g_mutex);
    Cluster* c = find(cluster_id, "g6_get_neighbour_list");
    if (!c) return 1;
    if (!c->lists_read) return fail("g6_get_neighbour_list", "call g6_read_neighbour_list first");
    if (ipipe < 0 || std::size_t(ipipe) >= c->in.size())
        return fail("g6_get_neighbour_list", "pipe " + std::to_string(ipipe) + " outside 0.." +
                                                 std::to_string(int(c->in.size()) - 1));
    const auto list = c->engine->neighbours(std::size_t(ipipe));
    *n_neighbours = int(list.size());
    if (int(list.size()) > maxlength) return 1;  // too long for the caller's buffer: nothing copied
    for (std::size_t k = 0; k < list.size(); ++k) neighbour_list[k] = list[k];
    return 0;
}

// Fortran names: every argument by reference.
int g6_open_(int* id) { return g6_open(*id); }
int g6_close_(int* id) { return g6_close(*id); }
int g6_npipes_(void) { return g6_npipes(); }
int g6_set_tunit_(double* t) { return g6_set_tunit(*t); }
int g6_set_xunit_(double* x) { return g6_set_xunit(*x); }
int g6_set_ti_(int* id, double* ti) { return g6_set_ti(*id, *ti); }
int g6_set_j_particle_(int* id, int* address, int* index, double* tj, double* dtj, double* mass, double k18[3],
                       double j6[3], double a2[3], double v[3], double x[3]) {
    return g6_set_j_particle(*id, *address, *index, *tj, *dtj, *mass, k18, j6, a2, v, x);
}
void g6calc_firsthalf_(int* id, int* nj, int* ni, int index[], double xi[][3], double vi[][3], double aold[][3],
                       double j6old[][3], double phiold[], double* eps2, double h2[]) {
    g6calc_firsthalf(*id, *nj, *ni, index, xi, vi, aold, j6old, phiold, *eps2, h2);
}
int g6calc_lasthalf_(int* id, int* nj, int* ni, int index[], double xi[][3], double vi[][3], double* eps2,
                     double h2[], double acc[][3], double jerk[][3], double pot[]) {
    return g6calc_lasthalf(*id, *nj, *ni, index, xi, vi, *eps2, h2, acc, jerk, pot);
}
int g6calc_lasthalf2_(int* id, int* nj, int* ni, int index[], double xi[][3], double vi[][3], double* eps2,
                      double h2[], double acc[][3], double jerk[][3], double pot[], int inn[]) {
    return g6calc_lasthalf2(*id, *nj, *ni, index, xi, vi, *eps2, h2, acc, jerk, pot, inn);
}
int g6_initialize_jp_buffer_(int* id, int* size) { return g6_initialize_jp_buffer(*id, *size); }
int g6_flush_jp_buffer_(int* id) { return g6_flush_jp_buffer(*id); }
int g6_reset_(int* id) { return g6_reset(*id); }
int g6_reset_fofpga_(int* id) { return g6_reset_fofpga(*id); }
int g6_read_neighbour_list_(int* id) { return g6_read_neighbour_list(*id); }
int g6_get_neighbour_list_(int* id, int* ipipe, int* maxlength, int* n, int list[]) {
    return g6_get_neighbour_list(*id, *ipipe, *maxlength, n, list);
}

}  // extern "C"
