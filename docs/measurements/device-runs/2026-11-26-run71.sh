#!/usr/bin/env bash
# Device run 71 (issue 17): the kernel lab's ring of tiles with mbarriers (force_body_ring, LAB_PIPE)
# against the product's barrier per tile, same call; ncu's stall samples of the fastest ring variant.
set -u
VARIANTS=variants-ring.txt bash scripts/kernel-lab/run-on-device.sh
for v in lab-u8-q1-b4-f7-s0-lb0-k3; do
  timeout 200 ncu --clock-control none -k lab_force --launch-skip 2 --launch-count 1 --section WarpStateStats \
    --section SourceCounters --section SchedulerStats -o $OUT/lab/$v build-lab/$v 1024 > $OUT/lab/ncu-$v.log 2>&1
  ncu --import $OUT/lab/$v.ncu-rep --page source --csv --print-source sass > $OUT/lab/$v-source.csv 2>/dev/null
  ncu --import $OUT/lab/$v.ncu-rep --page details 2>&1 | grep -E "Issue Slots|No Eligible|Eligible Warps|Active Warps" 
done
tar czf $OUT/lab-sass.tgz -C $OUT/lab sass; rm -rf $OUT/lab/sass
