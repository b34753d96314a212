#!/usr/bin/env bash
# Device run 188 (nvidia-h100-x4): why Hermite4's block steps on four GPUs of one process (a thread per
# GPU) are slower than four mpirun ranks at 128K: each thread's host time per phase of a block
# (NBODY_HERMITE_BLOCK_TIMES) and, as an experiment, the block's counters read by spinning on mapped
# page-locked memory the GPU writes (NBODY_HERMITE_SPIN) instead of a copy and a stream synchronize.
source docs/measurements/device-runs/unpack-pk.sh
SHOW="bodies to t|block host times"
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader
export NBODY_HERMITE_BLOCK_TIMES=1
H="run --integrator hermite4 --scene $PWD/scenes/plummer.toml --t-end 0.25 --backend cuda --bodies 131072"
MPI="mpirun --allow-run-as-root --bind-to none -np 4 -x LD_LIBRARY_PATH -x NCCL_NVLS_ENABLE -x NBODY_HERMITE_BLOCK_TIMES"
step h1 60 $D/nbody $H
step h1-spin 60 env NBODY_HERMITE_SPIN=1 $D/nbody $H
for k in a b; do
  step h4-$k 60 $D/nbody $H --gpus 4
  step h4-spin-$k 60 env NBODY_HERMITE_SPIN=1 $D/nbody $H --gpus 4
  step mpi4-$k 90 $MPI $D/nbody $H
  step mpi4-spin-$k 90 $MPI -x NBODY_HERMITE_SPIN=1 $D/nbody $H
done
H5="run --integrator hermite4 --scene $PWD/scenes/plummer.toml --t-end 0.25 --backend cuda --bodies 524288"
step h512k-4 90 $D/nbody $H5 --gpus 4
step h512k-4-spin 90 env NBODY_HERMITE_SPIN=1 $D/nbody $H5 --gpus 4
step h512k-mpi4 120 $MPI $D/nbody $H5
tar czf $OUT/logs.tgz -C $OUT logs; rm -rf $L
echo "end at $((SECONDS-t0)) s"
