#!/usr/bin/env bash
# Device run 186 (nvidia-h100-x2): why the walk of every group against a key range's tree costs more
# than the share of the whole tree's walk (run 185): the tree terms computed by one GPU, by two GPUs
# in key ranges and by two GPUs split by groups, `run` tree 4M and 16M, 20 steps.
source docs/measurements/device-runs/unpack-pk.sh
SHOW="steps|terms|rror"
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader
for n in 4194304 16777216; do
  R="run --scene $PWD/scenes/plummer.toml --bodies $n --gravity tree --backend cuda --steps 20"
  step run$n-1 90 $D/nbody $R
  step run$n-2keys 90 $D/nbody $R --gpus 2
  step run$n-2groups 90 env NBODY_TREE_SPLIT=groups $D/nbody $R --gpus 2
done
tar czf $OUT/logs.tgz -C $OUT logs; rm -rf $L
echo "end at $((SECONDS-t0)) s"
