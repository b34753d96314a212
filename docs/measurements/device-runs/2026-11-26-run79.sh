#!/usr/bin/env bash
# Device run 79 (issue 17): the kernel lab's LAB_DIRECT variants (scripts/kernel-lab/variants-direct.txt):
# no shared memory and no tile barrier, every warp reading the j-bodies straight from a global copy
# in tile layout (warp-uniform LDG.128 at immediate offsets, served by L1). Run 70's ncu put 45 % of
# the cycles in which no warp issued on the per-tile barrier. The lab's barrier versions and the
# product's default every-pair config and flags 5 are timed in the same call; ncu's scheduler
# statistics for the direct U8 q1 B4 flags 7 and U32 q2 B4 flags 5.
source docs/measurements/device-runs/unpack.sh
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader
b() { local name=$1; shift; timeout 150 $D/nbody bench --backend cuda "$@" > $OUT/logs/$name.log 2>&1; echo "--- $name: exit $? (t = $((SECONDS-t0)) s)"; grep -E "^ +[0-9]+ |check|error" $OUT/logs/$name.log | head -8; }
b default-full --bodies 256K,1M --pairs full
b flags5 --bodies 256K,1M --pairs full --unroll 32 --block 1024 --threads-per-body 2 --bodies-per-thread 4 --kernel-flags 5 --split balanced
VARIANTS=variants-direct.txt bash scripts/kernel-lab/run-on-device.sh
for v in lab-u8-q1-b4-f7-s1-lb0-k0-pk0-d1 lab-u32-q2-b4-f5-s1-lb0-k0-pk0-d1; do
  timeout 120 ncu --clock-control none -k lab_force --launch-skip 2 --launch-count 1 --section WarpStateStats \
    --section SchedulerStats build-lab/$v 1024 > $OUT/lab/ncu-$v.log 2>&1
  echo "ncu $v exit $? (t = $((SECONDS-t0)) s)"
  grep -E "Issue Slots|No Eligible|Eligible Warps|Active Warps|Stall|Warp Cycles" $OUT/lab/ncu-$v.log | head -12
done
tar czf $OUT/lab-sass.tgz -C $OUT/lab sass; rm -rf $OUT/lab/sass
tar czf $OUT/logs.tgz -C $OUT logs; rm -rf $OUT/logs
echo "end at $((SECONDS-t0)) s"
