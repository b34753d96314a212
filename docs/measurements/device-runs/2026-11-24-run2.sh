#!/usr/bin/env bash
# Device run 2: every CUDA test after the remainder fix, the p = 512 companion sweep and the
# default config (scripts/gpu-defaults.sh STAGES="companions default viewer").
set -u
t0=$SECONDS
tar -xzf .dev-pack/dev17.tar.gz
D=$PWD/.dev-17/bin
export LD_LIBRARY_PATH=$PWD/.dev-17/lib:$D
export NBODY_EXECUTABLE=$D/nbody NBODY_SOURCE_DIR=$PWD G6_HERMITE_EXECUTABLE=$D/g6_hermite
export __EGL_VENDOR_LIBRARY_FILENAMES=/usr/local/nvidia/share/glvnd/egl_vendor.d/10_nvidia.json
timeout 150 $D/nbody_cuda_tests --gtest_color=no --gtest_brief=1 > $OUT/cuda-tests.log 2>&1; echo "cuda tests: exit $? at $((SECONDS-t0)) s"
grep -E "^\[  (PASSED|FAILED) |FAILED|Failure|actual" $OUT/cuda-tests.log | head -30
timeout 60 $D/nbody_g6_tests --gtest_color=no --gtest_brief=1 > $OUT/g6-tests.log 2>&1; echo "g6 tests: exit $?"
grep -E "^\[  (PASSED|FAILED) |FAILED" $OUT/g6-tests.log | head
BUILD=.dev-17 OUT=$OUT STAGES="companions default viewer" timeout $((560 - (SECONDS - t0))) bash scripts/gpu-defaults.sh 2>&1 | tee $OUT/defaults.txt | tail -120
echo "end at $((SECONDS-t0)) s"
