#!/usr/bin/env bash
# Device run 206 (nvidia-h200; the four-GPU steps only where the machine has four: it had one): where a Hermite 128K block's time goes by the block's size, on one
# GPU and on four (measurement build: docs/measurements/2026-11-28-run206-block-laps.patch prints
# the first GPU thread's wall time per block by log2(active bodies), spread or whole, at exit), and
# the spread threshold (EngineConfig::several_gpus_from, 2^25 pairs) swept on four GPUs.
source docs/measurements/device-runs/unpack-pk.sh
SHOW="hermite4 \(|relative energy|rror|block laps"
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader
export NBODY_MEASURE_LAPS=1
H="run --integrator hermite4 --scene scenes/plummer.toml --t-end 0.25 --backend cuda --bodies 131072"
step h1 60 $D/nbody $H
step h1-b 60 $D/nbody $H
[ "$(nvidia-smi -L | wc -l)" -ge 4 ] || { tar czf $OUT/logs.tgz -C $OUT logs; echo "one GPU: end at $((SECONDS-t0)) s"; exit 0; }
step h4 60 $D/nbody $H --gpus 4
step mpi4 90 mpirun --allow-run-as-root --bind-to none -x NBODY_MEASURE_LAPS -np 4 $D/nbody $H
unset NBODY_MEASURE_LAPS
for from in 4194304 8388608 16777216 33554432 67108864; do
  for k in a b; do NBODY_MEASURE_SPREAD_FROM=$from step h4-from$from-$k 60 $D/nbody $H --gpus 4; done
done
tar czf $OUT/logs.tgz -C $OUT logs; rm -rf $L
echo "end at $((SECONDS-t0)) s"
