// A Hermite run in a snapshot: see nbody/sim/io/hermite_snapshot.hpp.

#include "nbody/sim/io/hermite_snapshot.hpp"

#include <cstdio>
#include <stdexcept>
#include <vector>

namespace nbody::io {
namespace {

constexpr const char* kArrays4[] = {"hermite.ax", "hermite.ay", "hermite.az", "hermite.jx", "hermite.jy",
                                    "hermite.jz", "hermite.pot", "hermite.level"};
// The 6th order's predictor also uses the snap and crackle.
constexpr const char* kArrays6[] = {"hermite.sx", "hermite.sy", "hermite.sz", "hermite.cx", "hermite.cy", "hermite.cz"};
// Which integrator hermite.eta is for (absent: hermite4, the only one before).
constexpr const char* kEtaOfKey = "hermite.eta_integrator";

std::string g17(double x) {
    char buf[40];
    std::snprintf(buf, sizeof buf, "%.17g", x);
    return buf;
}

const std::vector<double>& saved_array(const Snapshot& snap, const std::string& path, const char* name, std::size_t n) {
    const auto a = snap.extra.find(name);
    if (a == snap.extra.end() || a->second.size() != n)
        throw std::runtime_error(path + ": a Hermite snapshot without its array '" + name + "' of " + std::to_string(n) +
                                 " values");
    return a->second;
}

}  // namespace

void put_hermite_params(const hermite::HermiteIntegrator& h, Snapshot& snap) {
    snap.metadata["hermite.eta"] = g17(h.params().eta);
    snap.metadata[kEtaOfKey] = hermite::integrator_name(h.params().order);
    snap.metadata["hermite.dt_max"] = g17(h.params().dt_max);
}

void put_hermite_state(const hermite::HermiteIntegrator& h, Snapshot& snap) {
    if (!h.synchronised()) throw std::logic_error("put_hermite_state: the bodies are at different times");
    const int order = h.params().order;
    snap.metadata[kHermiteIntegratorKey] = hermite::integrator_name(order);
    const hermite::Bodies& b = h.bodies();
    std::vector<std::vector<double>> arr(order == 6 ? 14 : 8, std::vector<double>(b.size()));
    for (std::size_t i = 0; i < b.size(); ++i) {
        arr[0][i] = b.a[i].x, arr[1][i] = b.a[i].y, arr[2][i] = b.a[i].z;
        arr[3][i] = b.jerk[i].x, arr[4][i] = b.jerk[i].y, arr[5][i] = b.jerk[i].z;
        arr[6][i] = b.pot[i], arr[7][i] = double(b.level[i]);
        if (order != 6) continue;
        arr[8][i] = b.snap[i].x, arr[9][i] = b.snap[i].y, arr[10][i] = b.snap[i].z;
        arr[11][i] = b.crackle[i].x, arr[12][i] = b.crackle[i].y, arr[13][i] = b.crackle[i].z;
    }
    for (std::size_t k = 0; k < arr.size(); ++k) snap.extra[k < 8 ? kArrays4[k] : kArrays6[k - 8]] = std::move(arr[k]);
}

SavedHermiteParams saved_hermite_params(const std::map<std::string, std::string>& metadata) {
    SavedHermiteParams p;
    for (auto [key, field] : {std::pair{"hermite.eta", &p.eta}, std::pair{"hermite.dt_max", &p.dt_max}})
        if (const auto m = metadata.find(key); m != metadata.end()) *field = std::stod(m->second);
    if (const auto m = metadata.find(kEtaOfKey); m != metadata.end()) p.eta_of = m->second;
    p.from_hermite_run = p.eta.has_value();
    return p;
}

std::optional<hermite::Bodies> saved_hermite_state(const Snapshot& snap, const std::string& path, int order,
                                                   std::string* note) {
    const auto it = snap.metadata.find(kHermiteIntegratorKey);
    if (it == snap.metadata.end() || !snap.precise || (it->second != "hermite4" && it->second != "hermite6"))
        return std::nullopt;
    if (it->second != hermite::integrator_name(order)) {
        if (note)
            *note = path + " was written by " + it->second + ": " + hermite::integrator_name(order) +
                    " starts afresh from its positions and velocities";
        return std::nullopt;
    }
    const std::size_t n = snap.precise->size();
    std::vector<const std::vector<double>*> arr;
    for (const char* name : kArrays4) arr.push_back(&saved_array(snap, path, name, n));
    if (order == 6)
        for (const char* name : kArrays6) arr.push_back(&saved_array(snap, path, name, n));
    hermite::Bodies b;
    b.resize(n);
    b.mass = snap.precise->mass, b.x = snap.precise->position, b.v = snap.precise->velocity;
    for (std::size_t i = 0; i < n; ++i) {
        b.a[i] = {(*arr[0])[i], (*arr[1])[i], (*arr[2])[i]};
        b.jerk[i] = {(*arr[3])[i], (*arr[4])[i], (*arr[5])[i]};
        b.pot[i] = (*arr[6])[i];
        b.level[i] = int((*arr[7])[i]);
        b.t[i] = 0;
        if (order == 6) {
            b.snap[i] = {(*arr[8])[i], (*arr[9])[i], (*arr[10])[i]};
            b.crackle[i] = {(*arr[11])[i], (*arr[12])[i], (*arr[13])[i]};
        }
    }
    return b;
}

}  // namespace nbody::io
