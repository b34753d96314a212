#!/usr/bin/env bash
# Device run 94 (nvidia-h100-x4, issue 30): four GPUs against one of the same machine in one call:
# every pair at 1M and 4M (strong), the tree at 16M (strong) and 16M per GPU (weak: 64M on four),
# Hermite4 128K to t = 0.25, and --gpus 4 against mpirun -np 4 on the tree at 4M. 512K Hermite and
# the 8-GPU kind are not in this call (device time).
source docs/measurements/device-runs/unpack-pk.sh
SHOW="^ +[0-9]+ (full|symm)|GPU shares|steps of dt|blocks,|error|refused|Failure"
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader; nvidia-smi topo -m | head -6
B="$D/nbody bench --backend cuda --pairs full"
step ep1m-1 60 $B -n 1M --repeats 3 --warmup 1
step ep1m-4 60 $B -n 1M --repeats 3 --warmup 1 --gpus 4
step ep4m-1 60 $B -n 4M --repeats 1 --warmup 0 --steps 1
step ep4m-4 60 $B -n 4M --repeats 3 --warmup 1 --steps 1 --gpus 4
T="$D/nbody bench --backend cuda --gravity tree --repeats 3 --warmup 2 --dt 0.0625 --softening 0.05"
step tree16m-1 90 $T -n 16M
step tree16m-4 90 $T -n 16M --gpus 4
step tree64m-4 150 $T -n 64M --gpus 4
H="$D/nbody run --integrator hermite4 --scene $D/scenes/plummer.toml --bodies 131072 --t-end 0.25 --backend cuda"
step hermite128k-1 120 $H
step hermite128k-4 120 $H --gpus 4
RT="$D/nbody run --backend cuda --scene $D/scenes/plummer.toml --bodies 4194304 --gravity tree --steps 100"
step tree4m-run-4 90 $RT --gpus 4
step tree4m-mpi-4 90 mpirun --allow-run-as-root --bind-to none -np 4 -x LD_LIBRARY_PATH -x NCCL_NVLS_ENABLE $RT
tar czf $OUT/logs.tgz -C $OUT logs; rm -rf $L
echo "end at $((SECONDS-t0)) s"
