#!/usr/bin/env bash
# One-step set-up for a fresh Debian/Ubuntu machine: installs the missing Debian packages, builds
# nbody, then either opens the viewer or runs the whole test suite.
#
#   scripts/bootstrap.sh view [nbody view options...]   set up, build, open the default collision
#   scripts/bootstrap.sh test                           set up, build, run every test (CTest)
#   scripts/bootstrap.sh build                          set up and build only
#
# Environment: BUILD_DIR (default: build), NBODY_CUDA (AUTO|ON|OFF, default AUTO),
# CMAKE_CUDA_ARCHITECTURES (default: the GPU present, else 86-virtual: PTX), JOBS (default: nproc).
# Idempotent: a second run installs nothing and rebuilds only what changed.
set -euo pipefail

mode=${1:-view}
[ $# -gt 0 ] && shift
case "$mode" in view|test|build) ;; *)
  echo "usage: $0 view|test|build [nbody view options...]" >&2; exit 2 ;;
esac

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
started=$SECONDS
# How long each phase took, so that a slow set-up (CI has 90 minutes) shows where the time went.
phase_done() { echo "bootstrap: $1 ($((SECONDS - started)) s since start)"; }
build_dir=${BUILD_DIR:-$root/build}
jobs=${JOBS:-$(nproc)}

# Build tools and libraries, all from Debian's archive; the Mesa EGL/GL packages let the
# headless renderer and the tests run without a GPU, the python3 ones build and test the Python
# module (import nbody) and its examples, Xvfb lets the windowed tests run without a
# display (xdotool sends them keys), ffmpeg makes MP4s.
packages=(
  cmake g++ make pkg-config
  libglfw3-dev libglew-dev libglm-dev libimgui-dev libstb-dev
  libcli11-dev libtomlplusplus-dev nlohmann-json3-dev libpng-dev libgtest-dev
  libegl-dev libegl1 libegl-mesa0 libgl-dev libgl1-mesa-dri libglx-mesa0
  libopenmpi-dev openmpi-bin
  python3-dev python3-pybind11 python3-numpy python3-pytest python3-matplotlib
)
[ "$mode" = test ] && packages+=(xvfb xauth xdotool x11-apps ffmpeg)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "bootstrap: installing missing packages: ${missing[*]}"
  if [ "$(id -u)" -eq 0 ]; then sudo=""; elif command -v sudo >/dev/null; then sudo="sudo"; else
    echo "bootstrap: these Debian packages are missing and this user cannot install them (not root, no sudo):" >&2
    echo "  ${missing[*]}" >&2
    echo "Install them as root:  apt-get install -y ${missing[*]}" >&2
    exit 1
  fi
  export DEBIAN_FRONTEND=noninteractive
  if ! { $sudo apt-get update -q && $sudo apt-get install -y -q --no-install-recommends "${missing[@]}"; }; then
    echo "bootstrap: apt-get could not install: ${missing[*]}" >&2
    echo "Check the package sources (/etc/apt/sources.list) and the network, then run this again." >&2
    exit 1
  fi
else
  echo "bootstrap: all required Debian packages are installed"
fi

# The CUDA Toolkit is not a Debian package here: use it when it is installed.
cuda_flag=${NBODY_CUDA:-AUTO}
if [ "$cuda_flag" != OFF ] && ! command -v nvcc >/dev/null && [ ! -x /usr/local/cuda/bin/nvcc ]; then
  echo "bootstrap: no CUDA Toolkit (nvcc) found: building the CPU backend only"
fi

cmake_args=(-S "$root" -B "$build_dir" -DCMAKE_BUILD_TYPE=Release -DNBODY_CUDA="$cuda_flag")
[ -n "${CMAKE_CUDA_ARCHITECTURES:-}" ] && cmake_args+=(-DCMAKE_CUDA_ARCHITECTURES="$CMAKE_CUDA_ARCHITECTURES")
phase_done "packages ready"
cmake "${cmake_args[@]}"
phase_done "configured"
cmake --build "$build_dir" -j "$jobs"
phase_done "built"

case "$mode" in
  build) echo "bootstrap: built $build_dir/app/nbody" ;;
  view)
    if [ -z "${DISPLAY:-}" ] && [ -z "${WAYLAND_DISPLAY:-}" ]; then
      echo "bootstrap: no display (DISPLAY is unset). For a picture without one, run for example:" >&2
      echo "  $build_dir/app/nbody view --headless --frames 200 --screenshot collision.png" >&2
      exit 1
    fi
    exec "$build_dir/app/nbody" view "$@" ;;
  test)
    cd "$build_dir"
    exec ctest --output-on-failure -j "$jobs" --timeout 900 ;;
esac
