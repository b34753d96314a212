#!/usr/bin/env bash
# Device run 70 (issue 17): the kernel lab (scripts/kernel-lab): 38 variants of the every-pair
# kernel that change only the order and form of the same arithmetic, the launch bounds or B, timed
# at 256K and 1M with their SASS; the product's default every-pair config and flags 5 in the same
# call for reference; ncu's warp-stall samples per SASS instruction of the lab's baseline.
source docs/measurements/device-runs/unpack.sh
b() { local name=$1; shift; timeout 150 $D/nbody bench --backend cuda "$@" > $OUT/logs/$name.log 2>&1; echo "--- $name: exit $? (t = $((SECONDS-t0)) s)"; grep -E "^ +[0-9]+ " $OUT/logs/$name.log | head -6; }
b default-full --bodies 256K,1M --pairs full
b flags5 --bodies 256K,1M --pairs full --unroll 32 --block 1024 --threads-per-body 2 --bodies-per-thread 4 --kernel-flags 5 --split balanced
bash scripts/kernel-lab/run-on-device.sh
base=build-lab/lab-u8-q1-b4-f7-s0-lb0
timeout 240 ncu --clock-control none -k lab_force --launch-skip 2 --launch-count 1 --section WarpStateStats \
  --section SourceCounters --section SchedulerStats --section ComputeWorkloadAnalysis -o $OUT/lab/base $base 1024 > $OUT/lab/ncu.log 2>&1
echo "ncu exit $? (t = $((SECONDS-t0)) s)"
ncu --import $OUT/lab/base.ncu-rep --page source --csv --print-source sass > $OUT/lab/base-source.csv 2> $OUT/lab/base-source.err
ncu --import $OUT/lab/base.ncu-rep --page details > $OUT/lab/base-details.txt 2>&1
wc -c $OUT/lab/base-source.csv $OUT/lab/base-details.txt; head -c 600 $OUT/lab/base-source.err
grep -E "Issue|Eligible|Stall|Warp Cycles|Active Warps|No Eligible" $OUT/lab/base-details.txt | head -30
tar czf $OUT/lab-sass.tgz -C $OUT/lab sass; rm -rf $OUT/lab/sass
tar czf $OUT/logs.tgz -C $OUT logs; rm -rf $OUT/logs
echo "end at $((SECONDS-t0)) s"
