#!/usr/bin/env bash
# Device run 1 of 2026-11-24 (afternoon): every GPU test of the merged tree, the viewer at 256K.
set -u
t0=$SECONDS
tar -xJf .dev-pack/dev17.tar.xz
D=$PWD/.dev-17/bin
export LD_LIBRARY_PATH=$PWD/.dev-17/lib:$D
export NBODY_EXECUTABLE=$D/nbody NBODY_SOURCE_DIR=$PWD G6_HERMITE_EXECUTABLE=$D/g6_hermite
export __EGL_VENDOR_LIBRARY_FILENAMES=/usr/local/nvidia/share/glvnd/egl_vendor.d/10_nvidia.json
export NBODY_AUTOTUNE_CACHE=$OUT/autotune-cache.json
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
echo "unpacked at $((SECONDS-t0)) s"
( timeout 200 $D/nbody_cli_tests --gtest_color=no --gtest_brief=1 > $OUT/cli-tests.log 2>&1; echo "cli tests exit $?" >> $OUT/cli-tests.log ) &
timeout 330 $D/nbody_cuda_tests --gtest_color=no --gtest_brief=1 > $OUT/cuda-tests.log 2>&1; echo "cuda tests: exit $? at $((SECONDS-t0)) s"
grep -E "^\[  (PASSED|FAILED) |tests ran|FAILED|SKIPPED \] [A-Z]" $OUT/cuda-tests.log | head -40
timeout 100 $D/nbody_render_tests --gtest_color=no --gtest_brief=1 > $OUT/render-tests.log 2>&1; echo "render tests: exit $? at $((SECONDS-t0)) s"
grep -E "^\[  (PASSED|FAILED) |FAILED|SKIPPED \]" $OUT/render-tests.log | head -20
timeout 60 $D/nbody_g6_tests --gtest_color=no --gtest_brief=1 > $OUT/g6-tests.log 2>&1; echo "g6 tests: exit $?"
grep -E "^\[  (PASSED|FAILED) |FAILED" $OUT/g6-tests.log | head
wait; tail -3 $OUT/cli-tests.log; grep -E "FAILED" $OUT/cli-tests.log | head
echo "=== viewer, milky-way-andromeda, default options, 1 step/frame, 1920x1080 (t = $((SECONDS-t0)) s)"
for n in 262144 65536; do
  timeout 60 $D/nbody view --headless --scene $D/scenes/milky-way-andromeda.toml --bodies $n --steps-per-frame 1 --frames 200 --no-ui --size 1920x1080 > $OUT/view-$n.log 2>&1
  echo "N=$n: exit $?"; grep -iE "kernel|fps|frames" $OUT/view-$n.log | cut -c1-250 | tail -6
done
echo "=== hermite kernel rate (t = $((SECONDS-t0)) s)"
cd $D && timeout 40 ./nbody_hermite_bench kernel 32768 1024 50; timeout 60 ./nbody_hermite_bench kernel 262144 262144 3
echo "end at $((SECONDS-t0)) s"
