#!/usr/bin/env bash
# Device run 100 (one GPU): the tree walk by occupied slices (issue 32 item 1) against the head
# before it (nbody-base), in one call: bench 1M and 16M Plummer (softening 0.05, dt 1/16, theta
# 0.5, the Bonsai comparison's set-up) with Bonsai in the same call, the phase line of `run`, the force error of both (they must
# agree: the lists do not change), and an Nsight Compute profile of each walk kernel at 1M.
source docs/measurements/device-runs/unpack-pk.sh
SHOW="^ +[0-9]+ |tree: build|median|error|ncu|==PROF=="
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader
SHOW="^\[  (PASSED|FAILED|SKIPPED) +\]|Failure" step tree-tests 200 $D/nbody_cuda_tests --gtest_color=no --gtest_filter='GpuTree*:Tree*'
B="bench --backend cuda --gravity tree --repeats 5 --warmup 20 --dt 0.0625 --softening 0.05 --theta 0.5"
R="run --backend cuda --gravity tree --scene $D/scenes/plummer.toml --softening 0.05 --dt 0.0625 --steps 30"
A="accuracy --gravity tree --backend cuda --scene $D/scenes/plummer.toml --theta 0.5 --sample 4096 --no-direct --steps 3"
for round in 1 2; do
  for exe in nbody-base nbody; do
    step bench1m-$exe-$round 90 $D/$exe $B -n 1M
  done
done
for exe in nbody-base nbody; do
  step bench16m-$exe 120 $D/$exe $B -n 16M
  step run1m-$exe 90 $D/$exe $R --bodies 1048576
  step acc1m-$exe 120 $D/$exe $A --bodies 1M
done
# The walk's parameters with slices (runtime options, no rebuild): error and step time per leaf and group size.
for leaf in 8 12 16 24 32; do
  for group in 64 96 128; do
    SHOW="tree " step sweep-l$leaf-g$group 60 $D/nbody $A --bodies 1M --sample 2048 --leaf-size $leaf --group-size $group
  done
done
# Bonsai (build-pack/bonsai.tar.xz) on the same sphere: tree build + gravity per step.
SHOW="median" step bonsai-1m 120 bash docs/measurements/2026-11-27-bonsai-run.sh 1048576 0.5 $L/bonsai-1m-t05.log 10
SHOW="median" step bonsai-16m 240 bash docs/measurements/2026-11-27-bonsai-run.sh 16777216 0.5 $L/bonsai-16m-t05.log 10
for exe in nbody-base nbody; do
  step ncu-$exe 240 ncu --clock-control none --set full -k regex:walk_kernel -s 3 -c 1 -o $OUT/walk-$exe \
    $D/$exe bench --backend cuda --gravity tree -n 1M --repeats 1 --warmup 1 --steps 3 --dt 0.0625 --softening 0.05
  timeout 60 ncu --import $OUT/walk-$exe.ncu-rep --page details > $L/ncu-details-$exe.txt 2>&1
  timeout 60 ncu --import $OUT/walk-$exe.ncu-rep --page source --csv --print-source sass > $L/ncu-sass-$exe.csv 2>&1
  grep -E "Duration|Registers|Achieved Occupancy|Issue Slots Busy|Executed Ipc A|Stall|Warp Cycles Per Issued" $L/ncu-details-$exe.txt | head -20
done
tar czf $OUT/logs.tgz -C $OUT logs; rm -rf $L
echo "end at $((SECONDS-t0)) s"
