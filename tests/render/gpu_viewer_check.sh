#!/usr/bin/env bash
# The viewer and the recorder on the GPU machine (issues 4, 6 and 7): the render tests (CUDA-GL
# interop and recording included), headless frame rates with the per-stage breakdown (where the
# milliseconds of a frame go: host stages, CUDA steps, each GL pass), and a headless
# `nbody record` at 1920x1080, N = 65,536 with the CUDA backend. Builds nothing; about a minute on
# an H200 (every step has a timeout; the render tests have 10 minutes at most, RENDER_TESTS_TIMEOUT).
#
# Run from the repository root, with the staged build of scripts/build-device.sh:
#   build-device/bin/{nbody,nbody_render_tests,shaders/,scenes/}   build-device/lib/*.so*
#   bash tests/render/gpu_viewer_check.sh
# Output: a summary on stdout; in $OUT (default /tmp/nbody-gpu-out) at most 8 files: logs.tgz
# (every log, the render tests' failure images, the record run's frame list) and a few PNGs.
# Environment: NBODY_BUILD (default build-device), VIEW_FRAMES (default 300).
set -uo pipefail
root=$PWD
build=${NBODY_BUILD:-build-device}
bin=$root/$build/bin
out=${OUT:-/tmp/nbody-gpu-out}
frames=${VIEW_FRAMES:-300}
mkdir -p "$out"
work=$(mktemp -d)
mkdir -p "$work/artifacts"
export LD_LIBRARY_PATH="$root/$build/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
nvidia_egl=/usr/local/nvidia/share/glvnd/egl_vendor.d/10_nvidia.json
[ -f "$nvidia_egl" ] && export __EGL_VENDOR_LIBRARY_FILENAMES=${__EGL_VENDOR_LIBRARY_FILENAMES:-$nvidia_egl}
export NBODY_EXECUTABLE="$bin/nbody" NBODY_SOURCE_DIR="$root"
export NBODY_TEST_ARTIFACTS="$work/artifacts"  # images of failing render tests
nbody=$bin/nbody
status=0
[ -x "$nbody" ] || { echo "no $nbody: run scripts/build-device.sh on a development machine first"; exit 2; }

# run NAME TIMEOUT ARGS...: the log goes to $work/NAME.log; the summary lines to stdout.
run() {
  local name=$1 limit=$2
  shift 2
  echo
  echo "== $name: nbody $*"
  local t0=$SECONDS
  timeout "$limit" "$nbody" "$@" >"$work/$name.log" 2>&1
  local rc=$?
  echo "   exit $rc after $((SECONDS - t0)) s"
  [ $rc -eq 0 ] || { status=1; tail -n 5 "$work/$name.log" | sed 's/^/   | /'; }
  grep -E "^nbody (view|record): |^  frames 2|^  step:|stage breakdown|host \(CPU|^    GPU:|^  MP4|^  note|waited" \
    "$work/$name.log" | sed 's/^/   /'
  grep -E "^(fps_report|record_report)" "$work/$name.log" | sed 's/^/   /'
}

{
  nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.sm --format=csv,noheader
  nproc
} 2>&1 | tee "$work/machine.txt"

echo
echo "== render tests (EGL on the GPU: interop, renderer, recording)"
t0=$SECONDS
# The suite has grown past the 120 s this step once had (many viewer and record runs): a run cut
# off there printed no PASSED/FAILED line, so the summary showed nothing. Each test now ends a
# hung child itself (tests/support: run_command, wait_or_kill; $NBODY_TEST_COMMAND_TIMEOUT), and
# a cut-off run names the test it was in.
timeout -k 10 "${RENDER_TESTS_TIMEOUT:-600}" stdbuf -oL "$bin/nbody_render_tests" --gtest_color=no \
  >"$work/render-tests.log" 2>&1
rc=$?
echo "   exit $rc after $((SECONDS - t0)) s"
[ $rc -eq 0 ] || status=1
if [ $rc -eq 124 ] || [ $rc -eq 137 ]; then
  echo "   TIMED OUT in: $(grep -E '^\[ RUN' "$work/render-tests.log" | tail -n 1)"
  tail -n 15 "$work/render-tests.log" | sed 's/^/   | /'
fi
grep -E "^\[  (PASSED|FAILED) |^\[  FAILED  \]|^\[  SKIPPED \]|Failure$|GL_RENDERER" "$work/render-tests.log" | head -30 | sed 's/^/   /'
echo "   slowest tests:"
grep -E '^\[       OK \]' "$work/render-tests.log" | sed -E 's/.*\] ([^ ]+) \(([0-9]+) ms\)/\2 ms  \1/' | sort -rn | head -n 5 |
  sed 's/^/     /'
grep -B2 -A6 "HidingTheHalo" "$work/render-tests.log" | grep -E "Expected|actual|image|disk|halo" | head -12 | sed 's/^/   /'

# Frame rate and where a frame's time goes, N = 65,536 at 1080p: the default kernel, then a faster
# configuration (docs/PERFORMANCE.md), with and without the panels. One step per frame (the
# scenes' own steps per frame vary: the default galaxy collision takes 10), as issue 7 counts.
run view-65536-noui 60 view --headless --backend cuda --bodies 65536 --steps-per-frame 1 --frames "$frames" --size 1920x1080 --no-ui
run view-65536-noui-fast 60 view --headless --backend cuda --bodies 65536 --steps-per-frame 1 --frames "$frames" --size 1920x1080 \
  --no-ui --unroll 16 --block 1024 --threads-per-body 1 --bodies-per-thread 4
run view-65536-ui 60 view --headless --backend cuda --bodies 65536 --steps-per-frame 1 --frames "$frames" --size 1920x1080 \
  --screenshot "$out/h200_view_65536_ui.png"
run view-65536-720p-ui 60 view --headless --backend cuda --bodies 65536 --steps-per-frame 1 --frames "$frames" --size 1280x720
# Without the GL timer queries: the frame rate must not depend on measuring it.
NBODY_GPU_TIMERS=0 run view-65536-noui-untimed 60 view --headless --backend cuda --bodies 65536 --steps-per-frame 1 \
  --frames "$frames" --size 1920x1080 --no-ui
# The same without interop (positions through the host): what the mapping costs, by difference.
NBODY_NO_INTEROP=1 run view-65536-hostcopy 60 view --headless --backend cuda --bodies 65536 --steps-per-frame 1 \
  --frames 120 --size 1920x1080 --no-ui
run view-262144-noui 60 view --headless --backend cuda --bodies 262144 --steps-per-frame 1 --frames 120 \
  --size 1920x1080 --no-ui

# Recording, headless: 1920x1080, N = 65,536, CUDA. The frames stay here (only two come back);
# an MP4 when the machine has ffmpeg (else the run says so and writes the PNGs).
rec=$work/record-65536
run record-65536 90 record --backend cuda --bodies 65536 --frames 120 --steps-per-frame 1 --size 1920x1080 \
  --out "$rec" --mp4 "$work/record-65536.mp4" --camera orbit:0.5
if [ -d "$rec" ]; then
  ls -l "$rec" >"$work/record-65536-files.txt"
  echo "   $(ls "$rec" | grep -c '^frame_.*\.png$') PNGs, $(du -sh "$rec" | cut -f1); temporary files left: $(ls "$rec" | grep -vc '^frame_.*\.png$')"
  cp "$rec/frame_000000.png" "$out/h200_record_65536_first.png" 2>/dev/null
  cp "$rec/frame_000119.png" "$out/h200_record_65536_last.png" 2>/dev/null
  rm -rf "$rec"
fi
run record-65536-ui 60 record --backend cuda --bodies 65536 --frames 60 --steps-per-frame 10 --size 1920x1080 --ui \
  --out "$work/record-ui"
cp "$work/record-ui/frame_000059.png" "$out/h200_record_65536_ui.png" 2>/dev/null
rm -rf "$work/record-ui" "$work/record-65536.mp4"

echo
echo "== a kernel configuration the device refuses is an error, not a crash"
"$nbody" view --headless --backend cuda --bodies 4096 --frames 2 --block 48 --no-ui >"$work/refused.log" 2>&1
echo "   exit $? (expected 1): $(grep -m1 -i "error" "$work/refused.log")"

tar czf "$out/logs.tgz" -C "$work" .
rm -rf "$work"
echo
echo "gpu_viewer_check: $( [ $status -eq 0 ] && echo "all runs exited 0" || echo "SOME RUNS FAILED") ; files in $out: $(ls "$out" | tr '\n' ' ')"
exit $status
