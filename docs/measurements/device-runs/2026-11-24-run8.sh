#!/usr/bin/env bash
# Device run 8 (issue 16): the tree with groups from nodes and tight cubes (the new default).
# Tests, then docs/TREE.md's table: accuracy per theta at 1M, step time 256K..16M, viewer at 1M
# and 256K, energy over the first passage at 1M.
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
timeout 120 $D/nbody accuracy --gravity tree --backend cuda --scene $S --bodies 1M --theta 0.3,0.4,0.5,0.6,0.7 --sample 4096 --json $OUT/accuracy-1M.json > $OUT/logs/accuracy-1M.log 2>&1
echo "--- accuracy 1M: exit $? t=$((SECONDS-t0))"; grep -E "tree |direct|faster" $OUT/logs/accuracy-1M.log | cut -c1-200
timeout 200 $D/nbody accuracy --gravity tree --backend cuda --scene $S --bodies 256K,512K,1M,2M,4M,8M,16M --theta 0.5 --sample 256 --no-direct --json $OUT/scaling.json > $OUT/logs/scaling.log 2>&1
echo "--- scaling: exit $? t=$((SECONDS-t0))"; grep -E "^scene|tree " $OUT/logs/scaling.log | cut -c1-200
v() { local name=$1; shift; timeout 90 $D/nbody view --headless --scene $S "$@" > $OUT/logs/view-$name.log 2>&1; echo "--- view $name: exit $?"; grep -E "frames|gravity|tree|force error" $OUT/logs/view-$name.log | cut -c1-220 | tail -6; }
v tree-1M --bodies 1048576 --gravity tree --steps-per-frame 1 --frames 300 --no-ui --size 1920x1080
v tree-256k --bodies 262144 --gravity tree --steps-per-frame 1 --frames 300 --no-ui --size 1920x1080
echo "=== energy 1M (t=$((SECONDS-t0)))"
timeout 280 $D/nbody run --scene $S --bodies 1M --backend cuda --gravity tree --steps 4100 > $OUT/logs/energy-1M.log 2>&1
echo "--- energy 1M: exit $? t=$((SECONDS-t0))"; grep -E "energy|steps|ms" $OUT/logs/energy-1M.log | tail -6
tar czf $OUT/logs.tgz -C $OUT logs; rm -rf $OUT/logs
echo "end at $((SECONDS-t0)) s"
