// Scene descriptions back to scene-file text: what the encounter editor saves. Every value the
// parser reads is written in its shortest exact decimal form (std::to_chars), so the file parses
// back to the same SceneSpec and builds the same bodies bit for bit.

#include <charconv>
#include <cstdio>
#include <cmath>
#include <filesystem>
#include <ostream>
#include <sstream>
#include <string>
#include <system_error>

#include "nbody/sim/atomic_file.hpp"
#include "nbody/sim/scene_spec.hpp"

namespace nbody {
namespace {

// Shortest decimal that reads back as exactly `x`, always a TOML float ("2.0", not "2").
std::string number(double x) {
    char buf[64];
    const auto [end, ec] = std::to_chars(buf, buf + sizeof buf, x);
    std::string s(buf, ec == std::errc() ? end : buf);
    if (s.find_first_of(".eE") == std::string::npos) s += ".0";
    return s;
}

std::string quoted(const std::string& text) {
    std::string out = "\"";
    for (const char c : text) {
        switch (c) {
            case '"': out += "\\\""; break;
            case '\\': out += "\\\\"; break;
            case '\n': out += "\\n"; break;
            case '\t': out += "\\t"; break;
            case '\r': out += "\\r"; break;
            default:
                if (static_cast<unsigned char>(c) < 0x20) {
                    char esc[8];
                    std::snprintf(esc, sizeof esc, "\\u%04x", unsigned(c));
                    out += esc;
                } else {
                    out += c;
                }
        }
    }
    return out + "\"";
}

std::string vec3(const Vec3d& v) { return "[" + number(v.x) + ", " + number(v.y) + ", " + number(v.z) + "]"; }

void write_component(std::ostream& out, const ComponentSpec& c) {
    static constexpr const char* table[] = {"disk", "bulge", "halo", "plummer", "cube", "point"};
    out << "\n[galaxy." << table[int(c.kind)] << "]\n";
    out << "mass = " << number(c.mass) << "\n";
    if (c.kind == ComponentKind::Point) return;
    out << "bodies = " << c.bodies << "\n";
    switch (c.kind) {
        case ComponentKind::Disk:
            out << "scale_length = " << number(c.scale) << "\n";
            out << "scale_height = " << number(c.height) << "\n";
            out << "toomre_q = " << number(c.toomre_q) << "\n";
            break;
        case ComponentKind::Cube:
            out << "side = " << number(c.scale) << "\n";
            out << "virial_ratio = " << number(c.virial_ratio) << "\n";
            return;
        default:
            out << "scale_radius = " << number(c.scale) << "\n";
    }
    if (c.max_radius > 0) out << "max_radius = " << number(c.max_radius) << "\n";
    const ic::StarClusterParams plain;
    const ic::StarClusterParams& k = c.cluster;
    if (k.mass_function != plain.mass_function || k.min_mass != plain.min_mass || k.max_mass != plain.max_mass ||
        k.binary_fraction != plain.binary_fraction || k.binary_sma_min != plain.binary_sma_min ||
        k.binary_sma_max != plain.binary_sma_max) {
        out << "mass_function = " << quoted(k.mass_function) << "\n";
        out << "min_mass = " << number(k.min_mass) << "\n";
        out << "max_mass = " << number(k.max_mass) << "\n";
        out << "binary_fraction = " << number(k.binary_fraction) << "\n";
        out << "binary_sma_min = " << number(k.binary_sma_min) << "\n";
        out << "binary_sma_max = " << number(k.binary_sma_max) << "\n";
    }
}

// "# point masses: pericentre after 47.2 time units (462 Myr)": what the numbers mean, for the
// reader of the file. Nothing when the orbit cannot be set up (the parser will say why).
// Leapfrog is what a scene without the key gets, so only hermite4 and hermite6 are written.
void write_integrator(std::ostream& out, const SceneIntegrator& in) {
    if (in.name == "leapfrog") return;
    out << "integrator = " << quoted(in.name) << "\n";
    if (in.eta) out << "eta = " << number(*in.eta) << "\n";
    if (in.dt_max) out << "dt_max = " << number(*in.dt_max) << "\n";
    if (in.time_per_frame) out << "time_per_frame = " << number(*in.time_per_frame) << "\n";
}

std::string orbit_note(const SceneSpec& s, std::size_t k) {
    double mass = 0;
    for (std::size_t j = 0; j <= k; ++j) mass += galaxy_mass(s.galaxies[j]);
    try {
        const ic::RelativeOrbitState rel = ic::kepler_initial_conditions(mass, *s.galaxies[k].orbit);
        std::ostringstream note;
        note.precision(3);
        note << "# as point masses of total mass " << mass << ": pericentre after " << rel.time_to_pericentre
             << " time units";
        if (s.units.time_unit_myr > 0) note << " (" << rel.time_to_pericentre * s.units.time_unit_myr << " Myr)";
        return note.str() + "\n";
    } catch (const std::exception&) {
        return "";
    }
}

}  // namespace

double galaxy_mass(const GalaxySpec& g) {
    double m = 0;
    for (const ComponentSpec& c : g.components) m += c.mass;
    return m;
}

bool has_disk(const SceneSpec& spec) {
    for (const GalaxySpec& g : spec.galaxies)
        for (const ComponentSpec& c : g.components)
            if (c.kind == ComponentKind::Disk) return true;
    return false;
}

std::string scene_spec_to_toml(const SceneSpec& s) {
    const bool galactic = s.units.time_unit_myr > 0;
    std::ostringstream out;
    const std::string from = std::filesystem::path(s.source).filename().string();
    out << "# Scene file written by nbody" << (from.empty() ? "" : " from " + from) << ". Format: docs/SCENES.md.\n";
    out << "# Units \"" << (galactic ? "galactic" : "nbody") << "\""
        << (galactic ? ": G = 1, kpc, 100 km/s; mass unit 2.325e9 Msun, time unit 9.78 Myr." : ": G = 1.") << "\n";

    out << "\n[scene]\n";
    out << "name = " << quoted(s.name) << "\n";
    if (!s.description.empty()) out << "description = " << quoted(s.description) << "\n";
    out << "bodies = " << s.bodies << "\n";
    out << "units = \"" << (galactic ? "galactic" : "nbody") << "\"\n";
    out << "dt = " << number(s.params.dt) << "\n";
    out << "softening = " << number(s.params.softening) << "\n";
    out << "steps_per_frame = " << s.steps_per_frame << "\n";
    out << "seed = " << s.seed << "\n";
    if (s.reduced_halo_share != 1.0) out << "reduced_halo_share = " << number(s.reduced_halo_share) << "\n";
    if (s.trails != 0) out << "trails = " << s.trails << "\n";
    write_integrator(out, s.integrator);

    out << "\n[camera]\n";
    out << "distance = " << number(s.camera.distance) << "\n";
    out << "azimuth_deg = " << number(s.camera.azimuth_deg) << "\n";
    out << "elevation_deg = " << number(s.camera.elevation_deg) << "\n";
    out << "target = " << vec3(s.camera.target) << "\n";

    for (std::size_t k = 0; k < s.galaxies.size(); ++k) {
        const GalaxySpec& g = s.galaxies[k];
        out << "\n[[galaxy]]\n";
        out << "name = " << quoted(g.name) << "\n";
        out << "inclination_deg = " << number(g.orientation.inclination_deg) << "\n";
        out << "argument_deg = " << number(g.orientation.argument_deg) << "\n";
        if (g.seed) out << "seed = " << *g.seed << "\n";
        if (g.orbit) {
            out << "\n[galaxy.orbit]\n" << orbit_note(s, k);
            out << "pericentre = " << number(g.orbit->pericentre) << "\n";
            out << "separation = " << number(g.orbit->separation) << "\n";
            out << "eccentricity = " << number(g.orbit->eccentricity) << "\n";
            out << "plane_inclination_deg = " << number(g.plane.inclination_deg) << "\n";
            out << "plane_node_deg = " << number(g.plane.node_deg) << "\n";
        } else {
            out << "position = " << vec3(g.position) << "\n";
            out << "velocity = " << vec3(g.velocity) << "\n";
        }
        for (const ComponentSpec& c : g.components) write_component(out, c);
    }
    return out.str();
}

void save_scene_spec(const SceneSpec& spec, const std::string& path, bool overwrite) {
    std::error_code ec;
    if (!overwrite && std::filesystem::exists(path, ec))
        throw FileExistsError(path + ": already exists; not overwritten (confirm to replace it)");
    const std::string text = scene_spec_to_toml(spec);
    // Checked before writing: a description the parser would refuse must not become a file that
    // cannot be opened again.
    (void)parse_scene_spec(text, path);
    write_file_atomically(path, [&](std::ostream& out) { out << text; });
}

}  // namespace nbody
