# Decides whether the MPI and NCCL communicators are built (NBODY_HAVE_MPI, NBODY_HAVE_NCCL).
#   NBODY_MPI / NBODY_NCCL = AUTO  built when found (said so below)
#                            ON    required: configuring fails without it
#                            OFF   never
# MPI is the host communicator (the CPU backend across ranks, and the bootstrap of NCCL across
# processes); Debian's OpenMPI is not CUDA-aware, so no device pointer is ever handed to it.
# NCCL moves device buffers; it needs the CUDA backend. Its header and libnccl.so come with the
# CUDA Toolkit here (include/, lib64/); the GPU machines have their own libnccl.so.2 (same soname),
# so the library is linked, never bundled.

set(NBODY_MPI "AUTO" CACHE STRING "Build the MPI communicator: AUTO (when found), ON, OFF")
set_property(CACHE NBODY_MPI PROPERTY STRINGS AUTO ON OFF)
set(NBODY_NCCL "AUTO" CACHE STRING "Build the NCCL communicator (needs CUDA): AUTO (when found), ON, OFF")
set_property(CACHE NBODY_NCCL PROPERTY STRINGS AUTO ON OFF)

set(NBODY_HAVE_MPI OFF)
if(NOT NBODY_MPI STREQUAL "OFF")
  find_package(MPI COMPONENTS C QUIET)
  if(MPI_C_FOUND)
    set(NBODY_HAVE_MPI ON)
    find_program(NBODY_MPIEXEC NAMES mpirun mpiexec HINTS ${MPI_C_COMPILER_INCLUDE_DIRS}/../bin)
    if(MPIEXEC_EXECUTABLE)
      set(NBODY_MPIEXEC ${MPIEXEC_EXECUTABLE})
    endif()
    message(STATUS "nbody: MPI communicator ON (MPI ${MPI_C_VERSION}, launcher ${NBODY_MPIEXEC})")
  elseif(NBODY_MPI STREQUAL "ON")
    message(FATAL_ERROR "NBODY_MPI=ON but no MPI was found: apt-get install libopenmpi-dev openmpi-bin, "
                        "or configure with -DNBODY_MPI=OFF.")
  else()
    message(STATUS "nbody: MPI communicator OFF (no MPI found: apt-get install libopenmpi-dev openmpi-bin)")
  endif()
else()
  message(STATUS "nbody: MPI communicator OFF (NBODY_MPI=OFF)")
endif()

set(NBODY_HAVE_NCCL OFF)
if(NOT NBODY_NCCL STREQUAL "OFF")
  set(_nbody_nccl_why "")
  if(NOT NBODY_HAVE_CUDA)
    set(_nbody_nccl_why "it needs the CUDA backend, which this build lacks")
  else()
    find_path(NBODY_NCCL_INCLUDE_DIR nccl.h HINTS ${CUDAToolkit_INCLUDE_DIRS} /usr/local/cuda/include)
    find_library(NBODY_NCCL_LIBRARY NAMES nccl HINTS ${CUDAToolkit_LIBRARY_DIR} /usr/local/cuda/lib64)
    if(NBODY_NCCL_INCLUDE_DIR AND NBODY_NCCL_LIBRARY)
      set(NBODY_HAVE_NCCL ON)
      message(STATUS "nbody: NCCL communicator ON (${NBODY_NCCL_INCLUDE_DIR}/nccl.h, ${NBODY_NCCL_LIBRARY})")
    else()
      set(_nbody_nccl_why "nccl.h or libnccl.so not found in the CUDA Toolkit")
    endif()
  endif()
  if(NOT NBODY_HAVE_NCCL)
    if(NBODY_NCCL STREQUAL "ON")
      message(FATAL_ERROR "NBODY_NCCL=ON but ${_nbody_nccl_why}.")
    endif()
    message(STATUS "nbody: NCCL communicator OFF (${_nbody_nccl_why})")
  endif()
else()
  message(STATUS "nbody: NCCL communicator OFF (NBODY_NCCL=OFF)")
endif()
