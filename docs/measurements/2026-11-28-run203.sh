#!/usr/bin/env bash
# Device run 203 (nvidia-h100-x2): how the tree's shares move at 1M, where bench reports a balance of
# 0.89-0.90 after settling on two GPUs (runs 192, 195): every rebalancing's widths, times and new
# widths (NBODY_TRACE_CUTS, a measurement build: docs/measurements/2026-11-28-run203-cut-trace.patch).
source docs/measurements/device-runs/unpack-pk.sh
SHOW="GPU shares|^ +[0-9]+ symm|rror"
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader
A="bench --backend cuda --gravity tree --dt 0.0625 --softening 0.05 --repeats 5 --warmup 10"
export NBODY_TRACE_CUTS=1
step b1M-1 60 $D/nbody $A -n 1M
step b1M-2 60 $D/nbody $A -n 1M --gpus 2
step b4M-2 60 $D/nbody $A -n 4M --gpus 2
tar czf $OUT/logs.tgz -C $OUT logs; rm -rf $L
echo "end at $((SECONDS-t0)) s"
