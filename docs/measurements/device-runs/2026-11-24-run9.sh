#!/usr/bin/env bash
# Device run 9 (issue 16): tree tests after the test fixes; error and cost at 1M (4096 sampled
# bodies) and at 16M for the candidate defaults (theta, group size); energy over the first
# passage at 1M; the viewer at 1M with the candidates.
set -u
t0=$SECONDS
tar -xzf .dev-pack/dev17.tar.gz
D=$PWD/.dev-17/bin
export LD_LIBRARY_PATH=$PWD/.dev-17/lib:$D
export NBODY_EXECUTABLE=$D/nbody NBODY_SOURCE_DIR=$PWD
export __EGL_VENDOR_LIBRARY_FILENAMES=/usr/local/nvidia/share/glvnd/egl_vendor.d/10_nvidia.json
S=$D/scenes/milky-way-andromeda.toml
mkdir -p $OUT/logs
timeout 100 $D/nbody_cuda_tests --gtest_color=no --gtest_brief=1 --gtest_filter='GpuTree*:CudaBackend*' > $OUT/logs/tree-tests.log 2>&1
echo "tree tests: exit $? (t = $((SECONDS-t0)) s)"; grep -E "^\[  (PASSED|FAILED) |FAILED" $OUT/logs/tree-tests.log | head -12
a() { local name=$1; shift; timeout 100 $D/nbody accuracy --gravity tree --backend cuda --scene $S --no-direct --json $OUT/acc-$name.json "$@" > $OUT/logs/acc-$name.log 2>&1; echo "--- $name ($*): exit $? t=$((SECONDS-t0))"; grep -E "tree " $OUT/logs/acc-$name.log | cut -c1-200; }
a g64-1M --bodies 1M --theta 0.45,0.5 --group-size 64 --sample 4096
a g128-1M --bodies 1M --theta 0.45,0.5 --group-size 128 --sample 4096
a g96-1M --bodies 1M --theta 0.5 --group-size 96 --sample 4096
a g128-16M --bodies 16M --theta 0.5 --group-size 128 --sample 256
a g64-16M --bodies 16M --theta 0.45 --group-size 64 --sample 256
v() { local name=$1; shift; timeout 60 $D/nbody view --headless --scene $S "$@" > $OUT/logs/view-$name.log 2>&1; echo "--- view $name: exit $?"; grep -E "frames 2|gravity:|force error" $OUT/logs/view-$name.log | cut -c1-220; }
v g128-1M --bodies 1048576 --gravity tree --group-size 128 --steps-per-frame 1 --frames 300 --no-ui --size 1920x1080
echo "=== energy 1M (t=$((SECONDS-t0)))"
timeout 330 $D/nbody run --scene $S --bodies 1048576 --backend cuda --gravity tree --group-size 128 --steps 4100 > $OUT/logs/energy-1M.log 2>&1
echo "--- energy 1M: exit $? t=$((SECONDS-t0))"; grep -vE "^\s*$" $OUT/logs/energy-1M.log | tail -5 | cut -c1-200
tar czf $OUT/logs.tgz -C $OUT logs; rm -rf $OUT/logs
echo "end at $((SECONDS-t0)) s"
