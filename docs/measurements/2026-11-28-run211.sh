#!/usr/bin/env bash
# Device run 211 (nvidia-h200): the tree with its top splits forced at P equal key ranges, each
# range's own radix tree joined by a top tree of P - 1 nodes (measurement build,
# -run211-tree-ranges.patch; run 210 ran a first version whose top nodes took ids that broke the moments pass at P > 2, NBODY_MEASURE_TREE_RANGES=P), on one GPU: what the walk of such a
# joined tree costs against the one tree (the question the domain decomposition of
# docs/DISTRIBUTED.md turns on), its errors and lists, P = 1 (the tree as it is), 2, 4, 8.
source docs/measurements/device-runs/unpack-pk.sh
SHOW="median|list|ms/step|step_ms|rror"
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader
A="accuracy --gravity tree --backend cuda --sample 4096 --no-direct --steps 3 --bodies 1M --scene $D/scenes/plummer.toml"
B="bench --backend cuda --gravity tree --repeats 5 --warmup 10 --dt 0.0625 --softening 0.05"
for P in 1 2 4 8; do
  NBODY_MEASURE_TREE_RANGES=$P step acc-1m-P$P 120 $D/nbody $A
done
for P in 1 4 8 2 1; do
  NBODY_MEASURE_TREE_RANGES=$P step bench-P$P 200 $D/nbody $B -n 1M,4M,16M
  grep -E "^ *(1048576|4194304|16777216|N)|ms" $L/bench-P$P.log | head -8
done
tar czf $OUT/logs.tgz -C $OUT logs; rm -rf $L
echo "end at $((SECONDS-t0)) s"
