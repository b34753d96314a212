#!/usr/bin/env bash
# Device run 162 (one GPU): issue 32's comparison in one call: Bonsai (treecode/Bonsai @581fa8e, its
# kernels unchanged, build-pack/bonsai.tar.xz from 2026-11-27-bonsai-build.sh) at theta 0.5 on a
# Plummer sphere of 1M and 16M bodies (tree build + gravity, the median of 10 steps), against our
# whole step with the defaults (the relative criterion) and with the angle alone (theta 0.5), both
# Plummer spheres with softening 0.05 and dt 1/16; then the walk kernel's profile at 1M with the
# defaults (Nsight Compute), for docs/TREE.md's before and after.
source docs/measurements/device-runs/unpack-pk.sh
SHOW="^ +[0-9]+ |median"
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader
B="bench --backend cuda --gravity tree --repeats 5 --warmup 20 --dt 0.0625 --softening 0.05"
for round in 1 2; do
  step b1m-default-$round 60 $D/nbody $B -n 1M
  step b1m-angle-$round 60 $D/nbody $B -n 1M --theta 0.5 --alpha 0
  step bonsai-1m-$round 120 bash docs/measurements/2026-11-27-bonsai-run.sh 1048576 0.5 $L/bonsai-1m-$round.log 10
done
step b16m-default 90 $D/nbody $B -n 16M
step b16m-angle 90 $D/nbody $B -n 16M --theta 0.5 --alpha 0
step bonsai-16m 240 bash docs/measurements/2026-11-27-bonsai-run.sh 16777216 0.5 $L/bonsai-16m.log 10
SHOW="Duration|Issue Slots Busy|Warp Cycles Per Issued|Executed Instructions  "
step ncu 150 ncu --clock-control none --set full -k regex:walk_kernel -s 3 -c 1 -o $OUT/walk-relative \
    $D/nbody bench --backend cuda --gravity tree -n 1M --repeats 1 --warmup 1 --steps 3 --dt 0.0625 --softening 0.05
timeout 60 ncu --import $OUT/walk-relative.ncu-rep --page details > $L/ncu-details.txt 2>&1
grep -E "Duration|Issue Slots Busy|Warp Cycles Per Issued|Executed Instructions  |Achieved Occupancy|Registers Per" $L/ncu-details.txt | head -12
tar czf $OUT/logs.tgz -C $OUT logs; rm -rf $L
echo "end at $((SECONDS-t0)) s"
