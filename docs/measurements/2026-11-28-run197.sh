#!/usr/bin/env bash
# Device run 197 (nvidia-h100-x4): the rest of a Hermite block's host time (decide, reorder, fit, meeting, account, the state up and down), in four
# threads of one process (--gpus 4) against four mpirun ranks (rank 0's), 128K to t = 0.25; a
# measurement build (docs/measurements/2026-11-28-run196-hermite-host-laps.patch on 4de9d62).
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
