#!/usr/bin/env bash
# Device run 212 (nvidia-h200-x2): what the tree walk costs when what it reads (the nodes and the
# sorted bodies) is another GPU's memory, read in place over NVLink (measurement build,
# -run212-tree-remote.patch on top of run 211's: NBODY_MEASURE_TREE_REMOTE=1 allocates those arrays
# on the next GPU, with peer access; NBODY_MEASURE_TREE_PHASES=1 prints each N's mean build, moments
# and walk times from the pass's CUDA events). The worst case of a domain decomposition that reads
# the other GPUs' trees in place: every node remote, where such a decomposition would read its own
# range's nodes locally.
source docs/measurements/device-runs/unpack-pk.sh
SHOW="measurement|ms/step"
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader
nvidia-smi topo -m | head -4
export NBODY_MEASURE_TREE_PHASES=1
B="bench --backend cuda --gravity tree --repeats 3 --warmup 5 --dt 0.0625 --softening 0.05 -n 1M,4M,16M"
for k in a b; do
  step local-$k 200 $D/nbody $B
  NBODY_MEASURE_TREE_REMOTE=1 step remote-$k 300 $D/nbody $B
done
NBODY_MEASURE_TREE_RANGES=4 step ranges4 200 $D/nbody $B
tar czf $OUT/logs.tgz -C $OUT logs; rm -rf $L
echo "end at $((SECONDS-t0)) s"
