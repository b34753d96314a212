#!/usr/bin/env bash
# Everything that needs the GPU machine, in one call (device time is scarce): the CUDA suite
# (tests, sanitizers, bench sweeps: scripts/gpu-suite.sh), the renderer's tests on the NVIDIA EGL
# device platform with CUDA-GL interop, and headless viewer runs measuring frames per second.
# Builds nothing: run scripts/build-device.sh on a development machine first and carry
# build-device/. Results are packed into $OUT/results.tgz plus a few PNGs (the device tool
# returns at most 8 files).
#   SUITE=0 skips the CUDA suite; QUICK=1 shortens its sweeps.
set -uo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
export BUILD=${BUILD:-build-device}
final=${OUT:-$root/gpu-out}
work=$(mktemp -d)
mkdir -p "$final"
export LD_LIBRARY_PATH="$root/$BUILD/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export NBODY_EXECUTABLE="$root/$BUILD/bin/nbody" NBODY_SOURCE_DIR="$root"
nvidia_egl=/usr/local/nvidia/share/glvnd/egl_vendor.d/10_nvidia.json
[ -f "$nvidia_egl" ] && export __EGL_VENDOR_LIBRARY_FILENAMES=$nvidia_egl

if [ "${SUITE:-1}" = 1 ]; then
  OUT=$work/suite scripts/gpu-suite.sh 2>&1 | tee "$work/suite.log" | tail -n 40
fi

echo; echo "=== render tests on the GPU (EGL device platform, CUDA-GL interop)"
timeout 180 "$BUILD/bin/nbody_render_tests" --gtest_color=no >"$work/render-tests.log" 2>&1
echo "render tests: exit $?"; grep -E "^\[  (PASSED|FAILED|  SKIPPED) |SKIPPED \]|Failure" "$work/render-tests.log" | head -20

echo; echo "=== headless viewer, cuda backend, interop"
for n in 65536 262144; do
  timeout 120 "$BUILD/bin/nbody" view --headless --backend cuda --bodies $n --frames 300 --no-ui \
    --size 1920x1080 ${VIEW_ARGS:-} >"$work/view-$n.log" 2>&1
  echo "N=$n: exit $?"; tail -n 6 "$work/view-$n.log"
done
timeout 120 "$BUILD/bin/nbody" view --headless --backend cuda --bodies 65536 --frames 200 \
  --size 1280x720 --screenshot "$final/h200-headless-ui.png" >"$work/view-shot.log" 2>&1
echo "screenshot: exit $?"; tail -n 4 "$work/view-shot.log"
tar czf "$final/results.tgz" -C "$work" .
echo "gpu-all: results in $final/results.tgz"
