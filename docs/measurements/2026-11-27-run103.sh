#!/usr/bin/env bash
# Device run 103 (one GPU): the walk by occupied slices as committed (nbody: slices 1..4 with the
# cell loop not unrolled, and the cell term's sums ordered for FMA contraction) against the head
# before (nbody-base) and run 102's s1u1 (the same walk without the cell-term reordering), with
# Bonsai in the same call; the tree and block-step GPU tests; a first look at block steps at 1M.
source docs/measurements/device-runs/unpack-pk.sh
SHOW="^ +[0-9]+ |tree: build|median|error|==PROF==|PASSED|FAILED|Failure|time steps|levels|wall"
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader
step tests 300 $D/nbody_cuda_tests --gtest_color=no --gtest_filter='GpuTree*:Tree*:GpuBlockSteps*'
B="bench --backend cuda --gravity tree --repeats 5 --warmup 20 --dt 0.0625 --softening 0.05 --theta 0.5"
for round in 1 2; do
  for exe in nbody-base nbody-s1u1 nbody; do step b1m-$exe-$round 60 $D/$exe $B -n 1M; done
done
for exe in nbody-base nbody-s1u1 nbody; do step b16m-$exe 90 $D/$exe $B -n 16M; done
A="accuracy --gravity tree --backend cuda --sample 4096 --no-direct --steps 3 --bodies 1M --theta 0.5"
step acc-plummer 90 $D/nbody $A --scene $D/scenes/plummer.toml
step acc-mwa 90 $D/nbody $A --scene $D/scenes/milky-way-andromeda.toml
SHOW="median" step bonsai-1m 120 bash docs/measurements/2026-11-27-bonsai-run.sh 1048576 0.5 $L/bonsai-1m-t05.log 10
SHOW="median" step bonsai-16m 240 bash docs/measurements/2026-11-27-bonsai-run.sh 16777216 0.5 $L/bonsai-16m-t05.log 10
step ncu 120 ncu --clock-control none --set full -k regex:walk_kernel -s 3 -c 1 -o $OUT/walk-final \
    $D/nbody bench --backend cuda --gravity tree -n 1M --repeats 1 --warmup 1 --steps 3 --dt 0.0625 --softening 0.05
timeout 60 ncu --import $OUT/walk-final.ncu-rep --page details > $L/ncu-details.txt 2>&1
timeout 60 ncu --import $OUT/walk-final.ncu-rep --page source --csv --print-source sass > $L/ncu-sass.csv 2>&1
grep -E "Duration|Issue Slots Busy|Warp Cycles Per Issued|Executed Instructions  " $L/ncu-details.txt | head -6
# Block steps, a first look: the 1M scene to t = 10.24 (100 Myr), shared dt 0.02 against block dt_max 0.16.
SNAP=$OUT/mwa-1m.nbsnap
step setup 120 $D/nbody run --scene $D/scenes/milky-way-andromeda.toml --bodies 1048576 --steps 0 --out $SNAP --overwrite
C="run --input $SNAP --backend cuda --gravity tree --t-end 10.24"
step short-shared 120 $D/nbody $C --dt 0.02
step short-block 120 $D/nbody $C --dt 0.16 --timesteps block --eta 0.2
rm -f $SNAP
tar czf $OUT/logs.tgz -C $OUT logs; rm -rf $L
echo "end at $((SECONDS-t0)) s"
