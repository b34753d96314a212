#!/usr/bin/env bash
# Device run 7 (issue 16): the tree walk's list lengths and cost per experiment switch
# (NBODY_TREE_EXPERIMENT bits: 1 tight boxes, 2 groups from nodes), group/leaf sizes, at 1M.
set -u
t0=$SECONDS
tar -xzf .dev-pack/dev17.tar.gz
D=$PWD/.dev-17/bin
export LD_LIBRARY_PATH=$PWD/.dev-17/lib:$D
export NBODY_EXECUTABLE=$D/nbody NBODY_SOURCE_DIR=$PWD
S=$D/scenes/milky-way-andromeda.toml
mkdir -p $OUT/logs
timeout 120 $D/nbody_cuda_tests --gtest_color=no --gtest_brief=1 --gtest_filter='GpuTree*:CudaBackend*Step*' > $OUT/logs/tree-tests.log 2>&1
echo "tree tests: exit $? (t = $((SECONDS-t0)) s)"; grep -E "^\[  (PASSED|FAILED) |FAILED" $OUT/logs/tree-tests.log | head -12
a() { local name=$1 exp=$2; shift 2; NBODY_TREE_EXPERIMENT=$exp timeout 100 $D/nbody accuracy --gravity tree --backend cuda --scene $S --sample 1024 --repeats 3 --steps 5 --no-direct "$@" > $OUT/logs/acc-$name.log 2>&1; echo "--- $name (exp $exp $*): exit $? t=$((SECONDS-t0))"; grep -E "tree " $OUT/logs/acc-$name.log | cut -c1-200; }
for e in 0 1 2 3; do a e$e $e --bodies 1M --theta 0.4,0.5,0.6; done
for g in 32 128; do a e3-g$g 3 --bodies 1M --theta 0.5 --group-size $g; done
for l in 8 32; do a e3-l$l 3 --bodies 1M --theta 0.5 --leaf-size $l; done
a e0-256k 0 --bodies 256K --theta 0.5
a e3-256k 3 --bodies 256K --theta 0.5
tar czf $OUT/logs.tgz -C $OUT logs; rm -rf $OUT/logs
echo "end at $((SECONDS-t0)) s"
