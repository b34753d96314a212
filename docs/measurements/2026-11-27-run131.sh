#!/usr/bin/env bash
# Device run 131 (nvidia-h100-x2): main at the commit of this script.
# - The 4M tree run under mpirun: every rank now waits for the others before the clock starts, and rank 0
#   prints how long each waited (run 130: the first step 223-530 ms under mpirun in two runs of four, 33 ms
#   with --gpus 2, with NCCL's connections made at creation). Four of each, alternately; Hermite4 128K twice.
# - The viewer's every-pair energy line on the GPU: the last sum's length and the period at 262,144 and 1M.
source docs/measurements/device-runs/unpack-pk.sh
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader
SHOW="in [0-9.]+ s,|by step call|ready to step"
MPI="mpirun --allow-run-as-root --bind-to none -np 2 -x LD_LIBRARY_PATH -x NCCL_NVLS_ENABLE"
RT="$D/nbody run --backend cuda --scene $D/scenes/plummer.toml --bodies 4194304 --gravity tree --steps 100"
for k in a b c d; do
  step tree4m-mpi-$k 60 $MPI $RT
  step tree4m-gpus-$k 60 $RT --gpus 2
done
SHOW="in [0-9.]+ s:|ready to step"
H="run --integrator hermite4 --scene $PWD/scenes/plummer.toml --t-end 0.25 --backend cuda --bodies 131072"
for k in a b; do
  step h128k-gpus2-$k 40 $D/nbody $H --gpus 2
  step h128k-mpi2-$k 60 $MPI $D/nbody $H
done
SHOW="energy line|fps_report"
step view-direct-256k 120 env NBODY_SIM_THREAD=1 $D/nbody view --headless --backend cuda --gravity direct --size 640x360 \
  --frames 300 --bodies 262144 --scene $PWD/scenes/plummer.toml
step view-direct-1m 150 env NBODY_SIM_THREAD=1 $D/nbody view --headless --backend cuda --gravity direct --size 640x360 \
  --frames 900 --bodies 1048576 --scene $PWD/scenes/plummer.toml
tar czf $OUT/logs.tgz -C $OUT logs; rm -rf $L
echo "end at $((SECONDS-t0)) s"
