#!/usr/bin/env bash
# Device run 14: the force and precision kernels' instances split over translation units
# (force_kernel_u*.cu, precision_kernels_{jbag,ds,fp64}.cu): every CUDA test, the render tests, and
# the default kernel's rates against run 14/16 of 2026-11-24 (2.361e12 Plummer 256K, 2.359e12 scene).
set -u
t0=$SECONDS
rm -rf .dev-17; tar -xzf .dev-pack/dev17.tar.gz
D=$PWD/.dev-17/bin
export LD_LIBRARY_PATH=$PWD/.dev-17/lib:$D
export NBODY_EXECUTABLE=$D/nbody NBODY_SOURCE_DIR=$PWD
export __EGL_VENDOR_LIBRARY_FILENAMES=/usr/local/nvidia/share/glvnd/egl_vendor.d/10_nvidia.json
mkdir -p $OUT/logs; W=$(mktemp -d)
timeout 240 $D/nbody_cuda_tests --gtest_color=no --gtest_brief=1 > $OUT/logs/cuda-tests.log 2>&1
echo "cuda tests: exit $? (t = $((SECONDS-t0)) s)"; grep -E "^\[  (PASSED|FAILED) |FAILED|SKIPPED \]" $OUT/logs/cuda-tests.log | head -12
(cd $W && timeout 200 $D/nbody_render_tests --gtest_color=no --gtest_brief=1 > $OUT/logs/render-tests.log 2>&1)
echo "render tests: exit $? (t = $((SECONDS-t0)) s)"; grep -E "^\[  (PASSED|FAILED) |FAILED|SKIPPED \]" $OUT/logs/render-tests.log | head -12
b() { local name=$1; shift; (cd $W && timeout 120 $D/nbody bench --backend cuda "$@" > $OUT/logs/$name.log 2>&1); echo "--- $name: exit $? (t = $((SECONDS-t0)) s)"; grep -E "^ *[0-9]+ |interactions|e\+12" $OUT/logs/$name.log | head -8; }
b plummer-256k --bodies 256K
b scene-256k --scene $D/scenes/milky-way-andromeda.toml --bodies 256K --pairs full
b plummer-1m --bodies 1M
b ds-64k --bodies 64K --precision ds
b jbag-64k --bodies 64K --precision fp32-jbag
(cd $W && timeout 100 $D/nbody view --headless --backend cuda --size 1280x720 --frames 320 --screenshot $OUT/mw-default.png > $OUT/logs/view.log 2>&1); echo "--- view: exit $?"; grep -E "frames 2" $OUT/logs/view.log | cut -c1-200
tar czf $OUT/logs.tgz -C $OUT logs; rm -rf $OUT/logs
echo "end at $((SECONDS-t0)) s"
