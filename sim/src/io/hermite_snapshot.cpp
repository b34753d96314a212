// A Hermite run in a snapshot: see nbody/sim/io/hermite_snapshot.hpp.

#include "nbody/sim/io/hermite_snapshot.hpp"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <iterator>
#include <string_view>
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

[[noreturn]] void bad_value(const std::string& source, const char* key, const std::string& value, const char* expected) {
    const std::string shown = value.size() > 40 ? value.substr(0, 40) + "... (" + std::to_string(value.size()) + " characters)" : value;
    throw std::runtime_error(source + ": invalid snapshot: metadata " + key + " = '" + shown + "' must be " + expected);
}

// A parameter the file stores as text: the whole text a finite number > 0.
double positive_number(const std::string& source, const char* key, const std::string& text) {
    double v = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
    if (text.empty() || ec != std::errc() || end != text.data() + text.size() || !std::isfinite(v) || !(v > 0))
        bad_value(source, key, text, "a number > 0");
    return v;
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

SavedHermiteParams saved_hermite_params(const std::map<std::string, std::string>& metadata, const std::string& source) {
    SavedHermiteParams p;
    for (auto [key, field] : {std::pair{"hermite.eta", &p.eta}, std::pair{"hermite.dt_max", &p.dt_max}})
        if (const auto m = metadata.find(key); m != metadata.end()) *field = positive_number(source, key, m->second);
    if (const auto m = metadata.find(kEtaOfKey); m != metadata.end()) {
        p.eta_of = m->second;
        if (p.eta_of != "hermite4" && p.eta_of != "hermite6") bad_value(source, kEtaOfKey, m->second, "hermite4 or hermite6");
    }
    p.from_hermite_run = p.eta.has_value();
    return p;
}

void check_hermite_sections(const Snapshot& snap, const std::string& source) {
    saved_hermite_params(snap.metadata, source);
    const auto it = snap.metadata.find(kHermiteIntegratorKey);
    if (it == snap.metadata.end()) return;
    if (it->second != "hermite4" && it->second != "hermite6")
        bad_value(source, kHermiteIntegratorKey, it->second, "hermite4 or hermite6");
    if (!snap.precise)
        throw std::runtime_error(source + ": invalid snapshot: " + kHermiteIntegratorKey + " = " + it->second +
                                 " but the file has no double-precision state (section F64S)");
    const std::size_t n = snap.precise->size();
    std::vector<const char*> names(std::begin(kArrays4), std::end(kArrays4));
    if (it->second == "hermite6") names.insert(names.end(), std::begin(kArrays6), std::end(kArrays6));
    const int max_level = hermite::HermiteParams{}.max_level;
    for (const char* name : names) {
        const std::vector<double>& values = saved_array(snap, source, name, n);
        const bool level = std::string_view(name) == "hermite.level";
        for (std::size_t i = 0; i < n; ++i) {
            const double v = values[i];
            if (!std::isfinite(v))
                throw std::runtime_error(source + ": invalid snapshot: " + name + " of body " + std::to_string(i) +
                                         " is " + g17(v));
            if (level && (v != std::floor(v) || v < 0 || v > max_level))
                throw std::runtime_error(source + ": invalid snapshot: hermite.level of body " + std::to_string(i) +
                                         " is " + g17(v) + "; a block level is a whole number from 0 to " +
                                         std::to_string(max_level));
        }
    }
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
