#include "nbody/sim/io/run_output.hpp"

#include <cstdio>
#include <ostream>

#include "nbody/sim/atomic_file.hpp"
#include "nbody/sim/csv.hpp"
#include "nbody/sim/hermite/integrator.hpp"
#include "nbody/sim/io/hermite_snapshot.hpp"
#include "nbody/sim/io/particle_files.hpp"
#include "nbody/sim/io/snapshot.hpp"

namespace nbody::io {

namespace {

Snapshot snapshot_of(const RunOrigin& origin, const State& state, const std::optional<PreciseState>& precise,
                     const std::string& status) {
    Snapshot snap;
    snap.state = state;
    snap.params = origin.params;
    snap.steps_per_frame = origin.steps_per_frame;
    snap.scene_name = origin.name;
    snap.scene_source = origin.source;
    snap.precise = precise;
    snap.metadata = origin.scene_metadata;
    snap.energy0 = origin.energy0;
    if (!status.empty()) snap.metadata[kStatusKey] = status;
    return snap;
}

// CSV with 17 significant digits: a double survives the round trip.
void write_csv17(const std::string& path, const std::vector<double>& m, const std::vector<Vec3d>& x,
                 const std::vector<Vec3d>& v) {
    write_file_atomically(path, [&](std::ostream& out) {
        out << "x,y,z,vx,vy,vz,m\n";
        char buf[512];
        for (std::size_t i = 0; i < m.size(); ++i) {
            std::snprintf(buf, sizeof buf, "%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g\n", x[i].x, x[i].y, x[i].z,
                          v[i].x, v[i].y, v[i].z, m[i]);
            out << buf;
        }
    });
}

}  // namespace

void write_run_state(const std::string& path, const RunOrigin& origin, const State& state,
                     const std::optional<PreciseState>& precise, const std::string& status) {
    const PreciseState* p = precise ? &*precise : nullptr;
    switch (particle_format_for(path)) {
        case ParticleFormat::Snapshot:
            write_snapshot(path, snapshot_of(origin, state, precise, status));
            return;
        case ParticleFormat::Csv:
            write_csv(path, state, p, status);
            return;
        default:
            write_particles(path, state, p);
    }
}

void write_hermite_state(const std::string& path, const RunOrigin& origin, const State& labels,
                         const hermite::HermiteIntegrator& h, const std::string& status) {
    std::vector<Vec3d> x, v;
    h.predicted(x, v);  // the state itself when synchronised (a normal end)
    const hermite::Bodies& b = h.bodies();
    const auto format = particle_format_for(path);
    if (format == ParticleFormat::Csv) return write_csv17(path, b.mass, x, v);
    PreciseState precise{x, v, b.mass};
    State s = labels;
    s.time = h.time();
    precise.round_into(s);
    if (format == ParticleFormat::Tipsy) return write_particles(path, s);
    RunOrigin hermite_origin = origin;
    hermite_origin.params.dt = h.params().dt_max;
    hermite_origin.params.softening = h.params().softening;
    Snapshot snap = snapshot_of(hermite_origin, s, precise, status);
    put_hermite_params(h, snap);
    if (h.synchronised()) put_hermite_state(h, snap);  // only a synchronised state resumes exactly
    write_snapshot(path, snap);
}

}  // namespace nbody::io
