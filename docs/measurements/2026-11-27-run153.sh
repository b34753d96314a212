#!/usr/bin/env bash
# Device run 153 (nvidia-h100-x4): issue 30's Hermite on four GPUs after the batch order went to the host threads
# (run 151: 0.16 -> 0.05 s of batch sort at 128K; at 512K the batches of 32,768 or more are most blocks). One GPU
# against four in the same call, with the profile; run 150 (the head before it, same kind): 128K 2.549 / 1.622 s,
# 512K 24.646 / 9.163 s.
source docs/measurements/device-runs/unpack-pk.sh
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader
SHOW="in [0-9.]+ s:|relative energy error|batch sort|^  (select|predict|correct|commit)"
H="run --integrator hermite4 --scene $PWD/scenes/plummer.toml --t-end 0.25 --backend cuda --profile"
step h512k-1 120 $D/nbody $H --bodies 524288
step h512k-4 90 $D/nbody $H --bodies 524288 --gpus 4
step h128k-1 60 $D/nbody $H --bodies 131072
step h128k-4 60 $D/nbody $H --bodies 131072 --gpus 4
step h128k-4-again 60 $D/nbody $H --bodies 131072 --gpus 4
step h128k-1-again 60 $D/nbody $H --bodies 131072
tar czf $OUT/logs.tgz -C $OUT logs; rm -rf $L
echo "end at $((SECONDS-t0)) s"
