#!/usr/bin/env bash
# Device run 198 (nvidia-h100-x4): run 197 again with ScopedDevice putting the device back only where it
# changed it (cudaSetDevice to the current device skipped; run 197: "fit", whose one CUDA call is that, took
# 70-76 ms of a 0.68 s run in four threads, 25 ms a rank, 12 ms on one GPU); measurement build as run 197.
source docs/measurements/device-runs/unpack-pk.sh
SHOW="hermite4 \(|host laps|rror"
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader
H="run --integrator hermite4 --scene scenes/plummer.toml --t-end 0.25 --backend cuda --bodies 131072"
step h1 60 $D/nbody $H
for k in a b; do
  step h4-$k 60 $D/nbody $H --gpus 4
  step mpi4-$k 90 mpirun --allow-run-as-root --bind-to none -np 4 $D/nbody $H
done
tar czf $OUT/logs.tgz -C $OUT logs; rm -rf $L
echo "end at $((SECONDS-t0)) s"
