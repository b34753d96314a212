#include "nbody/sim/io/particle_files.hpp"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <stdexcept>

#include "nbody/sim/csv.hpp"
#include "nbody/sim/io/snapshot.hpp"
#include "nbody/sim/io/tipsy.hpp"

namespace nbody::io {

ParticleFormat particle_format_for(const std::string& path) {
    std::string ext = std::filesystem::path(path).extension().string();
    std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return char(std::tolower(c)); });
    if (ext == ".csv") return ParticleFormat::Csv;
    if (ext == ".tipsy" || ext == ".std" || ext == ".bin") return ParticleFormat::Tipsy;
    if (ext == ".nbsnap") return ParticleFormat::Snapshot;
    throw std::runtime_error(path + ": unknown particle file type '" + ext +
                             "' (supported: .csv, .tipsy/.std/.bin for TIPSY, .nbsnap for snapshots)");
}

std::string_view to_string(ParticleFormat format) {
    switch (format) {
        case ParticleFormat::Csv: return "CSV";
        case ParticleFormat::Tipsy: return "TIPSY";
        case ParticleFormat::Snapshot: return "snapshot";
    }
    return "?";
}

State read_particles(const std::string& path, std::optional<PreciseState>* precise) {
    const ParticleFormat format = particle_format_for(path);
    if (precise) precise->reset();
    switch (format) {
        case ParticleFormat::Csv: return read_csv(path, precise);
        case ParticleFormat::Tipsy: return read_tipsy(path);
        case ParticleFormat::Snapshot: {
            Snapshot snap = read_snapshot(path);
            if (precise) *precise = std::move(snap.precise);
            return std::move(snap.state);
        }
    }
    throw std::logic_error("unreachable");
}

void write_particles(const std::string& path, const State& state, const PreciseState* precise) {
    switch (particle_format_for(path)) {
        case ParticleFormat::Csv: write_csv(path, state, precise); return;
        case ParticleFormat::Tipsy: write_tipsy(path, state); return;
        case ParticleFormat::Snapshot: {
            Snapshot snap;
            snap.state = state;
            if (precise) snap.precise = *precise;
            write_snapshot(path, snap);
            return;
        }
    }
}

}  // namespace nbody::io
