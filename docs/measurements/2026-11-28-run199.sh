#!/usr/bin/env bash
# Device run 199 (nvidia-h100-x4): Hermite's block buffers and partial sums sized for every block size
# before the blocks (fit_every_block), so that no block allocates: runs 196-198 found the blocks'
# fitting 70-80 ms of a 0.68 s 128K run in four threads (25 ms a rank, 9-12 ms on one GPU). The
# Hermite CUDA tests, then 128K on one, two and four GPUs and under mpirun -np 4, 512K on four.
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
