#!/usr/bin/env bash
# Device run 10 (issue 16): the defaults (theta 0.5, group 128) as a user runs them; the energy
# over the first passage at 1M (the potential now summed on the GPU in fp64); all CUDA tests.
set -u
t0=$SECONDS
tar -xzf .dev-pack/dev17.tar.gz
D=$PWD/.dev-17/bin
export LD_LIBRARY_PATH=$PWD/.dev-17/lib:$D
export NBODY_EXECUTABLE=$D/nbody NBODY_SOURCE_DIR=$PWD
export __EGL_VENDOR_LIBRARY_FILENAMES=/usr/local/nvidia/share/glvnd/egl_vendor.d/10_nvidia.json
S=$D/scenes/milky-way-andromeda.toml
mkdir -p $OUT/logs
timeout 200 $D/nbody_cuda_tests --gtest_color=no --gtest_brief=1 > $OUT/logs/cuda-tests.log 2>&1
echo "cuda tests: exit $? (t = $((SECONDS-t0)) s)"; grep -E "^\[  (PASSED|FAILED) |FAILED|SKIPPED \]" $OUT/logs/cuda-tests.log | head -12
timeout 100 $D/nbody accuracy --gravity tree --backend cuda --scene $S --bodies 1M --theta 0.5 --sample 4096 > $OUT/logs/acc-default-1M.log 2>&1
echo "--- accuracy 1M defaults: exit $? t=$((SECONDS-t0))"; grep -E "tree |direct|faster" $OUT/logs/acc-default-1M.log | cut -c1-200
timeout 60 $D/nbody view --headless --scene $S --bodies 1048576 --gravity tree --steps-per-frame 1 --frames 300 --no-ui --size 1920x1080 > $OUT/logs/view-1M.log 2>&1
echo "--- view 1M defaults: exit $?"; grep -E "frames 2|gravity:|force error" $OUT/logs/view-1M.log | cut -c1-220
echo "=== energy 1M (t=$((SECONDS-t0)))"
timeout 300 $D/nbody run --scene $S --bodies 1048576 --backend cuda --gravity tree --steps 4100 > $OUT/logs/energy-1M.log 2>&1
echo "--- energy 1M: exit $? t=$((SECONDS-t0))"; grep -vE "^\s*$" $OUT/logs/energy-1M.log | grep -v '^  step' | tail -8 | cut -c1-200
tar czf $OUT/logs.tgz -C $OUT logs; rm -rf $OUT/logs
echo "end at $((SECONDS-t0)) s"
