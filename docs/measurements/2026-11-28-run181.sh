#!/usr/bin/env bash
# Device run 181 (nvidia-h100-x4): Hermite4 with the block steps on the GPUs on four GPUs against one
# of the same machine (issue 30: >= 3.0x at 128K and 512K; mpirun -np 4 within 5 % of --gpus 4).
source docs/measurements/device-runs/unpack-pk.sh
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader
H="run --integrator hermite4 --scene $PWD/scenes/plummer.toml --t-end 0.25 --backend cuda --bodies 131072"
H5="run --integrator hermite4 --scene $PWD/scenes/plummer.toml --t-end 0.25 --backend cuda --bodies 524288"
MPI="mpirun --allow-run-as-root --bind-to none -np 4 -x LD_LIBRARY_PATH -x NCCL_NVLS_ENABLE"
SHOW="bodies to t|relative energy|Error|error"
for k in a b; do
  step h128k-1-$k 30 $D/nbody $H
  step h128k-4-$k 30 $D/nbody $H --gpus 4
  step h128k-mpi4-$k 40 $MPI $D/nbody $H
done
step h512k-1 60 $D/nbody $H5
step h512k-4 30 $D/nbody $H5 --gpus 4
step h512k-mpi4 40 $MPI $D/nbody $H5
tar czf $OUT/logs.tgz -C $OUT logs; rm -rf $L
echo "end at $((SECONDS-t0)) s"
