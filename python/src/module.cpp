// The extension module `nbody._nbody`: nbody.Simulation over nbody_sim and nbody_render.
// C++ exceptions become Python ones with the CLI's text (std::invalid_argument: ValueError,
// std::runtime_error: RuntimeError). Long calls release the GIL and, between batches of about
// 0.1 s, take it back to check for Ctrl-C (KeyboardInterrupt), so the state is always at a batch
// boundary when one arrives.

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <memory>
#include <optional>
#include <string>

#include "arrays.hpp"
#include "headless_render.hpp"
#include "nbody/render/camera.hpp"
#include "simulation.hpp"

namespace py = pybind11;
using namespace pybind11::literals;

namespace nbody::python {
namespace {

constexpr double kBatchSeconds = 0.1;  // the longest a Ctrl-C waits

struct PySimulation {
    std::unique_ptr<Simulation> sim;
    std::unique_ptr<HeadlessRender> renderer;  // on the first render()
};

IntegratorChoice integrator_choice(const std::optional<std::string>& name, const std::string& scene_integrator,
                                   std::optional<double> eta, std::optional<double> dt_max) {
    IntegratorChoice c;
    c.name = name ? *name : scene_integrator.empty() ? "leapfrog" : scene_integrator;
    c.eta = eta;
    c.dt_max = dt_max;
    if (c.name == "leapfrog" && (eta || dt_max))
        throw py::value_error("eta and dt_max apply to integrator='hermite4' or 'hermite6' (leapfrog takes dt)");
    return c;
}

PySimulation from_file(const std::string& path, std::optional<long long> bodies, const std::string& backend,
                       const std::optional<std::string>& integrator, std::optional<double> eta,
                       std::optional<double> dt_max) {
    LoadedSystem system;
    {
        py::gil_scoped_release release;
        system = load_system(path, bodies);
    }
    const IntegratorChoice choice = integrator_choice(integrator, system.file_integrator, eta, dt_max);
    return {std::make_unique<Simulation>(std::move(system), backend, choice), nullptr};
}

PySimulation from_arrays(const py::handle& x, const py::handle& v, const py::handle& m, double softening, double dt,
                         const std::string& backend, const std::string& integrator, std::optional<double> eta,
                         std::optional<double> dt_max, const py::object& galaxy, const py::object& component) {
    const std::vector<double> mass = masses_from(m, "m", std::nullopt);
    const std::vector<Vec3d> pos = vectors_from(x, "x", mass.size());
    const std::vector<Vec3d> vel = vectors_from(v, "v", mass.size());
    LoadedSystem system;
    system.state = state_from(pos, vel, mass);
    if (!galaxy.is_none()) {
        const auto labels = py::array_t<std::uint16_t, py::array::c_style | py::array::forcecast>::ensure(galaxy);
        if (!labels || labels.ndim() != 1 || std::size_t(labels.shape(0)) != mass.size())
            throw py::value_error("galaxy: expected " + std::to_string(mass.size()) + " labels (one per body, 0..65535)");
        system.state.galaxy.assign(labels.data(), labels.data() + mass.size());
    }
    if (!component.is_none()) {
        const auto labels = py::array_t<std::uint8_t, py::array::c_style | py::array::forcecast>::ensure(component);
        if (!labels || labels.ndim() != 1 || std::size_t(labels.shape(0)) != mass.size())
            throw py::value_error("component: expected " + std::to_string(mass.size()) + " labels (one per body)");
        for (std::size_t i = 0; i < mass.size(); ++i) {
            if (labels.data()[i] > std::uint8_t(Component::Star))
                throw py::value_error("component row " + std::to_string(i) + ": " + std::to_string(labels.data()[i]) +
                                      " is not one of 0 (unspecified), 1 (disk), 2 (bulge), 3 (halo), 4 (star)");
            system.state.component[i] = Component(labels.data()[i]);
        }
    }
    if (is_double_array(x) || is_double_array(v) || is_double_array(m)) system.precise = precise_from(pos, vel, mass);
    system.origin.params = {dt, softening};
    system.origin.name = "numpy arrays";
    system.has_run_params = true;
    const IntegratorChoice choice = integrator_choice(integrator, "", eta, dt_max);
    return {std::make_unique<Simulation>(std::move(system), backend, choice), nullptr};
}

// Positions, velocities and masses as the integrator keeps them: float64 where it has a double
// state (reference; cuda ds/fp64; Hermite), float32 otherwise.
py::array vectors_of(Simulation& s, bool velocity) {
    const auto& precise = s.precise();
    if (precise) return double_vectors(velocity ? precise->velocity : precise->position);
    return float_vectors(s.state(), velocity);
}

py::array masses_of(Simulation& s) {
    const auto& precise = s.precise();
    if (precise) return py::array_t<double>(py::ssize_t(precise->mass.size()), precise->mass.data());
    const State& st = s.state();
    py::array_t<float> out(py::ssize_t(st.size()));
    for (std::size_t i = 0; i < st.size(); ++i) out.mutable_data()[i] = st.pos_mass[i].w;
    return out;
}

// Replaces one of positions, velocities, masses; the others are the running ones.
enum class Part { Positions, Velocities, Masses };
void set_part(Simulation& s, Part part, const py::handle& values) {
    const std::size_t n = s.size();
    const auto& running = s.precise();
    std::vector<Vec3d> x, v;
    std::vector<double> m;
    if (running) {
        x = running->position, v = running->velocity, m = running->mass;
    } else {
        const State& st = s.state();
        for (std::size_t i = 0; i < n; ++i) {
            x.push_back(xyz(st.pos_mass[i]));
            v.push_back(xyz(st.velocity[i]));
            m.push_back(st.pos_mass[i].w);
        }
    }
    if (part == Part::Positions) x = vectors_from(values, "positions", n);
    if (part == Part::Velocities) v = vectors_from(values, "velocities", n);
    if (part == Part::Masses) m = masses_from(values, "masses", n);
    std::optional<PreciseState> precise;
    if (running || is_double_array(values)) precise = precise_from(x, v, m);
    s.set_state(state_from(x, v, m), precise);
}

// Runs `batch` (GIL released) until it says it is done, checking for Ctrl-C between batches.
template <class Batch>
void run_interruptibly(Batch batch) {
    for (;;) {
        bool done = false;
        {
            py::gil_scoped_release release;
            done = batch();
        }
        if (done) return;
        if (PyErr_CheckSignals() != 0) throw py::error_already_set();
    }
}

py::dict kernel_dict(const Simulation& s) {
    const app::KernelOptions& k = s.kernel_options();
    py::dict d;
    d["unroll"] = k.unroll;
    d["block"] = k.block;
    d["threads_per_body"] = k.threads_per_body;
    d["bodies_per_thread"] = k.bodies_per_thread;
    d["bodies_per_lane"] = k.bodies_per_lane;
    d["pairs"] = k.pairs;
    d["precision"] = k.precision;
    return d;
}

// sim.kernel = {...}: the keys given replace those options (None clears one), as the CLI's flags.
void set_kernel_dict(Simulation& s, const py::dict& d) {
    app::KernelOptions k = s.kernel_options();
    for (const auto& [key_obj, value] : d) {
        const std::string key = py::str(key_obj);
        const auto as_int = [&](std::optional<int>& to) {
            to = value.is_none() ? std::nullopt : std::optional<int>(value.cast<int>());
        };
        const auto as_text = [&](std::optional<std::string>& to) {
            to = value.is_none() ? std::nullopt : std::optional<std::string>(py::str(value).cast<std::string>());
        };
        if (key == "unroll") as_int(k.unroll);
        else if (key == "block") as_int(k.block);
        else if (key == "threads_per_body") as_int(k.threads_per_body);
        else if (key == "bodies_per_thread") as_int(k.bodies_per_thread);
        else if (key == "bodies_per_lane") as_int(k.bodies_per_lane);
        else if (key == "pairs") as_text(k.pairs);
        else if (key == "precision") as_text(k.precision);
        else
            throw py::value_error("kernel option '" + key + "' is not one of unroll, block, threads_per_body, "
                                  "bodies_per_thread, bodies_per_lane, pairs, precision");
    }
    s.set_kernel_options(k);
}

template <class Change>
void change_kernel(Simulation& s, Change change) {
    app::KernelOptions k = s.kernel_options();
    change(k);
    s.set_kernel_options(k);
}

CameraSpec camera_for(Simulation& s, const py::object& camera) {
    CameraSpec c = s.camera() ? *s.camera() : render::frame_camera(s.state());
    if (camera.is_none()) return c;
    const py::dict d = camera.cast<py::dict>();
    for (const auto& [key_obj, value] : d) {
        const std::string key = py::str(key_obj);
        if (key == "distance") c.distance = value.cast<double>();
        else if (key == "azimuth") c.azimuth_deg = value.cast<double>();
        else if (key == "elevation") c.elevation_deg = value.cast<double>();
        else if (key == "target") {
            const auto t = value.cast<std::vector<double>>();
            if (t.size() != 3) throw py::value_error("camera target: expected 3 numbers (x, y, z)");
            c.target = {t[0], t[1], t[2]};
        } else
            throw py::value_error("camera key '" + key + "' is not one of distance, azimuth, elevation, target");
    }
    if (!(c.distance > 0)) throw py::value_error("camera distance must be > 0");
    return c;
}

py::dict camera_dict(const CameraSpec& c) {
    return py::dict("distance"_a = c.distance, "azimuth"_a = c.azimuth_deg, "elevation"_a = c.elevation_deg,
                    "target"_a = py::make_tuple(c.target.x, c.target.y, c.target.z));
}

}  // namespace
}  // namespace nbody::python

PYBIND11_MODULE(_nbody, m) {
    using namespace nbody;
    using namespace nbody::python;
    m.doc() = "nbody: the GPU N-body simulator's libraries from Python (docs/PYTHON.md)";

    m.def("cuda_available", [] { return cuda_available(); },
          "True when this build has the CUDA backend and a GPU is usable (backend='cuda').");
    m.def("cuda_unavailable_reason", [] {
        std::string why;
        return cuda_available(&why) ? std::string() : why;
    }, "Why backend='cuda' cannot run here (empty when it can).");

    py::class_<PySimulation>(m, "Simulation")
        .def(py::init(&from_arrays), "x"_a, "v"_a, "m"_a, "softening"_a = 0.01, "dt"_a = 1e-3, "backend"_a = "auto",
             "integrator"_a = "leapfrog", "eta"_a = py::none(), "dt_max"_a = py::none(), "galaxy"_a = py::none(),
             "component"_a = py::none(),
             "A system from numpy arrays: x and v of shape (N, 3), m of shape (N,), any real dtype.")
        .def_static("from_scene", &from_file, "path"_a, "bodies"_a = py::none(), "backend"_a = "auto",
                    "integrator"_a = py::none(), "eta"_a = py::none(), "dt_max"_a = py::none(),
                    "A scene file (scenes/*.toml), scaled to `bodies` when given; also takes particle files.")
        .def_static("load", [](const std::string& path, const std::string& backend, const std::optional<std::string>& integrator,
                               std::optional<double> eta, std::optional<double> dt_max) {
                        return from_file(path, std::nullopt, backend, integrator, eta, dt_max);
                    },
                    "path"_a, "backend"_a = "auto", "integrator"_a = py::none(), "eta"_a = py::none(), "dt_max"_a = py::none(),
                    "A particle file: .csv, TIPSY (.tipsy/.std/.bin) or .nbsnap (with its dt and softening).")
        .def_static("encounter", [](const std::string& preset, std::optional<double> pericentre, std::optional<double> mass_ratio,
                                    std::optional<double> eccentricity, std::optional<double> separation,
                                    std::optional<double> time_to_pericentre, std::optional<long long> bodies,
                                    const std::string& backend) {
                        LoadedSystem system;
                        {
                            py::gil_scoped_release release;
                            system = load_encounter(preset, {mass_ratio, pericentre, eccentricity, separation, time_to_pericentre}, bodies);
                        }
                        return PySimulation{std::make_unique<Simulation>(std::move(system), backend, IntegratorChoice{}), nullptr};
                    },
                    "preset"_a, "pericentre"_a = py::none(), "mass_ratio"_a = py::none(), "eccentricity"_a = py::none(),
                    "separation"_a = py::none(), "time_to_pericentre"_a = py::none(), "bodies"_a = py::none(),
                    "backend"_a = "auto",
                    "The encounter editor's collision: a two-galaxy scene (the preset) with the given settings changed.")
        .def("step", [](PySimulation& p, long long n) {
                 p.sim->step(0);  // refuses a Hermite run and a negative count at once
                 if (n < 0) throw py::value_error("step count must be >= 0 (got " + std::to_string(n) + ")");
                 long long left = n;
                 run_interruptibly([&] { return p.sim->integrate_batch(0.0, left, kBatchSeconds); });
             },
             "n"_a = 1, "Leapfrog steps of dt (Ctrl-C stops between batches with the state consistent).")
        .def("integrate", [](PySimulation& p, double t_end) {
                 long long left = p.sim->steps_to(t_end);
                 run_interruptibly([&] { return p.sim->integrate_batch(t_end, left, kBatchSeconds); });
             },
             "t_end"_a, "Integrate to model time t_end (leapfrog: whole steps of dt; Hermite: block steps, synchronised at t_end).")
        .def("add", [](PySimulation& p, const py::handle& x, const py::handle& v, const py::handle& m) {
                 const std::vector<double> mass = masses_from(m, "m", std::nullopt);
                 const std::vector<Vec3d> pos = vectors_from(x, "x", mass.size());
                 const std::vector<Vec3d> vel = vectors_from(v, "v", mass.size());
                 std::optional<PreciseState> precise;
                 if (is_double_array(x) || is_double_array(v) || is_double_array(m)) precise = precise_from(pos, vel, mass);
                 p.sim->add(state_from(pos, vel, mass), precise);
             },
             "x"_a, "v"_a, "m"_a, "Appends bodies (arrays as for the constructor; one body: shapes (1, 3), (1, 3), (1,)).")
        .def_property("positions", [](PySimulation& p) { return vectors_of(*p.sim, false); },
                      [](PySimulation& p, const py::handle& a) { set_part(*p.sim, Part::Positions, a); })
        .def_property("velocities", [](PySimulation& p) { return vectors_of(*p.sim, true); },
                      [](PySimulation& p, const py::handle& a) { set_part(*p.sim, Part::Velocities, a); })
        .def_property("masses", [](PySimulation& p) { return masses_of(*p.sim); },
                      [](PySimulation& p, const py::handle& a) { set_part(*p.sim, Part::Masses, a); })
        .def_property_readonly("galaxy", [](PySimulation& p) {
            const State& s = p.sim->state();
            return py::array_t<std::uint16_t>(py::ssize_t(s.size()), s.galaxy.data());
        })
        .def_property_readonly("component", [](PySimulation& p) {
            const State& s = p.sim->state();
            return py::array_t<std::uint8_t>(py::ssize_t(s.size()), reinterpret_cast<const std::uint8_t*>(s.component.data()));
        })
        .def_property_readonly("time", [](PySimulation& p) { return p.sim->time(); })
        .def_property_readonly("steps", [](PySimulation& p) { return p.sim->steps_taken(); })
        .def_property_readonly("backend", [](PySimulation& p) { return p.sim->backend_name(); })
        .def_property_readonly("integrator", [](PySimulation& p) { return p.sim->integrator_name(); })
        .def("__len__", [](PySimulation& p) { return p.sim->size(); })
        .def_property("dt", [](PySimulation& p) { return p.sim->params().dt; },
                      [](PySimulation& p, double dt) { p.sim->set_dt(dt); })
        .def_property("softening", [](PySimulation& p) { return p.sim->params().softening; },
                      [](PySimulation& p, double eps) { p.sim->set_softening(eps); })
        .def("energy", [](PySimulation& p) {
            py::gil_scoped_release release;
            return p.sim->energy();
        }, "Total energy (kinetic + softened potential), summed in double over N^2/2 pairs.")
        .def("momentum", [](PySimulation& p) {
            const Vec3d q = p.sim->momentum();
            return py::make_tuple(q.x, q.y, q.z);
        })
        .def("accelerations", [](PySimulation& p, const std::optional<std::string>& gravity, std::optional<double> theta) {
                 std::vector<Vec3d> a;
                 {
                     py::gil_scoped_release release;
                     a = p.sim->accelerations(gravity, theta);
                 }
                 return double_vectors(a);
             },
             "gravity"_a = py::none(), "theta"_a = py::none(),
             "(N, 3) float64 accelerations at the current positions; gravity 'direct' or 'tree' (default: the running solver).")
        .def("save", [](PySimulation& p, const std::string& path, bool overwrite) {
            py::gil_scoped_release release;
            p.sim->save(path, overwrite);
        }, "path"_a, "overwrite"_a = false,
           "Writes the state: .nbsnap (resumes exactly), .csv, TIPSY; whole or not at all. A file of another kind "
           "or the simulation's input is replaced only with overwrite=True.")
        .def_property("gravity", [](PySimulation& p) { return p.sim->kernel_options().gravity.gravity; },
                      [](PySimulation& p, const std::string& g) {
                          change_kernel(*p.sim, [&](app::KernelOptions& k) {
                              k.gravity.gravity = g;
                              if (g == "direct") k.gravity = {"direct", {}, {}, {}};
                          });
                      })
        .def_property("theta", [](PySimulation& p) { return p.sim->kernel_options().gravity.theta; },
                      [](PySimulation& p, std::optional<double> t) { change_kernel(*p.sim, [&](app::KernelOptions& k) { k.gravity.theta = t; }); })
        .def_property("alpha", [](PySimulation& p) { return p.sim->kernel_options().gravity.alpha; },
                      [](PySimulation& p, std::optional<double> a) { change_kernel(*p.sim, [&](app::KernelOptions& k) { k.gravity.alpha = a; }); })
        .def_property("leaf_size", [](PySimulation& p) { return p.sim->kernel_options().gravity.leaf_size; },
                      [](PySimulation& p, std::optional<int> v) { change_kernel(*p.sim, [&](app::KernelOptions& k) { k.gravity.leaf_size = v; }); })
        .def_property("group_size", [](PySimulation& p) { return p.sim->kernel_options().gravity.group_size; },
                      [](PySimulation& p, std::optional<int> v) { change_kernel(*p.sim, [&](app::KernelOptions& k) { k.gravity.group_size = v; }); })
        .def_property("precision", [](PySimulation& p) { return p.sim->kernel_options().precision; },
                      [](PySimulation& p, std::optional<std::string> v) { change_kernel(*p.sim, [&](app::KernelOptions& k) { k.precision = v; }); })
        .def_property("pairs", [](PySimulation& p) { return p.sim->kernel_options().pairs; },
                      [](PySimulation& p, std::optional<std::string> v) { change_kernel(*p.sim, [&](app::KernelOptions& k) { k.pairs = v; }); })
        .def_property("kernel", [](PySimulation& p) { return kernel_dict(*p.sim); },
                      [](PySimulation& p, const py::dict& d) { set_kernel_dict(*p.sim, d); })
        .def_property_readonly("kernel_config", [](PySimulation& p) { return p.sim->kernel_description(); })
        .def_property_readonly("camera", [](PySimulation& p) { return camera_dict(camera_for(*p.sim, py::none())); })
        .def("render", [](PySimulation& p, int width, int height, const py::object& camera, const std::string& colour,
                          bool show_halo, std::optional<float> point_size, std::optional<float> exposure, bool annotate) {
                 FrameRequest r;
                 r.width = width;
                 r.height = height;
                 r.camera = camera_for(*p.sim, camera);
                 r.colour = parse_colour_mode(colour);
                 r.show_halo = show_halo;
                 r.point_size = point_size;
                 r.exposure = exposure;
                 r.annotate = annotate;
                 r.units = p.sim->units();
                 r.galaxy_names = p.sim->galaxy_names();
                 r.time = p.sim->time();
                 const State& state = p.sim->state();
                 std::vector<std::uint8_t> rgb;
                 {
                     py::gil_scoped_release release;
                     if (!p.renderer) p.renderer = std::make_unique<HeadlessRender>();
                     rgb = p.renderer->draw(state, p.sim->params().dt, r);
                 }
                 py::array_t<std::uint8_t> out({py::ssize_t(height), py::ssize_t(width), py::ssize_t(3)});
                 std::memcpy(out.mutable_data(), rgb.data(), rgb.size());
                 return out;
             },
             "width"_a = 1280, "height"_a = 720, "camera"_a = py::none(), "colour"_a = "galaxy", "show_halo"_a = false,
             "point_size"_a = py::none(), "exposure"_a = py::none(), "annotate"_a = false,
             "An (H, W, 3) uint8 frame from the viewer's renderer on the headless EGL path; point_size and "
             "exposure default to the viewer's choice for N (3 px and 1 up to 65,536 bodies).")
        .def_property_readonly("renderer", [](PySimulation& p) {
            return p.renderer ? p.renderer->description() : std::string("(none yet: render() makes one)");
        });
}
