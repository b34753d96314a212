#!/usr/bin/env bash
# Device run 82 (issue 17): more warps instead of more registers. The kernel lab's variants at 40
# registers (1536 threads, 12 warps per scheduler: q2 B3, q1 B2/B3) and 32 (2048 threads, 16 warps:
# q2 B2) under __launch_bounds__(p, blocks per SM) (scripts/kernel-lab/variants-occupancy.txt),
# against the lab's 64-register U8 q1 B4 flags 7 and U32 q2 B4 flags 5 in the same call. Run 81
# showed the loop alone, without tiles or barriers, stops at the same ~2.40e12 with 13 % of the
# cycles without an eligible warp out of 8.
set -u
t0=$SECONDS
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader
VARIANTS=variants-occupancy.txt bash scripts/kernel-lab/run-on-device.sh
tar czf $OUT/lab-sass.tgz -C $OUT/lab sass; rm -rf $OUT/lab/sass
echo "end at $((SECONDS-t0)) s"
