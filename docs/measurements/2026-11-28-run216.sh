#!/usr/bin/env bash
# Device run 216 (nvidia-h200): the census of a locally essential tree (measurement build
# -run216-tree-let-census.patch: run 211's joined ranges; with NBODY_MEASURE_TREE_LET=1 the walk marks
# every node of another range that a group tests, per the group's range, and the first force pass at
# each N prints how many nodes and leaf bodies each range would send each other range): the exact
# set the distance-cut export must hold, so the bytes a decomposition moves per step, P = 2, 4, 8.
source docs/measurements/device-runs/unpack-pk.sh
SHOW="measurement: LET|ms/step"
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader
export NBODY_MEASURE_TREE_LET=1
B="bench --backend cuda --gravity tree --repeats 1 --warmup 1 --dt 0.0625 --softening 0.05"
for P in 2 4 8; do
  NBODY_MEASURE_TREE_RANGES=$P step let-P$P 200 $D/nbody $B -n 1M,4M,16M
done
grep -h "measurement:   range" $L/let-P4.log | head -40
tar czf $OUT/logs.tgz -C $OUT logs; rm -rf $L
echo "end at $((SECONDS-t0)) s"
