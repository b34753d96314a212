#!/usr/bin/env bash
# Device run 191 (nvidia-h100-x4): does NCCL's launch mode make four threads of one process queue
# their all-gathers slower than four mpirun ranks (run 188: 52 against 15 us a block)? Hermite4 128K
# and 512K on one GPU, on four GPUs with NCCL_LAUNCH_MODE unset, PARALLEL and GROUP, and four ranks;
# the tree at 16M on four GPUs with each mode.
source docs/measurements/device-runs/unpack-pk.sh
SHOW="bodies to t|NCCL INFO.*[Ll]aunch|rror"
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader
H="run --integrator hermite4 --scene $PWD/scenes/plummer.toml --t-end 0.25 --backend cuda --bodies 131072"
MPI="mpirun --allow-run-as-root --bind-to none -np 4 -x LD_LIBRARY_PATH -x NCCL_NVLS_ENABLE"
step h1 60 $D/nbody $H
for k in a b; do
  step h4-$k 60 $D/nbody $H --gpus 4
  step h4-parallel-$k 60 env NCCL_LAUNCH_MODE=PARALLEL $D/nbody $H --gpus 4
  step h4-group-$k 60 env NCCL_LAUNCH_MODE=GROUP $D/nbody $H --gpus 4
  step mpi4-$k 90 $MPI $D/nbody $H
done
step h4-debug 60 env NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,ENV $D/nbody $H --gpus 4
H5="run --integrator hermite4 --scene $PWD/scenes/plummer.toml --t-end 0.25 --backend cuda --bodies 524288"
step h512k-4 90 $D/nbody $H5 --gpus 4
step h512k-4-parallel 90 env NCCL_LAUNCH_MODE=PARALLEL $D/nbody $H5 --gpus 4
step h512k-mpi4 120 $MPI $D/nbody $H5
SHOW="^ +[0-9]+ symm|rror"
T="bench --backend cuda --gravity tree --dt 0.0625 --softening 0.05 --repeats 3 --warmup 5 -n 16M --gpus 4"
step tree16m-4 90 $D/nbody $T
step tree16m-4-parallel 90 env NCCL_LAUNCH_MODE=PARALLEL $D/nbody $T
tar czf $OUT/logs.tgz -C $OUT logs; rm -rf $L
echo "end at $((SECONDS-t0)) s"
