#pragma once
// numpy arrays in and out of a State, checked the way a particle file is: a wrong shape, a
// non-finite value, a value beyond float's range or a negative mass is a ValueError naming the
// array and the row. Bulk copies only, no per-body Python objects.

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <optional>

#include "nbody/sim/state.hpp"

namespace nbody::python {

namespace py = pybind11;

// An (N, 3) array of any real dtype as doubles; `name` is what errors call it ("x", "positions").
std::vector<Vec3d> vectors_from(const py::handle& array, const char* name, std::optional<std::size_t> rows);
// An (N,) array of masses (finite, >= 0).
std::vector<double> masses_from(const py::handle& array, const char* name, std::optional<std::size_t> rows);
// Whether values given in `array` carry more than float's digits (float64 or wider).
bool is_double_array(const py::handle& array);

// Floats and doubles of a system from double values (rounded into the floats).
State state_from(const std::vector<Vec3d>& x, const std::vector<Vec3d>& v, const std::vector<double>& m);
PreciseState precise_from(const std::vector<Vec3d>& x, const std::vector<Vec3d>& v, const std::vector<double>& m);

// (N, 3) float32 from the floats of a State (x, y, z of each Vec4f; `velocity`: the velocities).
py::array_t<float> float_vectors(const State& state, bool velocity);
py::array_t<double> double_vectors(const std::vector<Vec3d>& v);

}  // namespace nbody::python
