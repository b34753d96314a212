#!/usr/bin/env bash
# Device run 175 (nvidia-h100-x2): where the first GPU's extra ~1.8 ms a step goes (runs 173-174: at
# 1M GPU 0 takes 4.2 ms for 45 % of the walk, GPU 1 2.5 ms for 55 %): bench now prints each GPU's
# tree phases beside its share; the same with the GPUs' order swapped (CUDA_VISIBLE_DEVICES=1,0),
# so that an extra that stays with the first backend is software and one that follows the
# physical GPU is not.
source docs/measurements/device-runs/unpack-pk.sh
SHOW="^ +[0-9]+ symm|GPU shares"
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader
B="$D/nbody bench --backend cuda --gravity tree --dt 0.0625 --softening 0.05 --repeats 5 --warmup 10"
step b1m-2 60 $B -n 1M --gpus 2
step b1m-2-swapped 60 env CUDA_VISIBLE_DEVICES=1,0 $B -n 1M --gpus 2
step b4m-2 60 $B -n 4M --gpus 2
step b1m-1 60 $B -n 1M
tar czf $OUT/logs.tgz -C $OUT logs; rm -rf $L
echo "end at $((SECONDS-t0)) s"
