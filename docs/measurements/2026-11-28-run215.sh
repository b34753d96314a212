#!/usr/bin/env bash
# Device run 215 (nvidia-h200): the joined tree of run 211 with each group seeing the other ranges as
# their exported tops would show them (measurement build -run215-tree-buckets.patch: with
# NBODY_MEASURE_TREE_RANGES=P and NBODY_MEASURE_TREE_BUCKETS=C, a node of another range that the walk
# opens and that has a child of at most C bodies is a bucket: its bodies join the body list). What
# the decomposition's cut of the exported trees costs the lists, the errors and the walk, on one GPU.
source docs/measurements/device-runs/unpack-pk.sh
SHOW="median|measurement"
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader
A="accuracy --gravity tree --backend cuda --sample 4096 --no-direct --steps 3 --bodies 1M --scene $D/scenes/plummer.toml"
step acc-P1 120 $D/nbody $A
for C in 0 16 32 64; do
  NBODY_MEASURE_TREE_RANGES=4 NBODY_MEASURE_TREE_BUCKETS=$C step acc-P4-C$C 120 $D/nbody $A
done
NBODY_MEASURE_TREE_RANGES=8 NBODY_MEASURE_TREE_BUCKETS=32 step acc-P8-C32 120 $D/nbody $A
export NBODY_MEASURE_TREE_PHASES=1
B="bench --backend cuda --gravity tree --repeats 3 --warmup 5 --dt 0.0625 --softening 0.05 -n 1M,4M,16M"
step bench-P1 200 $D/nbody $B
for C in 0 16 32 64; do
  NBODY_MEASURE_TREE_RANGES=4 NBODY_MEASURE_TREE_BUCKETS=$C step bench-P4-C$C 200 $D/nbody $B
done
NBODY_MEASURE_TREE_RANGES=8 NBODY_MEASURE_TREE_BUCKETS=32 step bench-P8-C32 200 $D/nbody $B
tar czf $OUT/logs.tgz -C $OUT logs; rm -rf $L
echo "end at $((SECONDS-t0)) s"
