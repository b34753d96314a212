#!/usr/bin/env bash
# Device run 200 (nvidia-h100-x4): the block counters reset by the predict kernel instead of a copy a block,
# and `nbody run` looking at the clock every 2.5e11 pairs times the GPUs sharing them (each look brings
# the state down and up again). The Hermite CUDA tests, then 128K on one, two and four GPUs and under
# mpirun -np 4, 512K on four (run 199 before these: 0.617 s on four, 0.576-0.580 s under mpirun).
source docs/measurements/device-runs/unpack-pk.sh
SHOW="PASSED|FAILED|Failure|Expected|Which is"
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader
step tests 300 $D/nbody_cuda_tests --gtest_color=no --gtest_filter='Hermite*:*Hermite*:G6*:*Grape*'
SHOW="hermite4 \(|rror"
H="run --integrator hermite4 --scene scenes/plummer.toml --t-end 0.25 --backend cuda --bodies 131072"
step h1 60 $D/nbody $H
step h2 60 $D/nbody $H --gpus 2
for k in a b c; do
  step h4-$k 60 $D/nbody $H --gpus 4
  step mpi4-$k 90 mpirun --allow-run-as-root --bind-to none -np 4 $D/nbody $H
done
step h512k-4 90 $D/nbody run --integrator hermite4 --scene scenes/plummer.toml --t-end 0.25 --backend cuda --bodies 524288 --gpus 4
tar czf $OUT/logs.tgz -C $OUT logs; rm -rf $L
echo "end at $((SECONDS-t0)) s"
