#!/usr/bin/env bash
# Device run 174 (nvidia-h100-x4): the tree's four-GPU points of run 170 again with bench timing the
# shares after they settled (72 untimed step calls first): 16M strong, 64M weak, against one GPU of
# the same machine in the same call.
source docs/measurements/device-runs/unpack-pk.sh
SHOW="^ +[0-9]+ symm|GPU shares|settled"
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader
T="$D/nbody bench --backend cuda --gravity tree --repeats 3 --warmup 5 --dt 0.0625 --softening 0.05"
step tree16m-1 90 $T -n 16M
step tree16m-4 90 $T -n 16M --gpus 4
step tree64m-4 180 $T -n 64M --gpus 4
step tree16m-4-b 90 $T -n 16M --gpus 4
step tree1m-1 60 $T -n 1M
step tree1m-4 60 $T -n 1M --gpus 4
tar czf $OUT/logs.tgz -C $OUT logs; rm -rf $L
echo "end at $((SECONDS-t0)) s"
