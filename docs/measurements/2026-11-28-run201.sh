#!/usr/bin/env bash
# Device run 201 (nvidia-h100-x4): more samples of the head (run 200's build) for issue 30's Hermite
# rows, alternately: 128K on one GPU (twice), four GPUs in one process and four ranks (three times
# each); 512K on four GPUs three times, whose final energy was ...544 in run 199 and ...539 in every
# other run (is the run repeatable to the last digit?).
source docs/measurements/device-runs/unpack-pk.sh
SHOW="hermite4 \(|relative energy|rror"
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader
H="run --integrator hermite4 --scene scenes/plummer.toml --t-end 0.25 --backend cuda --bodies 131072"
for k in a b c; do
  [ $k != c ] && step h1-$k 60 $D/nbody $H
  step h4-$k 60 $D/nbody $H --gpus 4
  step mpi4-$k 90 mpirun --allow-run-as-root --bind-to none -np 4 $D/nbody $H
done
for k in a b c; do
  step h512k-4-$k 90 $D/nbody run --integrator hermite4 --scene scenes/plummer.toml --t-end 0.25 --backend cuda --bodies 524288 --gpus 4
done
tar czf $OUT/logs.tgz -C $OUT logs; rm -rf $L
echo "end at $((SECONDS-t0)) s"
