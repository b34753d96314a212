# Decides whether the Python module `nbody` (python/) is built (NBODY_HAVE_PYTHON).
#   NBODY_PYTHON=OFF   never
#   NBODY_PYTHON=AUTO  when the Python headers, numpy and pybind11 (Debian: python3-dev,
#                      python3-numpy, python3-pybind11) are found
#   NBODY_PYTHON=ON    required: configuring fails without them
# Debian's /usr/bin/python3 is preferred over the first python3 on PATH: a pyenv or venv python
# there usually lacks numpy and Debian's pybind11, and a module built for one interpreter cannot
# be imported by another. Give -DPython3_EXECUTABLE=... to choose another.
# When the module is built, the static libraries it links (nbody_sim, nbody_render) are compiled
# position-independent (the top-level CMakeLists.txt), which costs the executable nothing measurable
# on x86-64; the executable's own objects are left as they are.

set(NBODY_HAVE_PYTHON OFF)
set(NBODY_PYTHON_MESSAGE "not built (NBODY_PYTHON=OFF)")
if(NOT NBODY_PYTHON STREQUAL "OFF")
  if(NOT DEFINED Python3_EXECUTABLE AND EXISTS /usr/bin/python3)
    set(Python3_EXECUTABLE /usr/bin/python3)
  endif()
  if(NBODY_PYTHON STREQUAL "ON")
    set(_nbody_python_required REQUIRED)
  endif()
  find_package(Python3 COMPONENTS Interpreter Development.Module NumPy ${_nbody_python_required})
  if(Python3_FOUND)
    execute_process(COMMAND ${Python3_EXECUTABLE} -c "import pybind11; print(pybind11.get_cmake_dir())"
                    OUTPUT_VARIABLE _nbody_pybind11_dir OUTPUT_STRIP_TRAILING_WHITESPACE
                    RESULT_VARIABLE _nbody_pybind11_rc ERROR_QUIET)
    if(_nbody_pybind11_rc EQUAL 0)
      list(APPEND CMAKE_PREFIX_PATH ${_nbody_pybind11_dir})
    endif()
    find_package(pybind11 CONFIG ${_nbody_python_required})
  endif()
  if(Python3_FOUND AND pybind11_FOUND)
    set(NBODY_HAVE_PYTHON ON)
    set(NBODY_PYTHON_MESSAGE "built for ${Python3_EXECUTABLE} ${Python3_VERSION} (numpy ${Python3_NumPy_VERSION}, pybind11 ${pybind11_VERSION}): PYTHONPATH=${PROJECT_BINARY_DIR}/python")
  else()
    set(NBODY_PYTHON_MESSAGE "not built: needs the Debian packages python3-dev python3-numpy python3-pybind11 (NBODY_PYTHON=${NBODY_PYTHON})")
  endif()
endif()
