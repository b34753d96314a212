#include "arrays.hpp"

#include <cfloat>
#include <cmath>
#include <cstring>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "nbody/sim/io/body_check.hpp"

namespace nbody::python {

namespace {

std::string shape_of(const py::array& a) {
    std::string s = "(";
    for (py::ssize_t d = 0; d < a.ndim(); ++d) s += (d ? ", " : "") + std::to_string(a.shape(d));
    return s + (a.ndim() == 1 ? ",)" : ")");
}

std::string number(double x) {
    char text[32];
    std::snprintf(text, sizeof text, "%.9g", x);
    return text;
}

// Any real dtype (float16 to longdouble, integers), as a C-contiguous array of doubles.
py::array_t<double> as_doubles(const py::handle& obj, const char* name) {
    const py::array a = py::array::ensure(obj);
    if (!a) throw py::value_error(std::string(name) + ": expected a numpy array (or a sequence of numbers)");
    const char kind = a.dtype().kind();
    if (kind != 'f' && kind != 'i' && kind != 'u')
        throw py::value_error(std::string(name) + ": dtype " + std::string(py::str(a.dtype())) +
                              " is not a real number type");
    return py::array_t<double, py::array::c_style | py::array::forcecast>::ensure(a);
}

// The state is float: a value beyond its range would become infinite.
void check_value(double value, const char* name, std::size_t row, const char* column) {
    if (!std::isfinite(value))
        throw py::value_error(std::string(name) + " row " + std::to_string(row) + column + ": " + number(value) +
                              " is not finite");
    if (std::abs(value) > FLT_MAX)
        throw py::value_error(std::string(name) + " row " + std::to_string(row) + column + ": " + number(value) +
                              " is beyond the range of float (magnitude up to 3.4e38), in which the simulation keeps "
                              "its state; rescale the units");
}

void check_rows(std::size_t n, const char* name, std::optional<std::size_t> rows) {
    if (rows && n != *rows)
        throw py::value_error(std::string(name) + " has " + std::to_string(n) + " rows; expected " +
                              std::to_string(*rows) + " (one per body)");
    if (n == 0) throw py::value_error(std::string(name) + " has no rows: a system needs at least one body");
}

}  // namespace

bool is_double_array(const py::handle& obj) {
    const py::array a = py::array::ensure(obj);
    return a && a.dtype().kind() == 'f' && a.dtype().itemsize() >= 8;
}

std::vector<Vec3d> vectors_from(const py::handle& obj, const char* name, std::optional<std::size_t> rows) {
    const py::array_t<double> a = as_doubles(obj, name);
    if (a.ndim() != 2 || a.shape(1) != 3)
        throw py::value_error(std::string(name) + " has shape " + shape_of(a) + "; expected (N, 3)");
    const std::size_t n = std::size_t(a.shape(0));
    check_rows(n, name, rows);
    std::vector<Vec3d> out(n);
    const double* p = a.data();
    static const char* columns[3] = {" column 0 (x)", " column 1 (y)", " column 2 (z)"};
    for (std::size_t i = 0; i < n; ++i) {
        for (int c = 0; c < 3; ++c) check_value(p[3 * i + std::size_t(c)], name, i, columns[c]);
        out[i] = {p[3 * i], p[3 * i + 1], p[3 * i + 2]};
    }
    return out;
}

std::vector<double> masses_from(const py::handle& obj, const char* name, std::optional<std::size_t> rows) {
    const py::array_t<double> a = as_doubles(obj, name);
    if (a.ndim() != 1) throw py::value_error(std::string(name) + " has shape " + shape_of(a) + "; expected (N,)");
    const std::size_t n = std::size_t(a.shape(0));
    check_rows(n, name, rows);
    const double* p = a.data();
    for (std::size_t i = 0; i < n; ++i) {
        check_value(p[i], name, i, "");
        if (p[i] < 0)
            throw py::value_error(std::string(name) + " row " + std::to_string(i) + ": mass " + number(p[i]) +
                                  " is negative");
    }
    return {p, p + n};
}

State state_from(const std::vector<Vec3d>& x, const std::vector<Vec3d>& v, const std::vector<double>& m) {
    State s;
    try {
        // The readers' validator has the last word on the float state (the count nbody supports,
        // and what the rounding to float made of the values checked above).
        io::check_body_count(m.size(), "the arrays", "N");
        s.resize(m.size());
        for (std::size_t i = 0; i < m.size(); ++i) {
            s.pos_mass[i] = {float(x[i].x), float(x[i].y), float(x[i].z), float(m[i])};
            s.velocity[i] = {float(v[i].x), float(v[i].y), float(v[i].z), 0.0f};
        }
        io::check_bodies(s, "the arrays");
    } catch (const std::runtime_error& e) {
        throw py::value_error(e.what());
    }
    return s;
}

PreciseState precise_from(const std::vector<Vec3d>& x, const std::vector<Vec3d>& v, const std::vector<double>& m) {
    return PreciseState{x, v, m};
}

py::array_t<float> float_vectors(const State& state, bool velocity) {
    const std::vector<Vec4f>& from = velocity ? state.velocity : state.pos_mass;
    py::array_t<float> out({py::ssize_t(from.size()), py::ssize_t(3)});
    float* to = out.mutable_data();
    const auto copy = [&](std::size_t begin, std::size_t end) {
        for (std::size_t i = begin; i < end; ++i) {
            to[3 * i] = from[i].x;
            to[3 * i + 1] = from[i].y;
            to[3 * i + 2] = from[i].z;
        }
    };
    // One core does not saturate memory (the first touch of the new array's pages costs as much as
    // the copy): from a million bodies the copy is spread over the hardware threads.
    const std::size_t n = from.size();
    const std::size_t parts = n >= (1u << 20) ? std::max(1u, std::thread::hardware_concurrency()) : 1;
    {
        py::gil_scoped_release release;
        std::vector<std::thread> helpers;
        for (std::size_t k = 1; k < parts; ++k) helpers.emplace_back(copy, n * k / parts, n * (k + 1) / parts);
        copy(0, n / parts);
        for (auto& t : helpers) t.join();
    }
    return out;
}

py::array_t<double> double_vectors(const std::vector<Vec3d>& v) {
    static_assert(sizeof(Vec3d) == 3 * sizeof(double), "Vec3d is copied as three packed doubles");
    py::array_t<double> out({py::ssize_t(v.size()), py::ssize_t(3)});
    std::memcpy(out.mutable_data(), v.data(), v.size() * sizeof(Vec3d));
    return out;
}

}  // namespace nbody::python
