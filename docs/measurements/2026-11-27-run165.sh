#!/usr/bin/env bash
# Device run 165 (one GPU): the tree walk taking the groups by cost (their smallest |a| ascending,
# the longest lists first) in a full pass under the relative criterion, against the head before it (run 163 sorted every slot: 2 ms at 16M; now the first twice the last count; run 164 read that count before any pass had made it: a segfault, fixed)
# (build-pack/before-order.tar.xz: run 162's nbody, the groups in key order), alternately; the
# tree tests (the shares' bits against the whole pass's, the walk room's).
source docs/measurements/device-runs/unpack-pk.sh
mkdir -p .pkb && tar -xJf build-pack/before-order.tar.xz -C .pkb
BEFORE=$(find $PWD/.pkb -name nbody -type f | head -1)
SHOW="^ +[0-9]+ |PASSED|FAILED|Failure|walk [0-9.]+ ms|fps_report"
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader
step tests 300 $D/nbody_cuda_tests --gtest_color=no --gtest_filter='GpuTree*:ForceShares*:WalkRoom*:GpuBlockSteps*:CudaGlInterop.Tree*'
B="bench --backend cuda --gravity tree --repeats 5 --warmup 20 --dt 0.0625 --softening 0.05"
for round in 1 2 3; do
  step b1m-before-$round 60 $BEFORE $B -n 1M
  step b1m-order-$round 60 $D/nbody $B -n 1M
done
step b16m-before 90 $BEFORE $B -n 16M
step b16m-order 90 $D/nbody $B -n 16M
step b4m-before 90 $BEFORE $B -n 4M
step b4m-order 90 $D/nbody $B -n 4M
V="view --headless --backend cuda --scene $D/scenes/milky-way-andromeda.toml --gravity tree --steps-per-frame 1 --no-ui --size 1920x1080 --bodies 1048576 --frames 300"
step view-before 60 $BEFORE $V
step view-order 60 $D/nbody $V
tar czf $OUT/logs.tgz -C $OUT logs; rm -rf $L
echo "end at $((SECONDS-t0)) s"
