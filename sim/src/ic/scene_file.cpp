// Scene files: TOML -> a checked SceneSpec (plain data) -> particles. Parsing and checking finish
// before anything is generated, so a bad file costs nothing and leaves nothing behind; every
// message names the file, the key path as written in the file and the line.

#include <cctype>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <limits>
#include <optional>
#include <utility>
#include <sstream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <toml++/toml.h>

#include "nbody/sim/ic/galaxy.hpp"
#include "nbody/sim/ic/models.hpp"
#include "nbody/sim/ic/orbit.hpp"
#include "nbody/sim/ic/plummer.hpp"
#include "nbody/sim/ic/star_cluster.hpp"
#include "nbody/sim/ic/stellar.hpp"
#include "nbody/sim/io/body_check.hpp"
#include "nbody/sim/io/input_file.hpp"
#include "nbody/sim/memory_check.hpp"
#include "nbody/sim/scene.hpp"
#include "nbody/sim/scene_spec.hpp"
#include "random.hpp"
#include "message_format.hpp"

namespace nbody {
namespace {

// The parsed file is a SceneSpec (nbody/sim/scene_spec.hpp), shared with the encounter editor.
using Kind = ComponentKind;

// ---------------------------------------------------------------------------------------------
// Strict reading of one TOML table: typed getters, and allow(), which rejects any key the table
// does not accept.

[[noreturn]] void fail(const std::string& file, const std::string& key, const std::string& what,
                       const toml::source_region* where = nullptr) {
    std::string msg = file;
    if (where && where->begin.line > 0) msg += ":" + std::to_string(where->begin.line);
    msg += ": ";
    if (!key.empty()) msg += key + ": ";
    throw std::runtime_error(msg + what);
}

std::string type_name(const toml::node& n) {
    switch (n.type()) {
        case toml::node_type::table: return "a table";
        case toml::node_type::array: return "an array";
        case toml::node_type::string: return "a string";
        case toml::node_type::integer: return "an integer";
        case toml::node_type::floating_point: return "a number";
        case toml::node_type::boolean: return "a boolean";
        default: return "a date/time";
    }
}

using message_format::short_number;

constexpr double kFloatMax = double(std::numeric_limits<float>::max());

class Reader {
public:
    Reader(const toml::table& table, std::string path, const std::string& file)
        : table_(table), path_(std::move(path)), file_(file) {}

    const std::string& path() const { return path_; }
    const std::string& file() const { return file_; }
    std::string key(std::string_view k) const { return path_.empty() ? std::string(k) : path_ + "." + std::string(k); }
    const toml::source_region& where() const { return table_.source(); }

    bool has(std::string_view k) const { return table_.contains(k); }

    const toml::node* node(std::string_view k) const { return table_.get(k); }

    [[noreturn]] void error(std::string_view k, const std::string& what, const toml::node* n = nullptr) const {
        fail(file_, key(k), what, n ? &n->source() : &table_.source());
    }

    const toml::node& required(std::string_view k, const char* expected) {
        const toml::node* n = node(k);
        if (!n) {
            const std::string where = path_.empty() ? "at the top level" : "in [" + path_ + "]";
            fail(file_, key(k), std::string("missing (required ") + where + ": " + expected + ")", &table_.source());
        }
        return *n;
    }

    double number(std::string_view k) { return to_number(k, required(k, "a number")); }
    std::optional<double> opt_number(std::string_view k) {
        const toml::node* n = node(k);
        return n ? std::optional<double>(to_number(k, *n)) : std::nullopt;
    }
    double number_or(std::string_view k, double fallback) { return opt_number(k).value_or(fallback); }

    // Masses: numbers >= 0, with the message the issue asks for.
    double mass(std::string_view k) {
        const toml::node& n = required(k, "a number >= 0");
        const double m = to_number(k, n);
        if (m < 0) error(k, "negative mass (" + short_number(m) + "); masses must be >= 0", &n);
        return m;
    }
    double positive(std::string_view k) {
        const toml::node& n = required(k, "a number > 0");
        const double x = to_number(k, n);
        if (!(x > 0)) error(k, "must be > 0 (got " + short_number(x) + ")", &n);
        return x;
    }
    double positive_or(std::string_view k, double fallback) {
        const toml::node* n = node(k);
        if (!n) return fallback;
        const double x = to_number(k, *n);
        if (!(x > 0)) error(k, "must be > 0 (got " + short_number(x) + ")", n);
        return x;
    }
    double non_negative_or(std::string_view k, double fallback) {
        const toml::node* n = node(k);
        if (!n) return fallback;
        const double x = to_number(k, *n);
        if (x < 0) error(k, "must be >= 0 (got " + short_number(x) + ")", n);
        return x;
    }

    std::int64_t integer(std::string_view k, const toml::node& n) {
        if (!n.is_integer()) error(k, "expected an integer, got " + type_name(n), &n);
        return n.as_integer()->get();
    }
    // A number of bodies: 0 to 2^30 (io::kMaxBodies), so that no sum of counts can wrap.
    std::size_t count(std::string_view k) {
        const toml::node& n = required(k, "an integer");
        const std::int64_t v = integer(k, n);
        if (v < 0 || std::uint64_t(v) > io::kMaxBodies)
            error(k, std::to_string(v) + " is outside 0 to " + std::to_string(io::kMaxBodies) +
                         " (the number of bodies nbody supports, 2^30)", &n);
        return std::size_t(v);
    }

    std::string text(std::string_view k) { return to_text(k, required(k, "a string")); }
    std::string text_or(std::string_view k, std::string fallback) {
        const toml::node* n = node(k);
        return n ? to_text(k, *n) : std::move(fallback);
    }

    std::optional<Vec3d> opt_vec3(std::string_view k) {
        const toml::node* n = node(k);
        if (!n) return std::nullopt;
        const toml::array* a = n->as_array();
        if (!a || a->size() != 3) error(k, "expected an array of 3 numbers, got " + (a ? "an array of " + std::to_string(a->size()) : type_name(*n)), n);
        double v[3];
        for (int i = 0; i < 3; ++i) {
            const toml::node& e = *a->get(std::size_t(i));
            if (!e.is_number()) error(k, "expected an array of 3 numbers, element " + std::to_string(i) + " is " + type_name(e), &e);
            v[i] = e.is_integer() ? double(e.as_integer()->get()) : e.as_floating_point()->get();
            if (!std::isfinite(v[i])) error(k, "element " + std::to_string(i) + " is not finite", &e);
            check_float_range(k, v[i], e);
        }
        return Vec3d{v[0], v[1], v[2]};
    }

    const toml::table* opt_table(std::string_view k) {
        const toml::node* n = node(k);
        if (!n) return nullptr;
        if (!n->is_table()) error(k, "expected a table ([" + key(k) + "]), got " + type_name(*n), n);
        return n->as_table();
    }

    // Rejects any key not in `known`, the keys this table accepts. Called before reading, so a
    // misspelt key is reported as such, not as the missing key it was meant to be.
    void allow(std::initializer_list<std::string_view> known) const {
        for (auto&& [k, v] : table_) {
            if (std::find(known.begin(), known.end(), k.str()) != known.end()) continue;
            std::string list;
            for (auto name : known) list += (list.empty() ? "" : ", ") + std::string(name);
            fail(file_, key(k.str()), "unknown key" + (list.empty() ? std::string() : " (this table accepts: " + list + ")"),
                 &k.source());
        }
    }

private:
    double to_number(std::string_view k, const toml::node& n) {
        double x;
        if (n.is_integer()) x = double(n.as_integer()->get());
        else if (n.is_floating_point()) x = n.as_floating_point()->get();
        else error(k, "expected a number, got " + type_name(n), &n);
        if (!std::isfinite(x)) error(k, "must be finite (got " + short_number(x) + ")", &n);
        check_float_range(k, x, n);
        return x;
    }
    void check_float_range(std::string_view k, double x, const toml::node& n) const {
        if (std::abs(x) > kFloatMax)
            error(k, short_number(x) + " is beyond the range of float (magnitude up to 3.4e38), in which the "
                     "simulation keeps its state; use other units",
                  &n);
    }
    std::string to_text(std::string_view k, const toml::node& n) {
        if (!n.is_string()) error(k, "expected a string, got " + type_name(n), &n);
        return std::string(n.as_string()->get());
    }

    const toml::table& table_;
    std::string path_;
    const std::string& file_;
};

// ---------------------------------------------------------------------------------------------
// Parsing.

const char* scale_key(Kind kind) {
    switch (kind) {
        case Kind::Disk: return "scale_length";
        case Kind::Cube: return "side";
        case Kind::Point: return "mass";
        default: return "scale_radius";
    }
}

ComponentSpec read_component(Reader& r, Kind kind) {
    ComponentSpec c;
    c.kind = kind;
    c.key = r.path();
    switch (kind) {
        case Kind::Point:
            r.allow({"mass"});
            c.mass = r.mass("mass");
            c.bodies = 1;
            if (c.mass == 0) r.error("mass", "a point mass needs mass > 0");
            return c;
        case Kind::Disk:
            r.allow({"mass", "bodies", "scale_length", "scale_height", "toomre_q", "max_radius"});
            c.mass = r.mass("mass");
            c.bodies = r.count("bodies");
            c.scale = r.positive("scale_length");
            c.height = r.positive("scale_height");
            c.toomre_q = r.positive("toomre_q");
            c.max_radius = r.positive_or("max_radius", 0.0);
            break;
        case Kind::Bulge:
        case Kind::Halo:
        case Kind::Plummer:
            r.allow({"mass", "bodies", "scale_radius", "max_radius", "mass_function", "min_mass", "max_mass",
                     "binary_fraction", "binary_sma_min", "binary_sma_max"});
            c.mass = r.mass("mass");
            c.bodies = r.count("bodies");
            c.scale = r.positive("scale_radius");
            c.max_radius = r.positive_or("max_radius", 0.0);
            c.cluster.mass_function = r.text_or("mass_function", "equal");
            if (c.cluster.mass_function != "equal" && c.cluster.mass_function != "kroupa")
                r.error("mass_function", "must be \"equal\" or \"kroupa\" (got \"" + c.cluster.mass_function + "\")");
            c.cluster.min_mass = r.positive_or("min_mass", 0.08);
            c.cluster.max_mass = r.positive_or("max_mass", 100.0);
            if (c.cluster.max_mass <= c.cluster.min_mass) r.error("max_mass", "must exceed min_mass");
            c.cluster.binary_fraction = r.non_negative_or("binary_fraction", 0.0);
            if (c.cluster.binary_fraction > 1) r.error("binary_fraction", "must be in [0, 1]");
            c.cluster.binary_sma_min = r.positive_or("binary_sma_min", 1e-4);
            c.cluster.binary_sma_max = r.positive_or("binary_sma_max", 1e-2);
            if (c.cluster.binary_sma_max < c.cluster.binary_sma_min) r.error("binary_sma_max", "must be >= binary_sma_min");
            break;
        case Kind::Cube:
            r.allow({"mass", "bodies", "side", "virial_ratio"});
            c.mass = r.mass("mass");
            c.bodies = r.count("bodies");
            c.scale = r.positive("side");
            c.virial_ratio = r.non_negative_or("virial_ratio", 0.0);
            break;
    }
    // G = 1 inside: the bodies move at about sqrt(mass / scale) (a Plummer sphere's escape speed
    // is 1.4 times that); beyond float's range the state could not hold them.
    if (kind != Kind::Point && c.mass > 0 && !(10 * std::sqrt(c.mass / c.scale) < kFloatMax))
        r.error("mass", "mass = " + short_number(c.mass) + " over " + scale_key(kind) + " = " + short_number(c.scale) +
                            " gives speeds of about sqrt(mass / " + scale_key(kind) + ") = " +
                            short_number(std::sqrt(c.mass / c.scale)) +
                            ", beyond the range of float (3.4e38) in which the simulation keeps its state; use other units",
                r.node("mass"));
    if (c.mass > 0 && c.bodies == 0) r.error("bodies", "is 0 but mass is " + short_number(c.mass) + ": a component with mass needs bodies");
    if (c.bodies > 0 && c.mass == 0) r.error("mass", "is 0 but bodies is " + std::to_string(c.bodies) + ": bodies need mass");
    if (c.max_radius > 0 && c.max_radius <= c.scale && kind != Kind::Cube)
        r.error("max_radius", "must exceed the scale " + short_number(c.scale) + " (got " + short_number(c.max_radius) + ")");
    return c;
}

GalaxySpec read_galaxy(const toml::table& t, std::size_t index, const std::string& file) {
    GalaxySpec g;
    g.key = "galaxy[" + std::to_string(index) + "]";
    Reader r(t, g.key, file);
    r.allow({"name", "inclination_deg", "argument_deg", "seed", "position", "velocity", "orbit", "disk", "bulge", "halo",
             "plummer", "cube", "point"});
    g.name = r.text_or("name", "galaxy " + std::to_string(index));
    g.orientation.inclination_deg = r.number_or("inclination_deg", 0.0);
    g.orientation.argument_deg = r.number_or("argument_deg", 0.0);
    if (const toml::node* n = r.node("seed")) {
        const std::int64_t s = r.integer("seed", *n);
        if (s < 0) r.error("seed", "must be >= 0", n);
        g.seed = std::uint64_t(s);
    }
    const auto position = r.opt_vec3("position");
    const auto velocity = r.opt_vec3("velocity");
    if (const toml::table* o = r.opt_table("orbit")) {
        Reader orb(*o, r.key("orbit"), file);
        orb.allow({"pericentre", "separation", "eccentricity", "plane_inclination_deg", "plane_node_deg"});
        ic::KeplerOrbit k;
        k.pericentre = orb.positive("pericentre");
        k.separation = orb.positive("separation");
        k.eccentricity = orb.non_negative_or("eccentricity", 1.0);
        g.plane.inclination_deg = orb.number_or("plane_inclination_deg", 0.0);
        g.plane.node_deg = orb.number_or("plane_node_deg", 0.0);
        if (position || velocity) r.error("orbit", "give either an [orbit] or position/velocity, not both");
        if (index == 0) r.error("orbit", "the first galaxy cannot have an orbit: later galaxies orbit the ones before them");
        try {
            ic::kepler_initial_conditions(1.0, k);  // the geometry checks do not depend on the mass
        } catch (const std::invalid_argument& e) {
            fail(file, r.key("orbit"), e.what(), &o->source());
        }
        g.orbit = k;
    }
    g.position = position.value_or(Vec3d{});
    g.velocity = velocity.value_or(Vec3d{});

    struct Slot { const char* name; Kind kind; };
    static constexpr Slot slots[] = {{"disk", Kind::Disk},       {"bulge", Kind::Bulge}, {"halo", Kind::Halo},
                                     {"plummer", Kind::Plummer}, {"cube", Kind::Cube},   {"point", Kind::Point}};
    for (const Slot& s : slots) {
        if (const toml::table* ct = r.opt_table(s.name)) {
            Reader cr(*ct, r.key(s.name), file);
            g.components.push_back(read_component(cr, s.kind));
        }
    }
    if (g.components.empty())
        fail(file, g.key, "has no components (give at least one of [disk], [bulge], [halo], [plummer], [cube], [point])", &t.source());
    const bool model = std::any_of(g.components.begin(), g.components.end(),
                                   [](const ComponentSpec& c) { return c.kind <= Kind::Halo; });
    if (model && g.components.size() != std::size_t(std::count_if(g.components.begin(), g.components.end(),
                                                                  [](const ComponentSpec& c) { return c.kind <= Kind::Halo; })))
        fail(file, g.key, "[plummer], [cube] and [point] stand alone: they cannot be combined with disk/bulge/halo", &t.source());
    if (!model && g.components.size() > 1)
        fail(file, g.key, "[plummer], [cube] and [point] stand alone: give only one of them", &t.source());
    std::size_t bodies = 0;
    for (const auto& c : g.components) bodies += c.bodies;
    if (bodies == 0) fail(file, g.key, "has no bodies (every component has bodies = 0)", &t.source());
    return g;
}

SceneSpec parse(const toml::table& root, const std::string& file) {
    SceneSpec s;
    s.source = file;
    Reader top(root, "", file);
    top.allow({"scene", "camera", "galaxy"});

    const toml::table* scene = top.opt_table("scene");
    if (!scene) top.required("scene", "a [scene] table");
    {
        Reader r(*scene, "scene", file);
        r.allow({"name", "description", "bodies", "units", "dt", "softening", "steps_per_frame", "seed",
                 "reduced_halo_share", "trails", "integrator", "eta", "dt_max",
                 "time_per_frame"});
        s.name = r.text("name");
        s.description = r.text_or("description", "");
        const toml::node& nb = r.required("bodies", "an integer, the number of bodies N");
        const std::int64_t n = r.integer("bodies", nb);
        if (n <= 0) r.error("bodies", "N = " + std::to_string(n) + ": a scene needs at least one body", &nb);
        if (std::uint64_t(n) > io::kMaxBodies)
            r.error("bodies", "N = " + std::to_string(n) + " is outside 1 to " + std::to_string(io::kMaxBodies) +
                                  " (the number of bodies nbody supports, 2^30)", &nb);
        s.bodies = std::size_t(n);
        const toml::node& un = r.required("units", "\"galactic\" or \"nbody\"");
        const std::string units = r.text("units");
        if (units == "galactic") {
            s.units = UnitSystem{};
        } else if (units == "nbody") {
            s.units = UnitSystem{"N-body length", "N-body velocity", "N-body mass", "N-body time", 0.0, 0.0};
        } else {
            r.error("units", "unknown unit system \"" + units + "\" (have \"galactic\": kpc, 100 km/s, 2.325e9 Msun, "
                                                                "9.78 Myr; \"nbody\": G = 1, dimensionless)", &un);
        }
        s.params.dt = r.positive("dt");
        s.params.softening = [&] {
            const toml::node& n = r.required("softening", "a number >= 0");
            const double e = r.number("softening");
            if (e < 0) r.error("softening", "must be >= 0 (got " + short_number(e) + ")", &n);
            return e;
        }();
        const toml::node& sp = r.required("steps_per_frame", "an integer >= 1");
        const std::int64_t spf = r.integer("steps_per_frame", sp);
        if (spf < 1 || spf > 100000) r.error("steps_per_frame", "must be between 1 and 100000 (got " + std::to_string(spf) + ")", &sp);
        s.steps_per_frame = int(spf);
        if (const toml::node* n = r.node("integrator")) {
            s.integrator.name = r.text("integrator");
            if (s.integrator.name != "leapfrog" && s.integrator.name != "hermite4" && s.integrator.name != "hermite6")
                r.error("integrator",
                        "unknown integrator \"" + s.integrator.name + "\" (have \"leapfrog\", \"hermite4\", \"hermite6\")", n);
        }
        for (const auto& [key, field] : {std::pair{"eta", &s.integrator.eta}, std::pair{"dt_max", &s.integrator.dt_max},
                                   std::pair{"time_per_frame", &s.integrator.time_per_frame}})
            if (const toml::node* n = r.node(key)) {
                if (s.integrator.name == "leapfrog")
                    r.error(key, "belongs to integrator = \"hermite4\" or \"hermite6\" (this scene's integrator is leapfrog)", n);
                *field = r.positive_or(key, 1.0);
            }
        if (const toml::node* n = r.node("reduced_halo_share")) {
            const double v = r.number("reduced_halo_share");
            if (!(v > 0 && v <= 1)) r.error("reduced_halo_share", "must be in (0, 1] (got " + short_number(v) + ")", n);
            s.reduced_halo_share = v;
        }
        if (const toml::node* n = r.node("seed")) {
            const std::int64_t v = r.integer("seed", *n);
            if (v < 0) r.error("seed", "must be >= 0", n);
            s.seed = std::uint64_t(v);
        }
        if (const toml::node* n = r.node("trails")) {
            const std::int64_t v = r.integer("trails", *n);
            if (v < 0 || v > 4096) r.error("trails", "must be between 0 (none) and 4096 points (got " + std::to_string(v) + ")", n);
            s.trails = int(v);
        }
    }

    const toml::table* camera = top.opt_table("camera");
    if (!camera) top.required("camera", "a [camera] table");
    {
        Reader r(*camera, "camera", file);
        r.allow({"distance", "azimuth_deg", "elevation_deg", "target"});
        s.camera.distance = r.positive("distance");
        s.camera.azimuth_deg = r.number_or("azimuth_deg", s.camera.azimuth_deg);
        s.camera.elevation_deg = r.number_or("elevation_deg", s.camera.elevation_deg);
        if (std::abs(s.camera.elevation_deg) > 90) r.error("elevation_deg", "must be within [-90, 90]");
        s.camera.target = r.opt_vec3("target").value_or(Vec3d{});
    }

    const toml::node* galaxies = top.node("galaxy");
    if (!galaxies) top.required("galaxy", "one or more [[galaxy]] tables");
    const toml::array* list = galaxies->as_array();
    if (!list || !list->is_array_of_tables() || list->empty())
        fail(file, "galaxy", "expected one or more [[galaxy]] tables, got " + type_name(*galaxies), &galaxies->source());
    if (list->size() > 65535) fail(file, "galaxy", "more than 65535 galaxies", &galaxies->source());
    for (std::size_t i = 0; i < list->size(); ++i) s.galaxies.push_back(read_galaxy(*list->get(i)->as_table(), i, file));

    std::size_t total = 0;
    for (const auto& g : s.galaxies)
        for (const auto& c : g.components) total += c.bodies;
    if (total != s.bodies)
        fail(file, "scene.bodies", "is " + std::to_string(s.bodies) + " but the components add up to " + std::to_string(total) +
                                       " bodies; make them agree", &scene->source());
    return s;
}

// ---------------------------------------------------------------------------------------------
// Scaling to another N: largest-remainder apportionment, every component keeping at least one
// body; point masses stay single bodies.

void scale(SceneSpec& s, std::size_t target) {
    if (target == 0) fail(s.source, "--bodies", "N = 0: a scene needs at least one body");
    if (target > io::kMaxBodies)
        fail(s.source, "--bodies", "N = " + std::to_string(target) + " is outside 1 to " + std::to_string(io::kMaxBodies));
    std::vector<ComponentSpec*> scalable;
    std::size_t fixed = 0;
    for (auto& g : s.galaxies)
        for (auto& c : g.components) {
            if (c.kind == Kind::Point) ++fixed;
            else if (c.bodies > 0)
                scalable.push_back(&c);
        }
    if (target < fixed + scalable.size())
        fail(s.source, "--bodies", std::to_string(target) + " bodies are too few: this scene needs at least " +
                                       std::to_string(fixed + scalable.size()) + " (one per component)");
    const std::size_t want = target - fixed;
    // Reduced: halos weigh less in the apportionment (SceneSpec::reduced_halo_share).
    const bool reduced = target < s.bodies;
    auto weight = [&](const ComponentSpec* c) {
        return double(c->bodies) * (reduced && c->kind == Kind::Halo ? s.reduced_halo_share : 1.0);
    };
    double total_weight = 0;
    for (const ComponentSpec* c : scalable) total_weight += weight(c);
    std::vector<std::pair<double, ComponentSpec*>> remainders;
    std::size_t given = 0;
    for (ComponentSpec* c : scalable) {
        const double exact = weight(c) * double(want) / total_weight;
        std::size_t n = std::max<std::size_t>(1, std::size_t(exact));
        remainders.emplace_back(exact - double(n), c);
        c->bodies = n;
        given += n;
    }
    std::stable_sort(remainders.begin(), remainders.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
    for (std::size_t i = 0; given < want; i = (i + 1) % remainders.size(), ++given) remainders[i].second->bodies += 1;
    // Taking back (only after the minimum of one pushed us over): from the largest components.
    while (given > want) {
        ComponentSpec* big = *std::max_element(scalable.begin(), scalable.end(),
                                               [](const ComponentSpec* a, const ComponentSpec* b) { return a->bodies < b->bodies; });
        big->bodies -= 1;
        --given;
    }
    s.bodies = target;
}

// ---------------------------------------------------------------------------------------------
// Generation.

State build_galaxy(const GalaxySpec& g, std::uint64_t seed, double softening) {
    const ComponentSpec& first = g.components.front();
    switch (first.kind) {
        case Kind::Plummer: {
            State s = ic::make_plummer({.bodies = first.bodies, .total_mass = first.mass, .scale_radius = first.scale,
                                        .max_radius = first.max_radius, .seed = seed});
            std::fill(s.component.begin(), s.component.end(), Component::Star);
            // The Plummer sampler is exact for Newtonian gravity; with the run's softening the
            // sphere would start too hot (by 35% in 2T when eps equals its scale radius).
            if (softening > 0) ic::virialize_softened(s, softening, seed);
            ic::StarClusterParams cluster = first.cluster;
            cluster.seed = seed;
            ic::dress_star_cluster(s, cluster);
            return s;
        }
        case Kind::Cube:
            return ic::make_uniform_cube({.bodies = first.bodies, .mass = first.mass, .side = first.scale,
                                          .virial_ratio = first.virial_ratio, .seed = seed});
        case Kind::Point:
            return ic::make_point_mass(first.mass);
        default: break;
    }
    ic::GalaxyParams p;
    p.seed = seed;
    p.softening = softening;
    for (const ComponentSpec& c : g.components) {
        if (c.kind == Kind::Disk) {
            p.disk = {.mass = c.mass, .bodies = c.bodies, .scale_length = c.scale, .scale_height = c.height,
                      .max_radius = c.max_radius, .toomre_q = c.toomre_q};
        } else {
            ic::SphereParams& sp = c.kind == Kind::Bulge ? p.bulge : p.halo;
            sp = {.mass = c.mass, .bodies = c.bodies, .scale_radius = c.scale, .max_radius = c.max_radius};
        }
    }
    return ic::make_galaxy(p);
}

// The values of a component as its table names them, for a message about its bodies.
std::string component_values(const ComponentSpec& c) {
    std::string v = "mass = " + short_number(c.mass);
    if (c.kind == Kind::Point) return v;
    v += ", bodies = " + std::to_string(c.bodies) + ", " + scale_key(c.kind) + " = " + short_number(c.scale);
    if (c.kind == Kind::Disk) v += ", scale_height = " + short_number(c.height) + ", toomre_q = " + short_number(c.toomre_q);
    if (c.kind == Kind::Cube) v += ", virial_ratio = " + short_number(c.virial_ratio);
    if (c.max_radius > 0) v += ", max_radius = " + short_number(c.max_radius);
    return v;
}

// The component of `g` that made a body labelled `label` (the generators label bodies so).
const ComponentSpec& component_of(const GalaxySpec& g, Component label) {
    if (g.components.size() == 1) return g.components.front();
    const Kind kind = label == Component::Disk ? Kind::Disk : label == Component::Bulge ? Kind::Bulge : Kind::Halo;
    for (const ComponentSpec& c : g.components)
        if (c.kind == kind) return c;
    return g.components.front();
}

std::optional<std::pair<std::size_t, std::string>> first_bad_body(const State& state) {
    for (std::size_t i = 0; i < state.size(); ++i) {
        const Vec4f& p = state.pos_mass[i];
        const Vec4f& v = state.velocity[i];
        const double x[3] = {p.x, p.y, p.z}, u[3] = {v.x, v.y, v.z};
        if (auto problem = io::body_problem(x, u, p.w)) return std::pair{i, *problem};
    }
    return std::nullopt;
}

// A galaxy's bodies, before placement, must be finite: else name the component's values.
void check_generated(const SceneSpec& s, const GalaxySpec& g, const State& bodies) {
    const auto bad = first_bad_body(bodies);
    if (!bad) return;
    const ComponentSpec& c = component_of(g, bodies.component[bad->first]);
    fail(s.source, c.key, "generating its bodies from " + component_values(c) + " gave body " +
                              std::to_string(bad->first) + " " + bad->second +
                              ": these values are too large or too small together for the simulation's float "
                              "state; use other units");
}

// After placement (position, velocity, orbit): name the galaxy and how it was placed.
void check_placed(const SceneSpec& s, const State& state) {
    const auto bad = first_bad_body(state);
    if (!bad) return;
    const GalaxySpec& g = s.galaxies[std::min<std::size_t>(state.galaxy[bad->first], s.galaxies.size() - 1)];
    const auto vec = [](const Vec3d& v) {
        return "[" + short_number(v.x) + ", " + short_number(v.y) + ", " + short_number(v.z) + "]";
    };
    const std::string placement =
        g.orbit ? "orbit (pericentre = " + short_number(g.orbit->pericentre) + ", separation = " +
                      short_number(g.orbit->separation) + ", eccentricity = " + short_number(g.orbit->eccentricity) + ")"
                : "position = " + vec(g.position) + ", velocity = " + vec(g.velocity);
    fail(s.source, g.key, "placing it by its " + placement + " gave body " + std::to_string(bad->first) + " " +
                              bad->second + ": the values are too large for the simulation's float state");
}

// Solar masses per mass unit of an N-body scene whose cluster draws a Kroupa spectrum (its stars
// are rescaled to the cluster's mass), from the spectrum's expected mean; 0 when no component says.
double cluster_mass_unit(const SceneSpec& s) {
    for (const GalaxySpec& g : s.galaxies)
        for (const ComponentSpec& c : g.components)
            if (c.kind == Kind::Plummer && c.cluster.mass_function == "kroupa" && c.mass > 0)
                return double(c.bodies) * ic::kroupa_mean_mass(c.cluster.min_mass, c.cluster.max_mass) / c.mass;
    return 0.0;
}

Scene generate(const SceneSpec& s) {
    // Before any body is made: N within what the host can hold (the state, its copies while the
    // galaxies are assembled); the command checks its backend's own need once the state exists.
    try {
        check_memory_for(s.bodies, "scene generation", Precision::Fp32);
    } catch (const std::runtime_error& e) {
        fail(s.source, "scene.bodies", e.what());
    }
    std::vector<ic::EncounterMember> members;
    members.reserve(s.galaxies.size());
    for (std::size_t k = 0; k < s.galaxies.size(); ++k) {
        const GalaxySpec& g = s.galaxies[k];
        ic::EncounterMember m;
        try {
            m.body = build_galaxy(g, g.seed.value_or(ic::detail::mix_seed(s.seed, 1000 + k)), s.params.softening);
        } catch (const std::invalid_argument& e) {
            fail(s.source, g.key, e.what());
        }
        check_generated(s, g, m.body);
        m.orientation = g.orientation;
        m.orbit = g.orbit;
        m.plane = g.plane;
        m.position = g.position;
        m.velocity = g.velocity;
        members.push_back(std::move(m));
    }
    Scene scene;
    try {
        scene.state = ic::assemble_encounter(std::move(members));
    } catch (const std::invalid_argument& e) {
        fail(s.source, "", e.what());
    }
    check_placed(s, scene.state);
    scene.state.time = 0.0;
    scene.name = s.name;
    scene.description = s.description;
    scene.source = s.source;
    scene.params = s.params;
    scene.steps_per_frame = s.steps_per_frame;
    scene.integrator = s.integrator;
    scene.camera = s.camera;
    scene.units = s.units;
    if (!(scene.units.mass_unit_msun > 0)) scene.units.mass_unit_msun = cluster_mass_unit(s);
    scene.trails = s.trails;
    for (const GalaxySpec& g : s.galaxies) scene.galaxy_names.push_back(g.name);  // label k is galaxy k
    return scene;
}

SceneSpec parse_text(std::string_view text, const std::string& source) {
    try {
        const toml::table root = toml::parse(text, source);
        return parse(root, source);
    } catch (const toml::parse_error& e) {
        const auto& b = e.source().begin;
        throw std::runtime_error(source + ":" + std::to_string(b.line) + ":" + std::to_string(b.column) +
                                 ": TOML syntax error: " + std::string(e.description()));
    }
}

std::string read_file(const std::string& path) {
    std::error_code ec;
    if (!std::filesystem::exists(path, ec)) throw std::runtime_error(path + ": scene file does not exist");
    // A particle file given where a scene (TOML) is expected would otherwise fail as a TOML
    // syntax error on its first line, which says nothing about the real mistake.
    std::string ext = std::filesystem::path(path).extension().string();
    for (char& c : ext) c = char(std::tolower(static_cast<unsigned char>(c)));
    if (ext == ".csv" || ext == ".tipsy" || ext == ".std" || ext == ".bin" || ext == ".nbsnap")
        throw std::runtime_error(path + ": is a particle file (" + ext + "), not a scene file (.toml); give it as "
                                 "`nbody run --input " + path + "`" + (ext == ".nbsnap" ? " or `nbody view --scene " + path + "`" : std::string()));
    return io::read_input_file(path, "scene");
}

}  // namespace

Scene load_scene_from_string(std::string_view text, const std::string& source_name, std::optional<std::size_t> bodies) {
    SceneSpec spec = parse_text(text, source_name);
    if (bodies) scale(spec, *bodies);
    return generate(spec);
}

SceneSpec parse_scene_spec(std::string_view toml_text, const std::string& source_name) {
    return parse_text(toml_text, source_name);
}

SceneSpec read_scene_spec(const std::string& path) { return parse_text(read_file(path), path); }

void scale_scene_spec(SceneSpec& spec, std::size_t bodies) { scale(spec, bodies); }

Scene build_scene(const SceneSpec& spec) { return generate(spec); }

Scene load_scene(const std::string& path, std::optional<std::size_t> bodies) {
    return load_scene_from_string(read_file(path), path, bodies);
}

SceneIntegrator read_scene_integrator(const std::string& path) { return parse_text(read_file(path), path).integrator; }

std::vector<SceneEntry> list_scenes(const std::string& directory) {
    namespace fs = std::filesystem;
    std::error_code ec;
    if (!fs::is_directory(directory, ec)) throw std::runtime_error(directory + ": scene folder does not exist or is not a folder");
    std::vector<fs::path> files;
    for (fs::directory_iterator it(directory, ec), end; !ec && it != end; it.increment(ec))
        if (it->path().extension() == ".toml" && it->is_regular_file(ec)) files.push_back(it->path());
    if (ec) throw std::runtime_error(directory + ": cannot list scene folder: " + ec.message());
    std::sort(files.begin(), files.end(), [](const fs::path& a, const fs::path& b) { return a.filename() < b.filename(); });
    std::vector<SceneEntry> out;
    for (const fs::path& f : files) {
        SceneEntry e;
        e.path = f.string();
        try {
            const SceneSpec spec = parse_text(read_file(e.path), e.path);
            e.name = spec.name;
            e.description = spec.description;
            e.bodies = spec.bodies;
            e.integrator = spec.integrator.name;
            e.galaxy = has_disk(spec);
        } catch (const std::exception& ex) {
            e.error = ex.what();
        }
        out.push_back(std::move(e));
    }
    return out;
}

}  // namespace nbody
