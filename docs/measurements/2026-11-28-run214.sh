#!/usr/bin/env bash
# Device run 214 (nvidia-h200-x2): the head after the reduction by warps (b2e1815 and the docs after
# it): every CUDA test, then issue 29's rows on two GPUs against one of them in the same call:
# bench tree 16M, Hermite4 128K (one GPU, --gpus 2, mpirun -np 2), the viewer at 1M.
source docs/measurements/device-runs/unpack-pk.sh
SHOW="PASSED|FAILED|Failure|tests ran"
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader
step cuda-tests 420 $D/nbody_cuda_tests --gtest_color=no
grep -E "^\[  (PASSED|FAILED|SKIPPED) " $L/cuda-tests.log | head -20
SHOW="^ +[0-9]+ symm|GPU shares|rror"
A="bench --backend cuda --gravity tree --dt 0.0625 --softening 0.05 --repeats 5 --warmup 10 -n 16M"
step b16M-1 60 $D/nbody $A
step b16M-2 60 $D/nbody $A --gpus 2
SHOW="hermite4 \(|relative energy|rror"
H="run --integrator hermite4 --scene scenes/plummer.toml --t-end 0.25 --backend cuda --bodies 131072"
for k in a b; do
  step h1-$k 60 $D/nbody $H
  step h2-$k 60 $D/nbody $H --gpus 2
  step mpi2-$k 90 mpirun --allow-run-as-root --bind-to none -np 2 $D/nbody $H
done
SHOW="frames 2\.\.|rror"
V="view --headless --backend cuda --scene scenes/milky-way-andromeda.toml --gravity tree --steps-per-frame 1 --no-ui --size 1920x1080 --bodies 1048576 --frames 600"
step v1 90 $D/nbody $V
step v2 90 $D/nbody $V --gpus 2
tar czf $OUT/logs.tgz -C $OUT logs; rm -rf $L
echo "end at $((SECONDS-t0)) s"
