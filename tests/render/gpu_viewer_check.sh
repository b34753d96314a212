#!/usr/bin/env bash
# The viewer on the GPU machine (issue 4): render tests (CUDA-GL interop included), headless
# screenshots with the CUDA backend, and frame rates at N = 65,536 and 262,144.
#
# Run from the repository root on the H200, with a build made on a development machine and its
# libraries bundled next to it (shared/device/bundle-libs.sh), e.g. in build-device/:
#   bash tests/render/gpu_viewer_check.sh            # files go to $OUT (or /tmp/nbody-gpu-out)
# Environment: NBODY_BUILD (default build-device).
set -uo pipefail
out=${OUT:-/tmp/nbody-gpu-out}
mkdir -p "$out"
build=${NBODY_BUILD:-build-device}
root=$PWD
export LD_LIBRARY_PATH="$root/$build/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export __EGL_VENDOR_LIBRARY_FILENAMES=${__EGL_VENDOR_LIBRARY_FILENAMES:-/usr/local/nvidia/share/glvnd/egl_vendor.d/10_nvidia.json}
export NBODY_SHADER_DIR="$root/shaders"  # the test executable has no shaders/ beside it
export NBODY_EXECUTABLE="$root/$build/app/nbody"
export NBODY_SOURCE_DIR="$root"
nbody=$NBODY_EXECUTABLE
status=0
step() { echo; echo "== $*"; }
run() { echo "\$ $*"; "$@" || { echo "!! exit $?"; status=1; }; }

nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader || true

step "render tests (EGL on the GPU, CUDA-GL interop)"
run "$root/$build/tests/nbody_render_tests" --gtest_color=no

step "headless screenshots, CUDA backend (t = 15: the spheres are colliding)"
run "$nbody" view --headless --backend cuda --bodies 65536 --steps-per-frame 10 --frames 150 --size 1920x1080 \
    --screenshot "$out/h200_cuda_65536_ui.png"
run "$nbody" view --headless --backend cuda --bodies 262144 --steps-per-frame 10 --frames 150 --size 1920x1080 \
    --no-ui --screenshot "$out/h200_cuda_262144.png"

step "frame rate, N = 65536, one step per frame, 1920x1080"
run "$nbody" view --headless --backend cuda --bodies 65536 --frames 600 --size 1920x1080 --no-ui
run "$nbody" view --headless --backend cuda --bodies 65536 --frames 600 --size 1920x1080

step "frame rate, N = 262144, one step per frame, 1920x1080"
run "$nbody" view --headless --backend cuda --bodies 262144 --frames 120 --size 1920x1080 --no-ui
run "$nbody" view --headless --backend cuda --bodies 262144 --frames 120 --size 1920x1080

step "the fallback: interop refused -> copy through the host (forced with NBODY_NO_INTEROP=1)"
NBODY_NO_INTEROP=1 run "$nbody" view --headless --backend cuda --bodies 65536 --frames 120 --no-ui

step "a kernel configuration the device refuses is an error, not a crash"
"$nbody" view --headless --backend cuda --bodies 4096 --frames 2 --block 48 --no-ui; echo "exit $? (expected 1)"

exit $status
