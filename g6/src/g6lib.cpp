// libg6.so: the GRAPE-6 calls (g6lib.h) on a Hermite ForceEngine. One "cluster" (GRAPE-6 board)
// per cluster id, each with its own engine and j-memory. Every argument is checked before it
// reaches the engine (a NaN, a negative eps2, an nj past the j-particles set would otherwise come
// back as NaN forces and a success); failures return the codes of g6lib.h with one line on stderr
// per kind of error, and no exception crosses this C boundary.

// Only the g6 calls are exported (the target builds with hidden visibility).
#pragma GCC visibility push(default)
#include "g6lib.h"
#pragma GCC visibility pop

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <map>
#include <memory>
#include <mutex>
#include <new>
#include <set>
#include <string>
#include <vector>

#include "nbody/sim/hermite/force_engine.hpp"

namespace {

using nbody::Vec3d;
using namespace nbody::hermite;

// Sapporo's pipe count: a GRAPE-6 code sizes its i-particle arrays by g6_npipes() (GRAPE-6 had 48).
constexpr int kPipes = 256;

// An error a call returns: its code (g6lib.h) and the one line said about it. `kind` groups the
// errors printed once (a NaN in xi is one kind, whichever particle carries it).
struct G6Failure {
    int code;
    const char* kind;
    std::string message;
};

[[noreturn]] void refuse(int code, const char* kind, std::string message) { throw G6Failure{code, kind, std::move(message)}; }

struct Cluster {
    std::unique_ptr<ForceEngine> engine;
    double ti = 0;
    std::string ti_error;          // why the last g6_set_ti was refused (then no calculation runs)
    std::vector<IParticle> in;
    std::vector<IForce> out;
    std::size_t nj = 0;
    bool neighbours = false;       // the last calculation asked for neighbour lists
    bool lists_read = false;       // g6_read_neighbour_list called since
    bool results = false;          // out holds the last g6calc_firsthalf's forces
    int error = G6_OK;             // of the last g6calc_firsthalf
    // Which addresses hold a j-particle, and how many from 0 on do without a gap: g6calc_firsthalf's
    // nj may not reach past them (the engine's memory beyond holds zeros or a refused write).
    std::vector<bool> written;
    std::size_t written_from_zero = 0;
    std::set<std::string> reported;  // call:kind of the errors printed while this cluster is open

    void mark_written(std::size_t address, bool holds) {
        if (address >= written.size()) written.resize(address + 1, false);
        written[address] = holds;
        if (!holds) written_from_zero = std::min(written_from_zero, address);
        while (written_from_zero < written.size() && written[written_from_zero]) ++written_from_zero;
    }
};

std::mutex g_mutex;
std::map<int, Cluster> g_clusters;
std::set<std::string> g_reported;  // call:kind of the errors printed for clusters not open

const char* code_name(int code) {
    switch (code) {
        case G6_ERROR_VALUE: return "G6_ERROR_VALUE";
        case G6_ERROR_RANGE: return "G6_ERROR_RANGE";
        case G6_ERROR_MEMORY: return "G6_ERROR_MEMORY";
        default: return "G6_ERROR";
    }
}

// One line on stderr for the first error of each kind in each call (per open cluster): a code that
// ignores a return value and calls again for every particle or step gets one line, not millions.
int report(int cluster_id, const char* call, int code, const char* kind, const std::string& message) noexcept {
    try {
        const auto it = g_clusters.find(cluster_id);
        std::set<std::string>& reported = it != g_clusters.end() ? it->second.reported : g_reported;
        if (!reported.insert(std::string(call) + ":" + kind).second) return code;
        std::fprintf(stderr, "libg6: %s: %s; returns %d (%s); later errors of this kind in %s are not printed\n", call,
                     message.c_str(), code, code_name(code), call);
    } catch (...) {
        std::fputs("libg6: an error, and no memory left to describe it\n", stderr);
    }
    return code;
}

// Every exported call runs through here: under the lock, and nothing thrown crosses the C ABI.
template <class Body>
int guarded(const char* call, int cluster_id, Body&& body) noexcept {
    try {
        std::lock_guard lock(g_mutex);
        try {
            return body();
        } catch (const G6Failure& f) {
            return report(cluster_id, call, f.code, f.kind, f.message);
        } catch (const std::bad_alloc&) {
            return report(cluster_id, call, G6_ERROR_MEMORY, "memory", "out of host memory");
        } catch (const std::exception& e) {
            return report(cluster_id, call, G6_ERROR, "engine", e.what());
        } catch (...) {
            return report(cluster_id, call, G6_ERROR, "unknown", "an unexpected failure");
        }
    } catch (...) {  // the lock itself failed: nothing shared may be touched
        std::fprintf(stderr, "libg6: %s: could not take the library's lock; returns %d (G6_ERROR)\n", call, G6_ERROR);
        return G6_ERROR;
    }
}

Cluster& find(int id) {
    auto it = g_clusters.find(id);
    if (it == g_clusters.end() || !it->second.engine)
        refuse(G6_ERROR, "not open", "cluster " + std::to_string(id) + " is not open (call g6_open first)");
    return it->second;
}

std::string number(double v) {
    char text[32];
    std::snprintf(text, sizeof text, "%.17g", v);
    return text;
}

Vec3d vec(const double v[3]) { return {v[0], v[1], v[2]}; }

// The first non-finite component of the n vectors `v` (named `name`), with how many of the n have one.
void require_finite_rows(const char* name, const double (*v)[3], int n, const int* index) {
    int bad = 0, first = -1, component = 0;
    for (int i = 0; i < n; ++i)
        for (int k = 0; k < 3; ++k)
            if (!std::isfinite(v[i][k])) {
                if (bad++ == 0) first = i, component = k;
                break;
            }
    if (bad == 0) return;
    refuse(G6_ERROR_VALUE, name,
           std::string(name) + "[" + std::to_string(first) + "][" + std::to_string(component) +
               "] = " + number(v[first][component]) + " (index " + std::to_string(index[first]) + ") is not finite (" +
               std::to_string(bad) + " of " + std::to_string(n) + " i-particles)");
}

void require_finite(const char* name, const double v[3], const std::string& whose) {
    for (int k = 0; k < 3; ++k)
        if (!std::isfinite(v[k]))
            refuse(G6_ERROR_VALUE, name,
                   std::string(name) + "[" + std::to_string(k) + "] = " + number(v[k]) + " of " + whose + " is not finite");
}

// g6calc_firsthalf's arguments, checked before anything is computed.
void check_calculation(const Cluster& c, int nj, int ni, const int* index, const double (*xi)[3],
                       const double (*vi)[3], double eps2, const double* h2) {
    if (!c.ti_error.empty()) refuse(G6_ERROR_VALUE, "ti", "no valid ti: " + c.ti_error);
    if (ni < 0 || ni > kPipes)
        refuse(G6_ERROR_RANGE, "ni", "ni = " + std::to_string(ni) + " outside 0.." + std::to_string(kPipes) + " (g6_npipes)");
    if (nj < 0 || std::size_t(nj) > c.written_from_zero)
        refuse(G6_ERROR_RANGE, "nj",
               "nj = " + std::to_string(nj) + " but j-particles are set at addresses 0.." +
                   std::to_string(long(c.written_from_zero) - 1) +
                   (c.written_from_zero < c.written.size() ? " (address " + std::to_string(c.written_from_zero) + " is not)"
                                                            : std::string()));
    if (!(eps2 >= 0) || !std::isfinite(eps2))
        refuse(G6_ERROR_VALUE, "eps2", "eps2 = " + number(eps2) + " (the softening squared must be finite and >= 0)");
    if (ni > 0 && (!index || !xi || !vi)) refuse(G6_ERROR_VALUE, "null", "index, xi or vi is a null pointer");
    if (ni == 0) return;
    require_finite_rows("xi", xi, ni, index);
    require_finite_rows("vi", vi, ni, index);
    if (h2)
        for (int i = 0; i < ni; ++i)
            if (std::isnan(h2[i]))
                refuse(G6_ERROR_VALUE, "h2", "h2[" + std::to_string(i) + "] = nan (index " + std::to_string(index[i]) + ")");
}

// A force that came out non-finite from finite input: two bodies at one point without softening.
void check_results(const Cluster& c) {
    for (std::size_t i = 0; i < c.out.size(); ++i) {
        const IForce& f = c.out[i];
        const double parts[7] = {f.acc.x, f.acc.y, f.acc.z, f.jerk.x, f.jerk.y, f.jerk.z, f.pot};
        for (double v : parts)
            if (!std::isfinite(v))
                refuse(G6_ERROR_VALUE, "result",
                       "the force on i-particle " + std::to_string(i) + " (index " + std::to_string(c.in[i].id) +
                           ") is not finite (" + number(v) +
                           "): it sits on a j-particle of another index, and eps2 = 0?");
    }
}

}  // namespace

extern "C" {

int g6_open(int cluster_id) {
    return guarded("g6_open", cluster_id, [&] {
        const char* env = std::getenv("G6_ENGINE");
        const EngineKind kind = parse_engine_kind(env && *env ? env : "auto");
        std::string why;
        Cluster c;
        // G6_GPUS: the GPUs that share the j-particles ("all", a count, or a list such as 0,1);
        // unset, the current one. Sapporo2 takes every device by default; a shared machine's other
        // users would not expect that of a library, so here it is asked for.
        EngineConfig config;
        if (const char* gpus = std::getenv("G6_GPUS"); gpus && *gpus) config.devices = engine_devices(gpus);
        c.engine = make_force_engine(kind, config, &why);
        c.engine->want_nearest(true);  // g6calc_lasthalf2's nearest-neighbour indices
        if (std::getenv("G6_VERBOSE")) std::fprintf(stderr, "libg6: cluster %d: %s\n", cluster_id, why.c_str());
        g_clusters[cluster_id] = std::move(c);
        return G6_OK;
    });
}

int g6_close(int cluster_id) {
    return guarded("g6_close", cluster_id, [&] {
        find(cluster_id);
        g_clusters.erase(cluster_id);
        return G6_OK;
    });
}

int g6_npipes(void) { return kPipes; }

int g6_set_tunit(double) { return G6_OK; }
int g6_set_xunit(double) { return G6_OK; }

int g6_set_ti(int cluster_id, double ti) {
    return guarded("g6_set_ti", cluster_id, [&] {
        Cluster& c = find(cluster_id);
        if (!std::isfinite(ti)) {
            // Keeping the old ti would give the forces at another time without a word: until a
            // finite ti comes, g6calc_firsthalf refuses to compute.
            c.ti_error = "g6_set_ti was given ti = " + number(ti);
            refuse(G6_ERROR_VALUE, "ti", "ti = " + number(ti) + " is not finite");
        }
        c.ti = ti;
        c.ti_error.clear();
        return G6_OK;
    });
}

int g6_set_j_particle(int cluster_id, int address, int index, double tj, double /*dtj*/, double mass,
                      double /*k18*/[3], double j6[3], double a2[3], double v[3], double x[3]) {
    return guarded("g6_set_j_particle", cluster_id, [&] {
        Cluster& c = find(cluster_id);
        if (address < 0 || address >= G6_MAX_J_PARTICLES)
            refuse(G6_ERROR_RANGE, "address",
                   "address " + std::to_string(address) + " outside 0.." + std::to_string(G6_MAX_J_PARTICLES - 1) +
                       " (the j-memory's places, G6_MAX_J_PARTICLES)");
        const std::size_t at = std::size_t(address);
        const std::string whose = "address " + std::to_string(address) + " (index " + std::to_string(index) + ")";
        // A refused write leaves no j-particle there, not the one before it: a calculation whose nj
        // covers the address is refused until it is written again.
        if (at < c.written.size()) c.mark_written(at, false);
        if (!x || !v || !a2 || !j6) refuse(G6_ERROR_VALUE, "null", "x, v, a2 or j6 of " + whose + " is a null pointer");
        if (!std::isfinite(tj)) refuse(G6_ERROR_VALUE, "tj", "tj = " + number(tj) + " of " + whose + " is not finite");
        if (!std::isfinite(mass)) refuse(G6_ERROR_VALUE, "mass", "mass = " + number(mass) + " of " + whose + " is not finite");
        require_finite("x", x, whose);
        require_finite("v", v, whose);
        require_finite("a2", a2, whose);
        require_finite("j6", j6, whose);
        JParticle p;
        p.id = index;
        p.t = tj;
        p.mass = mass;
        p.x = vec(x);
        p.v = vec(v);
        p.a2 = vec(a2);
        p.j6 = vec(j6);
        try {
            c.engine->set_j(at, p);
        } catch (const std::bad_alloc&) {
            refuse(G6_ERROR_MEMORY, "memory",
                   "the j-memory cannot grow to " + whose + ": " + std::to_string((at + 1) * sizeof(JParticle) >> 20) +
                       " MiB of host memory are not available");
        }
        c.mark_written(at, true);
        return G6_OK;
    });
}

void g6calc_firsthalf(int cluster_id, int nj, int ni, int index[], double xi[][3], double vi[][3],
                      double /*aold*/[][3], double /*j6old*/[][3], double /*phiold*/[], double eps2, double h2[]) {
    // Void in GRAPE-6's interface: the error is kept and g6calc_lasthalf returns it.
    const int code = guarded("g6calc_firsthalf", cluster_id, [&] {
        Cluster& c = find(cluster_id);
        c.results = false;
        c.out.clear();
        check_calculation(c, nj, ni, index, xi, vi, eps2, h2);
        c.in.resize(std::size_t(ni));
        c.neighbours = false;
        for (int i = 0; i < ni; ++i) {
            IParticle& p = c.in[std::size_t(i)];
            p.id = index[i];
            p.x = vec(xi[i]);
            p.v = vec(vi[i]);
            p.h2 = h2 ? h2[i] : 0.0;
            c.neighbours = c.neighbours || p.h2 > 0;
        }
        c.out.resize(std::size_t(ni));
        c.nj = std::size_t(nj);
        c.engine->compute(c.ti, c.nj, c.in, eps2, c.out, c.neighbours);
        c.lists_read = false;
        c.results = true;
        check_results(c);
        return G6_OK;
    });
    guarded("g6calc_firsthalf", cluster_id, [&] {
        if (const auto it = g_clusters.find(cluster_id); it != g_clusters.end()) it->second.error = code;
        return G6_OK;
    });
}

int g6calc_lasthalf2(int cluster_id, int /*nj*/, int ni, int /*index*/[], double /*xi*/[][3], double /*vi*/[][3],
                     double /*eps2*/, double /*h2*/[], double acc[][3], double jerk[][3], double pot[], int inn[]) {
    return guarded("g6calc_lasthalf", cluster_id, [&] {
        Cluster& c = find(cluster_id);
        // An error of g6calc_firsthalf was printed there; forces that came out non-finite are still
        // handed over (the caller may want to see them), the others are not computed.
        if (c.error && !c.results) return c.error;
        if (ni != int(c.out.size()))
            refuse(G6_ERROR_RANGE, "ni", "ni = " + std::to_string(ni) + " differs from g6calc_firsthalf's " +
                                             std::to_string(c.out.size()));
        if (ni > 0 && (!acc || !jerk || !pot)) refuse(G6_ERROR_VALUE, "null", "acc, jerk or pot is a null pointer");
        for (int i = 0; i < ni; ++i) {
            const IForce& f = c.out[std::size_t(i)];
            acc[i][0] = f.acc.x, acc[i][1] = f.acc.y, acc[i][2] = f.acc.z;
            jerk[i][0] = f.jerk.x, jerk[i][1] = f.jerk.y, jerk[i][2] = f.jerk.z;
            pot[i] = f.pot;
            if (inn) inn[i] = f.nearest;
        }
        return c.error;
    });
}

int g6calc_lasthalf(int cluster_id, int nj, int ni, int index[], double xi[][3], double vi[][3], double eps2,
                    double h2[], double acc[][3], double jerk[][3], double pot[]) {
    return g6calc_lasthalf2(cluster_id, nj, ni, index, xi, vi, eps2, h2, acc, jerk, pot, nullptr);
}

// GRAPE-6 buffers j-particle writes on the host and sends them in packets; here a write goes
// straight to the engine (which batches its own uploads), so there is nothing to flush.
int g6_initialize_jp_buffer(int cluster_id, int /*buf_size*/) {
    return guarded("g6_initialize_jp_buffer", cluster_id, [&] {
        find(cluster_id);
        return G6_OK;
    });
}
int g6_flush_jp_buffer(int cluster_id) {
    return guarded("g6_flush_jp_buffer", cluster_id, [&] {
        find(cluster_id);
        return G6_OK;
    });
}
// Hardware resets: the board state here is the j-memory, which stays until g6_close.
int g6_reset(int cluster_id) {
    return guarded("g6_reset", cluster_id, [&] {
        find(cluster_id);
        return G6_OK;
    });
}
int g6_reset_fofpga(int cluster_id) {
    return guarded("g6_reset_fofpga", cluster_id, [&] {
        find(cluster_id);
        return G6_OK;
    });
}

int g6_read_neighbour_list(int cluster_id) {
    return guarded("g6_read_neighbour_list", cluster_id, [&] {
        Cluster& c = find(cluster_id);
        if (!c.results || !c.neighbours)
            refuse(G6_ERROR, "no lists", "the last calculation made no neighbour lists (none had h2 > 0, or it failed)");
        c.lists_read = true;
        for (std::size_t i = 0; i < c.in.size(); ++i)
            if (c.engine->neighbour_overflow(i)) return G6_ERROR;  // as GRAPE-6: some list overflowed; no message
        return G6_OK;
    });
}

int g6_get_neighbour_list(int cluster_id, int ipipe, int maxlength, int* n_neighbours, int neighbour_list[]) {
    return guarded("g6_get_neighbour_list", cluster_id, [&] {
        Cluster& c = find(cluster_id);
        if (!c.lists_read) refuse(G6_ERROR, "order", "call g6_read_neighbour_list first");
        if (ipipe < 0 || std::size_t(ipipe) >= c.in.size())
            refuse(G6_ERROR_RANGE, "pipe",
                   "pipe " + std::to_string(ipipe) + " outside 0.." + std::to_string(int(c.in.size()) - 1));
        if (!n_neighbours || !neighbour_list) refuse(G6_ERROR_VALUE, "null", "n_neighbours or neighbour_list is a null pointer");
        const auto list = c.engine->neighbours(std::size_t(ipipe));
        *n_neighbours = int(list.size());
        if (int(list.size()) > maxlength) return G6_ERROR;  // too long for the caller's buffer: nothing copied
        std::copy(list.begin(), list.end(), neighbour_list);
        return G6_OK;
    });
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
