# Decides whether the CUDA backend is built (NBODY_HAVE_CUDA) and for which architectures.
#   NBODY_CUDA=OFF   never
#   NBODY_CUDA=AUTO  when a CUDA compiler is found (nvcc on PATH or in /usr/local/cuda)
#   NBODY_CUDA=ON    required: configuring fails without a CUDA compiler
# CMAKE_CUDA_ARCHITECTURES, when given, wins. Otherwise the GPU present at configure time
# ("native") is used when nvidia-smi sees one. With no GPU, the kernels are compiled once, to PTX
# for compute capability 8.6 ("86-virtual"): every kernel still goes through the CUDA compiler, and
# the driver of any GPU of capability 8.6 or newer (RTX 30/40, H100/H200) can JIT it. Real code for
# three architectures costs three cicc passes plus ptxas, over an hour on two cores (the force and
# precision kernels have ~230 unrolled instances), which a machine that cannot run them does not need.

set(NBODY_HAVE_CUDA OFF)
if(NOT NBODY_CUDA STREQUAL "OFF")
  if(NOT CMAKE_CUDA_COMPILER AND NOT DEFINED ENV{CUDACXX})
    find_program(NBODY_NVCC nvcc HINTS /usr/local/cuda/bin ENV CUDA_PATH PATH_SUFFIXES bin)
    if(NBODY_NVCC)
      set(CMAKE_CUDA_COMPILER ${NBODY_NVCC})
    endif()
  endif()
  include(CheckLanguage)
  check_language(CUDA)
  if(CMAKE_CUDA_COMPILER)
    if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES OR CMAKE_CUDA_ARCHITECTURES STREQUAL "")
      find_program(NBODY_NVIDIA_SMI nvidia-smi)
      set(_nbody_gpu_seen OFF)
      if(NBODY_NVIDIA_SMI)
        execute_process(COMMAND ${NBODY_NVIDIA_SMI} --query-gpu=compute_cap --format=csv,noheader
                        OUTPUT_VARIABLE _nbody_caps RESULT_VARIABLE _nbody_smi_rc
                        OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
        if(_nbody_smi_rc EQUAL 0 AND _nbody_caps MATCHES "^[0-9]")
          set(_nbody_gpu_seen ON)
        endif()
      endif()
      if(_nbody_gpu_seen)
        set(CMAKE_CUDA_ARCHITECTURES native)
      else()
        set(CMAKE_CUDA_ARCHITECTURES 86-virtual)
        message(STATUS "nbody: no GPU seen: CUDA kernels built as PTX for compute capability 8.6 "
                       "(JIT-compiled by the driver on a GPU's first run). For native code give "
                       "-DCMAKE_CUDA_ARCHITECTURES=90 (H100/H200), 89 (RTX 40) or 86 (RTX 30).")
      endif()
    endif()
    enable_language(CUDA)
    find_package(CUDAToolkit REQUIRED)
    set(NBODY_HAVE_CUDA ON)
  elseif(NBODY_CUDA STREQUAL "ON")
    message(FATAL_ERROR "NBODY_CUDA=ON but no CUDA compiler was found. Install the CUDA Toolkit "
                        "(nvcc in /usr/local/cuda/bin or on PATH), or configure with -DNBODY_CUDA=OFF.")
  else()
    message(STATUS "nbody: no CUDA compiler found; building without the CUDA backend")
  endif()
endif()
