#!/usr/bin/env bash
# Device run 154 (nvidia-h100-x4: 64 host cores): run 153's 512K profile on four GPUs puts 0.61 s in the commit (write
# back, set_j), memory-bound loops on the host pool, which takes min(cores, 16) threads. The pool at 16 (the default),
# 32 and 48 threads (NBODY_HERMITE_THREADS), one GPU and four, 512K and 128K, in one call.
source docs/measurements/device-runs/unpack-pk.sh
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader
lscpu | grep -E "^CPU\(s\)|Socket|NUMA node\(s\)|Model name"
SHOW="in [0-9.]+ s:|^  (select|predict|correct|commit)"
H="run --integrator hermite4 --scene $PWD/scenes/plummer.toml --t-end 0.25 --backend cuda --profile"
for t in 16 32 48; do
  step h512k-4-t$t 90 env NBODY_HERMITE_THREADS=$t $D/nbody $H --bodies 524288 --gpus 4
  step h128k-4-t$t 60 env NBODY_HERMITE_THREADS=$t $D/nbody $H --bodies 131072 --gpus 4
done
for t in 16 32; do
  step h512k-1-t$t 120 env NBODY_HERMITE_THREADS=$t $D/nbody $H --bodies 524288
  step h128k-1-t$t 60 env NBODY_HERMITE_THREADS=$t $D/nbody $H --bodies 131072
done
tar czf $OUT/logs.tgz -C $OUT logs; rm -rf $L
echo "end at $((SECONDS-t0)) s"
