#!/usr/bin/env bash
# Device run 187 (nvidia-h100-x4): the tree built in key ranges on four GPUs against the replicated
# build split by groups (NBODY_TREE_SPLIT=groups) and one GPU: 16M strong, 64M weak, 4M and 1M;
# `run` tree 4M on four GPUs against four mpirun ranks in key ranges.
source docs/measurements/device-runs/unpack-pk.sh
SHOW="^ +[0-9]+ symm|GPU shares|settled|rror"
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader
T="$D/nbody bench --backend cuda --gravity tree --repeats 3 --warmup 5 --dt 0.0625 --softening 0.05"
G="env NBODY_TREE_SPLIT=groups"
step tree16m-1 90 $T -n 16M
step tree16m-4keys 90 $T -n 16M --gpus 4
step tree16m-4groups 90 $G $T -n 16M --gpus 4
step tree64m-4keys 180 $T -n 64M --gpus 4
step tree64m-4groups 180 $G $T -n 64M --gpus 4
step tree16m-4keys-b 90 $T -n 16M --gpus 4
step tree4m-1 60 $T -n 4M
step tree4m-4keys 60 $T -n 4M --gpus 4
step tree4m-4groups 60 $G $T -n 4M --gpus 4
step tree1m-1 60 $T -n 1M
step tree1m-4keys 60 $T -n 1M --gpus 4
step tree1m-4groups 60 $G $T -n 1M --gpus 4
SHOW="steps|terms|rror"
R="run --scene $PWD/scenes/plummer.toml --bodies 4194304 --gravity tree --backend cuda --steps 100"
MPI="mpirun --allow-run-as-root --bind-to none -np 4 -x LD_LIBRARY_PATH -x NCCL_NVLS_ENABLE"
step run4m-4 90 $D/nbody $R --gpus 4
step run4m-mpi4 120 $MPI $D/nbody $R
step run4m-4-b 90 $D/nbody $R --gpus 4
step run4m-mpi4-b 120 $MPI $D/nbody $R
tar czf $OUT/logs.tgz -C $OUT logs; rm -rf $L
echo "end at $((SECONDS-t0)) s"
